package node_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/loggate/loggate/cmd/loggate/node"
	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
)

// Restart with the same data_dir: users, roles, tokens and unexpired sessions
// are all still there; expired sessions are not.
func TestRestartKeepsEverything(t *testing.T) {
	h := nodetest.Start(t)
	h.Do("POST", "/roles", map[string]any{"name": "Ops", "permissions": []string{"streams:read"}}, nodetest.AsRoot()).Want(t, http.StatusCreated)
	id := h.CreateUser("uma", "pw", "Ops")
	tok, _ := h.CreateToken(id, "ci", nodetest.Basic("uma", "pw"))
	live := h.Login("uma", "pw")
	h.Do("PUT", "/users/"+id, map[string]any{"session_timeout_ms": 60_000}, nodetest.AsRoot()).Want(t, http.StatusNoContent)
	short := h.Login("uma", "pw") // one minute

	h.Clock.Advance(2 * time.Minute)
	h.Restart()

	h.Do("GET", "/users/uma", nil, nodetest.Basic("uma", "pw")).Want(t, http.StatusOK)
	h.Do("GET", "/roles/Ops", nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	h.Do("GET", "/cluster", nil, nodetest.Token(tok)).Want(t, http.StatusOK)
	h.Do("GET", "/cluster", nil, nodetest.Session(live)).Want(t, http.StatusOK)
	h.Do("GET", "/cluster", nil, nodetest.Session(short)).Want(t, http.StatusUnauthorized)
}

// Metrics are real: requests per route with latency, and the credential
// cache's hits and misses.
func TestMetricsCountRequestsAndCache(t *testing.T) {
	h := nodetest.Start(t)
	for range 3 {
		h.Do("GET", "/cluster", nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	}
	h.Do("GET", "/nothing/here", nil, nodetest.AsRoot()).Want(t, http.StatusNotFound)
	m := h.Do("GET", "/system/metrics", nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	if n := m.Get(`timers.loggate\.http\.routes\.cluster\.GET.count`).Int(); n != 3 {
		t.Errorf("route timer count %d, want 3", n)
	}
	if m.Get(`timers.loggate\.http\.routes\.cluster\.GET.p99`).Float() <= 0 {
		t.Error("route timer has no latency")
	}
	// One miss (the first password check), then hits.
	if hits := m.Get(`counters.loggate\.auth\.cache\.hits.count`).Int(); hits < 3 {
		t.Errorf("cache hits %d, want ≥ 3", hits)
	}
	if misses := m.Get(`counters.loggate\.auth\.cache\.misses.count`).Int(); misses != 1 {
		t.Errorf("cache misses %d, want 1", misses)
	}
	if n := m.Get(`counters.loggate\.http\.responses\.4xx.count`).Int(); n != 1 {
		t.Errorf("4xx responses %d, want 1", n)
	}
	one := h.Do("GET", "/system/metrics/loggate.http.requests", nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	if one.Get("count").Int() < 5 {
		t.Errorf("request meter: %s", one.Body)
	}
}

// Changing a level changes loggate's own logging at run time.
func TestLoggerLevelChangesLogging(t *testing.T) {
	h := nodetest.Start(t)
	h.Do("PUT", "/system/loggers/loggate.auth.redis/level/debug", nil, nodetest.AsRoot()).Want(t, http.StatusNoContent)
	r := h.Do("GET", "/system/loggers", nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	if lvl := r.Get(`loggers.loggate\.auth\.redis.level`).String(); lvl != "debug" {
		t.Errorf("level %q: %s", lvl, r.Body)
	}
	// "log level changed" is written by the loggers resource at info: it
	// appears at the default level, and not with the root logger at error.
	h.Do("PUT", "/system/loggers/loggate.y/level/warn", nil, nodetest.AsRoot()).Want(t, http.StatusNoContent)
	if !strings.Contains(h.Logs(), `msg="log level changed" logger=loggate.http logger_name=loggate.y level=warn`) {
		t.Errorf("the level change was not logged at info, naming the logger once:\n%s", h.Logs())
	}
	h.Do("PUT", "/system/loggers/subsystems/graylog/level/error", nil, nodetest.AsRoot()).Want(t, http.StatusNoContent)
	h.Do("PUT", "/system/loggers/loggate.x/level/warn", nil, nodetest.AsRoot()).Want(t, http.StatusNoContent)
	if strings.Contains(h.Logs(), "logger_name=loggate.x") {
		t.Errorf("info logged with the root level at error:\n%s", h.Logs())
	}
	// What was written is counted where Graylog's logging page reads it.
	if m := h.Do("GET", "/system/metrics/org.apache.logging.log4j.core.Appender.info", nil, nodetest.AsRoot()).Want(t, http.StatusOK); m.Get("count").Int() < 2 {
		t.Errorf("Appender.info: %s", m.Body)
	}
	h.Do("PUT", "/system/loggers/loggate.http/level/trace", nil, nodetest.AsRoot()).Want(t, http.StatusNoContent)
	h.Do("PUT", "/system/loggers/loggate/level/kaput", nil, nodetest.AsRoot()).WantError(t, http.StatusBadRequest, `Unknown log level "kaput"`)
}

// A second node on the same data_dir fails to start with a clear error, and
// does not take the first one down.
func TestSecondNodeOnSameDataDir(t *testing.T) {
	h := nodetest.Start(t)
	cfg := h.Config
	cfg.HTTPBindAddress = "127.0.0.1:0"
	_, err := node.New(context.Background(), cfg, node.Options{})
	if err == nil || !strings.Contains(err.Error(), "locked") {
		t.Fatalf("second node: %v, want a locked data_dir error", err)
	}
	h.Do("GET", "/cluster", nil, nodetest.AsRoot()).Want(t, http.StatusOK)
}
