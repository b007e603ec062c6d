package node_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/loggate/loggate/auth/cache/redistest"
	"github.com/loggate/loggate/backend/access/users"
	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
)

// An old client's username is resolved from a cache, which a rename or a
// deletion on any node of the cluster empties at once: the old name is
// unknown on every node right after, the new name and a new user of the
// old name are found.
func TestUsernameResolutionFollowsRenameAndDelete(t *testing.T) {
	redis := redistest.Start(t)
	st := nodetest.SharedStore(t)
	n1 := nodetest.StartOn(t, st, nodetest.WithRedis(redis.Addr))
	n2 := nodetest.StartOn(t, st, nodetest.WithRedis(redis.Addr))
	nodes := []*nodetest.Harness{n1, n2}
	tokens := func(n *nodetest.Harness, name string, as nodetest.ReqOption, status int) *nodetest.Response {
		t.Helper()
		r := n.Do("GET", "/users/"+name+"/tokens", nil, as, nodetest.Header("X-API-Version", "2.4"))
		if r.Status != status {
			t.Fatalf("GET /users/%s/tokens: status %d, want %d: %s", name, r.Status, status, r.Body)
		}
		return r
	}

	alice := n1.CreateUser("alice", "wonderland1")
	n1.CreateToken(alice, "ci", nodetest.Basic("alice", "wonderland1"))
	for _, n := range nodes {
		tokens(n, "alice", nodetest.Basic("alice", "wonderland1"), http.StatusOK) // warm every cache
	}

	// Renamed on node 1: no request goes through the API for this (the
	// API keeps usernames), but a directory sync or a later API may.
	err := n1.Node.Users.Update(context.Background(), alice, func(u *users.User) error {
		u.Username, u.UsernameLower = "alicia", users.FoldName("alicia")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		tokens(n, "alice", nodetest.AsRoot(), http.StatusNotFound)
		if got := tokens(n, "alicia", nodetest.Basic("alicia", "wonderland1"), http.StatusOK).Get("tokens.#").Int(); got != 1 {
			t.Errorf("alicia has %d tokens, want 1", got)
		}
	}

	// A new user takes the old name: the old name is hers now.
	n2.CreateUser("alice", "wonderland2")
	for _, n := range nodes {
		if got := tokens(n, "alice", nodetest.Basic("alice", "wonderland2"), http.StatusOK).Get("tokens.#").Int(); got != 0 {
			t.Errorf("the new alice has %d tokens, want 0", got)
		}
	}

	// Deleted on node 2: unknown on both nodes at once.
	n2.Do("DELETE", "/users/id/"+alice, nil, nodetest.AsRoot()).Want(t, http.StatusNoContent)
	for _, n := range nodes {
		tokens(n, "alicia", nodetest.AsRoot(), http.StatusNotFound)
	}
}
