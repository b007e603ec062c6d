package node_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
)

// The API description lists the routes only compatibility serves, each
// saying for which releases; not those an old release refused.
func TestAPIDocsListCompatibilityRoutes(t *testing.T) {
	h := nodetest.Start(t)
	oa := h.Do("GET", "/api-browser/openapi.json", nil).Want(t, http.StatusOK)
	removed := "Removed in 4.0; served by compatibility for releases ≤ 3.3."
	for _, c := range []struct{ method, path, note string }{
		{"get", "/legacy/dashboards", removed},
		{"delete", "/legacy/search/saved/{searchId}", removed},
		{"get", "/views/dashboards", removed},
		{"put", "/system/ldap/settings", removed},
		{"get", "/system/authentication/config", removed},
		{"put", "/system/authentication/config", removed},
		{"get", "/count/total", removed},
		{"get", "/search/universal/relative/terms", removed},
		{"post", "/dashboards", "Served by compatibility for releases ≤ 3.2."},
		{"put", "/dashboards/{dashboardId}/widgets/{widgetId}/cachetime", "Served by compatibility for releases ≤ 3.2."},
	} {
		op := oa.Get("paths." + gjson.Escape(c.path) + "." + c.method)
		if !strings.Contains(op.Get("description").String(), c.note) {
			t.Errorf("%s %s: %s; want the note %q", c.method, c.path, op.Raw, c.note)
		}
	}
	// 3.3 had no POST under /legacy; 4.0's own routes carry no note.
	if oa.Get("paths./legacy/dashboards.post").Exists() {
		t.Error("POST /legacy/dashboards is documented")
	}
	if d := oa.Get(`paths./users/{userId}/tokens.get.description`).String(); strings.Contains(d, "compatibility") {
		t.Errorf("a 4.0 route says it is compatibility: %s", d)
	}
	listing := h.Do("GET", "/api-docs", nil).Want(t, http.StatusOK)
	if !strings.Contains(string(listing.Body), `"/system/ldap`) {
		t.Errorf("the Swagger listing lacks the LDAP resource: %s", listing.Body)
	}
}
