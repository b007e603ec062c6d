package search

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/loggate/loggate/backend/analysis/decorators"
	"github.com/loggate/loggate/backend/store/bolt"
	"github.com/loggate/loggate/router/routertest"
)

// decoratedEnv serves the search routes over generated messages with
// decorators stored: global ones (a format string, then a syslog mapper
// whose field the format string reads: order decides) and one of the web
// stream.
func decoratedEnv(t *testing.T) routertest.Client {
	t.Helper()
	e := newEnv(t, generated(50), generated(50)[49].Timestamp.Add(time.Minute), Options{})
	st, err := bolt.Open(filepath.Join(t.TempDir(), "db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ds := decorators.NewService(st)
	web := webStream
	for _, d := range []decorators.Decorator{
		{Type: decorators.TypeFormatString, Order: 1, Config: map[string]any{"format_string": "${source} at ${severity}", "target_field": "summary", "require_all_fields": false}},
		{Type: decorators.TypeSyslogSeverity, Order: 0, Config: map[string]any{"source_field": "level", "target_field": "severity"}},
		{Type: "org.example.Unknown", Order: 2, Config: map[string]any{}},         // left out
		{Type: decorators.TypeSyslogSeverity, Order: 3, Config: map[string]any{}}, // refused, left out
		{Type: decorators.TypeFormatString, Stream: &web, Config: map[string]any{"format_string": "web ${http_method}", "target_field": "summary", "require_all_fields": true}},
	} {
		if _, err := ds.Create(context.Background(), d); err != nil {
			t.Fatal(err)
		}
	}
	return routertest.Client{H: routertest.Handler(NewHandler(e.svc).WithDecorators(ds).Routes())}
}

func TestUniversalSearchDecorated(t *testing.T) {
	c := decoratedEnv(t)
	for _, tc := range []struct {
		name, path string
		check      func(t *testing.T, body gjson.Result)
	}{
		{"global decorators, in order", "/search/universal/relative?query=*&range=0&limit=5", func(t *testing.T, b gjson.Result) {
			for _, m := range b.Get("messages").Array() {
				if lvl := m.Get("message.level").Int(); lvl == 6 {
					want := m.Get("message.source").String() + " at Informational (6)"
					if got := m.Get("message.summary").String(); got != want {
						t.Errorf("summary %q, want %q", got, want)
					}
				}
				if m.Get("decoration_stats.added_fields.summary").String() != m.Get("message.summary").String() ||
					!m.Get("decoration_stats.changed_fields").IsObject() || !m.Get("decoration_stats.removed_fields").IsObject() {
					t.Errorf("message stats: %s", m.Get("decoration_stats").Raw)
				}
			}
			if got := b.Get("decoration_stats.added_fields").Raw; got != `["severity","summary"]` {
				t.Errorf("answer stats: %s", b.Get("decoration_stats").Raw)
			}
			if !strings.Contains(b.Get("fields").Raw, `"summary"`) {
				t.Errorf("fields: %s", b.Get("fields").Raw)
			}
		}},
		{"decorate=false", "/search/universal/relative?query=*&range=0&limit=5&decorate=false", func(t *testing.T, b gjson.Result) {
			if b.Get("decoration_stats").Type != gjson.Null || strings.Contains(b.Raw, "summary") {
				t.Errorf("decorated: %s", b.Get("messages.0").Raw)
			}
			if b.Get("messages.0.decoration_stats").Type != gjson.Null {
				t.Errorf("message stats: %s", b.Get("messages.0.decoration_stats").Raw)
			}
		}},
		{"the stream's decorators only", "/search/universal/relative?query=*&range=0&limit=5&filter=streams:" + webStream, func(t *testing.T, b gjson.Result) {
			if len(b.Get("messages").Array()) == 0 {
				t.Fatal("no messages")
			}
			for _, m := range b.Get("messages").Array() {
				want := "web " + m.Get("message.http_method").String()
				if got := m.Get("message.summary").String(); got != want || m.Get("message.severity").Exists() {
					t.Errorf("summary %q severity %q", got, m.Get("message.severity").String())
				}
			}
		}},
		{"field selection, decorated after it", "/search/universal/absolute?query=*&from=2000-01-01&to=2100-01-01&limit=3&fields=source,level", func(t *testing.T, b gjson.Result) {
			m := b.Get("messages.0.message")
			if !m.Get("summary").Exists() || m.Get("facility").Exists() {
				t.Errorf("message: %s", m.Raw)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := c.Admin("GET", tc.path, "")
			routertest.WantStatus(t, rec, 200)
			tc.check(t, gjson.Parse(rec.Body.String()))
		})
	}
	// The stored messages are not changed.
	rec := c.Admin("GET", "/search/universal/relative?query=_exists_:summary&range=0", "")
	if n := gjson.Get(rec.Body.String(), "total_results").Int(); n != 0 {
		t.Errorf("%d stored messages have the decorated field", n)
	}
}

// A views message list applies the decorators it names, in order, and
// refuses one Graylog cannot build.
func TestViewsMessagesDecorated(t *testing.T) {
	c := universalEnv(t)
	body := `{"queries":[{"id":"q1","query":{"type":"elasticsearch","query_string":"level:6"},"timerange":{"type":"relative","range":0},
	"search_types":[{"id":"m1","type":"messages","limit":3,"decorators":[
	 {"id":"d2","type":"org.graylog2.decorators.FormatStringDecorator","config":{"format_string":"${severity}/${source}","target_field":"message","require_all_fields":true},"stream":null,"order":1},
	 {"id":"d1","type":"org.graylog2.decorators.SyslogSeverityMapperDecorator","config":{"source_field":"level","target_field":"severity"},"stream":null,"order":0}]},
	 {"id":"m2","type":"messages","limit":1}]}]}`
	rec := c.Admin("POST", "/views/search/sync", body)
	routertest.WantStatus(t, rec, 200)
	res := gjson.Get(rec.Body.String(), "results.q1.search_types")
	msgs := res.Get("m1.messages").Array()
	if len(msgs) != 3 {
		t.Fatalf("%d messages", len(msgs))
	}
	for _, m := range msgs {
		if got, want := m.Get("message.message").String(), "Informational (6)/"+m.Get("message.source").String(); got != want {
			t.Errorf("message %q, want %q", got, want)
		}
		if !m.Get("decoration_stats.changed_fields.message").Exists() || m.Get("decoration_stats.added_fields.severity").String() != "Informational (6)" {
			t.Errorf("stats %s", m.Get("decoration_stats").Raw)
		}
	}
	if res.Get("m1.decoration_stats").Exists() {
		t.Error("the message list has decoration stats; Graylog's has none")
	}
	if m := res.Get("m2.messages.0"); m.Get("message.severity").Exists() || m.Get("decoration_stats").Type != gjson.Null {
		t.Errorf("undecorated list decorated: %s", m.Raw)
	}
	bad := strings.Replace(body, "org.graylog2.decorators.SyslogSeverityMapperDecorator", "org.example.Nope", 1)
	routertest.WantError(t, c.Admin("POST", "/views/search/sync", bad), 400, "Unknown decorator type <org.example.Nope>")
}
