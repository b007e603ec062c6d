package router_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"

	"github.com/loggate/loggate/router"
	"github.com/loggate/loggate/router/api"
)

// An unknown path or a wrong method costs about the request itself, whatever
// the size of the route table: the 404/405 check probes the routes without
// copying the request's headers for each one. An anonymous client sending
// up to net/http's 1 MiB of headers to a missing path must not make the
// server allocate that much once per route.
func TestUnmatchedDoesNotCopyHeadersPerRoute(t *testing.T) {
	ok := func(http.ResponseWriter, *http.Request) error { return nil }
	var routes []api.Route
	for i := range 300 {
		routes = append(routes, api.Route{Method: "GET", Path: fmt.Sprintf("/things%d/{id}", i), Public: true, Handler: ok})
	}
	rt := router.New(router.Options{Routes: routes})
	req := httptest.NewRequest("PATCH", router.Prefix+"/nothing/here", nil)
	// Many small headers, as fit in net/http's 1 MiB: what a copy of the
	// header map costs is per header.
	const headers = 5000
	for i := range headers {
		req.Header[fmt.Sprintf("X-%d", i)] = []string{"x"}
	}
	const budget = 8 << 20 // the request is about 60 KiB on the wire
	serve := func() int {
		rec := httptest.NewRecorder()
		rt.ServeHTTP(rec, req)
		return rec.Code
	}
	if code := serve(); code != http.StatusNotFound {
		t.Fatalf("status %d, want 404", code)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	code := serve()
	runtime.ReadMemStats(&after)
	if code != http.StatusNotFound {
		t.Fatalf("status %d, want 404", code)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > budget {
		t.Errorf("a 404 with %d headers allocated %d bytes, want at most %d", headers, got, budget)
	}
	// A wrong method on a known path is still a 405.
	rec := httptest.NewRecorder()
	rt.ServeHTTP(rec, httptest.NewRequest("PATCH", router.Prefix+"/things7/a", nil))
	if rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("PATCH on a GET route: %d, want 405", rec.Code)
	}
}
