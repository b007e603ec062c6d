package auth_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/auth/cache"
	"github.com/loggate/loggate/auth/cache/redistest"
)

// A username is resolved once per cache, not once per request; the user's
// invalidation on any node sharing the cache (a rename, a deletion) makes
// every node resolve it again, and an unknown name is never remembered.
func TestUserIDCachedUntilUserInvalidated(t *testing.T) {
	ctx := context.Background()
	keys := auth.DeriveKeys("a secret of enough length")
	redis := redistest.Start(t)
	for _, c := range []struct {
		name string
		a, b auth.Cache // b is the cache of a second node; the same one without Redis
	}{
		{"memory", cache.NewMemory(100, time.Now), nil},
		{"redis", cache.NewRedis(redis.Client(), "loggate:"), cache.NewRedis(redis.Client(), "loggate:")},
	} {
		t.Run(c.name, func(t *testing.T) {
			nodeA := auth.NewCredentialCache(c.a, keys, auth.CacheOptions{})
			nodeB := nodeA
			if c.b != nil {
				nodeB = auth.NewCredentialCache(c.b, keys, auth.CacheOptions{})
			}
			owner := map[string]string{"alice": "u1"}
			reads := 0
			resolve := func(name string) func(context.Context) (string, error) {
				return func(context.Context) (string, error) {
					reads++
					if id, ok := owner[name]; ok {
						return id, nil
					}
					return "", errors.New("no such user")
				}
			}
			want := func(cc *auth.CredentialCache, name, id string, wantReads int) {
				t.Helper()
				got, err := cc.UserID(ctx, name, resolve(name))
				if id == "" && err == nil || id != "" && got != id {
					t.Fatalf("UserID(%s) = %q, %v; want %q", name, got, err, id)
				}
				if reads != wantReads {
					t.Fatalf("UserID(%s): %d store reads so far, want %d", name, reads, wantReads)
				}
			}
			want(nodeA, "alice", "u1", 1)
			want(nodeA, "alice", "u1", 1)
			want(nodeB, "alice", "u1", 1) // filled by node A
			want(nodeA, "bob", "", 2)
			owner["bob"] = "u2" // created: found at once
			want(nodeA, "bob", "u2", 3)

			delete(owner, "alice") // renamed to alicia on node B
			owner["alicia"] = "u1"
			nodeB.InvalidateUser(ctx, "u1")
			want(nodeA, "alice", "", 4)
			want(nodeB, "alice", "", 5)
			want(nodeA, "alicia", "u1", 6)
			want(nodeB, "alicia", "u1", 6)
			want(nodeA, "bob", "u2", 6) // another user's entry stays
		})
	}
}

// A user's name is resolved from its id once per cache too, until the
// user's invalidation (a rename) on any node.
func TestUsernameCachedUntilUserInvalidated(t *testing.T) {
	ctx := context.Background()
	keys := auth.DeriveKeys("a secret of enough length")
	redis := redistest.Start(t)
	nodeA := auth.NewCredentialCache(cache.NewRedis(redis.Client(), "loggate:"), keys, auth.CacheOptions{})
	nodeB := auth.NewCredentialCache(cache.NewRedis(redis.Client(), "loggate:"), keys, auth.CacheOptions{})
	names := map[string]string{"u1": "alice"}
	reads := 0
	want := func(cc *auth.CredentialCache, id, name string, wantReads int) {
		t.Helper()
		got, err := cc.Username(ctx, id, func(context.Context) (string, error) {
			reads++
			if n, ok := names[id]; ok {
				return n, nil
			}
			return "", errors.New("no such user")
		})
		if name == "" && err == nil || name != "" && got != name {
			t.Fatalf("Username(%s) = %q, %v; want %q", id, got, err, name)
		}
		if reads != wantReads {
			t.Fatalf("Username(%s): %d store reads so far, want %d", id, reads, wantReads)
		}
	}
	want(nodeA, "u1", "alice", 1)
	want(nodeB, "u1", "alice", 1)
	want(nodeA, "u2", "", 2)
	names["u1"] = "alicia"
	nodeB.InvalidateUser(ctx, "u1")
	want(nodeA, "u1", "alicia", 3)
	// A username and an id of the same text are different keys.
	if id, err := nodeA.UserID(ctx, "u1", func(context.Context) (string, error) { return "x", nil }); err != nil || id != "x" {
		t.Errorf("UserID(u1) = %q, %v", id, err)
	}
}
