package router_test

import (
	"net/http"
	"testing"

	"github.com/loggate/loggate/router/api"
	"github.com/loggate/loggate/router/routertest"
)

// A value handler's answer is written with 200, its error by the one
// writer; a path-checked permission is checked with the request's values.
func TestValueRoutesAndPathPermissions(t *testing.T) {
	thing := func(r *http.Request) (any, error) {
		if id := api.Var(r, "id"); id != "missing" {
			return map[string]string{"id": id}, nil
		}
		return nil, api.Errorf(api.NotFound, "Thing <missing> not found")
	}
	h := routertest.Handler([]api.Route{
		{Method: "GET", Path: "/things/{id}", Permission: "things:read:{id}", PathChecked: true, Handler: api.JSON(thing)},
		{Method: "GET", Path: "/unchecked/{id}", Permission: "things:read:{id}", Handler: api.JSON(thing)},
	})
	reader := routertest.Principal(t, "things:read:a", "things:read:missing")
	for _, c := range []struct {
		path   string
		status int
		body   string
	}{
		{"/things/a", http.StatusOK, `{"id":"a"}`},
		{"/things/b", http.StatusForbidden, ""},
		{"/things/missing", http.StatusNotFound, ""},
		// Without PathChecked the handler alone decides.
		{"/unchecked/b", http.StatusOK, `{"id":"b"}`},
	} {
		rec := routertest.Serve(h, reader, "GET", c.path, "")
		routertest.WantStatus(t, rec, c.status)
		if c.body != "" && !routertest.SameJSON(t, rec.Body.Bytes(), []byte(c.body)) {
			t.Errorf("GET %s: body %s, want %s", c.path, rec.Body, c.body)
		}
	}
}

func TestPathCheckedNeedsPathVariables(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("a PathChecked permission naming no path variable was accepted")
		}
	}()
	routertest.Handler([]api.Route{{Method: "GET", Path: "/things", Permission: "things:read:{id}", PathChecked: true, Handler: api.JSON(nil)}})
}

// The router matches a request against the routes of its first path
// segment; the table's order still decides, also for routes that start
// with a placeholder, and 404, 405 and the API root are as before.
func TestRoutesBySegmentKeepTableOrder(t *testing.T) {
	answer := func(name string) api.HandlerFunc {
		return api.JSON(func(r *http.Request) (any, error) {
			return map[string]string{"route": name, "kind": api.Var(r, "kind"), "id": api.Var(r, "id")}, nil
		})
	}
	h := routertest.Handler([]api.Route{
		{Method: "GET", Path: "/", Public: true, Handler: answer("root")},
		{Method: "GET", Path: "/things/special", Public: true, Handler: answer("special")},
		{Method: "GET", Path: "/{kind}/{id}", Public: true, Handler: answer("any")},
		{Method: "GET", Path: "/things/late", Public: true, Handler: answer("late, shadowed")},
		{Method: "DELETE", Path: "/things/late", Public: true, Handler: answer("late delete")},
		{Method: "GET", Path: "/things/{id}", Public: true, Handler: answer("thing, shadowed")},
		{Method: "POST", Path: "/things/{id}", Public: true, Handler: answer("post")},
		{Method: "GET", Path: "/things", Public: true, Handler: answer("things")},
	})
	for _, c := range []struct {
		method, path string
		status       int
		body         string
	}{
		{"GET", "/", http.StatusOK, `{"route":"root","kind":"","id":""}`},
		{"GET", "/things/special", http.StatusOK, `{"route":"special","kind":"","id":""}`},
		{"HEAD", "/things/special", http.StatusOK, ""},
		{"GET", "/things/late", http.StatusOK, `{"route":"any","kind":"things","id":"late"}`},
		{"DELETE", "/things/late", http.StatusOK, `{"route":"late delete","kind":"","id":""}`},
		{"PUT", "/things/special", http.StatusMethodNotAllowed, ""},
		{"GET", "/things/a", http.StatusOK, `{"route":"any","kind":"things","id":"a"}`},
		{"GET", "/others/a", http.StatusOK, `{"route":"any","kind":"others","id":"a"}`},
		{"POST", "/things/a", http.StatusOK, `{"route":"post","kind":"","id":"a"}`},
		{"GET", "/things", http.StatusOK, `{"route":"things","kind":"","id":""}`},
		{"DELETE", "/things", http.StatusMethodNotAllowed, ""},
		{"GET", "/things/a/b", http.StatusNotFound, ""},
		{"GET", "/nothing", http.StatusNotFound, ""},
		{"GET", "/things/x/../special", http.StatusMovedPermanently, ""},
	} {
		rec := routertest.Serve(h, nil, c.method, c.path, "")
		routertest.WantStatus(t, rec, c.status)
		if c.body != "" && !routertest.SameJSON(t, rec.Body.Bytes(), []byte(c.body)) {
			t.Errorf("%s %s: body %s, want %s", c.method, c.path, rec.Body, c.body)
		}
	}
}
