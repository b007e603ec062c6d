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
