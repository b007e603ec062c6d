package compat_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
)

// TestOldClientSessions walks a realistic session of a script written for
// each band of releases — log in, manage its tokens, edit its user, set up a
// stream that forwards to a GELF output, build a dashboard, log out —
// against the 4.0 backend, as that release's client sends and expects it.
func TestOldClientSessions(t *testing.T) {
	for _, c := range []struct {
		release string
		// what the release's responses look like
		tokenIDs, outputUnderscoreID, legacyDashboards, legacyPath bool
	}{
		{release: "1.3", outputUnderscoreID: true, legacyDashboards: true},
		{release: "2.4", legacyDashboards: true},
		{release: "3.0", legacyDashboards: true},
		{release: "3.3", tokenIDs: true, legacyPath: true},
	} {
		t.Run(c.release, func(t *testing.T) {
			h := nodetest.Start(t)
			h.CreateUser("GM", "superpower", "Admin")
			rel := nodetest.Header("X-API-Version", c.release)

			// Log in; everything else runs on the session.
			login := h.Do("POST", "/system/sessions", map[string]any{"username": "GM", "password": "superpower", "host": ""}, rel).Want(t, http.StatusOK)
			s := nodetest.Session(login.Get("session_id").String())
			if got := login.Header.Get("X-Api-Version"); got != c.release {
				t.Fatalf("served as %s", got)
			}

			// Tokens, keyed by username as every pre-4.0 release did.
			tok := h.Do("POST", "/users/GM/tokens/monitoring", nil, s, rel).Want(t, http.StatusOK)
			value := tok.Get("token").String()
			if tok.Get("id").Exists() != c.tokenIDs {
				t.Errorf("token record %s: id present = %v, want %v", tok.Body, !c.tokenIDs, c.tokenIDs)
			}
			list := h.Do("GET", "/users/GM/tokens", nil, s, rel).Want(t, http.StatusOK)
			if list.Get("tokens.#").Int() != 1 || list.Get("tokens.0.token").String() != value {
				t.Errorf("token list: %s", list.Body)
			}
			h.Do("GET", "/cluster", nil, nodetest.Token(value), rel).Want(t, http.StatusOK)
			h.Do("DELETE", "/users/GM/tokens/"+value, nil, s, rel).Want(t, http.StatusNoContent)
			h.Do("GET", "/cluster", nil, nodetest.Token(value)).WantError(t, http.StatusUnauthorized, "")

			// The user, by username.
			h.Do("PUT", "/users/GM", map[string]any{"full_name": "Game Master", "email": "gm@example.org"}, s, rel).Want(t, http.StatusNoContent)
			if u := h.Do("GET", "/users/GM", nil, s, rel).Want(t, http.StatusOK); u.Get("full_name").String() != "Game Master" {
				t.Errorf("user after update: %s", u.Body)
			}

			// A stream forwarding to a GELF output. Before 2.2 streams had
			// no index set: the client sends none.
			stream := map[string]any{"title": "nginx", "description": "web", "matching_type": "AND",
				"rules": []map[string]any{{"type": 1, "field": "source", "value": "web-1", "inverted": false}}}
			if c.release >= "2.2" {
				stream["index_set_id"] = h.Do("GET", "/system/indices/index_sets", nil, s).Get(`index_sets.#(default==true).id`).String()
			}
			sid := h.Do("POST", "/streams", stream, s, rel).Want(t, http.StatusCreated).Get("stream_id").String()
			oid := h.Do("POST", "/system/outputs", map[string]any{"title": "archive", "type": "org.graylog2.outputs.GelfOutput",
				"configuration": map[string]any{"hostname": "archive.example.org", "port": 12201, "protocol": "TCP"}}, s, rel).Want(t, http.StatusCreated).Get("id").String()
			h.Do("POST", "/streams/"+sid+"/outputs", map[string]any{"outputs": []string{oid}}, s, rel).Want(t, http.StatusAccepted)
			h.Do("POST", "/streams/"+sid+"/resume", nil, s, rel).Want(t, http.StatusNoContent)
			got := h.Do("GET", "/streams/"+sid, nil, s, rel).Want(t, http.StatusOK)
			key := "outputs.0.id"
			if c.outputUnderscoreID {
				key = "outputs.0._id"
			}
			if got.Get(key).String() != oid || got.Get("disabled").Bool() || got.Get("rules.0.value").String() != "web-1" {
				t.Errorf("stream as %s sees it: %s", c.release, got.Body)
			}

			// A dashboard, in the API the release had.
			switch {
			case c.legacyDashboards:
				did := h.Do("POST", "/dashboards", map[string]any{"title": "Web", "description": "nginx"}, s, rel).Want(t, http.StatusCreated).Get("dashboard_id").String()
				h.Do("POST", "/dashboards/"+did+"/widgets", map[string]any{"description": "Errors", "type": "SEARCH_RESULT_COUNT", "cache_time": 10,
					"config": map[string]any{"query": "level:3", "timerange": map[string]any{"type": "relative", "range": 300}}}, s, rel).Want(t, http.StatusCreated)
				d := h.Do("GET", "/dashboards/"+did, nil, s, rel).Want(t, http.StatusOK)
				if d.Get("title").String() != "Web" || d.Get("widgets.0.description").String() != "Errors" {
					t.Errorf("legacy dashboard: %s", d.Body)
				}
				// The 4.0 web interface sees it as a dashboard view.
				if v := h.Do("GET", "/dashboards", nil, s).Want(t, http.StatusOK); !strings.Contains(string(v.Body), did) {
					t.Errorf("not among the 4.0 dashboards: %s", v.Body)
				}
			case c.legacyPath:
				// 3.3 wrote dashboards as views and read the old ones under /legacy.
				vid := h.Do("POST", "/views", map[string]any{"type": "DASHBOARD", "title": "Web", "summary": "", "description": "nginx",
					"search_id": "5f9c0e1a2b3c4d5e6f708192", "properties": []string{}, "requires": map[string]any{}, "state": map[string]any{}}, s, rel).Want(t, http.StatusOK).Get("id").String()
				if l := h.Do("GET", "/legacy/dashboards", nil, s, rel).Want(t, http.StatusOK); !strings.Contains(string(l.Body), vid) {
					t.Errorf("not under /legacy/dashboards: %s", l.Body)
				}
			}

			h.Do("DELETE", "/system/sessions/"+login.Get("session_id").String(), nil, s, rel).Want(t, http.StatusNoContent)
			h.Do("GET", "/cluster", nil, s).WantError(t, http.StatusUnauthorized, "")
		})
	}
}
