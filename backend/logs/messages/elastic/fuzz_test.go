package elastic

import (
	"encoding/json"
	"math"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/loggate/loggate/backend/logs/messages"
)

// FuzzParseSearch feeds arbitrary search answers to the parser: the server
// is outside input. A parsed hit must have the fields of its _source, and
// only value types a Message may hold.
func FuzzParseSearch(f *testing.F) {
	f.Add([]byte(searchAnswer7))
	f.Add([]byte(`{"hits":{"total":7,"hits":[]}}`))
	f.Add([]byte(`{"hits":{"total":{"value":1},"hits":[{"_index":"a_0","_id":"x","_source":{"timestamp":1606816800123,"streams":null,"a":[{"b":null}],"n":-0.0e-3}}]}}`))
	f.Add([]byte(`{"hits":{"total":1,"hits":[{"_index":"a_0","_id":"x","_source":{"timestamp":"2020-02-30 25:61:61.999","k\u0000":"\ud800"}}]}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		res, err := parseSearch(body)
		if err != nil {
			return
		}
		if res.Hits == nil {
			t.Fatal("nil Hits from a parsed answer")
		}
		for _, h := range res.Hits {
			checkMessage(t, h.Message)
		}
	})
}

// FuzzParseDoc does the same for GET /<index>/_doc/<id> answers and the
// other small answers the store reads.
func FuzzParseDoc(f *testing.F) {
	f.Add([]byte(`{"_index":"graylog_0","_type":"_doc","_id":"id-1","_version":1,"found":true,"_source":{"timestamp":"2020-12-01 10:00:00.000","streams":["s"],"message":"hi","n":12345678901234567890}}`))
	f.Add([]byte(`{"_index":"x","_id":"y","found":false}`))
	f.Add([]byte(`{"errors":true,"items":[{"index":{"_id":"a","status":429,"error":{"type":"es_rejected_execution_exception"}}}]}`))
	f.Add([]byte(`[{"index":"graylog_0","docs.count":"3","store.size":"2048","creation.date":"1606816800000"}]`))
	f.Add([]byte(`{"graylog_2":{"aliases":{"graylog_deflector":{}}},"error":"x","status":404}`))
	f.Add([]byte(`{"error":{"root_cause":[{"type":"a","reason":"b"}],"type":"c","reason":"d","caused_by":{}},"status":400}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		if hit, err := parseDoc(body); err == nil {
			checkMessage(t, hit.Message)
		}
		_, _ = parseBulk(body)
		_, _ = parseCheckpoint(body)
		_, _ = parseServer(body)
		_ = parseAliases(body)
		_ = parseError(400, body).Error()
		if list, err := parseCat(body, []string{"graylog"}); err == nil {
			for _, idx := range list {
				if idx.Prefix != "graylog" || idx.Name != indexName("graylog", idx.Number) {
					t.Fatalf("parseCat kept %+v", idx)
				}
			}
		}
	})
}

// string([]rune(s)) replaces each invalid byte with U+FFFD, as
// appendString and encoding/json do.

func checkMessage(t *testing.T, m messages.Message) {
	t.Helper()
	if m.Streams == nil {
		t.Fatal("nil Streams")
	}
	seen := map[string]bool{}
	for _, fl := range m.Fields {
		if seen[fl.Key] {
			t.Fatalf("key %q twice", fl.Key)
		}
		seen[fl.Key] = true
		switch fl.Value.(type) {
		case string, int64, float64, bool:
		default:
			t.Fatalf("field %q has type %T", fl.Key, fl.Value)
		}
		if fl.Key == idField {
			t.Fatalf("the id copy %s leaked into the fields", idField)
		}
	}
}

// FuzzDocumentRoundTrip writes a message with fuzzed keys and values and
// reads it back: the document must be valid JSON and give back every
// stored field unchanged.
func FuzzDocumentRoundTrip(f *testing.F) {
	f.Add("id", "key", "value", int64(-5), 1.5, true, int64(1606816800123))
	f.Add("x\"y", "a.b", "\x00\xff\u2028", int64(math.MinInt64), 3.0, false, int64(-1))
	f.Add("", "_source", "", int64(0), math.Inf(1), true, int64(253402300799999))
	f.Fuzz(func(t *testing.T, id, key, str string, n int64, fl float64, b bool, ms int64) {
		ms = min(max(ms, -62135596800000), 253402300799999) // years 1 to 9999
		m := messages.Message{
			ID:        id,
			Timestamp: time.UnixMilli(ms).UTC(),
			Streams:   []string{str},
			Fields: []messages.Field{
				{Key: key, Value: str}, {Key: key + "_n", Value: n},
				{Key: key + "_f", Value: fl}, {Key: key + "_b", Value: b},
			},
		}
		doc := appendDocument(nil, &m)
		if !json.Valid(doc) {
			t.Fatalf("invalid JSON: %s", doc)
		}
		got := parseSource(id, gjson.ParseBytes(doc))
		checkMessage(t, got)
		if !got.Timestamp.Equal(m.Timestamp) {
			t.Errorf("timestamp %v, want %v", got.Timestamp, m.Timestamp)
		}
		valid := string([]rune(str))
		if len(got.Streams) != 1 || got.Streams[0] != valid {
			t.Errorf("streams %q, want [%q]", got.Streams, valid)
		}
		for _, want := range m.Fields {
			k, ok := fieldKey(want.Key)
			if !ok {
				continue
			}
			v, found := got.Get(k)
			if fv, isFloat := want.Value.(float64); isFloat && (math.IsNaN(fv) || math.IsInf(fv, 0)) {
				if found {
					t.Errorf("non-finite %s stored as %v", k, v)
				}
				continue
			}
			if s, isString := want.Value.(string); isString {
				want.Value = string([]rune(s))
			}
			if !found || v != want.Value {
				t.Errorf("field %q = %#v (%v), want %#v", k, v, found, want.Value)
			}
		}
		if !utf8.Valid(doc) {
			t.Errorf("document is not UTF-8")
		}
	})
}
