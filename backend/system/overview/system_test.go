package overview_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
)

func TestHello(t *testing.T) {
	h := nodetest.Start(t)
	for _, path := range []string{"/", ""} {
		r := h.Do("GET", path, nil).Want(t, http.StatusOK)
		for _, f := range []string{"cluster_id", "node_id", "version", "tagline"} {
			if r.Get(f).String() == "" {
				t.Errorf("GET /api%s: %s missing in %s", path, f, r.Body)
			}
		}
		if got := r.Header.Get("X-Graylog-Node-ID"); got != r.Get("node_id").String() {
			t.Errorf("X-Graylog-Node-ID %q, want the node id %q", got, r.Get("node_id").String())
		}
	}
}

var (
	startedAt = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)
	version   = regexp.MustCompile(`^\d+\.\d+\.\d+\+\S+$`)
)

func TestCluster(t *testing.T) {
	h := nodetest.Start(t)
	r := h.Do("GET", "/cluster", nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	nodes := r.Get("@this").Map()
	if len(nodes) != 1 {
		t.Fatalf("want one node, got %s", r.Body)
	}
	for id, rec := range nodes {
		fields := rec.Map()
		if len(fields) != 12 {
			t.Errorf("node record has %d fields, want 12: %s", len(fields), rec.Raw)
		}
		if rec.Get("node_id").String() != id {
			t.Errorf("node_id %q differs from its key %q", rec.Get("node_id").String(), id)
		}
		if !startedAt.MatchString(rec.Get("started_at").String()) {
			t.Errorf("started_at %q is not ISO 8601 UTC with milliseconds", rec.Get("started_at").String())
		}
		if !version.MatchString(rec.Get("version").String()) {
			t.Errorf("version %q is not <major>.<minor>.<patch>+<build>", rec.Get("version").String())
		}
		for f, want := range map[string]string{"facility": "graylog-server", "lifecycle": "running", "lb_status": "alive"} {
			if got := rec.Get(f).String(); got != want {
				t.Errorf("%s = %q, want %q", f, got, want)
			}
		}
		if !rec.Get("is_processing").Bool() {
			t.Error("is_processing should be true")
		}
	}
}

func TestClusterPretty(t *testing.T) {
	h := nodetest.Start(t)
	r := h.Do("GET", "/cluster?pretty=true", nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	body := string(r.Body)
	if !strings.HasPrefix(body, "{\n  \"") || !strings.Contains(body, `"facility" : "graylog-server"`) {
		t.Errorf("not pretty-printed like Graylog:\n%s", body)
	}
	plain := h.Do("GET", "/cluster", nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	if strings.Contains(string(plain.Body), "\n") {
		t.Errorf("pretty output without pretty=true:\n%s", plain.Body)
	}
}

func TestSystemNeedsPermission(t *testing.T) {
	h := nodetest.Start(t)
	h.Do("GET", "/system", nil).WantError(t, http.StatusUnauthorized, "")
	r := h.Do("GET", "/system", nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	if r.Get("cluster_id").String() == "" || r.Get("operating_system").String() == "" {
		t.Errorf("system overview incomplete: %s", r.Body)
	}
	h.CreateUser("reader", "readerpass")
	h.Do("GET", "/system", nil, nodetest.Basic("reader", "readerpass")).Want(t, http.StatusOK)
}

func TestNodeAndClusterIDsPersist(t *testing.T) {
	h := nodetest.Start(t)
	before := h.Do("GET", "/", nil).Want(t, http.StatusOK)
	h.Restart()
	after := h.Do("GET", "/", nil).Want(t, http.StatusOK)
	for _, f := range []string{"node_id", "cluster_id"} {
		if before.Get(f).String() != after.Get(f).String() {
			t.Errorf("%s changed across a restart: %s → %s", f, before.Get(f), after.Get(f))
		}
	}
}

func TestClusterNodes(t *testing.T) {
	h := nodetest.Start(t)
	r := h.Do("GET", "/system/cluster/nodes", nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	if r.Get("total").Int() != 1 || r.Get("nodes.0.type").String() != "server" {
		t.Errorf("nodes: %s", r.Body)
	}
	id := r.Get("nodes.0.node_id").String()
	h.Do("GET", "/system/cluster/nodes/"+id, nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	h.Do("GET", "/system/cluster/nodes/nope", nil, nodetest.AsRoot()).WantError(t, http.StatusNotFound, "nope")
	lb := h.Do("GET", "/system/lbstatus", nil).Want(t, http.StatusOK)
	if string(lb.Body) != "ALIVE" {
		t.Errorf("lbstatus body %q, want ALIVE", lb.Body)
	}
}

func TestLBStatusOverride(t *testing.T) {
	h := nodetest.Start(t)
	h.Do("PUT", "/system/lbstatus/override/dead", nil).Want(t, http.StatusUnauthorized)
	h.CreateUser("viewer", "pw")
	h.Do("PUT", "/system/lbstatus/override/dead", nil, nodetest.Basic("viewer", "pw")).WantError(t, http.StatusForbidden, "")
	h.Do("PUT", "/system/lbstatus/override/DEAD", nil, nodetest.AsRoot()).Want(t, http.StatusNoContent)
	r := h.Do("GET", "/system/lbstatus", nil).Want(t, http.StatusServiceUnavailable)
	if string(r.Body) != "DEAD" {
		t.Errorf("body %q", r.Body)
	}
	if lb := h.Do("GET", "/system", nil, nodetest.AsRoot()).Get("lb_status").String(); lb != "dead" {
		t.Errorf("lb_status %q", lb)
	}
	h.Do("PUT", "/system/lbstatus/override/throttled", nil, nodetest.AsRoot()).Want(t, http.StatusNoContent)
	h.Do("HEAD", "/system/lbstatus", nil).Want(t, http.StatusTooManyRequests)
	h.Do("PUT", "/system/lbstatus/override/sleepy", nil, nodetest.AsRoot()).WantError(t, http.StatusBadRequest, "alive, dead or throttled")
	p := h.Do("GET", "/system/plugins", nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	if p.Get("total").Int() != 0 || !p.Get("plugins").IsArray() {
		t.Errorf("plugins: %s", p.Body)
	}
}

// A load balancer drains a node set dead through the alias too, and
// message processing can be paused and resumed per node.
func TestDrainAndPauseProcessing(t *testing.T) {
	h := nodetest.Start(t)
	h.CreateUser("viewer", "pw")
	root := nodetest.AsRoot()
	for _, c := range []struct {
		status, body string
		code         int
	}{{"dead", "DEAD", http.StatusServiceUnavailable}, {"throttled", "THROTTLED", http.StatusTooManyRequests}, {"alive", "ALIVE", http.StatusOK}} {
		h.Do("PUT", "/system/lbstatus/"+c.status, nil, root).Want(t, http.StatusNoContent)
		if lb := h.Do("GET", "/system/lbstatus", nil); lb.Status != c.code || string(lb.Body) != c.body {
			t.Errorf("after %s: %d %q", c.status, lb.Status, lb.Body)
		}
	}
	h.Do("PUT", "/system/lbstatus/sleepy", nil, root).WantError(t, http.StatusBadRequest, "sleepy")
	h.Do("PUT", "/system/lbstatus/dead", nil, nodetest.Basic("viewer", "pw")).WantError(t, http.StatusForbidden, "")

	processing := func() bool {
		return h.Do("GET", "/system", nil, root).Want(t, http.StatusOK).Get("is_processing").Bool()
	}
	if !processing() {
		t.Fatal("a fresh node is not processing")
	}
	h.Do("PUT", "/system/processing/pause", nil, nodetest.Basic("viewer", "pw")).WantError(t, http.StatusForbidden, "")
	h.Do("PUT", "/system/processing/pause", nil, root).Want(t, http.StatusNoContent)
	if processing() {
		t.Error("still processing after pause")
	}
	h.Do("PUT", "/system/processing/resume", nil, root).Want(t, http.StatusNoContent)
	if !processing() {
		t.Error("not processing after resume")
	}
}

// /cluster is every node's /system as the caller may read it: a node whose
// /system the caller may not read is listed with null, as Graylog's proxied
// call that the node refused.
func TestClusterHidesNodesTheCallerMayNotRead(t *testing.T) {
	h := nodetest.Start(t)
	// A role of its own spares the user the Reader role: metrics only.
	h.Do("POST", "/roles", map[string]any{"name": "Metrics", "description": "d", "permissions": []string{"metrics:*"}}, nodetest.AsRoot()).Want(t, http.StatusCreated)
	h.CreateUser("grafana", "pw", "Metrics")
	as := nodetest.Basic("grafana", "pw")
	h.Do("GET", "/system", nil, as).Want(t, http.StatusForbidden)
	r := h.Do("GET", "/cluster", nil, as).Want(t, http.StatusOK)
	nodes := r.Get("@this").Map()
	if len(nodes) != 1 {
		t.Fatalf("want one node, got %s", r.Body)
	}
	for id, rec := range nodes {
		if rec.Type != gjson.Null || id == "" {
			t.Errorf("node %q shown to a caller without system:read: %s", id, r.Body)
		}
	}
}
