package decorators

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/loggate/loggate/backend/logs/lookup"
	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/logs/pipelines"
)

// fakeLookups is one table, "users", counting lookups.
type fakeLookups struct{ n int }

func (f *fakeLookups) Exists(_ context.Context, name string) bool { return name == "users" }
func (f *fakeLookups) Lookup(_ context.Context, table string, key any) (lookup.Result, error) {
	f.n++
	if key == "u1" {
		return lookup.Result{Single: "Alice"}, nil
	}
	if key == int64(2) {
		return lookup.Result{Multi: map[string]any{"x": 1}}, nil // no single value
	}
	return lookup.Result{}, nil
}
func (f *fakeLookups) Tables() []lookup.Table {
	return []lookup.Table{{Name: "users", Title: "Users"}, {Name: "hosts", Title: "Hosts"}}
}

// fakePipelines runs pipeline "p1": it sets "handled" and creates one
// message.
type fakePipelines struct{}

func (fakePipelines) Pipelines() []pipelines.PipelineSource { return nil }
func (fakePipelines) Decorate(_ context.Context, id string, m *messages.Message) []messages.Message {
	if id != "p1" {
		return nil
	}
	m.Set("handled", true)
	return []messages.Message{{ID: "c1", Timestamp: m.Timestamp, Fields: []messages.Field{{Key: "message", Value: "created"}}}}
}

func msg(kv ...any) map[string]any {
	m := map[string]any{"_id": "id1", "timestamp": "2020-12-01T10:00:00.000Z", "streams": []string{"s1"}}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

func service() *Service {
	return NewService(nil).SetRuntime(&fakeLookups{}, fakePipelines{}, nil)
}

// Expected outputs follow the Java of Graylog 4.0.17's decorators.
func TestDecoratorTypes(t *testing.T) {
	for _, tc := range []struct {
		name   string
		typ    string
		config map[string]any
		in     map[string]any
		want   map[string]any // nil: unchanged (the same map)
	}{
		{"syslog maps a long", TypeSyslogSeverity, map[string]any{"source_field": "level", "target_field": "severity"},
			msg("level", int64(3)), msg("level", int64(3), "severity", "Error (3)")},
		{"syslog maps text", TypeSyslogSeverity, map[string]any{"source_field": "level", "target_field": "level"},
			msg("level", "7"), msg("level", "Debug (7)")},
		{"syslog: a double is 3.0, not mapped", TypeSyslogSeverity, map[string]any{"source_field": "level", "target_field": "severity"},
			msg("level", 3.0), nil},
		{"syslog: out of range", TypeSyslogSeverity, map[string]any{"source_field": "level", "target_field": "severity"},
			msg("level", int64(8)), nil},
		{"syslog: missing field", TypeSyslogSeverity, map[string]any{"source_field": "level", "target_field": "severity"},
			msg(), nil},
		{"format", TypeFormatString, map[string]any{"format_string": "${source} - ${message}", "target_field": "summary", "require_all_fields": false},
			msg("source", "web", "message", "hi"), msg("source", "web", "message", "hi", "summary", "web - hi")},
		{"format: missing variable renders empty", TypeFormatString, map[string]any{"format_string": "${source}:${ nope }!", "target_field": "summary", "require_all_fields": false},
			msg("source", "web"), msg("source", "web", "summary", "web:!")},
		{"format: numbers as Java writes them", TypeFormatString, map[string]any{"format_string": "${a}/${b}/${c}", "target_field": "t", "require_all_fields": true},
			msg("a", int64(5), "b", 2.0, "c", 1e10), msg("a", int64(5), "b", 2.0, "c", 1e10, "t", "5/2.0/1.0E10")},
		{"format: require all fields", TypeFormatString, map[string]any{"format_string": "${source} ${missing}", "target_field": "t", "require_all_fields": true},
			msg("source", "web"), nil},
		{"format: blank result is not set, trimmed", TypeFormatString, map[string]any{"format_string": " ${missing} ", "target_field": "t", "require_all_fields": false},
			msg("x", " padded "), msg("x", "padded")},
		{"format: unclosed is text", TypeFormatString, map[string]any{"format_string": "a ${b", "target_field": "t", "require_all_fields": false},
			msg(), msg("t", "a ${b")},
		// Graylog's templates are JMTE: conditions, loops and defaults.
		{"format: if", TypeFormatString, map[string]any{"format_string": "${if user}${user}${else}anonymous${end} on ${source}", "target_field": "t", "require_all_fields": false},
			msg("source", "web", "user", "bob"), msg("source", "web", "user", "bob", "t", "bob on web")},
		{"format: else", TypeFormatString, map[string]any{"format_string": "${if user}${user}${else}anonymous${end} on ${source}", "target_field": "t", "require_all_fields": false},
			msg("source", "web"), msg("source", "web", "t", "anonymous on web")},
		{"format: foreach over a list", TypeFormatString, map[string]any{"format_string": "${foreach tags t , }#${t}${end}", "target_field": "t", "require_all_fields": false},
			msg("tags", []any{"a", "b"}), msg("tags", []any{"a", "b"}, "t", "#a, #b")},
		{"format: default text", TypeFormatString, map[string]any{"format_string": "${user!nobody}", "target_field": "t", "require_all_fields": false},
			msg(), msg("t", "nobody")},
		{"format: require all fields counts conditions", TypeFormatString, map[string]any{"format_string": "${if user}${user}${end}", "target_field": "t", "require_all_fields": true},
			msg("source", "web"), nil},
		{"link: http", TypeLinkField, map[string]any{"link_field": "url"},
			msg("url", "http://example.com/a?b=c"), msg("url", map[string]any{"type": "a", "href": "http://example.com/a?b=c"})},
		{"link: https local host and port", TypeLinkField, map[string]any{"link_field": "url"},
			msg("url", "HTTPS://my-local-server:8443//x"), msg("url", map[string]any{"type": "a", "href": "HTTPS://my-local-server:8443//x"})},
		{"link: ftp is not a link", TypeLinkField, map[string]any{"link_field": "url"},
			msg("url", "ftp://example.com/file"), msg("url", "ftp://example.com/file")},
		{"link: javascript is not a link", TypeLinkField, map[string]any{"link_field": "url"},
			msg("url", "javascript:alert(1)"), msg("url", "javascript:alert(1)")},
		{"link: path above the root", TypeLinkField, map[string]any{"link_field": "url"},
			msg("url", "http://example.com/../x"), msg("url", "http://example.com/../x")},
		{"link: bad port", TypeLinkField, map[string]any{"link_field": "url"},
			msg("url", "http://example.com:99999/"), msg("url", "http://example.com:99999/")},
		{"link: ipv4", TypeLinkField, map[string]any{"link_field": "url"},
			msg("url", "http://10.0.0.1/"), msg("url", map[string]any{"type": "a", "href": "http://10.0.0.1/"})},
		{"link: missing field", TypeLinkField, map[string]any{"link_field": "url"}, msg(), nil},
		{"link: not text", TypeLinkField, map[string]any{"link_field": "url"}, msg("url", int64(1)), nil},
		{"lookup", TypeLookupTable, map[string]any{"source_field": "user", "target_field": "user_name", "lookup_table_name": "users"},
			msg("user", "u1"), msg("user", "u1", "user_name", "Alice")},
		{"lookup: not found", TypeLookupTable, map[string]any{"source_field": "user", "target_field": "user_name", "lookup_table_name": "users"},
			msg("user", "u9"), nil},
		{"lookup: no single value", TypeLookupTable, map[string]any{"source_field": "user", "target_field": "user_name", "lookup_table_name": "users"},
			msg("user", int64(2)), msg("user", int64(2))},
		{"pipeline", TypePipeline, map[string]any{"pipeline": "p1"},
			msg("source", "web"), msg("source", "web", "handled", true)},
		{"pipeline: none configured", TypePipeline, map[string]any{"pipeline": ""}, msg("source", "web"), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			chain, err := service().Build(context.Background(), []Decorator{{Type: tc.typ, Config: tc.config}})
			if err != nil {
				t.Fatal(err)
			}
			in := tc.in
			snapshot, _ := json.Marshal(in)
			out := chain.Decorate(context.Background(), in, "graylog_0")
			if after, _ := json.Marshal(in); string(after) != string(snapshot) {
				t.Fatalf("the input message changed: %s", after)
			}
			got := out[0].Message
			want := tc.want
			if want == nil {
				want = tc.in
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got  %v\nwant %v", got, want)
			}
			if out[0].Index != "graylog_0" || out[0].Stats == nil {
				t.Errorf("index %q stats %v", out[0].Index, out[0].Stats)
			}
		})
	}
}

// Decorators whose configuration Graylog's constructors refuse.
func TestBuildRefuses(t *testing.T) {
	for _, d := range []Decorator{
		{Type: "org.example.Nope"},
		{Type: TypeSyslogSeverity, Config: map[string]any{"source_field": "level"}},
		{Type: TypeFormatString, Config: map[string]any{"format_string": "x", "target_field": "t"}},
		{Type: TypeFormatString, Config: map[string]any{"format_string": "x", "target_field": "t", "require_all_fields": "true"}},
		{Type: TypeLinkField, Config: map[string]any{"link_field": 1.0}},
		{Type: TypeLookupTable, Config: map[string]any{"source_field": "a", "target_field": "b", "lookup_table_name": "nope"}},
		{Type: TypeLookupTable, Config: map[string]any{"source_field": "", "target_field": "b", "lookup_table_name": "users"}},
	} {
		if _, err := service().Build(context.Background(), []Decorator{d}); err == nil {
			t.Errorf("%s %v: built", d.Type, d.Config)
		}
	}
}

// Decorators run in order; the stats compare the message before the
// first and after the last; created messages follow theirs, without
// stats, and are decorated by the later decorators.
func TestChainOrderAndStats(t *testing.T) {
	ds := []Decorator{
		{Type: TypeFormatString, Order: 2, Config: map[string]any{"format_string": "${severity}!", "target_field": "message", "require_all_fields": false}},
		{Type: TypeSyslogSeverity, Order: 0, Config: map[string]any{"source_field": "level", "target_field": "severity"}},
		{Type: TypePipeline, Order: 1, Config: map[string]any{"pipeline": "p1"}},
	}
	chain, err := service().Build(context.Background(), ds)
	if err != nil {
		t.Fatal(err)
	}
	out := chain.Decorate(context.Background(), msg("level", "4", "message", "was", "gone", ""), "ix")
	if len(out) != 2 {
		t.Fatalf("%d messages", len(out))
	}
	if got := out[0].Message["message"]; got != "Warning (4)!" {
		t.Errorf("message = %v", got)
	}
	st := out[0].Stats
	want := &Stats{
		Added:   map[string]any{"severity": "Warning (4)", "handled": true},
		Changed: map[string]any{"message": "was"},
		Removed: map[string]any{"gone": ""},
	}
	if !reflect.DeepEqual(st, want) {
		t.Errorf("stats %+v", st)
	}
	if out[1].Index != CreatedIndex || out[1].Stats != nil || out[1].Message["message"] != "!" {
		t.Errorf("created: %+v", out[1])
	}
	ss := chain.SearchStats()
	if strings.Join(ss.Added, ",") != "handled,severity" || strings.Join(ss.Changed, ",") != "message" || strings.Join(ss.Removed, ",") != "gone" {
		t.Errorf("search stats %+v", ss)
	}
	if (*Chain)(nil).SearchStats() != nil || !newChain(nil).Empty() {
		t.Error("an empty chain has stats")
	}
}

// A format string repeating a long field is cut at MaxFormatted; loops
// nested over a list field stop at formatSteps.
func TestFormatIsBounded(t *testing.T) {
	chain, err := service().Build(context.Background(), []Decorator{{Type: TypeFormatString,
		Config: map[string]any{"format_string": strings.Repeat("${m}", 1000), "target_field": "t", "require_all_fields": false}}})
	if err != nil {
		t.Fatal(err)
	}
	out := chain.Decorate(context.Background(), msg("m", strings.Repeat("é", 1000)), "ix")
	s := out[0].Message["t"].(string)
	if len(s) > MaxFormatted || len(s) < MaxFormatted-1 {
		t.Errorf("length %d", len(s))
	}
}

// GET /search/decorators/available lists the five types with their forms.
func TestAvailable(t *testing.T) {
	b, err := json.Marshal(service().Available())
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 5 {
		t.Fatalf("%d types: %s", len(got), b)
	}
	f := got[TypeFormatString]
	if f["name"] != "Format String" || f["human_name"] != "Format string" || f["link_to_docs"] != "http://docs.graylog.org/" {
		t.Errorf("format string: %v", f)
	}
	rc := f["requested_configuration"].(map[string]any)
	if d := rc["format_string"].(map[string]any); d["default_value"] != "${source} - ${message}" || d["is_optional"] != false {
		t.Errorf("format_string field: %v", d)
	}
	lt := got[TypeLookupTable]["requested_configuration"].(map[string]any)["lookup_table_name"].(map[string]any)
	if lt["type"] != "dropdown" || !strings.Contains(string(mustJSON(t, lt["additional_info"])), `{"values":{"hosts":"Hosts","users":"Users"}}`) {
		t.Errorf("lookup table field: %v", lt)
	}
	if _, ok := NewService(nil).Available()[TypePipeline]; ok {
		t.Error("the pipeline decorator is offered without pipelines")
	}
}

func mustJSON(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestFormatLoopsAreBounded(t *testing.T) {
	chain, err := service().Build(context.Background(), []Decorator{{Type: TypeFormatString,
		Config: map[string]any{"format_string": "${foreach l a}${foreach l b}${foreach l c}${foreach l d}.${end}${end}${end}${end}", "target_field": "t", "require_all_fields": false}}})
	if err != nil {
		t.Fatal(err)
	}
	list := make([]any, 100) // 10^8 renderings unbounded
	for i := range list {
		list[i] = i
	}
	out := chain.Decorate(context.Background(), msg("l", list), "ix")
	if s, _ := out[0].Message["t"].(string); len(s) == 0 || len(s) > formatSteps {
		t.Errorf("rendered %d bytes, want at most %d", len(s), formatSteps)
	}
}
