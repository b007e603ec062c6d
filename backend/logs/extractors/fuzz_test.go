package extractors

import (
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/system/metrics"
	"github.com/loggate/loggate/router/api"
)

// FuzzRequest: any body of POST/PUT extractors is refused or builds an
// extractor that runs on any source without panicking.
func FuzzRequest(f *testing.F) {
	f.Add([]byte(`{"title":"t","cut_or_copy":"cut","source_field":"m","target_field":"t","extractor_type":"regex","extractor_config":{"regex_value":"(a+)"},"converters":{"numeric":{},"date":{"date_format":"yyyy-MM-dd"}},"condition_type":"regex","condition_value":"a","order":1}`), "xaaay")
	f.Add([]byte(`{"title":"t","cut_or_copy":"copy","source_field":"m","target_field":"","extractor_type":"json","extractor_config":{"flatten":true},"converters":{},"condition_type":"none","condition_value":""}`), `{"a":{"b":[1,{"c":null}]}}`)
	f.Add([]byte(`{"title":"t","cut_or_copy":"cut","source_field":"m","target_field":"t","extractor_type":"split_and_index","extractor_config":{"split_by":"ab","index":2},"converters":{"csv":{"column_header":"a,b"},"tokenizer":{}},"condition_type":"string","condition_value":""}`), "x ab y,z ab")
	f.Add([]byte(`{"title":"t","cut_or_copy":"cut","source_field":"m","target_field":"t","extractor_type":"substring","extractor_config":{"begin_index":1,"end_index":3},"converters":{},"condition_type":"none","condition_value":""}`), "héllo")
	f.Add([]byte(`{"title":"t","cut_or_copy":"copy","source_field":"m","target_field":"t","extractor_type":"regex_replace","extractor_config":{"regex":"(a)(b)?","replacement":"$2\\$$1","replace_all":true},"converters":{},"condition_type":"none","condition_value":""}`), "abaab")
	f.Add([]byte(`{"title":"t","cut_or_copy":"copy","source_field":"m","target_field":"t","extractor_type":"grok","extractor_config":{"grok_pattern":"%{IP:ip}"},"converters":{},"condition_type":"none","condition_value":""}`), "1.2.3.4")
	f.Add([]byte(`{"title":"t","converters":[{"type":"numeric"}],"extractor_config":[]}`), "")
	g := testGrok(f)
	reg := metrics.New(clock)
	f.Fuzz(func(t *testing.T, body []byte, src string) {
		var req Request
		if err := api.DecodeBytes(body, &req, true); err != nil {
			return
		}
		e, err := req.validate()
		if err != nil {
			return
		}
		e.ID = "fuzz"
		c, err := compile(e, deps{grok: g, now: clock}, nil)
		if err != nil {
			if api.ErrorCode(err) != api.Invalid && api.ErrorCode(err) != api.Internal {
				t.Fatalf("unexpected error kind: %v", err)
			}
			return
		}
		c.m = newMetrics(reg, e)
		m := &messages.Message{ID: "id", Fields: []messages.Field{{Key: e.SourceField, Value: src}}}
		_ = c.apply(m)
		for _, fl := range m.Fields {
			if !messages.ValidKey(fl.Key) || messages.Unsettable(fl.Key) {
				t.Fatalf("wrote field %q", fl.Key)
			}
			// An empty source the test gave stays as it was.
			if s, ok := fl.Value.(string); ok && s == "" && (fl.Key != e.SourceField || src != "") {
				t.Fatalf("wrote an empty string to %q", fl.Key)
			}
		}
	})
}

// FuzzJSONExtractor: any source text, any separators.
func FuzzJSONExtractor(f *testing.F) {
	f.Add(`{"a":1,"b":{"c":[1,2,{"d":null}],"e":"x"},"f":1.5e300}`, false, "_")
	f.Add(`{"a b":{"c d":true}}`, true, ".")
	f.Add(`[1]`, false, "")
	f.Fuzz(func(t *testing.T, src string, flatten bool, sep string) {
		c := config{}
		c["flatten"], _ = json.Marshal(flatten)
		c["key_separator"], _ = json.Marshal(sep)
		j, err := newJSONExtractor(c)
		if err != nil {
			t.Fatal(err)
		}
		res, err := j.run(src)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res {
			if r.value == nil {
				t.Fatalf("nil value for %q", r.key)
			}
		}
	})
}

// FuzzConverter: any converter type, configuration and value.
func FuzzConverter(f *testing.F) {
	f.Add("date", `{"date_format":"yyyy-MM-dd'T'HH:mm:ss.SSSZZ","time_zone":"Europe/Berlin"}`, "2020-01-02T03:04:05.678+01:00")
	f.Add("csv", `{"column_header":"a,b","quote_char":"'","escape_char":"\\","strict_quotes":false}`, `'x\'',y`)
	f.Add("tokenizer", `{}`, `a=1 b="2 3" c='4'`)
	f.Add("numeric", `{}`, "1e400")
	f.Add("split_and_count", `{"split_by":"."}`, "a..b.")
	f.Add("syslog_pri_facility", `{}`, "999999999999")
	f.Add("flexdate", `{"time_zone":"nope"}`, "Jan  2 15:04:05")
	f.Fuzz(func(t *testing.T, typ, cfgText, v string) {
		var c config
		if json.Unmarshal([]byte(cfgText), &c) != nil {
			return
		}
		cv, err := newConverter(strings.ToLower(typ), c, deps{now: clock})
		if err != nil {
			return
		}
		if cv.multi != nil {
			_, _ = cv.multi(v)
			return
		}
		_, _ = cv.single(v)
	})
}

// FuzzOrder: the body of POST extractors/order.
func FuzzOrder(f *testing.F) {
	f.Add([]byte(`{"order":{"0":"a","1":"b"}}`))
	f.Add([]byte(`{"order":{"-1":"a","99999999999":"b"}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		order, err := ParseOrder(body)
		if err != nil {
			if api.ErrorCode(err) != api.Invalid {
				t.Fatalf("%v", err)
			}
			return
		}
		for pos := range order {
			if pos < -1<<31 || pos >= 1<<31 {
				t.Fatalf("position %d beyond Java's int", pos)
			}
		}
	})
}

// pairs is the expression tokenize scans as, the reference of FuzzTokenizer.
// Graylog 4.0's TokenizerConverter.PATTERN, with Java's \s (which has \v).
var pairs = regexp.MustCompile(`(?:^|[\t\n\v\f\r ])(?:([\w-]+)[\t\n\v\f\r ]?=[\t\n\v\f\r ]?((?:"[^"]+")|(?:'[^']+')|(?:[^\t\n\v\f\r ]+)))`)

func referenceTokenize(v string) []kv {
	if !strings.Contains(v, "=") {
		return nil
	}
	var out []kv
	for _, m := range pairs.FindAllStringSubmatch(v, -1) {
		val := m[2]
		if len(val) >= 2 && (val[0] == '"' || val[0] == '\'') && val[len(val)-1] == val[0] {
			val = val[1 : len(val)-1]
		}
		out = append(out, kv{m[1], val})
	}
	return out
}

// FuzzTokenizer: the tokenizer finds what its expression finds.
func FuzzTokenizer(f *testing.F) {
	for _, s := range []string{`a=1 b="2 3" c='4'`, ` k = v`, `x=  y`, `=a b=`, "a=\"x\ty=2", `a= 'b c`, "k=v\nq=w", `a  =b`, `a= b`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		got, _ := tokenize(v)
		if want := referenceTokenize(v); !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: got %q, want %q", v, got, want)
		}
	})
}
