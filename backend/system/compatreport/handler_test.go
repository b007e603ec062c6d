package compatreport

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/loggate/loggate/router/routertest"
)

const accessLog = `{"time":"2026-11-20T10:00:00Z","method":"GET","path":"/api/users/GM/tokens","status":200,"release":"2.4","release_source":"token","user":"GM","token_id":"t1","user_agent":"icinga/2","changes":["4.0 GET /users/{user}/tokens"]}
{"time":"2026-11-24T12:00:00Z","method":"GET","path":"/api/cluster","status":200,"release":"4.0","release_source":"default","user":"admin"}
{"time":"2026-11-24T13:00:00Z","method":"GET","path":"/api/legacy/dashboards","status":200,"release":"3.3","release_source":"header","user":"wall","user_agent":"dashing/1","changes":["4.0 GET /legacy/dashboards"],"removed":["GET /legacy/dashboards"]}
`

func TestReport(t *testing.T) {
	now := func() time.Time { return time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC) }
	path := filepath.Join(t.TempDir(), "access.log")
	if err := os.WriteFile(path, []byte(accessLog), 0o600); err != nil {
		t.Fatal(err)
	}
	admin := routertest.Principal(t, "*")
	for _, tc := range []struct {
		name, log, query string
		status           int
		want             map[string]string
	}{
		{"whole log", path, "", http.StatusOK, map[string]string{"enabled": "true", "read": "3", "clients.#": "2",
			"clients.0.user": "GM", "clients.0.release": "2.4", "clients.0.source": "token", "clients.0.changes.4\\.0 GET /users/{user}/tokens": "1",
			"removed.GET /legacy/dashboards": "1"}},
		{"the last two days", path, "?since=48h", http.StatusOK, map[string]string{"clients.#": "1", "clients.0.user": "wall", "since": "2026-11-23T00:00:00.000Z"}},
		{"no access log", "", "", http.StatusOK, map[string]string{"enabled": "false", "clients.#": "0"}},
		{"not written yet", filepath.Join(t.TempDir(), "none.log"), "", http.StatusOK, map[string]string{"enabled": "true", "read": "0"}},
		{"a bad since", path, "?since=yesterday", http.StatusBadRequest, map[string]string{"message": "Invalid parameter `since`: \"yesterday\" is not a duration such as 168h"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := routertest.Client{H: routertest.Handler(NewHandler(tc.log, now).Routes())}
			rec := c.Do(admin, "GET", "/system/compat/report"+tc.query, "")
			routertest.WantStatus(t, rec, tc.status)
			for k, v := range tc.want {
				if got := gjson.Get(rec.Body.String(), k).String(); got != v {
					t.Errorf("%s = %q, want %q in %s", k, got, v, rec.Body)
				}
			}
		})
	}
	// Only with the permission.
	c := routertest.Client{H: routertest.Handler(NewHandler(path, now).Routes())}
	routertest.WantStatus(t, c.Do(routertest.Principal(t, "streams:read"), "GET", "/system/compat/report", ""), http.StatusForbidden)
}
