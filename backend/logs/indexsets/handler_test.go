package indexsets_test

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/loggate/loggate/backend/logs/indexsets"
	"github.com/loggate/loggate/router/routertest"
)

var (
	all      = []string{"indexsets:*"}
	noPerms  = []string{}
	readOnly = []string{"indexsets:read"}
)

type listBody struct {
	Total     int                                `json:"total"`
	IndexSets []indexsets.Summary                `json:"index_sets"`
	Stats     map[string]indexsets.IndexSetStats `json:"stats"`
}

func titles(sets []indexsets.Summary) []string {
	out := []string{}
	for _, s := range sets {
		out = append(out, s.Title)
	}
	return out
}

func TestList(t *testing.T) {
	e := newEnv(t)
	sorted := []string{"Archive", "Custom", "Default index set", "Graylog Events", "Graylog System Events"}
	tests := []struct {
		name   string
		query  string
		perms  []string
		total  int
		titles []string
		stats  []string // ids expected in the stats map
	}{
		{"everything, by title", "", all, 5, sorted, nil},
		{"limit 0 ignores skip", "?skip=3&limit=0", all, 5, sorted, nil},
		{"a page", "?skip=1&limit=2", all, 5, sorted[1:3], nil},
		{"last partial page", "?skip=4&limit=3", all, 5, sorted[4:], nil},
		{"past the end", "?skip=10&limit=2", all, 5, []string{}, nil},
		{"huge numbers", "?skip=9223372036854775807&limit=9223372036854775807", all, 5, []string{}, nil},
		{"filtered by indexsets:read:<id>", "", []string{"indexsets:read:{custom}", "indexsets:read:{archive}"}, 2, []string{"Archive", "Custom"}, nil},
		{"nothing readable", "", noPerms, 0, []string{}, nil},
		{"stats of every readable set", "?stats=true", all, 5, sorted, []string{"default", "events", "system", "custom", "archive"}},
		{"stats not of the page only", "?stats=TRUE&limit=1", all, 5, sorted[:1], []string{"default", "events", "system", "custom", "archive"}},
		{"stats only of readable sets", "?stats=true", []string{"indexsets:read:{custom}"}, 1, []string{"Custom"}, []string{"custom"}},
		{"stats=false", "?stats=false", all, 5, sorted, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			perms := make([]string, len(tt.perms))
			for i, p := range tt.perms {
				perms[i] = e.expand(p)
			}
			rec := e.do("GET", "/system/indices/index_sets"+tt.query, "", perms)
			if rec.Code != http.StatusOK {
				t.Fatalf("status %d: %s", rec.Code, rec.Body)
			}
			got := routertest.Decode[listBody](t, rec)
			if got.Total != tt.total || !slices.Equal(titles(got.IndexSets), tt.titles) {
				t.Errorf("total %d, titles %q; want %d, %q", got.Total, titles(got.IndexSets), tt.total, tt.titles)
			}
			if got.Stats == nil || len(got.Stats) != len(tt.stats) {
				t.Fatalf("stats = %v, want entries for %v", got.Stats, tt.stats)
			}
			for _, name := range tt.stats {
				if got.Stats[e.ids[name]] != e.stats.per[e.ids[name]] {
					t.Errorf("stats of %s = %+v, want %+v", name, got.Stats[e.ids[name]], e.stats.per[e.ids[name]])
				}
			}
			for _, s := range got.IndexSets {
				if s.Default != (s.ID == e.ids["default"]) {
					t.Errorf("%s: default = %v", s.Title, s.Default)
				}
			}
		})
	}
}

func TestListErrors(t *testing.T) {
	e := newEnv(t)
	tests := []struct {
		query  string
		perms  []string
		status int
		msg    string
	}{
		{"?skip=-1", all, 400, `Invalid skip "-1"`},
		{"?limit=abc", all, 400, `Invalid limit "abc"`},
		{"?limit=1.5", all, 400, `Invalid limit "1.5"`},
		{"?stats=yes", all, 400, `Invalid stats "yes"; use true or false`},
		{"", nil, 401, "Not authenticated"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			routertest.WantError(t, e.do("GET", "/system/indices/index_sets"+tt.query, "", tt.perms), tt.status, tt.msg)
		})
	}
}

func TestSummaryShape(t *testing.T) {
	e := newEnv(t)
	rec := e.do("GET", "/system/indices/index_sets/{default}", "", all)
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	want := `{"id":"` + e.ids["default"] + `","title":"Default index set","description":"The Graylog default index set",` +
		`"default":true,"writable":true,"index_prefix":"graylog","shards":4,"replicas":0,` +
		`"rotation_strategy_class":"org.graylog2.indexer.rotation.strategies.MessageCountRotationStrategy",` +
		`"rotation_strategy":{"type":"org.graylog2.indexer.rotation.strategies.MessageCountRotationStrategyConfig","max_docs_per_index":20000000},` +
		`"retention_strategy_class":"org.graylog2.indexer.retention.strategies.DeletionRetentionStrategy",` +
		`"retention_strategy":{"type":"org.graylog2.indexer.retention.strategies.DeletionRetentionStrategyConfig","max_number_of_indices":20},` +
		`"creation_date":"2021-03-04T05:06:07.890Z","index_analyzer":"standard","index_optimization_max_num_segments":1,` +
		`"index_optimization_disabled":false,"field_type_refresh_interval":5000,"index_template_type":"messages"}`
	if got := rec.Body.String(); got != want {
		t.Errorf("GET default:\n got %s\nwant %s", got, want)
	}
	rec = e.do("GET", "/system/indices/index_sets/{system}", "", all)
	want = `{"id":"` + e.ids["system"] + `","title":"Graylog System Events","description":"Stores Graylog system events.",` +
		`"default":false,"writable":true,"index_prefix":"gl-system-events","shards":4,"replicas":0,` +
		`"rotation_strategy_class":"org.graylog2.indexer.rotation.strategies.TimeBasedRotationStrategy",` +
		`"rotation_strategy":{"type":"org.graylog2.indexer.rotation.strategies.TimeBasedRotationStrategyConfig","rotation_period":"P1M"},` +
		`"retention_strategy_class":"org.graylog2.indexer.retention.strategies.DeletionRetentionStrategy",` +
		`"retention_strategy":{"type":"org.graylog2.indexer.retention.strategies.DeletionRetentionStrategyConfig","max_number_of_indices":12},` +
		`"creation_date":"2021-03-04T05:06:07.890Z","index_analyzer":"standard","index_optimization_max_num_segments":1,` +
		`"index_optimization_disabled":false,"field_type_refresh_interval":60000,"index_template_type":"events"}`
	if got := rec.Body.String(); got != want {
		t.Errorf("GET system events:\n got %s\nwant %s", got, want)
	}
}

func TestGetAndStats(t *testing.T) {
	e := newEnv(t)
	const unknown = "5f0000000000000000000000"
	tests := []struct {
		name, path string
		perms      []string
		status     int
		check      func(t *testing.T, rec *httptest.ResponseRecorder)
	}{
		{"get", "/system/indices/index_sets/{custom}", []string{"indexsets:read:{custom}"}, 200, func(t *testing.T, rec *httptest.ResponseRecorder) {
			if s := routertest.Decode[indexsets.Summary](t, rec); s.Title != "Custom" || s.ID != e.ids["custom"] || s.Default {
				t.Errorf("got %+v", s)
			}
		}},
		{"get upper-case id", "/system/indices/index_sets/" + upper(e.ids["custom"]), all, 200, nil},
		{"get unknown", "/system/indices/index_sets/" + unknown, all, 404, func(t *testing.T, rec *httptest.ResponseRecorder) {
			routertest.WantError(t, rec, 404, "Couldn't load index set with ID <"+unknown+">")
		}},
		{"get malformed", "/system/indices/index_sets/nope", all, 404, func(t *testing.T, rec *httptest.ResponseRecorder) {
			routertest.WantError(t, rec, 404, "Couldn't load index set with ID <nope>")
		}},
		{"get someone else's", "/system/indices/index_sets/{custom}", []string{"indexsets:read:{archive}"}, 403, nil},
		{"get anonymous", "/system/indices/index_sets/{custom}", nil, 401, nil},
		{"stats of one", "/system/indices/index_sets/{custom}/stats", []string{"indexsets:read:{custom}"}, 200, func(t *testing.T, rec *httptest.ResponseRecorder) {
			if got := routertest.Decode[indexsets.IndexSetStats](t, rec); got != e.stats.per[e.ids["custom"]] {
				t.Errorf("got %+v", got)
			}
		}},
		{"stats of unknown", "/system/indices/index_sets/" + unknown + "/stats", all, 404, func(t *testing.T, rec *httptest.ResponseRecorder) {
			routertest.WantError(t, rec, 404, "Couldn't load index set with ID <"+unknown+">")
		}},
		{"stats forbidden", "/system/indices/index_sets/{custom}/stats", noPerms, 403, nil},
		{"total stats", "/system/indices/index_sets/stats", readOnly, 200, func(t *testing.T, rec *httptest.ResponseRecorder) {
			// 1..5 indices, 100..500 documents, 10000..50000 bytes.
			want := indexsets.IndexSetStats{Indices: 15, Documents: 1500, Size: 150_000}
			if got := routertest.Decode[indexsets.IndexSetStats](t, rec); got != want {
				t.Errorf("got %+v, want %+v", got, want)
			}
		}},
		{"total stats needs indexsets:read", "/system/indices/index_sets/stats", []string{"indexsets:read:{custom}"}, 403, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			perms := make([]string, len(tt.perms))
			for i, p := range tt.perms {
				perms[i] = e.expand(p)
			}
			if tt.perms == nil {
				perms = nil
			}
			rec := e.do("GET", tt.path, "", perms)
			if rec.Code != tt.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, tt.status, rec.Body)
			}
			if tt.check != nil {
				tt.check(t, rec)
			}
		})
	}
}

func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'f' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

func TestStatsWithoutMessageIndex(t *testing.T) {
	e := newEnv(t)
	svc, err := indexsets.NewService(t.Context(), e.st, nil, nil, clock)
	if err != nil {
		t.Fatal(err)
	}
	st, err := svc.TotalStats(t.Context())
	if err != nil || st != (indexsets.IndexSetStats{}) {
		t.Errorf("TotalStats = %+v, %v; want zeros", st, err)
	}
	e.stats.err = errBroken
	routertest.WantError(t, e.do("GET", "/system/indices/index_sets/stats", "", all), 500, "Internal error")
	routertest.WantError(t, e.do("GET", "/system/indices/index_sets?stats=true", "", all), 500, "Internal error")
}

func TestStrategies(t *testing.T) {
	e := newEnv(t)
	type desc struct {
		Type          string         `json:"type"`
		DefaultConfig map[string]any `json:"default_config"`
		JSONSchema    struct {
			Type       string                    `json:"type"`
			ID         string                    `json:"id"`
			Properties map[string]map[string]any `json:"properties"`
		} `json:"json_schema"`
	}
	type list struct {
		Total      int    `json:"total"`
		Strategies []desc `json:"strategies"`
	}
	for _, tt := range []struct {
		kind     string
		classes  []string
		defaults []map[string]any
	}{
		{"rotation", []string{indexsets.MessageCountRotation, indexsets.SizeBasedRotation, indexsets.TimeBasedRotation},
			[]map[string]any{{"max_docs_per_index": 2e7}, {"max_size": float64(1 << 30)}, {"rotation_period": "P1D"}}},
		{"retention", []string{indexsets.ClosingRetention, indexsets.DeletionRetention, indexsets.NoopRetention},
			[]map[string]any{{"max_number_of_indices": 20.0}, {"max_number_of_indices": 20.0}, {"max_number_of_indices": 2147483647.0}}},
	} {
		t.Run(tt.kind, func(t *testing.T) {
			rec := e.do("GET", "/system/indices/"+tt.kind+"/strategies", "", noPerms)
			got := routertest.Decode[list](t, rec)
			if rec.Code != 200 || got.Total != 3 || len(got.Strategies) != 3 {
				t.Fatalf("status %d: %s", rec.Code, rec.Body)
			}
			for i, d := range got.Strategies {
				if d.Type != tt.classes[i] || d.DefaultConfig["type"] != tt.classes[i]+"Config" {
					t.Errorf("strategy %d: %s with config %v", i, d.Type, d.DefaultConfig)
				}
				for k, v := range tt.defaults[i] {
					if d.DefaultConfig[k] != v {
						t.Errorf("%s default %s = %v, want %v", d.Type, k, d.DefaultConfig[k], v)
					}
					if d.JSONSchema.Properties[k] == nil || d.JSONSchema.Properties["type"]["type"] != "string" || d.JSONSchema.Type != "object" {
						t.Errorf("%s schema %+v lacks %s", d.Type, d.JSONSchema, k)
					}
				}
			}
			one := e.do("GET", "/system/indices/"+tt.kind+"/strategies/"+tt.classes[1], "", noPerms)
			if d := routertest.Decode[desc](t, one); one.Code != 200 || d.Type != tt.classes[1] || d.JSONSchema.ID == "" {
				t.Errorf("one strategy: %d %s", one.Code, one.Body)
			}
			routertest.WantError(t, e.do("GET", "/system/indices/"+tt.kind+"/strategies/nope", "", noPerms), 404,
				"Couldn't find "+tt.kind+" strategy for given type nope")
			routertest.WantError(t, e.do("GET", "/system/indices/"+tt.kind+"/strategies", "", nil), 401, "Not authenticated")
		})
	}
}
