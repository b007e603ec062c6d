package apibrowser_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/loggate/loggate/backend/system/apibrowser"
	"github.com/loggate/loggate/internal/golden"
	"github.com/loggate/loggate/router/api"
	"github.com/loggate/loggate/router/routertest"
)

// fixture is a small route table with one route of each kind the documents
// must describe.
var fixture = []api.Route{
	{Method: "GET", Path: "/", Summary: "A few details about the node", Public: true},
	{Method: "GET", Path: "/users", Summary: "List all users", Permission: "users:list", Successor: "/users/paginated"},
	{Method: "GET", Path: "/users/paginated", Summary: "Get paginated list of users", Permission: "users:list", Query: api.PageQuery},
	{Method: "POST", Path: "/users", Summary: "Create a new user account", Permission: "users:create", Body: `{"username":"jdoe","password":"secret"}`},
	{Method: "GET", Path: "/users/{username}", Summary: "Get user details by username", Permission: "users:edit:{username}"},
	{Method: "PUT", Path: "/users/{userId}", Summary: "Modify user details", Permission: "users:edit:{username}", Body: `{"email":"jdoe@example.org"}`},
	{Method: "POST", Path: "/system/sessions", Summary: "Create a new session", Public: true, Body: `{"username":"admin","password":"secret","host":""}`},
	{Method: "DELETE", Path: "/system/sessions/{sessionId}", Summary: "Terminate an existing session"},
	{Method: "PUT", Path: "/authz/roles/{roleId}/assignees", Summary: "Add users to a role", Permission: "users:rolesedit:{username}", Body: `["jdoe"]`},
}

// newFixture returns the fixture's table, the browser's routes included, and
// a handler serving it through the real router.
func newFixture(t *testing.T) ([]api.Route, http.Handler) {
	t.Helper()
	var routes []api.Route
	b := apibrowser.NewVersioned(func() []api.Route { return routes }, "4.0.0", "4.0.0+test")
	routes = append(slices.Clone(fixture), b.Routes()...)
	return routes, routertest.Handler(routes)
}

func get(t *testing.T, h http.Handler, path string, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest("GET", path, nil)
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func TestOpenAPIGolden(t *testing.T) {
	_, h := newFixture(t)
	w := get(t, h, "/api-browser/openapi.json")
	if w.Code != http.StatusOK || w.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("GET openapi.json: %d %s: %s", w.Code, w.Header().Get("Content-Type"), w.Body)
	}
	validateOpenAPI(t, w.Body.Bytes())
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, w.Body.Bytes(), "", "  "); err != nil {
		t.Fatal(err)
	}
	pretty.WriteByte('\n')
	golden.Check(t, filepath.Join("testdata", "openapi.golden.json"), pretty.Bytes())
	// The document is the same each time it is built.
	if again := get(t, h, "/api-browser/openapi.json"); !bytes.Equal(again.Body.Bytes(), w.Body.Bytes()) {
		t.Error("a second request gave another document")
	}
}

func TestOpenAPIOperations(t *testing.T) {
	_, h := newFixture(t)
	doc := validateOpenAPI(t, get(t, h, "/api-browser/openapi.json").Body.Bytes())
	if doc.Info.Version != "4.0.0" {
		t.Errorf("info.version %q, want 4.0.0", doc.Info.Version)
	}
	cases := []struct {
		path, method string
		params       []string // "in name", in order
		secured      bool
		deprecated   bool
		permission   string
		body         string // the example, compacted
		template     string // x-path-template
		tag          string
		responses    []string
	}{
		{path: "/", method: "get", tag: "Hello World", responses: []string{"2XX"}},
		{path: "/users", method: "get", secured: true, deprecated: true, permission: "users:list", tag: "Users",
			responses: []string{"2XX", "401", "403"}},
		{path: "/users/paginated", method: "get", secured: true, permission: "users:list", tag: "Users",
			params:    []string{"query page", "query per_page", "query query", "query sort", "query order"},
			responses: []string{"2XX", "400", "401", "403"}},
		{path: "/users", method: "post", secured: true, permission: "users:create", tag: "Users",
			body: `{"username":"jdoe","password":"secret"}`, responses: []string{"2XX", "400", "401", "403"}},
		// Two templates of one shape share the lexically smaller one.
		{path: "/users/{userId}", method: "put", secured: true, permission: "users:edit:{username}", tag: "Users",
			params: []string{"path userId"}, body: `{"email":"jdoe@example.org"}`, responses: []string{"2XX", "400", "401", "403", "404"}},
		{path: "/users/{userId}", method: "get", secured: true, permission: "users:edit:{username}", tag: "Users",
			params: []string{"path userId"}, template: "/users/{username}", responses: []string{"2XX", "401", "403", "404"}},
		{path: "/system/sessions", method: "post", tag: "System/Sessions",
			body: `{"username":"admin","password":"secret","host":""}`, responses: []string{"2XX", "400"}},
		{path: "/system/sessions/{sessionId}", method: "delete", secured: true, tag: "System/Sessions",
			params: []string{"path sessionId"}, responses: []string{"2XX", "401", "404"}},
		{path: "/authz/roles/{roleId}/assignees", method: "put", secured: true, permission: "users:rolesedit:{username}",
			tag: "Authz/Roles", params: []string{"path roleId"}, body: `["jdoe"]`, responses: []string{"2XX", "400", "401", "403", "404"}},
		{path: "/api-docs/{route}", method: "get", tag: "ApiDocs", params: []string{"path route"}, responses: []string{"2XX", "404"}},
	}
	for _, c := range cases {
		t.Run(c.method+" "+c.path, func(t *testing.T) {
			op, ok := doc.Paths[c.path][c.method]
			if !ok {
				t.Fatalf("not documented; paths: %v", keys(doc.Paths))
			}
			var params []string
			for _, p := range op.Parameters {
				params = append(params, p.In+" "+p.Name)
			}
			if !slices.Equal(params, c.params) {
				t.Errorf("parameters %q, want %q", params, c.params)
			}
			if got := len(op.Security) > 0; got != c.secured {
				t.Errorf("security %v, want secured=%v", op.Security, c.secured)
			}
			if op.Deprecated != c.deprecated {
				t.Errorf("deprecated %v, want %v", op.Deprecated, c.deprecated)
			}
			if c.deprecated && !strings.Contains(op.Description, "/users/paginated") {
				t.Errorf("description %q does not name the successor", op.Description)
			}
			if op.Permission != c.permission || (c.permission != "" && !strings.Contains(op.Description, c.permission)) {
				t.Errorf("x-permission %q, description %q; want permission %q in both", op.Permission, op.Description, c.permission)
			}
			var body string
			if op.RequestBody != nil {
				var b bytes.Buffer
				if err := json.Compact(&b, op.RequestBody.Content["application/json"].Example); err != nil {
					t.Fatal(err)
				}
				body = b.String()
			}
			if body != c.body {
				t.Errorf("body example %s, want %s", body, c.body)
			}
			if op.PathTemplate != c.template {
				t.Errorf("x-path-template %q, want %q", op.PathTemplate, c.template)
			}
			if len(op.Tags) != 1 || op.Tags[0] != c.tag {
				t.Errorf("tags %q, want [%s]", op.Tags, c.tag)
			}
			if got := keys(op.Responses); !slices.Equal(got, c.responses) {
				t.Errorf("responses %q, want %q", got, c.responses)
			}
		})
	}
}

func TestOpenAPIParameterSchemas(t *testing.T) {
	_, h := newFixture(t)
	doc := validateOpenAPI(t, get(t, h, "/api-browser/openapi.json").Body.Bytes())
	params := map[string]oaParameter{}
	for _, p := range doc.Paths["/users/paginated"]["get"].Parameters {
		params[p.Name] = p
	}
	if p := params["per_page"]; p.Schema.Type != "integer" || p.Schema.Minimum == nil || *p.Schema.Minimum != 0 {
		t.Errorf("per_page schema %+v, want an integer of at least 0 (0: all)", p.Schema)
	}
	if p := params["page"]; p.Schema.Type != "integer" || p.Schema.Minimum == nil || *p.Schema.Minimum != 1 {
		t.Errorf("page schema %+v, want an integer of at least 1", p.Schema)
	}
	if p := params["order"]; !slices.Equal(p.Schema.Enum, []string{"asc", "desc"}) {
		t.Errorf("order schema %+v, want asc or desc", p.Schema)
	}
	if p := params["query"]; p.Schema.Type != "string" || p.Required {
		t.Errorf("query parameter %+v, want an optional string", p)
	}
	route := doc.Paths["/api-docs/{route}"]["get"].Parameters[0]
	if route.Schema.Pattern != "^.+$" {
		t.Errorf("route pattern %q, want the mux pattern anchored", route.Schema.Pattern)
	}
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
