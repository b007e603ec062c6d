package apibrowser_test

import (
	"cmp"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/loggate/loggate/backend/system/apibrowser"
	"github.com/loggate/loggate/backend/system/overview"
	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
)

// TestEveryRouteIsDocumented is the guarantee of the API browser: what the
// route table declares, what the HTTP router really serves and what
// openapi.json documents are the same set of operations.
func TestEveryRouteIsDocumented(t *testing.T) {
	h := nodetest.Start(t)
	resp := h.Do("GET", "/api-browser/openapi.json", nil).Want(t, http.StatusOK)
	doc := validateOpenAPI(t, resp.Body)
	if doc.Info.Version != overview.APIVersion {
		t.Errorf("info.version %q, want %q", doc.Info.Version, overview.APIVersion)
	}

	// documented holds "METHOD template" with each route's own template.
	// The routes only the compat chain serves are documented besides the
	// table's, and say so.
	documented, compat := map[string]bool{}, map[string]bool{}
	for path, item := range doc.Paths {
		for method, op := range item {
			key := strings.ToUpper(method) + " " + cmp.Or(op.PathTemplate, path)
			if strings.Contains(op.Description, "by compatibility for releases") {
				compat[key] = true
				continue
			}
			documented[key] = true
		}
	}
	if !compat["GET /legacy/dashboards"] {
		t.Errorf("the compatibility routes are not documented: %v", keys(compat))
	}

	declared := map[string]bool{}
	for _, r := range h.Node.Router.Routes() {
		key := r.Method + " " + documentedPath(t, r.Path)
		if declared[key] {
			t.Errorf("%s is declared twice; the router serves only the first", key)
		}
		declared[key] = true
		if !documented[key] {
			t.Errorf("route %s %s is not in openapi.json", r.Method, r.Path)
		}
		if r.Summary == "" {
			t.Errorf("route %s %s has no summary", r.Method, r.Path)
		}
		if r.Body != "" && !json.Valid([]byte(r.Body)) {
			t.Errorf("route %s %s has a body example that is not JSON: %s", r.Method, r.Path, r.Body)
		}
	}

	served := map[string]bool{}
	var heads []string
	for _, s := range h.Node.Router.Served() {
		method, path, ok := strings.Cut(s, " ")
		if !ok || !strings.HasPrefix(path, "/api") {
			t.Errorf("served %q is not METHOD /api/path", s)
			continue
		}
		path = strings.TrimPrefix(path, "/api")
		if path == "" {
			path = "/"
		}
		key := method + " " + documentedPath(t, path)
		if method == http.MethodHead {
			heads = append(heads, key)
			continue
		}
		served[key] = true
		if compat[key] {
			t.Errorf("%s is documented as compatibility only, but the router serves it", key)
		}
		if !documented[key] {
			t.Errorf("the router serves %s, which openapi.json does not document", s)
		}
	}
	// HEAD need not be documented where it is the HEAD every GET answers.
	for _, key := range heads {
		if get := "GET" + strings.TrimPrefix(key, "HEAD"); !served[get] {
			t.Errorf("the router serves %s without a GET, and openapi.json does not document it", key)
		}
	}
	for key := range documented {
		if !served[key] {
			t.Errorf("openapi.json documents %s, which the router does not serve", key)
		}
	}
	if len(served) == 0 || len(served) != len(declared) {
		t.Errorf("the router serves %d operations, the table declares %d", len(served), len(declared))
	}
	// The guarantee is only worth something if the browser sees the real
	// table: its own routes and another resource's are in it.
	for _, key := range []string{"GET /api-browser/openapi.json", "GET /cluster", "POST /system/sessions"} {
		if !documented[key] {
			t.Errorf("%s is missing; documented: %v", key, keys(documented))
		}
	}
}

func TestNodeServesBrowser(t *testing.T) {
	h := nodetest.Start(t)
	// The client follows the redirect to the page.
	page := h.Do("GET", "/api-browser", nil).Want(t, http.StatusOK)
	if ct := page.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
		t.Errorf("page Content-Type %q", ct)
	}
	listing := h.Do("GET", "/api-docs", nil).Want(t, http.StatusOK)
	if v := listing.Get("apiVersion").String(); v != overview.Version() {
		t.Errorf("apiVersion %q, want %q", v, overview.Version())
	}
	res := h.Do("GET", "/api-docs/system/sessions", nil).Want(t, http.StatusOK)
	if base := res.Get("basePath").String(); base != h.URL+"/" {
		t.Errorf("basePath %q, want %q", base, h.URL+"/")
	}
	if n := res.Get("apis.#").Int(); n == 0 {
		t.Errorf("no operations in %s", res.Body)
	}
}

func documentedPath(t *testing.T, path string) string {
	t.Helper()
	p, err := apibrowser.DocumentedPath(path)
	if err != nil {
		t.Errorf("route path %q: %v", path, err)
	}
	return p
}
