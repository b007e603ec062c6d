package node_test

import (
	"context"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/system/nodes"
	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
)

// startCluster starts n nodes on one shared store.
func startCluster(t *testing.T, n int) []*nodetest.Harness {
	t.Helper()
	st := nodetest.SharedStore(t)
	hs := make([]*nodetest.Harness, n)
	for i := range hs {
		hs[i] = nodetest.StartOn(t, st)
	}
	// One time for the cluster: each harness's clock starts when it does,
	// and a slow start would otherwise set them seconds apart.
	latest := hs[n-1].Clock.Now()
	for _, h := range hs {
		h.Clock.Set(latest)
	}
	tick(t, 0, hs...)
	return hs
}

// tick advances the clocks of every node by d and beats the running ones,
// as their heartbeat loops would.
func tick(t *testing.T, d time.Duration, hs ...*nodetest.Harness) {
	t.Helper()
	for _, h := range hs {
		h.Clock.Advance(d)
	}
	for _, h := range hs {
		if err := h.Node.Nodes.Beat(context.Background()); err != nil {
			t.Fatalf("beat %s: %v", h.Node.Info.ID, err)
		}
	}
}

// clusterIDs returns the node ids /cluster lists on h, checking that each
// record's node_id is its key.
func clusterIDs(t *testing.T, h *nodetest.Harness) []string {
	t.Helper()
	r := h.Do("GET", "/cluster", nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	var ids []string
	for k, v := range r.Get("@this").Map() {
		if got := v.Get("node_id").String(); got != k {
			t.Errorf("record under %s has node_id %s", k, got)
		}
		ids = append(ids, k)
	}
	slices.Sort(ids)
	return ids
}

// masters returns the node ids /system/cluster/nodes lists on h, and the
// ones marked is_master.
func masters(t *testing.T, h *nodetest.Harness) (ids, master []string) {
	t.Helper()
	r := h.Do("GET", "/system/cluster/nodes", nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	if total, n := r.Get("total").Int(), len(r.Get("nodes").Array()); int(total) != n {
		t.Errorf("total %d, %d nodes", total, n)
	}
	for _, n := range r.Get("nodes").Array() {
		ids = append(ids, n.Get("node_id").String())
		if n.Get("is_master").Bool() {
			master = append(master, n.Get("node_id").String())
		}
	}
	slices.Sort(ids)
	return ids, master
}

func idsOf(hs ...*nodetest.Harness) []string {
	ids := make([]string, len(hs))
	for i, h := range hs {
		ids[i] = h.Node.Info.ID
	}
	slices.Sort(ids)
	return ids
}

func leaderOf(t *testing.T, hs ...*nodetest.Harness) *nodetest.Harness {
	t.Helper()
	var leaders []*nodetest.Harness
	for _, h := range hs {
		if h.Node.Nodes.IsLeader() {
			leaders = append(leaders, h)
		}
	}
	if len(leaders) != 1 {
		t.Fatalf("%d nodes think they lead, want 1", len(leaders))
	}
	return leaders[0]
}

func TestClusterListsLiveNodes(t *testing.T) {
	hs := startCluster(t, 3)
	want := idsOf(hs...)
	for i, h := range hs {
		if got := clusterIDs(t, h); !slices.Equal(got, want) {
			t.Errorf("node %d: /cluster lists %v, want %v", i+1, got, want)
		}
		ids, master := masters(t, h)
		if !slices.Equal(ids, want) {
			t.Errorf("node %d: /system/cluster/nodes lists %v, want %v", i+1, ids, want)
		}
		if len(master) != 1 || master[0] != leaderOf(t, hs...).Node.Info.ID {
			t.Errorf("node %d: masters %v", i+1, master)
		}
	}
	n2 := hs[1]
	one := hs[0].Do("GET", "/system/cluster/nodes/"+n2.Node.Info.ID, nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	if got := one.Get("transport_address").String(); got != n2.Node.Config.HTTPPublishURI {
		t.Errorf("transport_address %q, want %q", got, n2.Node.Config.HTTPPublishURI)
	}
	self := n2.Do("GET", "/system/cluster/node", nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	if got := self.Get("node_id").String(); got != n2.Node.Info.ID {
		t.Errorf("/system/cluster/node on node 2 is %s", got)
	}
	hs[0].Do("GET", "/system/cluster/nodes/no-such-node", nil, nodetest.AsRoot()).WantError(t, http.StatusNotFound, "Node no-such-node not found")

	// A node that stops deregisters: gone at once, everywhere.
	n2.Stop()
	want = idsOf(hs[0], hs[2])
	for _, h := range []*nodetest.Harness{hs[0], hs[2]} {
		if got := clusterIDs(t, h); !slices.Equal(got, want) {
			t.Errorf("after stopping node 2, /cluster lists %v, want %v", got, want)
		}
	}
	hs[0].Do("GET", "/system/cluster/nodes/"+n2.Node.Info.ID, nil, nodetest.AsRoot()).WantError(t, http.StatusNotFound, "not found")
}

// A killed node (no heartbeats, no deregistration) disappears after the
// node timeout, not before, and its lease moves after the lease TTL.
func TestClusterKilledLeaderIsReplaced(t *testing.T) {
	hs := startCluster(t, 3)
	opts := hs[0].Node.Nodes.Options()
	if opts.NodeTimeout != nodes.DefaultNodeTimeout || opts.LeaseTTL != nodes.DefaultLeaseTTL {
		t.Fatalf("options %+v", opts)
	}
	dead := leaderOf(t, hs...)
	var alive []*nodetest.Harness
	for _, h := range hs {
		if h != dead {
			alive = append(alive, h)
		}
	}
	dead.Node.Nodes.Abandon()
	dead.Clock.Advance(opts.NodeTimeout + time.Second) // its own clock must not matter

	before := opts.NodeTimeout - time.Second
	tick(t, before, alive...)
	if got, want := clusterIDs(t, alive[0]), idsOf(hs...); !slices.Equal(got, want) {
		t.Errorf("%v after %v: /cluster lists %v, want %v", before, before, got, want)
	}
	for _, h := range alive {
		if h.Node.Nodes.IsLeader() {
			t.Errorf("node %s took the lease before it expired", h.Node.Info.ID)
		}
	}

	tick(t, 2*time.Second, alive...)
	want := idsOf(alive...)
	for _, h := range alive {
		if got := clusterIDs(t, h); !slices.Equal(got, want) {
			t.Errorf("after the timeout /cluster lists %v, want %v", got, want)
		}
	}
	next := leaderOf(t, alive...)
	if _, master := masters(t, alive[0]); !slices.Equal(master, []string{next.Node.Info.ID}) {
		t.Errorf("masters %v, want %s", master, next.Node.Info.ID)
	}
	alive[1].Do("GET", "/cluster/"+dead.Node.Info.ID+"/metrics/names", nil, nodetest.AsRoot()).WantError(t, http.StatusNotFound, "not found")
}

// A leader that stops gracefully releases the lease: the next beat of
// another node takes it without waiting for the TTL.
func TestClusterStoppedLeaderReleasesLease(t *testing.T) {
	hs := startCluster(t, 2)
	old := leaderOf(t, hs...)
	other := hs[0]
	if other == old {
		other = hs[1]
	}
	old.Stop()
	tick(t, 0, other)
	if !other.Node.Nodes.IsLeader() {
		t.Errorf("the remaining node did not take the released lease")
	}
}

// /cluster/… routes reach the named node, with the caller's credentials.
func TestClusterForwardsToOtherNodes(t *testing.T) {
	hs := startCluster(t, 3)
	n1, n2 := hs[0], hs[1]
	id2 := n2.Node.Info.ID
	root := nodetest.AsRoot()

	n1.Do("PUT", "/cluster/system/loggers/"+id2+"/subsystems/indexer/level/debug", nil, root).Want(t, http.StatusNoContent)
	for _, c := range []struct {
		h    *nodetest.Harness
		want string
	}{{n2, "debug"}, {n1, "info"}} {
		if got := c.h.Do("GET", "/system/loggers/subsystems", nil, root).Get("subsystems.indexer.level").String(); got != c.want {
			t.Errorf("node %s: indexer level %q, want %q", c.h.Node.Info.ID, got, c.want)
		}
	}
	all := n1.Do("GET", "/cluster/system/loggers/subsystems", nil, root).Want(t, http.StatusOK)
	for _, c := range []struct{ id, want string }{{id2, "debug"}, {n1.Node.Info.ID, "info"}, {hs[2].Node.Info.ID, "info"}} {
		if got := all.Get(c.id + ".subsystems.indexer.level").String(); got != c.want {
			t.Errorf("cluster subsystems of %s: indexer %q, want %q; body %s", c.id, got, c.want, all.Body)
		}
	}

	// Node 2's own request counter says node 2 answered.
	metric := map[string]any{"metrics": []string{"loggate.http.requests"}}
	before := n2.Do("POST", "/system/metrics/multiple", metric, root).Want(t, http.StatusOK)
	via := n1.Do("POST", "/cluster/"+id2+"/metrics/multiple", metric, root).Want(t, http.StatusOK)
	if got, was := via.Get("metrics.0.metric.rate.total").Int(), before.Get("metrics.0.metric.rate.total").Int(); got <= was {
		t.Errorf("count through node 1 %d, node 2 said %d before: %s", got, was, via.Body)
	}
	n1.Do("GET", "/cluster/"+id2+"/metrics/names", nil, root).Want(t, http.StatusOK)
	n1.Do("GET", "/cluster/no-such-node/metrics/names", nil, root).WantError(t, http.StatusNotFound, "Node no-such-node not found")

	// The other node checks the caller's own credentials.
	n1.CreateUser("plain", "pw")
	n1.Do("GET", "/cluster/"+id2+"/metrics/names", nil, nodetest.Basic("plain", "pw")).Want(t, http.StatusForbidden)
}

// On a cluster, /cluster lists every live node for a caller who may read
// only one node's /system, with null for the others.
func TestClusterRecordsFollowSystemRead(t *testing.T) {
	hs := startCluster(t, 2)
	tick(t, time.Second, hs...)
	one, other := hs[0].Node.Info.ID, hs[1].Node.Info.ID
	hs[0].Do("POST", "/roles", map[string]any{"name": "OneNode", "description": "d", "permissions": []string{"system:read:" + one}}, nodetest.AsRoot()).Want(t, http.StatusCreated)
	hs[0].CreateUser("ops", "pw", "OneNode")
	for _, h := range hs {
		r := h.Do("GET", "/cluster", nil, nodetest.Basic("ops", "pw")).Want(t, http.StatusOK)
		if r.Get(one+".node_id").String() != one || !r.Get(other).Exists() || r.Get(other).Raw != "null" {
			t.Errorf("on %s: %s", h.Node.Info.ID, r.Body)
		}
	}
}
