package elastic

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/loggate/loggate/backend/logs/messages"
)

// searchAnswer7 is a 7.x search answer with a hit of every value type and
// one written by another program (ISO timestamp, one stream as a string,
// an object, an array, null, a huge integer).
const searchAnswer7 = `{"took":3,"timed_out":false,"_shards":{"total":1,"successful":1,"skipped":0,"failed":0},
"hits":{"total":{"value":12345,"relation":"eq"},"max_score":null,"hits":[
{"_index":"graylog_3","_type":"_doc","_id":"id-1","_score":null,"_source":{
 "timestamp":"2020-12-01 10:00:00.123","streams":["s1","s2"],"gl2_loggate_id":"id-1",
 "source":"web-01","message":"hello","level":6,"took":3.0,"ratio":1e-7,"ok":true,"failed":false,
 "neg":-42,"gl2_source_input":"5fc6"},"sort":[1606816800123,"id-1"]},
{"_index":"other_0","_type":"_doc","_id":"id-2","_score":null,"_source":{
 "timestamp":"2020-12-01T11:00:00.5+01:00","streams":"s3","obj":{"a":1},"arr":[1,"x"],"nothing":null,
 "huge":123456789012345678901234567890,"_id":"ignored"}}]}}`

func TestParseSearch(t *testing.T) {
	res, err := parseSearch([]byte(searchAnswer7))
	if err != nil {
		t.Fatal(err)
	}
	want := []messages.Hit{
		{Index: "graylog_3", Message: messages.Message{
			ID:        "id-1",
			Timestamp: time.Date(2020, 12, 1, 10, 0, 0, 123_000_000, time.UTC),
			Streams:   []string{"s1", "s2"},
			Fields: []messages.Field{
				{Key: "source", Value: "web-01"}, {Key: "message", Value: "hello"},
				{Key: "level", Value: int64(6)}, {Key: "took", Value: 3.0}, {Key: "ratio", Value: 1e-7},
				{Key: "ok", Value: true}, {Key: "failed", Value: false}, {Key: "neg", Value: int64(-42)},
				{Key: "gl2_source_input", Value: "5fc6"},
			},
		}},
		{Index: "other_0", Message: messages.Message{
			ID:        "id-2",
			Timestamp: time.Date(2020, 12, 1, 10, 0, 0, 500_000_000, time.UTC),
			Streams:   []string{"s3"},
			Fields: []messages.Field{
				{Key: "obj", Value: `{"a":1}`}, {Key: "arr", Value: `[1,"x"]`},
				{Key: "huge", Value: 1.2345678901234568e29},
			},
		}},
	}
	if res.Total != 12345 {
		t.Errorf("Total = %d, want 12345", res.Total)
	}
	if !reflect.DeepEqual(res.Hits, want) {
		t.Errorf("Hits =\n%#v\nwant\n%#v", res.Hits, want)
	}
}

func TestParseSearch6(t *testing.T) {
	res, err := parseSearch([]byte(`{"hits":{"total":7,"hits":[]}}`))
	if err != nil || res.Total != 7 || res.Hits == nil || len(res.Hits) != 0 {
		t.Errorf("parseSearch(6.x) = %+v, %v; want total 7, no hits", res, err)
	}
}

func TestParseSearchErrors(t *testing.T) {
	for _, body := range []string{
		``, `not json`, `{}`, `{"hits":[]}`, `{"hits":{"hits":[]}}`,
		`{"hits":{"total":{"relation":"eq"},"hits":[]}}`,
		`{"hits":{"total":1,"hits":[{"_id":"x","_source":{}}]}}`,
		`{"hits":{"total":1,"hits":[{"_index":"i","_id":"x","_source":"str"}]}}`,
		`{"hits":{"total":1,"hits":[{"_index":"i","_id":5,"_source":{}}]}}`,
	} {
		if _, err := parseSearch([]byte(body)); !errors.Is(err, errBadResponse) {
			t.Errorf("parseSearch(%q) error = %v, want errBadResponse", body, err)
		}
	}
}

func TestParseTime(t *testing.T) {
	want := time.Date(2020, 12, 1, 10, 0, 0, 123_000_000, time.UTC)
	for _, raw := range []string{
		`"2020-12-01 10:00:00.123"`, `"2020-12-01T10:00:00.123Z"`, `"2020-12-01T11:00:00.123456+01:00"`,
		`"2020-12-01T10:00:00.123+0000"`, `1606816800123`,
	} {
		got, ok := parseTime(gjson.Parse(raw))
		if !ok || !got.Equal(want) || got.Location() != time.UTC {
			t.Errorf("parseTime(%s) = %v, %v; want %v UTC", raw, got, ok, want)
		}
	}
	for _, raw := range []string{`"yesterday"`, `1.5`, `true`, `null`, `{}`} {
		if got, ok := parseTime(gjson.Parse(raw)); ok {
			t.Errorf("parseTime(%s) = %v, want no time", raw, got)
		}
	}
	// A timestamp that does not parse stays visible as a field.
	m := parseSource("x", gjson.Parse(`{"timestamp":"yesterday"}`))
	if v, _ := m.Get("timestamp"); !m.Timestamp.IsZero() || len(m.Fields) != 1 || m.Fields[0].Value != "yesterday" {
		t.Errorf("parseSource with a bad timestamp = %+v (timestamp %v)", m, v)
	}
}

// TestDocumentRoundTrip writes the sample messages as documents and reads
// them back: what was stored comes back, with dotted keys renamed and the
// fields Elasticsearch cannot hold gone.
func TestDocumentRoundTrip(t *testing.T) {
	msgs := sampleMessages()
	m := msgs[0]
	got := parseSource(m.ID, gjson.ParseBytes(appendDocument(nil, &m)))
	want := messages.Message{ID: m.ID, Timestamp: m.Timestamp, Streams: m.Streams}
	for _, f := range m.Fields {
		switch v := f.Value.(type) {
		case float64:
			if math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
		case string:
			if f.Key == "bad_utf8" {
				f.Value = string([]rune(v))
			}
		}
		if key, ok := fieldKey(f.Key); ok {
			want.Set(key, f.Value)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("round trip =\n%#v\nwant\n%#v", got, want)
	}
	m = msgs[1]
	got = parseSource(m.ID, gjson.ParseBytes(appendDocument(nil, &m)))
	wantFields := []messages.Field{{Key: "a_b", Value: "second, kept"}, {Key: "c_d", Value: "kept"}}
	if !reflect.DeepEqual(got.Fields, wantFields) || !got.Timestamp.Equal(m.Timestamp) || len(got.Streams) != 0 || got.Streams == nil {
		t.Errorf("round trip of dotted keys = %#v, want fields %v and no streams", got, wantFields)
	}
}

func TestParseBulk(t *testing.T) {
	for _, tc := range []struct {
		name, body  string
		failed      []string // ids
		retry, gone bool
	}{
		{name: "ok", body: `{"took":3,"errors":false,"items":[{"index":{"_id":"a","status":201}}]}`},
		{name: "errors flag without failure", body: `{"errors":true,"items":[{"index":{"_id":"a","status":200}}]}`},
		{name: "mapping", body: `{"errors":true,"items":[{"index":{"_id":"a","status":201}},
			{"index":{"_id":"b","status":400,"error":{"type":"mapper_parsing_exception","reason":"failed to parse field [level] of type [long]"}}}]}`,
			failed: []string{"b"}},
		{name: "rejected", body: `{"errors":true,"items":[{"index":{"_id":"a","status":429,"error":{"type":"es_rejected_execution_exception","reason":"rejected execution"}}},
			{"index":{"_id":"b","status":400,"error":{"type":"mapper_parsing_exception","reason":"x"}}}]}`,
			failed: []string{"a", "b"}, retry: true},
		{name: "alias gone", body: `{"errors":true,"items":[{"index":{"_index":"x_deflector","_id":"a","status":404,"error":{"type":"index_not_found_exception","reason":"no such index [x_deflector] and [require_alias] request flag is [true] and [x_deflector] is not an alias"}}}]}`,
			failed: []string{"a"}, retry: true, gone: true},
		{name: "read only", body: `{"errors":true,"items":[{"index":{"_id":"a","status":403,"error":{"type":"cluster_block_exception","reason":"index [x_0] blocked by: [FORBIDDEN/12/index read-only / allow delete (api)];"}}}]}`,
			failed: []string{"a"}, retry: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := parseBulk([]byte(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			if len(tc.failed) == 0 {
				if e != nil {
					t.Fatalf("parseBulk = %v, want no failure", e)
				}
				return
			}
			if e == nil {
				t.Fatalf("parseBulk = nil, want failures %v", tc.failed)
			}
			var ids []string
			for _, f := range e.Failed {
				ids = append(ids, f.ID)
				if f.Status < 300 || f.Type == "" || f.Reason == "" {
					t.Errorf("failure %+v lacks status, type or reason", f)
				}
			}
			if !reflect.DeepEqual(ids, tc.failed) || e.retry != tc.retry || e.gone != tc.gone {
				t.Errorf("failed %v retry %v gone %v; want %v %v %v", ids, e.retry, e.gone, tc.failed, tc.retry, tc.gone)
			}
			if !strings.Contains(e.Error(), tc.failed[0]) || !strings.Contains(e.Error(), e.Failed[0].Reason) {
				t.Errorf("Error() = %q, want the first id and reason", e.Error())
			}
		})
	}
	for _, body := range []string{`nope`, `{"errors":false}`} {
		if _, err := parseBulk([]byte(body)); !errors.Is(err, errBadResponse) {
			t.Errorf("parseBulk(%q) = %v, want errBadResponse", body, err)
		}
	}
}

func TestBulkErrorMessage(t *testing.T) {
	e := &BulkError{Total: 10}
	for i := range 5 {
		e.Failed = append(e.Failed, BulkFailure{ID: string(rune('a' + i)), Status: 400, Type: "t", Reason: "r"})
	}
	want := "5 of 10 messages not written; a: status 400: t: r; b: status 400: t: r; c: status 400: t: r; and 2 more"
	if e.Error() != want {
		t.Errorf("Error() = %q, want %q", e.Error(), want)
	}
}

func TestParseError(t *testing.T) {
	for _, tc := range []struct {
		status     int
		body       string
		typ, inMsg string
	}{
		{404, `{"error":{"root_cause":[{"type":"index_not_found_exception","reason":"no such index [x]"}],"type":"index_not_found_exception","reason":"no such index [x]"},"status":404}`,
			"index_not_found_exception", "no such index [x]"},
		{400, `{"error":{"root_cause":[{"type":"query_shard_exception","reason":"Failed to parse query [a:]"}],"type":"search_phase_execution_exception","reason":"all shards failed"},"status":400}`,
			"search_phase_execution_exception", "query_shard_exception: Failed to parse query [a:]"},
		{400, `{"error":{"type":"illegal_argument_exception","reason":"bad","caused_by":{"type":"x","reason":"deeper"}},"status":400}`,
			"illegal_argument_exception", "x: deeper"},
		{404, `{"error":"alias [a] missing","status":404}`, "", "alias [a] missing"},
		{502, `<html>Bad Gateway</html>`, "", "Bad Gateway"},
		{404, `{"_index":"x","_id":"y","found":false}`, "", `"found":false`},
	} {
		e := parseError(tc.status, []byte(tc.body))
		if e.Status != tc.status || e.Type != tc.typ || !strings.Contains(e.Error(), tc.inMsg) {
			t.Errorf("parseError(%d, %s) = %+v (%q); want type %q and %q in the message", tc.status, tc.body, e, e.Error(), tc.typ, tc.inMsg)
		}
	}
}

func TestParseServer(t *testing.T) {
	for _, tc := range []struct {
		body              string
		want              server
		typed, requireAls bool
	}{
		{`{"name":"n","version":{"number":"6.8.23","lucene_version":"7.7.3"},"tagline":"You Know, for Search"}`, server{"6.8.23", 6, 8, false}, true, false},
		{`{"version":{"number":"7.9.3","build_flavor":"oss"}}`, server{"7.9.3", 7, 9, false}, false, false},
		{`{"version":{"number":"7.10.2","build_flavor":"default"}}`, server{"7.10.2", 7, 10, false}, false, true},
		{`{"version":{"distribution":"opensearch","number":"1.3.19","minimum_wire_compatibility_version":"6.8.0"}}`, server{"1.3.19", 1, 3, true}, false, true},
	} {
		got, err := parseServer([]byte(tc.body))
		if err != nil || got != tc.want || got.typed() != tc.typed || got.requireAlias() != tc.requireAls {
			t.Errorf("parseServer(%s) = %+v, %v (typed %v, require_alias %v); want %+v, typed %v, require_alias %v",
				tc.body, got, err, got.typed(), got.requireAlias(), tc.want, tc.typed, tc.requireAls)
		}
	}
	if _, err := parseServer([]byte(`{"version":{"number":"5.6.16"}}`)); !errors.Is(err, errUnsupported) {
		t.Errorf("parseServer(5.6) = %v, want errUnsupported", err)
	}
	for _, body := range []string{`{}`, `<html>`, `{"version":{"number":"x"}}`} {
		if _, err := parseServer([]byte(body)); err == nil {
			t.Errorf("parseServer(%s) succeeded, want an error", body)
		}
	}
}

func TestParseCat(t *testing.T) {
	body := `[
	{"index":"graylog_0","docs.count":"3","store.size":"2048","creation.date":"1606816800000"},
	{"index":"graylog_12","docs.count":null,"store.size":null,"creation.date":"1606816900000"},
	{"index":"graylog_restored_archive","docs.count":"1"},
	{"index":"graylog_x_1","docs.count":"1"},
	{"index":"graylog_deflector"},
	{"index":"other_2","docs.count":"5"}]`
	got, err := parseCat([]byte(body), []string{"graylog", "other"})
	if err != nil {
		t.Fatal(err)
	}
	want := []messages.Index{
		{Name: "graylog_0", Prefix: "graylog", Number: 0, Count: 3, Size: 2048, Created: time.UnixMilli(1606816800000).UTC()},
		{Name: "graylog_12", Prefix: "graylog", Number: 12, Created: time.UnixMilli(1606816900000).UTC()},
		{Name: "other_2", Prefix: "other", Number: 2, Count: 5},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parseCat =\n%+v\nwant\n%+v", got, want)
	}
	if _, err := parseCat([]byte(`{"error":"x"}`), nil); !errors.Is(err, errBadResponse) {
		t.Errorf("parseCat of an object = %v, want errBadResponse", err)
	}
}

func TestParseCheckpoint(t *testing.T) {
	for _, tc := range []struct {
		body string
		want uint64
		ok   bool
	}{
		{`{"_index":"loggate-state","_id":"n","found":true,"_source":{"checkpoint":"18446744073709551615"}}`, math.MaxUint64, true},
		{`{"found":false}`, 0, true},
		{`{"found":true,"_source":{"checkpoint":-1}}`, 0, false},
		{`{"found":true,"_source":{}}`, 0, false},
		{`garbage`, 0, false},
	} {
		got, err := parseCheckpoint([]byte(tc.body))
		if got != tc.want || (err == nil) != tc.ok {
			t.Errorf("parseCheckpoint(%s) = %d, %v; want %d, ok %v", tc.body, got, err, tc.want, tc.ok)
		}
	}
}

func TestNames(t *testing.T) {
	for _, tc := range []struct {
		name   string
		prefix string
		n      int
		ok     bool
	}{
		{"graylog_0", "graylog", 0, true},
		{"my_index_set_17", "my_index_set", 17, true},
		{"graylog_deflector", "", 0, false},
		{"graylog_*", "", 0, false},
		{"a_1,b_2", "", 0, false},
		{"_all_1", "", 0, false},
		{"Graylog_1", "", 0, false},
		{"graylog_+1", "", 0, false},
		{"graylog_", "", 0, false},
		{"_1", "", 0, false},
		{"graylog_1234567890", "", 0, false},
		{"graylog_00", "", 0, false},
		{"graylog_01", "", 0, false},
	} {
		p, n, ok := splitIndex(tc.name)
		if p != tc.prefix || n != tc.n || ok != tc.ok {
			t.Errorf("splitIndex(%q) = %q, %d, %v; want %q, %d, %v", tc.name, p, n, ok, tc.prefix, tc.n, tc.ok)
		}
	}
}

func TestHosts(t *testing.T) {
	got := SplitHosts(" http://a:9200, https://u:p%40ss@b:9201/es/ ,,")
	if want := []string{"http://a:9200", "https://u:p%40ss@b:9201/es/"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("SplitHosts = %q, want %q", got, want)
	}
	urls, user, pass, err := parseHosts(got)
	if err != nil || len(urls) != 2 || urls[1].String() != "https://b:9201/es" || user != "u" || pass != "p@ss" {
		t.Errorf("parseHosts = %v, %q, %q, %v; want credentials taken out", urls, user, pass, err)
	}
	urls, _, _, err = parseHosts(nil)
	if err != nil || len(urls) != 1 || urls[0].String() != DefaultHost {
		t.Errorf("parseHosts(nil) = %v, %v; want %s", urls, err, DefaultHost)
	}
	for _, h := range []string{"localhost:9200", "ftp://x", "http://user:secret@[::1", "http://"} {
		_, _, _, err := parseHosts([]string{h})
		if err == nil || strings.Contains(err.Error(), "secret") {
			t.Errorf("parseHosts(%q) = %v, want an error without the password", h, err)
		}
	}
}
