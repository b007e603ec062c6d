package node_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/loggate/loggate/auth/cache/redistest"
	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
)

// Three nodes of one cluster share the document store and Redis: a session
// made on one works on another, and a token deleted or a user disabled on
// one is refused by the others at once — their caches were warm.
func TestNodesShareCredentials(t *testing.T) {
	redis := redistest.Start(t)
	st := nodetest.SharedStore(t)
	var nodes [3]*nodetest.Harness
	for i := range nodes {
		nodes[i] = nodetest.StartOn(t, st, nodetest.WithRedis(redis.Addr))
	}
	n1, n2, n3 := nodes[0], nodes[1], nodes[2]
	if n1.Node.Info.ID == n2.Node.Info.ID || n1.Node.Info.ClusterID != n3.Node.Info.ClusterID {
		t.Fatalf("node ids %s %s, cluster ids %s %s", n1.Node.Info.ID, n2.Node.Info.ID, n1.Node.Info.ClusterID, n3.Node.Info.ClusterID)
	}
	gm := n1.CreateUser("GM", "superpower")
	sid := n1.Login("GM", "superpower")
	n3.Do("GET", "/cluster", nil, nodetest.Session(sid)).Want(t, http.StatusOK)

	tok, tokID := n1.CreateToken(gm, "ci", nodetest.Basic("GM", "superpower"))
	for _, n := range nodes {
		n.Do("GET", "/cluster", nil, nodetest.Token(tok)).Want(t, http.StatusOK) // warm every cache
	}
	n2.Do("DELETE", "/users/"+gm+"/tokens/"+tokID, nil, nodetest.Basic("GM", "superpower")).Want(t, http.StatusNoContent)
	deleted := time.Now()
	n1.Do("GET", "/cluster", nil, nodetest.Token(tok)).WantError(t, http.StatusUnauthorized, "")
	if d := time.Since(deleted); d > 100*time.Millisecond {
		t.Errorf("node 1 refused the deleted token only after %v", d)
	}
	n3.Do("GET", "/cluster", nil, nodetest.Token(tok)).WantError(t, http.StatusUnauthorized, "")

	// Disabling the user on node 3 ends the session everywhere.
	n3.Do("PUT", "/users/"+gm+"/status/disabled", nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	n1.Do("GET", "/cluster", nil, nodetest.Session(sid)).WantError(t, http.StatusUnauthorized, "")
	n2.Do("GET", "/cluster", nil, nodetest.Basic("GM", "superpower")).WantError(t, http.StatusUnauthorized, "")
}

// A node sees streams another node of the cluster created, changed and
// deleted within a second.
func TestNodesShareStreams(t *testing.T) {
	st := nodetest.SharedStore(t)
	n1, n2 := nodetest.StartOn(t, st), nodetest.StartOn(t, st)
	root := nodetest.AsRoot()
	is := n1.Do("GET", "/system/indices/index_sets", nil, root).Get(`index_sets.#(default==true).id`).String()
	sid := n1.Do("POST", "/streams", map[string]any{"title": "shared", "index_set_id": is}, root).Want(t, http.StatusCreated).Get("stream_id").String()

	n2.Clock.Advance(2 * time.Second)
	n2.Do("GET", "/streams/"+sid, nil, root).Want(t, http.StatusOK)
	n1.Do("PUT", "/streams/"+sid, map[string]any{"title": "renamed"}, root).Want(t, http.StatusOK)
	n2.Clock.Advance(2 * time.Second)
	if got := n2.Do("GET", "/streams/"+sid, nil, root).Get("title").String(); got != "renamed" {
		t.Errorf("node 2 sees title %q", got)
	}
	n2.Do("DELETE", "/streams/"+sid, nil, root).Want(t, http.StatusNoContent)
	n1.Clock.Advance(2 * time.Second)
	n1.Do("GET", "/streams/"+sid, nil, root).WantError(t, http.StatusNotFound, "")
	// The writer itself never waits for its own changes.
	sid2 := n1.Do("POST", "/streams", map[string]any{"title": "mine", "index_set_id": is}, root).Want(t, http.StatusCreated).Get("stream_id").String()
	n1.Do("GET", "/streams/"+sid2, nil, root).Want(t, http.StatusOK)
}

// Grok patterns saved on one node compile on another within a second.
func TestNodesShareGrokPatterns(t *testing.T) {
	st := nodetest.SharedStore(t)
	n1, n2 := nodetest.StartOn(t, st), nodetest.StartOn(t, st)
	root := nodetest.AsRoot()
	n1.Do("POST", "/system/grok", map[string]any{"name": "SHARED_ID", "pattern": "[a-z]{3}-[0-9]+"}, root).Want(t, http.StatusCreated)
	test := map[string]any{"grok_pattern": map[string]any{"name": "t", "pattern": "%{SHARED_ID:id}"}, "sampleData": "abc-42"}
	n2.Clock.Advance(2 * time.Second)
	if got := n2.Do("POST", "/system/grok/test", test, root).Want(t, http.StatusOK).Get("id").String(); got != "abc-42" {
		t.Errorf("node 2 matched id %q", got)
	}
}

// Redis stopped and started while two nodes serve token requests: no 5xx,
// and a token deleted while Redis was down is refused by both nodes then
// and after Redis returns (empty, as a Redis without persistence does),
// although both had it cached in Redis before.
func TestRedisOutageAcrossNodes(t *testing.T) {
	redis := redistest.Start(t)
	st := nodetest.SharedStore(t)
	n1, n2 := nodetest.StartOn(t, st, nodetest.WithRedis(redis.Addr)), nodetest.StartOn(t, st, nodetest.WithRedis(redis.Addr))
	gm := n1.CreateUser("GM", "superpower")
	keep, _ := n1.CreateToken(gm, "keep", nodetest.Basic("GM", "superpower"))
	gone, goneID := n1.CreateToken(gm, "gone", nodetest.Basic("GM", "superpower"))
	burst := func(phase string, want map[string]int) {
		t.Helper()
		for i := range 40 {
			n := []*nodetest.Harness{n1, n2}[i%2]
			for tok, status := range want {
				if r := n.Do("GET", "/cluster", nil, nodetest.Token(tok)); r.Status != status {
					t.Fatalf("%s, request %d on node %d: %d %s, want %d", phase, i, i%2+1, r.Status, r.Body, status)
				}
			}
		}
	}
	burst("Redis up", map[string]int{keep: http.StatusOK, gone: http.StatusOK}) // both cached in Redis
	redis.Stop()
	burst("Redis down", map[string]int{keep: http.StatusOK, gone: http.StatusOK})
	n2.Do("DELETE", "/users/"+gm+"/tokens/"+goneID, nil, nodetest.Basic("GM", "superpower")).Want(t, http.StatusNoContent)
	burst("Redis down, token deleted", map[string]int{keep: http.StatusOK, gone: http.StatusUnauthorized})
	redis.Restart()
	burst("Redis back", map[string]int{keep: http.StatusOK, gone: http.StatusUnauthorized})
}
