package node_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
)

// The calls of Graylog 4.0's pages that had no route (4.0.17's
// InputStatesStore, SystemProcessingStore, SystemLoadBalancerStore,
// IndicesStore.multiple and TypeAheadFieldInput).

// TestClusterInputStatesStartStop: the inputs page's Start and Stop.
func TestClusterInputStatesStartStop(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	id, _ := h.CreateInput(httpInput)
	node := h.Do("GET", "/system/cluster/node", nil, root).Want(t, http.StatusOK).Get("node_id").String()

	stop := h.Do("DELETE", "/cluster/inputstates/"+id, nil, root).Want(t, http.StatusOK)
	if got := stop.Get(node + ".id").String(); got != id {
		t.Errorf("stop answer %s, want {%q:{\"id\":%q}}", stop.Body, node, id)
	}
	if st := h.Do("GET", "/cluster/inputstates", nil, root).Get(node + ".0.state").String(); st == "RUNNING" {
		t.Errorf("input still RUNNING after the page's stop")
	}
	start := h.Do("PUT", "/cluster/inputstates/"+id, nil, root).Want(t, http.StatusOK)
	if got := start.Get(node + ".id").String(); got != id {
		t.Errorf("start answer %s, want {%q:{\"id\":%q}}", start.Body, node, id)
	}
	h.CreateUser("reader1", "password123", "Reader")
	h.Do("DELETE", "/cluster/inputstates/"+id, nil, nodetest.Basic("reader1", "password123")).Want(t, http.StatusForbidden)
}

// TestClusterNodeActions: the nodes page's pause, resume and load balancer
// override, on the node they name.
func TestClusterNodeActions(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	node := h.Do("GET", "/system/cluster/node", nil, root).Want(t, http.StatusOK).Get("node_id").String()

	h.Do("POST", "/cluster/"+node+"/processing/pause", nil, root).Want(t, http.StatusNoContent)
	if h.Do("GET", "/system", nil, root).Get("is_processing").Bool() {
		t.Errorf("is_processing still true after the page's pause")
	}
	h.Do("POST", "/cluster/"+node+"/processing/resume", nil, root).Want(t, http.StatusNoContent)
	if !h.Do("GET", "/system", nil, root).Get("is_processing").Bool() {
		t.Errorf("is_processing false after the page's resume")
	}
	h.Do("PUT", "/cluster/"+node+"/lbstatus/override/DEAD", nil, root).Want(t, http.StatusNoContent)
	h.Do("GET", "/system/lbstatus", nil, root).Want(t, http.StatusServiceUnavailable)
	h.Do("POST", "/cluster/5ca1ab1e-0000-4000-8000-00000000dead/processing/pause", nil, root).Want(t, http.StatusNotFound)
}

// TestIndicesMultiple: the index set page polls its expanded indices.
func TestIndicesMultiple(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	_, addr := h.CreateInput(httpInput)
	postGELF(t, addr, "web-1", "hello", float64(time.Now().Unix()))
	h.WaitProcessed(1)
	single := h.Do("GET", "/system/indexer/indices/graylog_0", nil, root).Want(t, http.StatusOK)
	r := h.Do("POST", "/system/indexer/indices/multiple", map[string]any{"indices": []string{"graylog_0", "nope_7"}}, root).Want(t, http.StatusOK)
	if !r.Get("graylog_0.primary_shards").Exists() || r.Get("graylog_0.reopened").Bool() != single.Get("reopened").Bool() || r.Get("nope_7").Exists() {
		t.Errorf("multiple answered %s; want {\"graylog_0\": %s}", r.Body, single.Body)
	}
}

// TestSystemFields: the stream rule form's field names, for a Reader too,
// who reads no stream: Graylog's answer asks fieldnames:read alone.
func TestSystemFields(t *testing.T) {
	h := nodetest.Start(t)
	h.CreateUser("reader1", "password123", "Reader")
	_, addr := h.CreateInput(httpInput)
	postGELF(t, addr, "web-1", "hello", float64(time.Now().Add(-time.Minute).Unix()))
	h.WaitProcessed(1)
	for _, as := range []nodetest.ReqOption{nodetest.AsRoot(), nodetest.Basic("reader1", "password123")} {
		r := h.Do("GET", "/system/fields", nil, as).Want(t, http.StatusOK)
		found := false
		for _, f := range r.Get("fields").Array() {
			found = found || f.String() == "level"
		}
		if !found || r.Get("fields.0").String() != "_id" {
			t.Errorf("fields %s: want the standard ones first and level", r.Body)
		}
	}
}
