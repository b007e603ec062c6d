package cluster_test

import (
	"net/http"
	"testing"

	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
)

func TestClusterVariants(t *testing.T) {
	h := nodetest.Start(t)
	id := h.Do("GET", "/", nil).Get("node_id").String()
	loggers := h.Do("GET", "/cluster/system/loggers", nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	if !loggers.Get(id + ".loggers").Exists() {
		t.Errorf("loggers keyed by node: %s", loggers.Body)
	}
	subs := h.Do("GET", "/cluster/system/loggers/subsystems", nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	if subs.Get(id+".subsystems.graylog.level").String() != "info" {
		t.Errorf("subsystems: %s", subs.Body)
	}
	h.Do("PUT", "/cluster/system/loggers/"+id+"/subsystems/indexer/level/debug", nil, nodetest.AsRoot()).Want(t, http.StatusNoContent)
	if lvl := h.Do("GET", "/system/loggers/subsystems", nil, nodetest.AsRoot()).Get("subsystems.indexer.level").String(); lvl != "debug" {
		t.Errorf("indexer level %q after the cluster call", lvl)
	}
	h.Do("PUT", "/cluster/system/loggers/other-node/subsystems/indexer/level/debug", nil, nodetest.AsRoot()).WantError(t, http.StatusNotFound, "Node other-node not found")

	m := h.Do("POST", "/cluster/metrics/multiple", map[string]any{"metrics": []string{"loggate.http.requests"}}, nodetest.AsRoot()).Want(t, http.StatusOK)
	if m.Get(id+".total").Int() != 1 {
		t.Errorf("cluster metrics: %s", m.Body)
	}
	h.Do("POST", "/cluster/"+id+"/metrics/multiple", map[string]any{"metrics": []string{"loggate.http.requests"}}, nodetest.AsRoot()).Want(t, http.StatusOK)
	names := h.Do("GET", "/cluster/"+id+"/metrics/names", nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	if !names.Get("names").IsArray() {
		t.Errorf("names: %s", names.Body)
	}
	h.Do("GET", "/cluster/"+id+"/metrics/namespace/loggate.http", nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	h.Do("GET", "/cluster/nope/metrics/names", nil, nodetest.AsRoot()).Want(t, http.StatusNotFound)

	// The node-local permission checks still apply.
	h.CreateUser("plain", "pw")
	h.Do("GET", "/cluster/"+id+"/metrics/names", nil, nodetest.Basic("plain", "pw")).Want(t, http.StatusForbidden)
	h.Do("GET", "/cluster/system/loggers", nil).Want(t, http.StatusUnauthorized)
}
