package views_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/bson/primitive"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/backend/analysis/views"
	"github.com/loggate/loggate/router/api"
)

// errorText returns the message of an ApiError body (field "") or the
// joined errors of one field of a ValidationApiError body.
func errorText(t testing.TB, w *httptest.ResponseRecorder, field string) string {
	t.Helper()
	body := decodeJSON[struct {
		Type    string                         `json:"type"`
		Message string                         `json:"message"`
		Errors  map[string][]map[string]string `json:"validation_errors"`
	}](t, w)
	if field == "" {
		if body.Type != "ApiError" {
			t.Fatalf("type %q, want ApiError; body %s", body.Type, w.Body)
		}
		return body.Message
	}
	if body.Type != "ValidationApiError" {
		t.Fatalf("type %q, want ValidationApiError; body %s", body.Type, w.Body)
	}
	var msgs []string
	for _, e := range body.Errors[field] {
		msgs = append(msgs, e["error"])
	}
	return strings.Join(msgs, "; ")
}

func widgetState(widget any) map[string]any {
	return map[string]any{"q1": map[string]any{"widgets": []any{widget}}}
}

func TestCreateErrors(t *testing.T) {
	t.Parallel()
	valid := viewBody(t, views.Search, "S", nil)
	tests := []struct {
		name   string
		p      *auth.Principal
		body   string
		status int
		field  string // the validation error's field; "" for an ApiError
		msg    string
	}{
		{"anonymous", nil, valid, 401, "", "Not authenticated"},
		{"dashboard without dashboards:create", user(t, "bob", "view:*", "dashboards:read"), viewBody(t, views.Dashboard, "D", nil), 403, "", "User is not allowed to create new dashboards."},
		{"empty body", user(t, "bob"), "", 400, "", "Request body is mandatory"},
		{"malformed JSON", user(t, "bob"), `{"type":`, 400, "", "Unable to parse JSON"},
		{"array body", user(t, "bob"), `[]`, 400, "", "Unable to parse JSON"},
		{"trailing data", user(t, "bob"), valid + `{}`, 400, "", "unexpected data after the JSON value"},
		{"unknown top-level property", user(t, "bob"), viewBody(t, views.Search, "S", map[string]any{"favorite": true}), 400, "", "Unable to map property favorite"},
		{"missing type", user(t, "bob"), viewBody(t, views.Search, "S", map[string]any{"type": nil}), 400, "type", "Missing view type; use SEARCH or DASHBOARD"},
		{"lower-case type", user(t, "bob"), viewBody(t, "search", "S", nil), 400, "type", `Invalid view type "search"`},
		{"unknown type", user(t, "bob"), viewBody(t, "WIDGET", "S", nil), 400, "type", `Invalid view type "WIDGET"`},
		{"type not a string", user(t, "bob"), viewBody(t, views.Search, "S", map[string]any{"type": 1}), 400, "", "property type must be a string"},
		{"missing title", user(t, "bob"), viewBody(t, views.Search, "S", map[string]any{"title": nil}), 400, "title", "must not be blank"},
		{"blank title", user(t, "bob"), viewBody(t, views.Search, " \t", nil), 400, "title", "must not be blank"},
		{"missing search_id", user(t, "bob"), viewBody(t, views.Search, "S", map[string]any{"search_id": nil}), 400, "search_id", "must not be empty"},
		{"empty search_id", user(t, "bob"), viewBody(t, views.Search, "S", map[string]any{"search_id": ""}), 400, "search_id", "must not be empty"},
		{"properties not an array", user(t, "bob"), viewBody(t, views.Search, "S", map[string]any{"properties": "p"}), 400, "", "property properties must be an array"},
		{"null property", user(t, "bob"), viewBody(t, views.Search, "S", map[string]any{"properties": []any{"a", nil}}), 400, "properties", "must not contain null"},
		{"requirement not an object", user(t, "bob"), viewBody(t, views.Search, "S", map[string]any{"requires": map[string]any{"plugin": "x"}}), 400, "requires", `Requirement "plugin" must be an object`},
		{"state not an object", user(t, "bob"), viewBody(t, views.Search, "S", map[string]any{"state": []any{}}), 400, "", "property state must be an object"},
		{"state entry not an object", user(t, "bob"), viewBody(t, views.Search, "S", map[string]any{"state": map[string]any{"q": 3}}), 400, "state", `query "q" must be an object (a view state), got a number`},
		{"widgets not an array", user(t, "bob"), viewBody(t, views.Search, "S", map[string]any{"state": map[string]any{"q1": map[string]any{"widgets": map[string]any{}}}}), 400, "state", `query "q1" widgets must be an array of widgets, got an object`},
		{"widget not an object", user(t, "bob"), viewBody(t, views.Search, "S", map[string]any{"state": widgetState("w")}), 400, "state", `widgets[0] must be an object (a widget), got a string`},
		{"widget without id", user(t, "bob"), viewBody(t, views.Search, "S", map[string]any{"state": widgetState(map[string]any{"type": "messages"})}), 400, "state", "widgets[0].id is missing"},
		{"widget without type", user(t, "bob"), viewBody(t, views.Search, "S", map[string]any{"state": widgetState(map[string]any{"id": "w"})}), 400, "state", "widgets[0].type is missing"},
		{"widget id a number", user(t, "bob"), viewBody(t, views.Search, "S", map[string]any{"state": widgetState(map[string]any{"id": 7, "type": "t"})}), 400, "state", "widgets[0].id must be a non-empty string, got a number"},
		{"widget type empty", user(t, "bob"), viewBody(t, views.Search, "S", map[string]any{"state": widgetState(map[string]any{"id": "w", "type": ""})}), 400, "state", "widgets[0].type must be a non-empty string, got an empty string"},
		{"widget streams not strings", user(t, "bob"), viewBody(t, views.Search, "S", map[string]any{"state": widgetState(map[string]any{"id": "w", "type": "t", "streams": []any{1}})}), 400, "state", "widgets[0].streams must be an array of strings"},
		{"widget config not an object", user(t, "bob"), viewBody(t, views.Search, "S", map[string]any{"state": widgetState(map[string]any{"id": "w", "type": "t", "config": "x"})}), 400, "state", "widgets[0].config must be an object"},
		{"widget filter not a string", user(t, "bob"), viewBody(t, views.Search, "S", map[string]any{"state": widgetState(map[string]any{"id": "w", "type": "t", "filter": false})}), 400, "state", "widgets[0].filter must be a string, got a boolean"},
		{"selected_fields with a number", user(t, "bob"), viewBody(t, views.Search, "S", map[string]any{"state": map[string]any{"q1": map[string]any{"selected_fields": []any{"a", 2}}}}), 400, "state", "selected_fields must be an array of strings, got an element that is a number"},
		{"titles not nested objects", user(t, "bob"), viewBody(t, views.Search, "S", map[string]any{"state": map[string]any{"q1": map[string]any{"titles": map[string]any{"tab": "x"}}}}), 400, "state", "titles.tab must be an object"},
		{"widget_mapping not strings", user(t, "bob"), viewBody(t, views.Search, "S", map[string]any{"state": map[string]any{"q1": map[string]any{"widget_mapping": map[string]any{"w": "x"}}}}), 400, "state", "widget_mapping.w must be an array of strings"},
		{"position not an object", user(t, "bob"), viewBody(t, views.Search, "S", map[string]any{"state": map[string]any{"q1": map[string]any{"positions": map[string]any{"w": 1}}}}), 400, "state", "positions.w must be an object"},
		{"static_message_list_id not a string", user(t, "bob"), viewBody(t, views.Search, "S", map[string]any{"state": map[string]any{"q1": map[string]any{"static_message_list_id": []any{}}}}), 400, "state", "static_message_list_id must be a string, got an array"},
		{"display_mode_settings not an object", user(t, "bob"), viewBody(t, views.Search, "S", map[string]any{"state": map[string]any{"q1": map[string]any{"display_mode_settings": 1}}}), 400, "state", "display_mode_settings must be an object"},
		{"invalid created_at", user(t, "bob"), viewBody(t, views.Search, "S", map[string]any{"created_at": "yesterday"}), 400, "", `Invalid date "yesterday"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			w := e.Do(tt.p, "POST", "/views", tt.body)
			wantStatus(t, w, tt.status, "")
			if tt.status == http.StatusUnauthorized {
				return // Graylog's 401 has no JSON body to read
			}
			if got := errorText(t, w, tt.field); !strings.Contains(got, tt.msg) {
				t.Fatalf("error %q does not contain %q; body %s", got, tt.msg, w.Body)
			}
			if d, s, err := e.svc.Counts(t.Context()); err != nil || d+s != 0 {
				t.Fatalf("Counts = %d, %d, %v after a refused create", d, s, err)
			}
		})
	}
}

func TestCreateReportsEveryFailure(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.Do(user(t, "bob"), "POST", "/views", `{"type":"x","title":"","state":{"a":1,"b":[]}}`)
	wantStatus(t, w, 400, "")
	for field, msg := range map[string]string{
		"type": `Invalid view type "x"; use SEARCH or DASHBOARD`, "title": "must not be blank",
		"search_id": "must not be empty; give the id of the search the view shows",
		"state":     `query "a" must be an object (a view state), got a number; query "b" must be an object (a view state), got an array`,
	} {
		if got := errorText(t, w, field); got != msg {
			t.Errorf("%s: %q, want %q", field, got, msg)
		}
	}
}

func TestCreate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		typ  views.Type
		p    *auth.Principal
	}{
		{"search without permissions", views.Search, user(t, "alice")},
		{"dashboard with dashboards:create", views.Dashboard, user(t, "alice", "dashboards:create")},
		{"dashboard with a wildcard", views.Dashboard, user(t, "alice", "dashboards:*")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			body := viewBody(t, tt.typ, "Title", map[string]any{
				// The client's id is kept, as Graylog keeps it; the
				// owner and created_at it sends back are ignored.
				"id": "5f00000000000000000000ff", "owner": "mallory", "created_at": "2000-01-01T00:00:00.000Z",
			})
			w := e.Do(tt.p, "POST", "/views", body)
			wantStatus(t, w, 200, "")
			got := decodeJSON[map[string]any](t, w)
			if got["id"] != "5f00000000000000000000ff" {
				t.Errorf("id %v, want the client's 5f00000000000000000000ff", got["id"])
			}
			if got["owner"] != "alice" || got["type"] != string(tt.typ) || got["title"] != "Title" {
				t.Errorf("owner, type, title = %v, %v, %v", got["owner"], got["type"], got["title"])
			}
			if want := epoch.Format(api.TimeLayout); got["created_at"] != want {
				t.Errorf("created_at %v, want %s", got["created_at"], want)
			}
			// What a later GET returns is what POST answered.
			g := e.Do(tt.p, "GET", "/views/"+got["id"].(string), "")
			wantStatus(t, g, 200, "")
			if !sameJSON(t, g.Body.Bytes(), w.Body.Bytes()) {
				t.Errorf("GET %s\nPOST %s", g.Body, w.Body)
			}
		})
	}
}

func TestCreateKeepsContent(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	// Unknown properties inside state, widgets and configs, nulls, nested
	// arrays and unicode: everything the client sends comes back.
	body := `{"type":"SEARCH","title":"Ünïcode <b>","summary":"sum","description":"desc","search_id":"s1",
	"properties":["a","b","a"],"requires":{"plugin":{"unique_id":"x","name":"P","version":"1.0","future":[1,2]}},
	"state":{"q1":{"selected_fields":null,"static_message_list_id":"m","titles":{"tab":{"title":"T"},"widget":{"w1":"W"}},
	"widgets":[{"id":"w1","type":"aggregation","filter":null,"timerange":{"type":"relative","range":300},"query":{"type":"elasticsearch","query_string":"a:b"},
	"streams":["s"],"config":{"row_pivots":[{"field":"source","type":"values","config":{"limit":15}}],"visualization":"bar","x":{"deep":[null,true,1.5e3]}},"new_widget_prop":{"k":"v"}}],
	"widget_mapping":{"w1":["st1","st2"]},"positions":{"w1":{"col":1,"row":1,"height":4,"width":"Infinity"}},
	"formatting":{"highlighting":[]},"display_mode_settings":{"positions":{}},"future_state_prop":42},
	"q2":{}}}`
	w := e.Do(user(t, "alice"), "POST", "/views", body)
	wantStatus(t, w, 200, "")
	got := decodeJSON[map[string]any](t, w)
	g := e.Do(user(t, "alice"), "GET", "/views/"+got["id"].(string), "")
	wantStatus(t, g, 200, "")
	var sent map[string]any
	if err := json.Unmarshal([]byte(body), &sent); err != nil {
		t.Fatal(err)
	}
	back := decodeJSON[map[string]any](t, g)
	// Graylog writes an aggregation widget's visualization_config and
	// formatting_settings, null when the client sent none.
	sentConfig := sent["state"].(map[string]any)["q1"].(map[string]any)["widgets"].([]any)[0].(map[string]any)["config"].(map[string]any)
	sentConfig["visualization_config"], sentConfig["formatting_settings"] = nil, nil
	for _, k := range []string{"title", "summary", "description", "search_id", "requires", "state"} {
		if !sameValue(sent[k], back[k]) {
			t.Errorf("%s: sent %v, got back %v", k, sent[k], back[k])
		}
	}
	if !sameValue(back["properties"], []any{"a", "b"}) {
		t.Errorf("properties %v, want the set [a b]", back["properties"])
	}
}

func TestCreateWithoutID(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.Do(user(t, "alice"), "POST", "/views", viewBody(t, views.Search, "S", nil))
	wantStatus(t, w, 200, "")
	if id := decodeJSON[views.View](t, w).ID; !validID(id) {
		t.Fatalf("id %q is not a new ObjectId", id)
	}
}

func TestCreateIDs(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	alice := user(t, "alice")
	const id = "5f00000000000000000000aa"
	wantStatus(t, e.Do(alice, "POST", "/views", viewBody(t, views.Search, "First", map[string]any{"id": id})), 200, "")
	// The same id again, by its owner or anyone else, replaces nothing.
	for _, p := range []*auth.Principal{alice, user(t, "mallory")} {
		w := e.Do(p, "POST", "/views", viewBody(t, views.Search, "Second", map[string]any{"id": id}))
		if got, want := errorText(t, w, ""), "View "+id+" already exists"; w.Code != 409 || got != want {
			t.Fatalf("%s: %d %q, want 409 %q", p.Username, w.Code, got, want)
		}
	}
	if v, _ := e.svc.Get(t.Context(), id); v.Title != "First" || *v.Owner != "alice" {
		t.Fatalf("stored %+v", v)
	}
	w := e.Do(alice, "POST", "/views", viewBody(t, views.Search, "S", map[string]any{"id": "my-view"}))
	wantStatus(t, w, 400, `Invalid view id \"my-view\"`)
}

func TestWidgetsCompleted(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	state := func(cfg map[string]any, typ string) map[string]any {
		return map[string]any{"q1": map[string]any{"widgets": []any{map[string]any{"id": "w1", "type": typ, "config": cfg}}}}
	}
	trend := map[string]any{"trend": true}
	tests := []struct {
		name     string
		typ      string
		cfg      map[string]any
		wantVis  any
		wantKeys bool
	}{
		{"aggregation without them", "aggregation", map[string]any{"visualization": "bar"}, nil, true},
		{"aggregation with a visualization_config", "aggregation", map[string]any{"visualization_config": trend, "formatting_settings": nil}, trend, true},
		{"messages widget", "messages", map[string]any{"fields": []string{"source"}}, nil, false},
	}
	for _, tt := range tests {
		w := e.Do(user(t, "alice"), "POST", "/views", viewBody(t, views.Search, "S", map[string]any{"state": state(tt.cfg, tt.typ)}))
		wantStatus(t, w, 200, "")
		g := e.Do(user(t, "alice"), "GET", "/views/"+decodeJSON[views.View](t, w).ID, "")
		var got struct {
			State map[string]struct {
				Widgets []struct {
					Config map[string]any `json:"config"`
				} `json:"widgets"`
			} `json:"state"`
		}
		if err := json.Unmarshal(g.Body.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		cfg := got.State["q1"].Widgets[0].Config
		vis, hasVis := cfg["visualization_config"]
		_, hasFmt := cfg["formatting_settings"]
		if hasVis != tt.wantKeys || hasFmt != tt.wantKeys || !sameValue(vis, tt.wantVis) {
			t.Errorf("%s: config %v", tt.name, cfg)
		}
	}
}

// A view stored before widgets were completed on write gets them on read.
func TestStoredWidgetsCompleted(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const id = "5f00000000000000000000ab"
	doc := `{"id":"` + id + `","type":"DASHBOARD","title":"Old","summary":"","description":"","search_id":"s","properties":[],"requires":{},` +
		`"owner":"alice","created_at":"2021-01-01T00:00:00.000Z","state":{"q1":{"widgets":[{"id":"w1","type":"aggregation","config":{"visualization":"bar"}}]}}}`
	if err := e.st.Put(t.Context(), views.Collection, id, []byte(doc)); err != nil {
		t.Fatal(err)
	}
	g := e.Do(user(t, "alice"), "GET", "/views/"+id, "")
	wantStatus(t, g, 200, `"config":{"visualization":"bar","visualization_config":null,"formatting_settings":null}`)
}

func validID(id string) bool {
	_, err := primitive.ObjectIDFromHex(id)
	return err == nil
}
