package indexsets_test

import (
	"net/http"
	"testing"

	"github.com/loggate/loggate/backend/logs/indexsets"
	"github.com/loggate/loggate/router/routertest"
)

const (
	sizeConfig  = indexsets.SizeBasedRotation + "Config"
	countConfig = indexsets.MessageCountRotation + "Config"
	timeConfig  = indexsets.TimeBasedRotation + "Config"
)

func TestCreate(t *testing.T) {
	e := newEnv(t)
	rec := e.do("POST", "/system/indices/index_sets", body(nil), []string{"indexsets:create"})
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d, want 200 as Graylog: %s", rec.Code, rec.Body)
	}
	got := routertest.Decode[indexsets.Summary](t, rec)
	if got.ID == "" || got.Title != "Nginx" || got.IndexPrefix != "nginx" || got.Default || !got.Writable ||
		got.Shards != 2 || got.Replicas != 1 || got.RotationStrategy.MaxSize != 1<<20 ||
		got.RetentionStrategyClass != indexsets.ClosingRetention || got.RetentionStrategy.MaxNumberOfIndices != 7 ||
		got.CreationDate.Format("2006-01-02T15:04:05.000Z") != "2020-01-02T03:04:05.678Z" ||
		got.IndexOptimizationMaxNumSegments != 2 || !got.IndexOptimizationDisabled || got.FieldTypeRefreshInterval != 2000 ||
		got.IndexTemplateType != nil || *got.Description != "Nginx access logs" {
		t.Errorf("created %+v", got)
	}
	// What was answered is what is stored.
	again := routertest.Decode[indexsets.Summary](t, e.do("GET", "/system/indices/index_sets/"+got.ID, "", all))
	if again.CreationDate != got.CreationDate || again.Title != got.Title || again.RotationStrategy != got.RotationStrategy {
		t.Errorf("stored %+v, answered %+v", again, got)
	}
}

func TestCreateDefaults(t *testing.T) {
	e := newEnv(t)
	// Only what has no default; the rest takes IndexSetConfig's defaults.
	minimal := `{"title":"Min","index_prefix":"min","shards":1,` +
		`"rotation_strategy_class":"` + indexsets.TimeBasedRotation + `","rotation_strategy":{"type":"` + timeConfig + `","rotation_period":"pt12h"},` +
		`"retention_strategy_class":"` + indexsets.NoopRetention + `","retention_strategy":{"type":"` + indexsets.NoopRetention + `Config","max_number_of_indices":3},` +
		`"id":"ignored","default":true,"index_template_type":"events"}`
	rec := e.do("POST", "/system/indices/index_sets", minimal, all)
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	got := routertest.Decode[indexsets.Summary](t, rec)
	if got.ID == "ignored" || got.Default || !got.Writable || got.Replicas != 0 || got.IndexAnalyzer != "standard" ||
		got.IndexOptimizationMaxNumSegments != 1 || got.IndexOptimizationDisabled || got.FieldTypeRefreshInterval != 5000 ||
		!got.CreationDate.Equal(epoch) || got.Description != nil || got.RotationStrategy.RotationPeriod.String() != "PT12H" ||
		got.IndexTemplateType == nil || *got.IndexTemplateType != "events" {
		t.Errorf("created %s", rec.Body)
	}
	if def, _ := e.svc.DefaultID(t.Context()); def != e.ids["default"] {
		t.Errorf("default moved to %s by a POST", def)
	}
}

func TestCreateInvalid(t *testing.T) {
	e := newEnv(t)
	tests := []struct {
		name      string
		overrides map[string]any
		field     string
		msg       string
	}{
		{"no title", map[string]any{"title": nil}, "title", "must not be blank"},
		{"blank title", map[string]any{"title": "  "}, "title", "must not be blank"},
		{"no prefix", map[string]any{"index_prefix": nil}, "index_prefix", "must not be null"},
		{"upper-case prefix", map[string]any{"index_prefix": "Nginx"}, "index_prefix", `must match "^[a-z0-9][a-z0-9_+-]*$"`},
		{"prefix starting with _", map[string]any{"index_prefix": "_x"}, "index_prefix", "must match"},
		{"same prefix", map[string]any{"index_prefix": "graylog"}, "index_prefix", `Index prefix "graylog" would conflict with an existing index set!`},
		{"prefix with an index number", map[string]any{"index_prefix": "graylog_7"}, "index_prefix", `Index prefix "graylog_7" would conflict with existing index set prefix "graylog"`},
		{"longer prefix", map[string]any{"index_prefix": "graylog2"}, "index_prefix", `Index prefix "graylog2" would conflict with existing index set prefix "graylog"`},
		{"shorter prefix", map[string]any{"index_prefix": "gl"}, "index_prefix", `Index prefix "gl" would conflict with existing index set prefix "gl-events"`},
		{"no shards", map[string]any{"shards": nil}, "shards", "must be greater than or equal to 1"},
		{"zero shards", map[string]any{"shards": 0}, "shards", "must be greater than or equal to 1"},
		{"negative replicas", map[string]any{"replicas": -1}, "replicas", "must be greater than or equal to 0"},
		{"zero segments", map[string]any{"index_optimization_max_num_segments": 0}, "index_optimization_max_num_segments", "must be greater than or equal to 1"},
		{"blank analyzer", map[string]any{"index_analyzer": ""}, "index_analyzer", "must not be blank"},
		{"refresh too short", map[string]any{"field_type_refresh_interval": 500}, "field_type_refresh_interval",
			`Index field_type_refresh_interval "PT0.500S" is too short. It must be 1 second or longer.`},
		{"refresh zero", map[string]any{"field_type_refresh_interval": 0}, "field_type_refresh_interval", `"PT0S" is too short`},
		{"unknown template type", map[string]any{"index_template_type": "logs"}, "index_template_type", `Unknown index template type "logs"`},
		{"no rotation class", map[string]any{"rotation_strategy_class": nil}, "rotation_strategy_class", "must not be null"},
		{"no rotation config", map[string]any{"rotation_strategy": nil}, "rotation_strategy", "must not be null"},
		{"unknown rotation class", map[string]any{"rotation_strategy_class": "org.example.Rotation"}, "rotation_strategy_class",
			`Unknown rotation strategy "org.example.Rotation"; use one of ` + indexsets.MessageCountRotation},
		{"config of another class", map[string]any{"rotation_strategy": map[string]any{"type": countConfig, "max_docs_per_index": 5}}, "rotation_strategy",
			`Config type "` + countConfig + `" does not belong to rotation strategy ` + indexsets.SizeBasedRotation + `; use "` + sizeConfig + `"`},
		{"config without type", map[string]any{"rotation_strategy": map[string]any{"max_size": 5}}, "rotation_strategy", "Missing type id property 'type'"},
		{"config not an object", map[string]any{"rotation_strategy": "big"}, "rotation_strategy", "must be a JSON object with a type"},
		{"property of another config", map[string]any{"rotation_strategy": map[string]any{"type": sizeConfig, "max_size": 5, "max_docs_per_index": 5}}, "rotation_strategy",
			"Unable to map property max_docs_per_index"},
		{"zero max size", map[string]any{"rotation_strategy": map[string]any{"type": sizeConfig, "max_size": 0}}, "rotation_strategy", "max_size must be greater than or equal to 1"},
		{"no max size", map[string]any{"rotation_strategy": map[string]any{"type": sizeConfig}}, "rotation_strategy", "max_size must not be null"},
		{"max docs beyond Java's int", map[string]any{"rotation_strategy_class": indexsets.MessageCountRotation,
			"rotation_strategy": map[string]any{"type": countConfig, "max_docs_per_index": 1 << 31}}, "rotation_strategy", "max_docs_per_index"},
		{"zero period", map[string]any{"rotation_strategy_class": indexsets.TimeBasedRotation,
			"rotation_strategy": map[string]any{"type": timeConfig, "rotation_period": "P0D"}}, "rotation_strategy", "must be longer than zero"},
		{"negative period", map[string]any{"rotation_strategy_class": indexsets.TimeBasedRotation,
			"rotation_strategy": map[string]any{"type": timeConfig, "rotation_period": "P-1D"}}, "rotation_strategy", "must be longer than zero"},
		{"not a period", map[string]any{"rotation_strategy_class": indexsets.TimeBasedRotation,
			"rotation_strategy": map[string]any{"type": timeConfig, "rotation_period": "1 day"}}, "rotation_strategy", "not an ISO-8601 period"},
		{"no period", map[string]any{"rotation_strategy_class": indexsets.TimeBasedRotation,
			"rotation_strategy": map[string]any{"type": timeConfig}}, "rotation_strategy", "rotation_period must not be null"},
		{"zero retention", map[string]any{"retention_strategy": map[string]any{"type": indexsets.ClosingRetention + "Config", "max_number_of_indices": 0}},
			"retention_strategy", "max_number_of_indices must be greater than or equal to 1"},
		{"unknown retention class", map[string]any{"retention_strategy_class": "delete"}, "retention_strategy_class", `Unknown retention strategy "delete"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			routertest.WantInvalid(t, e.do("POST", "/system/indices/index_sets", body(tt.overrides), all), map[string]string{tt.field: tt.msg})
		})
	}
	// None of them was stored.
	if n, err := e.svc.Count(t.Context()); err != nil || n != 5 {
		t.Errorf("Count = %d, %v; want the 5 of the fixture", n, err)
	}
}

func TestCreateRefused(t *testing.T) {
	e := newEnv(t)
	tests := []struct {
		name, body string
		perms      []string
		status     int
		msg        string
	}{
		{"unknown property", body(map[string]any{"color": "red"}), all, 400, "Unable to map property color.\nKnown properties include: creation_date, default, description"},
		{"no body", "", all, 400, "Request body is mandatory"},
		{"malformed", `{"title":`, all, 400, "Unable to parse JSON"},
		{"wrong type", body(map[string]any{"shards": "four"}), all, 400, "property shards must be an integer"},
		{"bad date", body(map[string]any{"creation_date": "yesterday"}), all, 400, `Invalid date "yesterday"`},
		{"needs indexsets:create", body(nil), []string{"indexsets:read", "indexsets:edit"}, 403, "Not authorized"},
		{"anonymous", body(nil), nil, 401, "Not authenticated"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			routertest.WantError(t, e.do("POST", "/system/indices/index_sets", tt.body, tt.perms), tt.status, tt.msg)
		})
	}
}

func TestUpdate(t *testing.T) {
	tests := []struct {
		name, id, body string
		perms          []string
		check          func(t *testing.T, got indexsets.Summary)
	}{
		{"fields change, prefix does not", "{custom}", `{"title":"Renamed","description":"new","writable":false,"shards":3,"replicas":2,` +
			`"index_optimization_max_num_segments":5,"index_optimization_disabled":true,"field_type_refresh_interval":1000,` +
			`"index_prefix":"other","index_analyzer":"keyword","unknown":1}`, []string{"indexsets:edit:{custom}"},
			func(t *testing.T, got indexsets.Summary) {
				if got.Title != "Renamed" || *got.Description != "new" || got.Writable || got.Shards != 3 || got.Replicas != 2 ||
					got.IndexOptimizationMaxNumSegments != 5 || !got.IndexOptimizationDisabled || got.FieldTypeRefreshInterval != 1000 ||
					got.IndexPrefix != "custom" || got.IndexAnalyzer != "standard" || got.CreationDate.UnixMilli() != 1577934245678 {
					t.Errorf("updated %+v", got)
				}
			}},
		{"absent properties keep their values", "{archive}", `{}`, all, func(t *testing.T, got indexsets.Summary) {
			if got.Title != "Archive" || got.Writable || got.RotationStrategyClass != indexsets.SizeBasedRotation {
				t.Errorf("updated %+v", got)
			}
		}},
		{"new rotation strategy", "{custom}", `{"rotation_strategy_class":"` + indexsets.TimeBasedRotation + `",` +
			`"rotation_strategy":{"type":"` + timeConfig + `","rotation_period":"P1W"}}`, all, func(t *testing.T, got indexsets.Summary) {
			if got.RotationStrategyClass != indexsets.TimeBasedRotation || got.RotationStrategy.RotationPeriod.String() != "P1W" || got.RotationStrategy.MaxSize != 0 {
				t.Errorf("updated %+v", got)
			}
		}},
		{"new config of the same class", "{custom}", `{"retention_strategy":{"type":"` + indexsets.ClosingRetention + `Config","max_number_of_indices":99}}`, all,
			func(t *testing.T, got indexsets.Summary) {
				if got.RetentionStrategy.MaxNumberOfIndices != 99 {
					t.Errorf("updated %+v", got)
				}
			}},
		{"the default stays default", "{default}", `{"title":"Main","writable":true}`, all, func(t *testing.T, got indexsets.Summary) {
			if !got.Default || got.Title != "Main" {
				t.Errorf("updated %+v", got)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			perms := make([]string, len(tt.perms))
			for i, p := range tt.perms {
				perms[i] = e.expand(p)
			}
			rec := e.do("PUT", "/system/indices/index_sets/"+tt.id, tt.body, perms)
			if rec.Code != http.StatusOK {
				t.Fatalf("status %d: %s", rec.Code, rec.Body)
			}
			tt.check(t, routertest.Decode[indexsets.Summary](t, rec))
			stored := routertest.Decode[indexsets.Summary](t, e.do("GET", "/system/indices/index_sets/"+tt.id, "", all))
			tt.check(t, stored)
		})
	}
}

func TestUpdateRefused(t *testing.T) {
	e := newEnv(t)
	const unknown = "5f0000000000000000000000"
	tests := []struct {
		name, id, body string
		perms          []string
		status         int
		field, msg     string // field set: a ValidationApiError
	}{
		{"default made read-only", "{default}", `{"writable":false}`, all, 409, "", "Default index set must be writable."},
		{"unknown", unknown, `{}`, all, 404, "", "Index set <" + unknown + "> not found"},
		{"malformed id", "xyz", `{}`, all, 404, "", "Index set <xyz> not found"},
		{"no permission", "{custom}", `{}`, []string{"indexsets:edit:{archive}"}, 403, "", "Not authorized"},
		{"no body", "{custom}", "", all, 400, "", "Request body is mandatory"},
		{"blank title", "{custom}", `{"title":""}`, all, 400, "title", "must not be blank"},
		{"zero shards", "{custom}", `{"shards":0}`, all, 400, "shards", "must be greater than or equal to 1"},
		{"refresh too short", "{custom}", `{"field_type_refresh_interval":999}`, all, 400, "field_type_refresh_interval", "PT0.999S"},
		{"class without its config", "{custom}", `{"rotation_strategy_class":"` + indexsets.TimeBasedRotation + `"}`, all, 400, "rotation_strategy",
			`Config type "` + sizeConfig + `" does not belong to rotation strategy ` + indexsets.TimeBasedRotation},
		{"config of another class", "{custom}", `{"retention_strategy":{"type":"` + indexsets.DeletionRetention + `Config","max_number_of_indices":3}}`, all, 400,
			"retention_strategy", "does not belong to retention strategy " + indexsets.ClosingRetention},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			perms := make([]string, len(tt.perms))
			for i, p := range tt.perms {
				perms[i] = e.expand(p)
			}
			rec := e.do("PUT", "/system/indices/index_sets/"+tt.id, tt.body, perms)
			if tt.field != "" {
				routertest.WantInvalid(t, rec, map[string]string{tt.field: tt.msg})
				return
			}
			routertest.WantError(t, rec, tt.status, e.expand(tt.msg))
		})
	}
	got := routertest.Decode[indexsets.Summary](t, e.do("GET", "/system/indices/index_sets/{default}", "", all))
	if !got.Writable || got.Title != "Default index set" {
		t.Errorf("a refused update changed the default: %+v", got)
	}
}

func TestSetDefault(t *testing.T) {
	e := newEnv(t)
	rec := e.do("PUT", "/system/indices/index_sets/{custom}/default", "", []string{e.expand("indexsets:edit:{custom}")})
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	if got := routertest.Decode[indexsets.Summary](t, rec); !got.Default || got.ID != e.ids["custom"] {
		t.Errorf("answered %+v", got)
	}
	if got := routertest.Decode[indexsets.Summary](t, e.do("GET", "/system/indices/index_sets/{default}", "", all)); got.Default {
		t.Errorf("the old default is still marked default")
	}
	if def, err := e.svc.DefaultID(t.Context()); err != nil || def != e.ids["custom"] {
		t.Errorf("DefaultID = %s, %v", def, err)
	}
	// The old default can go now; the new one cannot.
	if rec := e.do("DELETE", "/system/indices/index_sets/{default}", "", all); rec.Code != http.StatusNoContent {
		t.Errorf("deleting the former default: %d %s", rec.Code, rec.Body)
	}
	routertest.WantError(t, e.do("DELETE", "/system/indices/index_sets/{custom}", "", all), 400, e.expand("Default index set <{custom}> cannot be deleted!"))

	const unknown = "5f0000000000000000000000"
	for _, tt := range []struct {
		name, id string
		perms    []string
		status   int
		msg      string
	}{
		{"read-only index set", "{archive}", all, 409, "Default index set must be writable."},
		{"unknown", unknown, all, 404, "Index set <" + unknown + "> does not exist"},
		{"no permission", "{archive}", []string{"indexsets:edit:{custom}"}, 403, "Not authorized"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			perms := make([]string, len(tt.perms))
			for i, p := range tt.perms {
				perms[i] = e.expand(p)
			}
			routertest.WantError(t, e.do("PUT", "/system/indices/index_sets/"+tt.id+"/default", "", perms), tt.status, tt.msg)
		})
	}
}

func TestDelete(t *testing.T) {
	const unknown = "5f0000000000000000000000"
	tests := []struct {
		name, path string
		perms      []string
		status     int
		msg        string
	}{
		{"unused", "/system/indices/index_sets/{custom}", []string{"indexsets:delete:{custom}"}, 204, ""},
		{"keeping the indices", "/system/indices/index_sets/{archive}?delete_indices=false", all, 204, ""},
		{"the default", "/system/indices/index_sets/{default}", all, 400, "Default index set <{default}> cannot be deleted!"},
		{"used by streams", "/system/indices/index_sets/{events}", all, 409, "Index set <{events}> is still assigned to streams: All events."},
		{"unknown", "/system/indices/index_sets/" + unknown, all, 404, "Index set <" + unknown + "> not found."},
		{"no permission", "/system/indices/index_sets/{custom}", []string{"indexsets:delete:{archive}"}, 403, "Not authorized"},
		{"bad delete_indices", "/system/indices/index_sets/{custom}?delete_indices=maybe", all, 400, `Invalid delete_indices "maybe"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			perms := make([]string, len(tt.perms))
			for i, p := range tt.perms {
				perms[i] = e.expand(p)
			}
			before, _ := e.svc.Count(t.Context())
			rec := e.do("DELETE", tt.path, "", perms)
			after, _ := e.svc.Count(t.Context())
			if tt.status != http.StatusNoContent {
				routertest.WantError(t, rec, tt.status, e.expand(tt.msg))
				if after != before {
					t.Errorf("a refused delete removed an index set")
				}
				return
			}
			if rec.Code != http.StatusNoContent || rec.Body.Len() != 0 {
				t.Fatalf("status %d: %s", rec.Code, rec.Body)
			}
			if after != before-1 {
				t.Errorf("Count %d → %d", before, after)
			}
			routertest.WantError(t, e.do("GET", tt.path, "", all), 404, "Couldn't load index set")
		})
	}
}

func TestDeleteStreamsFailure(t *testing.T) {
	e := newEnv(t)
	e.streams.err = errBroken
	routertest.WantError(t, e.do("DELETE", "/system/indices/index_sets/{custom}", "", all), 500, "Internal error")
	// Without streams wired nothing uses an index set.
	e.svc.SetStreams(nil)
	if rec := e.do("DELETE", "/system/indices/index_sets/{events}", "", all); rec.Code != http.StatusNoContent {
		t.Errorf("status %d: %s", rec.Code, rec.Body)
	}
}
