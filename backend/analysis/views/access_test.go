package views_test

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/backend/analysis/views"
)

// missingID is a well-formed ObjectId no view has.
const missingID = "5f00000000000000000000ee"

// fixture is alice's saved search and dashboard.
type fixture struct {
	*env
	search, dashboard views.View
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	e := newEnv(t)
	return fixture{env: e,
		search:    e.add("alice", views.Search, "Alice's search", "errors of the week"),
		dashboard: e.add("alice", views.Dashboard, "Alice's dashboard", "web servers"),
	}
}

// id resolves a test's target: search, dashboard, missing or a literal id.
func (f fixture) id(target string) string {
	switch target {
	case "search":
		return f.search.ID
	case "dashboard":
		return f.dashboard.ID
	case "missing":
		return missingID
	}
	return target
}

// caller returns the principal of a test: nil for "", else name holding
// perms with {id} replaced by id.
func caller(t testing.TB, name, id string, perms ...string) *auth.Principal {
	t.Helper()
	if name == "" {
		return nil
	}
	out := make([]string, len(perms))
	for i, p := range perms {
		out[i] = strings.ReplaceAll(p, "{id}", id)
	}
	return user(t, name, out...)
}

// accessCase is one caller's request of a view, and what it must get.
type accessCase struct {
	name   string
	target string // search, dashboard, missing or an id
	who    string // "" for anonymous
	perms  []string
	status int
	msg    string // the error message, with {id}; "" not to check it
}

// setup returns a fresh fixture and the id of the case's target.
func (c accessCase) setup(t *testing.T) (fixture, string) {
	t.Helper()
	f := newFixture(t)
	return f, f.id(c.target)
}

// serve sends the request (path with {id}) as the case's caller and checks
// the status and the message.
func (c accessCase) serve(t *testing.T, f fixture, id, method, path string) *httptest.ResponseRecorder {
	t.Helper()
	w := f.Do(caller(t, c.who, id, c.perms...), method, strings.ReplaceAll(path, "{id}", id), "")
	wantStatus(t, w, c.status, "")
	if c.msg != "" {
		if got, want := errorText(t, w, ""), strings.ReplaceAll(c.msg, "{id}", id); got != want {
			t.Fatalf("message %q, want %q", got, want)
		}
	}
	return w
}

func TestGet(t *testing.T) {
	t.Parallel()
	tests := []accessCase{
		{"owner reads a search", "search", "alice", nil, 200, ""},
		{"owner reads a dashboard", "dashboard", "alice", nil, 200, ""},
		{"stranger and a search", "search", "bob", nil, 404, ""},
		{"stranger and a dashboard", "dashboard", "bob", nil, 404, ""},
		{"view:read on the search", "search", "bob", []string{"view:read:{id}"}, 200, ""},
		{"view:read on another view", "search", "bob", []string{"view:read:" + missingID}, 404, ""},
		{"view:read wildcard", "dashboard", "bob", []string{"view:read:*"}, 200, ""},
		{"dashboards:read on a dashboard", "dashboard", "bob", []string{"dashboards:read:{id}"}, 200, ""},
		{"dashboards:read on a search", "search", "bob", []string{"dashboards:read:{id}"}, 404, ""},
		{"view:edit does not read", "search", "bob", []string{"view:edit:{id}", "view:delete:{id}"}, 404, ""},
		{"missing view", "missing", "bob", []string{"*"}, 404, ""},
		{"id that is no ObjectId", "not-an-id", "bob", []string{"*"}, 404, ""},
		{"anonymous", "search", "", nil, 401, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, id := tt.setup(t)
			w := tt.serve(t, f, id, "GET", "/views/{id}")
			switch tt.status {
			case 200:
				if got := decodeJSON[views.View](t, w); got.ID != id || got.Owner == nil || *got.Owner != "alice" {
					t.Fatalf("got view %+v, want %s of alice", got, id)
				}
			case 404:
				// The same words whether the view is missing or hidden.
				if got, want := errorText(t, w, ""), "View "+id+" doesn't exist"; got != want {
					t.Fatalf("message %q, want %q", got, want)
				}
			}
		})
	}
}

func TestUpdate(t *testing.T) {
	t.Parallel()
	forbidden := func(id string) string { return "Not authorized to access resource id " + id }
	tests := []struct {
		name   string
		target string
		who    string
		perms  []string
		typ    views.Type // of the body; the target's own when empty
		body   map[string]any
		status int
		msg    func(id string) string
	}{
		{"owner", "search", "alice", nil, "", nil, 200, nil},
		{"owner of a dashboard", "dashboard", "alice", nil, "", nil, 200, nil},
		{"owner changes the type", "search", "alice", nil, views.Dashboard, nil, 200, nil},
		{"owner cannot hand over ownership", "search", "alice", nil, "", map[string]any{"owner": "bob", "id": missingID, "created_at": "2000-01-01T00:00:00Z"}, 200, nil},
		{"view:edit on the view", "search", "bob", []string{"view:edit:{id}"}, "", nil, 200, nil},
		{"dashboards:edit on a dashboard", "dashboard", "bob", []string{"dashboards:edit:{id}"}, "", nil, 200, nil},
		{"dashboards:edit on a search", "search", "bob", []string{"dashboards:edit:{id}"}, views.Dashboard, nil, 403, forbidden},
		{"stranger", "search", "bob", nil, "", nil, 403, forbidden},
		{"view:read does not edit", "dashboard", "bob", []string{"view:read:{id}", "dashboards:read:{id}"}, "", nil, 403, forbidden},
		{"missing view, permitted", "missing", "bob", []string{"view:edit:*"}, views.Search, nil, 404, func(id string) string { return "View " + id + " doesn't exist" }},
		{"missing dashboard, dashboards:edit", "missing", "bob", []string{"dashboards:edit:{id}"}, views.Dashboard, nil, 404, func(id string) string { return "View " + id + " doesn't exist" }},
		{"missing view, not permitted", "missing", "bob", nil, views.Search, nil, 403, forbidden},
		{"invalid body before permissions", "search", "bob", nil, "", map[string]any{"title": ""}, 400, nil},
		{"anonymous", "search", "", nil, "", nil, 401, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			id := f.id(tt.target)
			old, _ := f.svc.Get(t.Context(), id)
			typ := tt.typ
			if typ == "" {
				typ = old.Type
			}
			w := f.Do(caller(t, tt.who, id, tt.perms...), "PUT", "/views/"+id, viewBody(t, typ, "New title", tt.body))
			wantStatus(t, w, tt.status, "")
			if tt.msg != nil {
				if got, want := errorText(t, w, ""), tt.msg(id); got != want {
					t.Fatalf("message %q, want %q", got, want)
				}
			}
			stored, _ := f.svc.Get(t.Context(), id)
			if tt.status != 200 {
				if tt.target != "missing" && stored.Title != old.Title {
					t.Fatalf("refused update changed the title to %q", stored.Title)
				}
				if tt.target == "missing" && stored.ID != "" {
					t.Fatalf("refused update created %+v", stored)
				}
				return
			}
			got := decodeJSON[views.View](t, w)
			if got.ID != id || got.Title != "New title" || got.Type != typ || got.Summary != "s" || len(got.State) != 1 {
				t.Fatalf("answered %+v", got)
			}
			if *got.Owner != "alice" || !got.CreatedAt.Equal(old.CreatedAt.Time) {
				t.Fatalf("owner %q, created_at %v; want alice, %v", *got.Owner, got.CreatedAt, old.CreatedAt)
			}
			if stored.Title != "New title" || *stored.Owner != "alice" || stored.Type != typ {
				t.Fatalf("stored %+v", stored)
			}
		})
	}
}

func TestDelete(t *testing.T) {
	t.Parallel()
	tests := []accessCase{
		{"owner deletes a search", "search", "alice", nil, 200, ""},
		{"owner deletes a dashboard", "dashboard", "alice", nil, 200, ""},
		{"view:delete on the view", "dashboard", "bob", []string{"view:delete:{id}"}, 200, ""},
		{"dashboards:edit does not delete", "dashboard", "bob", []string{"dashboards:edit:{id}", "view:edit:{id}", "view:read:{id}"}, 403, "Not authorized to access resource id {id}"},
		{"stranger", "search", "bob", nil, 403, "Not authorized to access resource id {id}"},
		{"missing view, permitted", "missing", "bob", []string{"view:delete:*"}, 404, "View {id} doesn't exist"},
		{"missing view, not permitted", "missing", "bob", nil, 403, "Not authorized to access resource id {id}"},
		{"anonymous", "search", "", nil, 401, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, id := tt.setup(t)
			old, _ := f.svc.Get(t.Context(), id)
			w := tt.serve(t, f, id, "DELETE", "/views/{id}")
			_, err := f.svc.Get(t.Context(), id)
			if tt.status != 200 {
				if tt.target != "missing" && err != nil {
					t.Fatalf("refused delete removed the view: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("the view is still stored")
			}
			if got := decodeJSON[views.View](t, w); got.ID != id || got.Title != old.Title || got.Type != old.Type {
				t.Fatalf("answered %+v, want the deleted %+v", got, old)
			}
			if g := f.Do(user(t, "alice"), "GET", "/views/"+id, ""); g.Code != 404 {
				t.Fatalf("GET after delete: %d", g.Code)
			}
		})
	}
}

func TestSetDefault(t *testing.T) {
	t.Parallel()
	const resource = "Not authorized to access resource id {id}"
	tests := []accessCase{
		{"owner with default-view:set", "search", "alice", []string{"default-view:set"}, 204, ""},
		{"view:read and default-view:set", "dashboard", "bob", []string{"view:read:{id}", "default-view:set"}, 204, ""},
		{"owner without default-view:set", "search", "alice", nil, 403, "Not authorized"},
		{"stranger with default-view:set", "search", "bob", []string{"default-view:set"}, 403, resource},
		{"dashboards:read is not view:read", "dashboard", "bob", []string{"dashboards:read:{id}", "default-view:set"}, 403, resource},
		{"missing view, permitted", "missing", "bob", []string{"view:read:*", "default-view:set"}, 404, "View {id} doesn't exist"},
		{"missing view, no default-view:set", "missing", "bob", []string{"view:read:*"}, 403, "Not authorized"},
		{"missing view, no view:read", "missing", "bob", []string{"default-view:set"}, 403, resource},
		{"anonymous", "search", "", nil, 401, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, id := tt.setup(t)
			w := tt.serve(t, f, id, "PUT", "/views/{id}/default")
			def, err := f.svc.Default(t.Context())
			if tt.status != 204 {
				if err == nil {
					t.Fatalf("refused request set the default to %s", def.ID)
				}
				return
			}
			if w.Body.Len() != 0 || err != nil || def.ID != id {
				t.Fatalf("body %q; default %s, %v; want %s", w.Body, def.ID, err, id)
			}
		})
	}
}

func TestDefaultView(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	alice, reader, stranger := user(t, "alice"), user(t, "carol", "view:read:"+f.dashboard.ID), user(t, "bob")
	get := func(p *auth.Principal) (int, string) {
		w := f.Do(p, "GET", "/views/default", "")
		if w.Code != 200 {
			return w.Code, errorText(t, w, "")
		}
		return w.Code, decodeJSON[views.View](t, w).ID
	}
	if code, msg := get(alice); code != 404 || msg != "Default view doesn't exist" {
		t.Fatalf("before any default: %d %q", code, msg)
	}
	if w := f.Do(user(t, "alice", "default-view:set"), "PUT", "/views/"+f.dashboard.ID+"/default", ""); w.Code != 204 {
		t.Fatalf("set default: %d %s", w.Code, w.Body)
	}
	for _, tc := range []struct {
		p    *auth.Principal
		code int
		want string
	}{
		{alice, 200, f.dashboard.ID},
		{reader, 200, f.dashboard.ID},
		// A default the caller may not read is no default to them.
		{stranger, 404, "Default view doesn't exist"},
	} {
		if code, got := get(tc.p); code != tc.code || got != tc.want {
			t.Errorf("%s: %d %q, want %d %q", tc.p.Username, code, got, tc.code, tc.want)
		}
	}
	// Moving the default.
	if w := f.Do(user(t, "alice", "default-view:set"), "PUT", "/views/"+f.search.ID+"/default", ""); w.Code != 204 {
		t.Fatalf("set default: %d %s", w.Code, w.Body)
	}
	if code, got := get(alice); code != 200 || got != f.search.ID {
		t.Fatalf("after moving: %d %q", code, got)
	}
	// Deleting the default view leaves none.
	if w := f.Do(alice, "DELETE", "/views/"+f.search.ID, ""); w.Code != 200 {
		t.Fatalf("delete: %d %s", w.Code, w.Body)
	}
	if code, msg := get(alice); code != 404 || msg != "Default view doesn't exist" {
		t.Fatalf("after deleting the default: %d %q", code, msg)
	}
}
