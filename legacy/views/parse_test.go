package views

import (
	"strings"
	"testing"

	"github.com/loggate/loggate/router/api"
)

func TestParseWidget(t *testing.T) {
	tests := []struct {
		name, body string
		wantTR     string // the 4.0 time range; "" when the body is refused
		wantMsg    string // part of the error message
	}{
		{"relative", `{"type":"SEARCH_RESULT_COUNT","cache_time":10,"config":{"timerange":{"type":"relative","range":300}}}`, `{"type":"relative","range":300}`, ""},
		{"relative as a string", `{"type":"STATS_COUNT","config":{"timerange":{"type":"relative","range":"60"}}}`, `{"type":"relative","range":60}`, ""},
		{"absolute", `{"type":"FIELD_CHART","config":{"timerange":{"type":"absolute","from":"2020-01-01T00:00:00.000Z","to":"2020-01-02T00:00:00.000Z"}}}`,
			`{"type":"absolute","from":"2020-01-01T00:00:00.000Z","to":"2020-01-02T00:00:00.000Z"}`, ""},
		{"keyword", `{"type":"quickvalues","config":{"timerange":{"type":"keyword","keyword":"last week"}}}`, `{"type":"keyword","keyword":"last week"}`, ""},
		{"flat range of old clients", `{"type":"SEARCH_RESULT_CHART","config":{"range_type":"relative","range":3600}}`, `{"type":"relative","range":3600}`, ""},
		{"unknown property ignored", `{"type":"STATS_COUNT","id":"x","config":{"timerange":{"type":"relative","range":0}}}`, `{"type":"relative","range":0}`, ""},
		{"map of the map plugin", `{"type":"org.graylog.plugins.map.widget.strategy.MapWidgetStrategy","config":{"timerange":{"type":"relative","range":300},"field":"geo"}}`,
			`{"type":"relative","range":300}`, ""},
		{"unknown type", `{"type":"WORLD_MAP","config":{"timerange":{"type":"relative","range":300}}}`, "", "No such widget type."},
		{"missing type", `{"config":{"timerange":{"type":"relative","range":300}}}`, "", "type: must not be blank"},
		{"negative cache time", `{"type":"STATS_COUNT","cache_time":-5,"config":{}}`, "", "cache_time"},
		{"no config", `{"type":"STATS_COUNT"}`, "", "config: must not be null"},
		{"config not an object", `{"type":"STATS_COUNT","config":[1]}`, "", "config: must be an object"},
		{"no time range", `{"type":"STATS_COUNT","config":{"field":"x"}}`, "", "Invalid timerange parameters provided."},
		{"negative range", `{"type":"STATS_COUNT","config":{"timerange":{"type":"relative","range":-1}}}`, "", "Invalid timerange"},
		{"bad absolute", `{"type":"STATS_COUNT","config":{"timerange":{"type":"absolute","from":"yesterday","to":"2020-01-02T00:00:00Z"}}}`, "", "Invalid timerange"},
		{"blank keyword", `{"type":"STATS_COUNT","config":{"timerange":{"type":"keyword","keyword":" "}}}`, "", "Invalid timerange"},
		{"not JSON", `{"type":`, "", "Unable to parse JSON"},
		{"empty", ``, "", "Request body is mandatory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := ParseWidget([]byte(tt.body))
			if tt.wantTR == "" {
				if err == nil || api.ErrorCode(err) != api.Invalid || !strings.Contains(err.Error(), tt.wantMsg) {
					t.Fatalf("error %v, want a 400 containing %q", err, tt.wantMsg)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(req.timerange) != tt.wantTR {
				t.Errorf("time range %s, want %s", req.timerange, tt.wantTR)
			}
		})
	}
}

func TestParseSmallBodies(t *testing.T) {
	tests := []struct {
		name  string
		parse func([]byte) error
		body  string
		ok    bool
	}{
		{"create dashboard", func(b []byte) error { _, err := ParseDashboard(b, true); return err }, `{"title":"t","description":"d"}`, true},
		{"create dashboard without title", func(b []byte) error { _, err := ParseDashboard(b, true); return err }, `{"description":"d"}`, false},
		{"update dashboard without title", func(b []byte) error { _, err := ParseDashboard(b, false); return err }, `{"description":"d"}`, true},
		{"update dashboard blanking the title", func(b []byte) error { _, err := ParseDashboard(b, false); return err }, `{"title":""}`, false},
		{"positions", func(b []byte) error { _, err := ParsePositions(b); return err }, `{"positions":[{"id":"a","col":1,"row":1,"height":1,"width":1}]}`, true},
		{"positions without id", func(b []byte) error { _, err := ParsePositions(b); return err }, `{"positions":[{"col":1}]}`, false},
		{"positions missing", func(b []byte) error { _, err := ParsePositions(b); return err }, `{}`, false},
		{"position not a number", func(b []byte) error { _, err := ParsePositions(b); return err }, `{"positions":[{"id":"a","col":"1"}]}`, false},
		{"description", func(b []byte) error { _, err := ParseDescription(b); return err }, `{"description":""}`, true},
		{"description missing", func(b []byte) error { _, err := ParseDescription(b); return err }, `{}`, false},
		{"cache time", func(b []byte) error { _, err := ParseCacheTime(b); return err }, `{"cache_time":0}`, true},
		{"cache time negative", func(b []byte) error { _, err := ParseCacheTime(b); return err }, `{"cache_time":-1}`, false},
		{"cache time missing", func(b []byte) error { _, err := ParseCacheTime(b); return err }, `{}`, false},
		{"saved search", func(b []byte) error { _, err := ParseSavedSearch(b); return err }, `{"title":"t","query":{"query":"x"}}`, true},
		{"saved search query not an object", func(b []byte) error { _, err := ParseSavedSearch(b); return err }, `{"title":"t","query":"x"}`, false},
		{"saved search blank title", func(b []byte) error { _, err := ParseSavedSearch(b); return err }, `{"title":"","query":{}}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.parse([]byte(tt.body))
			if tt.ok != (err == nil) || err != nil && api.ErrorCode(err) != api.Invalid {
				t.Errorf("error %v, want ok=%v (or a 400)", err, tt.ok)
			}
		})
	}
}

// FuzzParseBodies feeds every legacy body parser the same input: each
// either accepts it or answers a 400, and an accepted widget converts to a
// 4.0 widget and back without failing.
func FuzzParseBodies(f *testing.F) {
	for _, s := range []string{
		`{"type":"STATS_COUNT","cache_time":1,"config":{"timerange":{"type":"relative","range":5},"field":"x","stats_function":"mean"}}`,
		`{"type":"QUICKVALUES","config":{"range_type":"keyword","keyword":"today","show_pie_chart":true}}`,
		`{"type":"STACKED_CHART","config":{"timerange":{"type":"absolute","from":"2020-01-01T00:00:00Z","to":"2020-01-01T00:00:01Z"},"series":[{"field":"a","statistical_function":"total"}]}}`,
		`{"positions":[{"id":"a","col":1,"row":2,"height":3,"width":4}]}`,
		`{"title":"t","description":null,"query":{"fields":"a,b"}}`,
		`{"cache_time":9007199254740993,"description":"\ud800"}`,
		`{"config":null}`, `[]`, `null`, `{`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		check := func(what string, err error) {
			if err != nil && api.ErrorCode(err) != api.Invalid {
				t.Fatalf("%s: error with code %v: %v", what, api.ErrorCode(err), err)
			}
		}
		req, err := ParseWidget(body)
		check("widget", err)
		if err == nil {
			w := Widget{ID: "w", Type: req.Type, Config: req.Config}
			q := newQueryState()
			if err := q.put(w, req.timerange); err != nil {
				t.Fatalf("put: %v", err)
			}
			if got := q.widget(0, "owner"); string(got.Config) != string(req.Config) {
				t.Fatalf("widget config %s read back as %s", req.Config, got.Config)
			}
		}
		_, err = ParseDashboard(body, true)
		check("dashboard", err)
		_, err = ParsePositions(body)
		check("positions", err)
		_, err = ParseDescription(body)
		check("description", err)
		_, err = ParseCacheTime(body)
		check("cache time", err)
		_, err = ParseSavedSearch(body)
		check("saved search", err)
	})
}
