package apibrowser_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/loggate/loggate/backend/system/apibrowser"
	"github.com/loggate/loggate/router/api"
	"github.com/loggate/loggate/router/routertest"
)

func benchServe(b *testing.B, path string) {
	b.Helper()
	var routes []api.Route
	h := apibrowser.NewVersioned(func() []api.Route { return routes }, "4.0.0", "4.0.0+bench")
	routes = append(apibrowser.BenchTable(), h.Routes()...)
	srv := routertest.Handler(routes)
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
		if w.Code != http.StatusOK {
			b.Fatalf("GET %s: %d %s", path, w.Code, w.Body)
		}
	}
}

// BenchmarkServeOpenAPI serves the cached document through the router.
func BenchmarkServeOpenAPI(b *testing.B) { benchServe(b, "/api-browser/openapi.json") }

// BenchmarkServeResource serves one Swagger 1.2 resource, encoded per request.
func BenchmarkServeResource(b *testing.B) { benchServe(b, "/api-docs/system/resource7") }

// BenchmarkServePage serves the embedded page.
func BenchmarkServePage(b *testing.B) { benchServe(b, "/api-browser/app.js") }
