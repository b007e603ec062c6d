package extractors

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/logs/grok"
	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/store/bolt"
	"github.com/loggate/loggate/backend/system/metrics"
	"github.com/loggate/loggate/router/api"
)

var grokOnce struct {
	sync.Once
	svc *grok.Service
	err error
}

// testGrok is a grok service with Graylog's default patterns, built once.
func testGrok(t testing.TB) *grok.Service {
	t.Helper()
	grokOnce.Do(func() {
		st, err := bolt.Open(filepath.Join(t.TempDir(), "grok"), grok.Indexes)
		if err != nil {
			grokOnce.err = err
			return
		}
		grokOnce.svc, grokOnce.err = grok.NewService(context.Background(), st, clock)
	})
	if grokOnce.err != nil {
		t.Fatal(grokOnce.err)
	}
	return grokOnce.svc
}

// run builds an extractor and applies it to a message with the given
// fields, returning the message's fields afterwards.
func run(t testing.TB, e Extractor, fields ...any) (map[string]any, *compiled) {
	t.Helper()
	if e.ID == "" {
		e.ID = "x"
	}
	if e.CursorStrategy == "" {
		e.CursorStrategy = "copy"
	}
	if e.ConditionType == "" {
		e.ConditionType = "none"
	}
	c, err := compile(e, deps{grok: testGrok(t), now: clock}, nil)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	c.m = newMetrics(metrics.New(clock), e)
	m := &messages.Message{ID: "id", Timestamp: epoch}
	for i := 0; i < len(fields); i += 2 {
		m.Set(fields[i].(string), fields[i+1])
	}
	if err := c.apply(m); err != nil {
		t.Logf("apply: %v", err)
	}
	out := map[string]any{}
	for _, f := range m.Fields {
		out[f.Key] = f.Value
	}
	return out, c
}

func ex(typ, source, target, config string) Extractor {
	return Extractor{Type: typ, SourceField: source, TargetField: target, Config: cfgOf(config)}
}

func cfgOf(s string) config {
	var c config
	if s == "" {
		return config{}
	}
	if err := jsonUnmarshal(s, &c); err != nil {
		panic(err)
	}
	return c
}

// TestExtractorTypes runs every 4.0 extractor type as documented (§2.5,
// §2.6): what each writes, and when nothing happens.
func TestExtractorTypes(t *testing.T) {
	cutEx := func(e Extractor) Extractor { e.CursorStrategy = "cut"; return e }
	cases := []struct {
		name string
		e    Extractor
		in   []any
		want map[string]any
	}{
		{"regex group 1", ex("regex", "message", "took", `{"regex_value":"took (\\d+) ms"}`),
			[]any{"message", "GET / took 42 ms"}, map[string]any{"message": "GET / took 42 ms", "took": "42"}},
		{"regex dotall", ex("regex", "message", "rest", `{"regex_value":"first(.*)"}`),
			[]any{"message", "first\nsecond"}, map[string]any{"message": "first\nsecond", "rest": "second"}},
		{"regex without group", ex("regex", "message", "t", `{"regex_value":"took"}`),
			[]any{"message", "took"}, map[string]any{"message": "took"}},
		{"regex no match", ex("regex", "message", "t", `{"regex_value":"x(\\d)"}`),
			[]any{"message", "abc"}, map[string]any{"message": "abc"}},
		{"regex_replace first", ex("regex_replace", "message", "t", `{"regex":"(\\d+)","replacement":"<$1>"}`),
			[]any{"message", "a1 b22"}, map[string]any{"message": "a1 b22", "t": "a<1> b22"}},
		{"regex_replace all, default $1", ex("regex_replace", "message", "t", `{"regex":"x(\\d)","replace_all":true}`),
			[]any{"message", "x1 x2"}, map[string]any{"message": "x1 x2", "t": "1 2"}},
		{"regex_replace java group refs", ex("regex_replace", "message", "t", `{"regex":"(a)(b)","replacement":"$2$10\\$"}`),
			[]any{"message", "ab"}, map[string]any{"message": "ab", "t": "ba0$"}},
		{"substring", ex("substring", "message", "t", `{"begin_index":2,"end_index":5}`),
			[]any{"message", "héllo world"}, map[string]any{"message": "héllo world", "t": "llo"}},
		{"substring beyond", ex("substring", "message", "t", `{"begin_index":2,"end_index":50}`),
			[]any{"message", "hello"}, map[string]any{"message": "hello"}},
		{"substring end before begin", ex("substring", "message", "t", `{"begin_index":3,"end_index":3}`),
			[]any{"message", "hello"}, map[string]any{"message": "hello"}},
		{"split_and_index", ex("split_and_index", "message", "t", `{"split_by":" ","index":2}`),
			[]any{"message", "a b c"}, map[string]any{"message": "a b c", "t": "b"}},
		{"split_and_index out of range", ex("split_and_index", "message", "t", `{"split_by":" ","index":4}`),
			[]any{"message", "a b c"}, map[string]any{"message": "a b c"}},
		{"split_and_index empty token", ex("split_and_index", "message", "t", `{"split_by":",","index":2}`),
			[]any{"message", "a,,c"}, map[string]any{"message": "a,,c"}},
		{"copy_input", ex("copy_input", "message", "copy", ``),
			[]any{"message", "all of it"}, map[string]any{"message": "all of it", "copy": "all of it"}},
		{"grok", ex("grok", "message", "ignored", `{"grok_pattern":"%{IP:client} %{WORD:method}"}`),
			[]any{"message", "10.0.0.1 GET"}, map[string]any{"message": "10.0.0.1 GET", "client": "10.0.0.1", "method": "GET",
				"IPV4": "10.0.0.1"}},
		{"grok named only", ex("grok", "message", "", `{"grok_pattern":"%{IP:client} %{WORD:method}","named_captures_only":true}`),
			[]any{"message", "10.0.0.1 GET"}, map[string]any{"message": "10.0.0.1 GET", "client": "10.0.0.1", "method": "GET"}},
		{"json", ex("json", "message", "", ``),
			[]any{"message", `{"a":1,"b":"x","c":true,"d":{"e":2.5,"f":null},"g":[1,null,"y"],"h":null}`},
			map[string]any{"message": `{"a":1,"b":"x","c":true,"d":{"e":2.5,"f":null},"g":[1,null,"y"],"h":null}`,
				"a": int64(1), "b": "x", "c": true, "d_e": 2.5, "g": "1, y"}},
		{"json flatten, prefix, whitespace", ex("json", "message", "", `{"flatten":true,"key_prefix":"p_","replace_key_whitespace":true,"kv_separator":":"}`),
			[]any{"message", `{"a b":{"x":1,"y":"z","n":null}}`}, map[string]any{"message": `{"a b":{"x":1,"y":"z","n":null}}`, "p_a_b": "x:1, y:z"}},
		{"json not an object", ex("json", "message", "", ``),
			[]any{"message", `[1,2]`}, map[string]any{"message": `[1,2]`}},
		{"source not a string", ex("copy_input", "n", "t", ``),
			[]any{"n", int64(5)}, map[string]any{"n": int64(5)}},
		{"source missing", ex("copy_input", "nope", "t", ``),
			nil, map[string]any{}},
		// cut where the separator's first character is, as Graylog's
		// getCutIndices: not where its first byte is
		{"é separator, à in the text", cutEx(ex("split_and_index", "line", "t", `{"split_by":"é","index":2}`)),
			[]any{"line", "àxéyéz"}, map[string]any{"line": "àxééz", "t": "y"}},
		{"→ separator", cutEx(ex("split_and_index", "line", "t", `{"split_by":"→","index":2}`)),
			[]any{"line", "a⇒b→c→d"}, map[string]any{"line": "a⇒b→→d", "t": "c"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, _ := run(t, c.e, c.in...)
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got %#v\nwant %#v", got, c.want)
			}
		})
	}
}

// TestCutConditionsConverters: cut or copy, the three conditions and the
// converters after an extraction (§2.5), with the metrics they count.
func TestCutConditionsConverters(t *testing.T) {
	cut := func(e Extractor) Extractor { e.CursorStrategy = "cut"; return e }
	cases := []struct {
		name string
		e    Extractor
		in   []any
		want map[string]any
	}{
		{"cut regex", cut(ex("regex", "line", "user", `{"regex_value":"user=(\\w+)"}`)),
			[]any{"line", "user=alice did it"}, map[string]any{"line": "user= did it", "user": "alice"}},
		{"cut everything", cut(ex("copy_input", "line", "copy", ``)),
			[]any{"line", "all"}, map[string]any{"line": fullyCut, "copy": "all"}},
		{"cut split_and_index", cut(ex("split_and_index", "line", "t", `{"split_by":" ","index":2}`)),
			[]any{"line", "a bb c"}, map[string]any{"line": "a  c", "t": "bb"}},
		{"no cut of a reserved source", cut(ex("copy_input", "message", "copy", ``)),
			[]any{"message", "all"}, map[string]any{"message": "all", "copy": "all"}},
		{"no cut onto itself", cut(ex("regex", "line", "line", `{"regex_value":"(\\d+)"}`)),
			[]any{"line", "a 1"}, map[string]any{"line": "1"}},
		{"grok never cuts", cut(ex("grok", "line", "", `{"grok_pattern":"%{INT:n}","named_captures_only":true}`)),
			[]any{"line", "x 12"}, map[string]any{"line": "x 12", "n": "12"}},
		{"string condition hit", Extractor{Type: "copy_input", SourceField: "m", TargetField: "t", ConditionType: "string", ConditionValue: "err"},
			[]any{"m", "an error"}, map[string]any{"m": "an error", "t": "an error"}},
		{"string condition miss (case-sensitive)", Extractor{Type: "copy_input", SourceField: "m", TargetField: "t", ConditionType: "string", ConditionValue: "ERR"},
			[]any{"m", "an error"}, map[string]any{"m": "an error"}},
		{"regex condition finds", Extractor{Type: "copy_input", SourceField: "m", TargetField: "t", ConditionType: "regex", ConditionValue: "e.r"},
			[]any{"m", "an error"}, map[string]any{"m": "an error", "t": "an error"}},
		{"converters in order", Extractor{Type: "regex", SourceField: "m", TargetField: "n", Config: cfgOf(`{"regex_value":"n=(\\S+)"}`),
			Converters: []Converter{{Type: "uppercase"}, {Type: "numeric"}, {Type: "hash"}}},
			[]any{"m", "n=12"}, map[string]any{"m": "n=12", "n": int64(12)}},
		{"multi-field converter drops reserved keys", Extractor{Type: "copy_input", SourceField: "m", TargetField: "t",
			Converters: []Converter{{Type: "tokenizer"}}},
			[]any{"m", "a=1 message=2 _id=3"}, map[string]any{"m": "a=1 message=2 _id=3", "t": "a=1 message=2 _id=3", "a": "1"}},
		{"field-write rules: empty value, bad key", Extractor{Type: "json", SourceField: "m"},
			[]any{"m", `{"ok":" v ","empty":"  ","bad key":1,"_id":"x"}`}, map[string]any{"m": `{"ok":" v ","empty":"  ","bad key":1,"_id":"x"}`, "ok": "v"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, _ := run(t, c.e, c.in...)
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got %#v\nwant %#v", got, c.want)
			}
		})
	}
	_, c := run(t, Extractor{Type: "copy_input", SourceField: "m", TargetField: "t", ConditionType: "string", ConditionValue: "zzz"}, "m", "abc")
	if c.m.hits.Count() != 0 || c.m.misses.Count() != 1 {
		t.Errorf("miss counted %d hits %d misses", c.m.hits.Count(), c.m.misses.Count())
	}
	_, c = run(t, Extractor{Type: "regex", SourceField: "m", TargetField: "n", Config: cfgOf(`{"regex_value":"(\\w+)"}`),
		Converters: []Converter{{Type: "syslog_pri_level"}}}, "m", "abc")
	if c.m.hits.Count() != 1 || c.m.converterExceptions.Load() != 1 {
		t.Errorf("converter failure: %d hits, %d converter exceptions", c.m.hits.Count(), c.m.converterExceptions.Load())
	}
	_, c = run(t, Extractor{Type: "regex_replace", SourceField: "m", TargetField: "n", Config: cfgOf(`{"regex":"(a)","replacement":"$5"}`)}, "m", "abc")
	if c.m.exceptions.Load() != 1 {
		t.Errorf("extractor failure: %d exceptions", c.m.exceptions.Load())
	}
}

// TestExtractorConfigErrors: what 4.0 refuses at creation, with its
// statuses (§2.4), and regular expressions RE2 cannot express.
func TestExtractorConfigErrors(t *testing.T) {
	cases := []struct {
		typ, config string
		code        api.Code
	}{
		{"regex", `{}`, api.Invalid},
		{"regex", `{"regex_value":"(?<=a)b"}`, api.Invalid},
		{"regex", `{"regex_value":"(a)\\1"}`, api.Invalid},
		{"regex", `{"regex_value":"a++"}`, api.Invalid},
		{"regex_replace", `{"replacement":"x"}`, api.Invalid},
		{"substring", `{"begin_index":1}`, api.Invalid},
		{"substring", `{"begin_index":1,"end_index":3000000000}`, api.Invalid},
		{"split_and_index", `{"split_by":","}`, api.Invalid},
		{"grok", `{}`, api.Invalid},
		{"grok", `{"grok_pattern":"%{NOPE_NOT_THERE}"}`, api.Invalid},
		{"grok", `{"grok_pattern":"%{WORD}","named_captures_only":"yes"}`, api.Internal},
		{"lookup_table", `{"lookup_table_name":"t"}`, api.Internal},
	}
	for _, c := range cases {
		_, err := compile(Extractor{Type: c.typ, Config: cfgOf(c.config), ConditionType: "none"}, deps{grok: testGrok(t), now: clock}, nil)
		if err == nil || api.ErrorCode(err) != c.code {
			t.Errorf("%s %s: %v, want code %v", c.typ, c.config, err, c.code)
		}
	}
	_, err := compile(Extractor{Type: "copy_input", ConditionType: "regex", ConditionValue: "(?!x)"}, deps{grok: testGrok(t), now: clock}, nil)
	if api.ErrorCode(err) != api.Invalid {
		t.Errorf("condition regex RE2 cannot compile: %v", err)
	}
}

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }

// TestGrokNonFiniteFloat: a float capture of "NaN" or "Infinity" is not
// written; a message field holding one could not be indexed (Graylog) or
// encoded in a search answer (loggate).
func TestGrokNonFiniteFloat(t *testing.T) {
	e := ex("grok", "message", "", `{"grok_pattern":"%{WORD:n:float} %{WORD:w}","named_captures_only":true}`)
	for _, in := range []string{"NaN x", "Infinity x", "inf x"} {
		got, _ := run(t, e, "message", in)
		if want := map[string]any{"message": in, "w": "x"}; !reflect.DeepEqual(got, want) {
			t.Errorf("%q: got %#v, want %#v", in, got, want)
		}
	}
}

// TestRegexProgramTooLarge: a regex (extractor, replace or condition)
// whose counted repetitions RE2 would expand to millions of instructions
// is a 400, refused before it is compiled.
func TestRegexProgramTooLarge(t *testing.T) {
	huge := strings.Repeat(`[a-z]{1000}`, 3000)
	for _, e := range []Extractor{
		{Type: "regex", Config: cfgOf(`{"regex_value":"` + huge + `(x)"}`), ConditionType: "none"},
		{Type: "regex_replace", Config: cfgOf(`{"regex":"` + huge + `"}`), ConditionType: "none"},
		{Type: "copy_input", ConditionType: "regex", ConditionValue: huge},
	} {
		start := time.Now()
		_, err := compile(e, deps{grok: testGrok(t), now: clock}, nil)
		if api.ErrorCode(err) != api.Invalid || !strings.Contains(err.Error(), "too large") {
			t.Errorf("%s: %v, want a 400", e.Type, err)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("%s: refused after %v", e.Type, d)
		}
	}
}

// TestJSONKeyWhitespace: JsonExtractor.parseKey runs on the whole key,
// prefix and parents included, and replaces every whitespace character
// (\s) once the key has a space.
func TestJSONKeyWhitespace(t *testing.T) {
	e := ex("json", "message", "", `{"replace_key_whitespace":true,"key_prefix":"p "}`)
	in := `{"a b":{"c\td e":1},"x":2,"y\tz":3}`
	got, _ := run(t, e, "message", in)
	want := map[string]any{"message": in, "p_a_b_c_d_e": int64(1), "p_x": int64(2), "p_y_z": int64(3)}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v\nwant %#v", got, want)
	}
}

// TestTimestampWithDateConverter: Graylog's documented normalization, an
// extractor writing the text of a date to timestamp with a date converter:
// Message.addField keeps the text in timestamp, the converter parses it,
// and the message's timestamp becomes that date.
func TestTimestampWithDateConverter(t *testing.T) {
	for _, c := range []struct {
		name string
		e    Extractor
	}{
		{"regex", Extractor{Type: "regex", SourceField: "m", TargetField: "timestamp", Config: cfgOf(`{"regex_value":"^(\\S+ \\S+)"}`),
			Converters: []Converter{{Type: "date", Config: cfgOf(`{"date_format":"yyyy-MM-dd HH:mm:ss"}`)}}}},
		{"after another converter", Extractor{Type: "regex", SourceField: "m", TargetField: "timestamp", Config: cfgOf(`{"regex_value":"^(\\S+ \\S+)"}`),
			Converters: []Converter{{Type: "uppercase"}, {Type: "flexdate"}}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := c.e
			e.ID, e.CursorStrategy, e.ConditionType = "x", "copy", "none"
			cm, err := compile(e, deps{grok: testGrok(t), now: clock}, nil)
			if err != nil {
				t.Fatal(err)
			}
			cm.m = newMetrics(metrics.New(clock), e)
			m := &messages.Message{ID: "id", Timestamp: epoch}
			m.Set("m", "2020-12-01 10:00:00 GET /")
			if err := cm.apply(m); err != nil {
				t.Fatal(err)
			}
			if want := time.Date(2020, 12, 1, 10, 0, 0, 0, time.UTC); !m.Timestamp.Equal(want) {
				t.Errorf("timestamp %v, want %v", m.Timestamp, want)
			}
			if v, ok := m.Get("timestamp"); !ok || reflect.TypeOf(v) != reflect.TypeOf(time.Time{}) {
				t.Errorf("timestamp field %#v", v)
			}
		})
	}
}
