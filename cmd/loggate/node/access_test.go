package node_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loggate/loggate/cmd/loggate/config"
	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
	"github.com/loggate/loggate/cmd/loggate/report"
	"github.com/loggate/loggate/router"
)

// The access log records who called what as which release, and the report
// read from it names the clients that still need compatibility.
func TestAccessLogAndReport(t *testing.T) {
	path := filepath.Join(t.TempDir(), "access.log")
	h := nodetest.Start(t, nodetest.WithConfig(func(c *config.Config) { c.AccessLog = path }))
	gm := h.CreateUser("GM", "superpower")
	user := nodetest.Basic("GM", "superpower")
	pinned := h.Do("POST", "/users/"+gm+"/tokens/icinga?api_release=2.4", nil, user).Want(t, http.StatusOK)
	tok := nodetest.Token(pinned.Get("token").String())
	for range 3 {
		h.Do("GET", "/users/GM/tokens/", nil, tok, nodetest.Header("User-Agent", "icinga2/2.11")).Want(t, http.StatusOK)
	}
	h.Do("DELETE", "/users/GM/tokens/"+pinned.Get("token").String(), nil, user, nodetest.Header("User-Agent", "cleanup.sh")).Want(t, http.StatusNoContent)
	h.Do("GET", "/cluster", nil, nodetest.AsRoot(), nodetest.Header("User-Agent", "modern")).Want(t, http.StatusOK)
	// A path 4.0 removed, on the default release: served, but it says so.
	old := h.Do("GET", "/count/total", nil, nodetest.AsRoot(), nodetest.Header("User-Agent", "dashing/1")).Want(t, http.StatusOK)
	if w := old.Header.Get("Warning"); w != `299 loggate "/count/total was removed in 4.0; served as release 3.3"` {
		t.Errorf("GET /count/total: Warning %q", w)
	}
	h.Stop() // flushes and closes the log

	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), pinned.Get("token").String()) || strings.Contains(string(raw), "superpower") {
		t.Fatalf("a secret is in the access log:\n%s", raw)
	}
	var created router.AccessEntry
	for _, line := range bytes.Split(raw, []byte("\n")) {
		var e router.AccessEntry
		if json.Unmarshal(line, &e) == nil && strings.HasSuffix(e.Path, "/tokens/<redacted>") && e.Method == "POST" {
			created = e
		}
	}
	if created.Status != 200 || created.User != "GM" || created.Release != "4.0" || created.ReleaseSource != "default" || created.DurationMs <= 0 {
		t.Errorf("token creation entry %+v", created)
	}

	s, err := report.Read(bytes.NewReader(raw), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Clients) != 3 {
		t.Fatalf("clients %+v", s.Clients)
	}
	if c := s.Clients[2]; c.UserAgent != "dashing/1" || c.Removed != 1 || s.Removed["GET /count/total"] != 1 {
		t.Errorf("client of a removed path: %+v; removed %v", c, s.Removed)
	}
	icinga := s.Clients[0]
	if icinga.UserAgent != "icinga2/2.11" || icinga.Requests != 3 || icinga.Release != "2.4" || icinga.Source != "token" ||
		icinga.TokenID != pinned.Get("id").String() || icinga.Changes["3.3 GET /users/{user}/tokens"] != 3 {
		t.Errorf("pinned client: %+v", icinga)
	}
	// A 4.0 client whose username was resolved needed compatibility too.
	if c := s.Clients[1]; c.UserAgent != "cleanup.sh" || c.Changes["4.0 DELETE /users/{user}/tokens/{token}"] != 1 {
		t.Errorf("default-release client: %+v", c)
	}
	for _, c := range s.Clients {
		if c.UserAgent == "modern" {
			t.Errorf("a client that needed nothing is listed: %+v", c)
		}
	}
}

// A live session id in a path (a logout, or a DELETE refused for want of
// X-Requested-By) is kept out of the access log, as token values are.
func TestAccessLogRedactsSessionIDs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "access.log")
	h := nodetest.Start(t, nodetest.WithConfig(func(c *config.Config) { c.AccessLog = path }))
	sid := h.Login(nodetest.RootUser, nodetest.RootPassword)
	h.Do("DELETE", "/system/sessions/"+sid, nil, nodetest.Session(sid), nodetest.Header("X-Requested-By", "")).Want(t, http.StatusBadRequest)
	h.Do("DELETE", "/system/sessions/"+sid, nil, nodetest.Session(sid)).Want(t, http.StatusNoContent)
	h.Stop()

	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), sid) {
		t.Fatalf("a session id is in the access log:\n%s", raw)
	}
	var redacted int
	for _, line := range bytes.Split(raw, []byte("\n")) {
		var e router.AccessEntry
		if json.Unmarshal(line, &e) == nil && e.Path == "/api/system/sessions/<redacted>" {
			redacted++
		}
	}
	if redacted != 2 {
		t.Errorf("%d redacted logout entries, want 2:\n%s", redacted, raw)
	}
}

// TestAccessLogClipsWhatCallersSend: a caller's user agent and path are cut
// to 2 KiB in the access log, and '<' stays one byte. One unauthenticated
// request with a 200 KB user agent of '<' wrote a 1.2 MB line, which
// failed the compatibility report from then on.
func TestAccessLogClipsWhatCallersSend(t *testing.T) {
	path := filepath.Join(t.TempDir(), "access.log")
	h := nodetest.Start(t, nodetest.WithConfig(func(c *config.Config) { c.AccessLog = path }))
	h.Do("GET", "/cluster", nil, nodetest.Header("User-Agent", strings.Repeat("<", 200_000))).Want(t, http.StatusUnauthorized)
	h.Do("GET", "/cluster/"+strings.Repeat("é", 100_000), nil, nodetest.AsRoot())
	h.Do("GET", "/system/compat/report", nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	h.Stop()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range bytes.Split(bytes.TrimSpace(raw), []byte("\n")) {
		var e router.AccessEntry
		if err := json.Unmarshal(line, &e); err != nil || len(line) > 8<<10 {
			t.Errorf("a line of %d bytes: %v", len(line), err)
		}
		if strings.HasPrefix(e.UserAgent, "<") && !strings.HasSuffix(e.UserAgent, "<…") {
			t.Errorf("user agent of %d bytes not cut", len(e.UserAgent))
		}
	}
}
