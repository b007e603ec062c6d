package auth

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/loggate/loggate/auth/cache"
	"github.com/loggate/loggate/auth/cache/redistest"
)

// A fill that began before an invalidation is not stored: it may carry what
// the invalidation removed (a password hash read just before it changed).
func TestFillAfterInvalidationIsDropped(t *testing.T) {
	ctx := context.Background()
	cc := NewCredentialCache(cache.NewMemory(100, time.Now), DeriveKeys("a secret of enough length"), CacheOptions{})
	e := &entry{p: &Principal{UserID: "u1", Username: "alice"}}

	stale := cc.Epoch(ctx)
	cc.InvalidateUser(ctx, "u1") // e.g. the password changed meanwhile
	cc.remember(ctx, "k", stale, e, "user:u1")
	if cc.lookup(ctx, "k", "") != nil {
		t.Fatal("a fill older than an invalidation was stored")
	}

	fresh := cc.Epoch(ctx)
	cc.remember(ctx, "k", fresh, e, "user:u1")
	got := cc.lookup(ctx, "k", "")
	if got == nil || got.p.Username != "alice" {
		t.Fatalf("a current fill was not stored: %+v", got)
	}
	cc.InvalidateUser(ctx, "u1")
	if cc.lookup(ctx, "k", "") != nil {
		t.Fatal("invalidation left the entry")
	}
}

// Cached values do not hold session ids and cannot be forged or moved to
// another key.
func TestCachedValuesAreAuthenticated(t *testing.T) {
	ctx := context.Background()
	mem := cache.NewMemory(100, time.Now)
	cc := NewCredentialCache(mem, DeriveKeys("a secret of enough length"), CacheOptions{})
	sid := "0b7c3f52-1f3a-4c43-9d1e-2f0f1d7c9a11"
	e := &entry{p: &Principal{UserID: "u1", Username: "alice", SessionID: sid}, lastAccess: time.UnixMilli(1000)}
	cc.remember(ctx, "k", cc.Epoch(ctx), e, "user:u1")
	raw, ok, _ := mem.Get(ctx, "k")
	if !ok || strings.Contains(string(raw), sid) {
		t.Fatalf("cached value holds the session id: %q", raw)
	}
	cc.memo.Purge()
	if got := cc.lookup(ctx, "k", sid); got == nil || got.p.SessionID != sid || got.p.Username != "alice" {
		t.Fatalf("lookup: %+v", got)
	}
	// Tampered: the permissions swapped for "*".
	forged := []byte(strings.Replace(string(raw), "\x1f\x1f", "\x1f*\x1f", 1) + "*")
	_ = mem.Set(ctx, "k", forged, time.Minute)
	cc.memo.Purge()
	if cc.lookup(ctx, "k", sid) != nil {
		t.Error("a tampered value was accepted")
	}
	// Moved to another key.
	_ = mem.Set(ctx, "k2", raw, time.Minute)
	if cc.lookup(ctx, "k2", sid) != nil {
		t.Error("a value moved to another key was accepted")
	}
}

// Two nodes sharing Redis: a fill on node A that read the store before node
// B invalidated is not stored, though A's own epoch did not move.
func TestFillRaceAcrossNodes(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	keys := DeriveKeys("a secret of enough length")
	nodeA := NewCredentialCache(cache.NewRedis(srv.Client(), "loggate:"), keys, CacheOptions{})
	nodeB := NewCredentialCache(cache.NewRedis(srv.Client(), "loggate:"), keys, CacheOptions{})
	e := &entry{p: &Principal{UserID: "u1", Username: "alice"}}

	ep := nodeA.Epoch(ctx)          // A missed and is about to read the store
	nodeB.InvalidateUser(ctx, "u1") // B changed the password meanwhile
	nodeA.remember(ctx, "k", ep, e, "user:u1")
	if nodeA.lookup(ctx, "k", "") != nil || nodeB.lookup(ctx, "k", "") != nil {
		t.Fatal("a fill older than another node's invalidation was stored")
	}
	nodeA.remember(ctx, "k", nodeA.Epoch(ctx), e, "user:u1")
	if nodeB.lookup(ctx, "k", "") == nil {
		t.Fatal("a current fill was not shared")
	}
}

// An unknown session id costs no invalidation: it must not disturb fills.
func TestUnknownSessionDoesNotInvalidate(t *testing.T) {
	ctx := context.Background()
	cc := NewCredentialCache(cache.NewMemory(100, time.Now), DeriveKeys("a secret of enough length"), CacheOptions{})
	before := cc.epoch.Load()
	a := New(Options{Cache: cc, Sessions: noSessions{}})
	for range 10 {
		if _, err := a.session(ctx, "made-up", true); !ErrInvalidCredentials(err) {
			t.Fatalf("err %v", err)
		}
	}
	if cc.epoch.Load() != before {
		t.Errorf("unknown sessions moved the epoch %d → %d", before, cc.epoch.Load())
	}
}

// noSessions is a session store that holds no session.
type noSessions struct{}

func (noSessions) FindSession(context.Context, string) (SessionRecord, error) {
	return SessionRecord{}, ErrNotFound
}
func (noSessions) Touch(string, time.Time)              {}
func (noSessions) LastTouch(string) (time.Time, bool)   { return time.Time{}, false }
func (noSessions) Expire(context.Context, string) error { return nil }

// An invalidation that failed while Redis was away is replayed before the
// cache is trusted again, even if Redis returns with the stale entry.
func TestPendingInvalidationReplayed(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	cc := NewCredentialCache(cache.NewRedis(srv.Client(), "loggate:"), DeriveKeys("a secret of enough length"), CacheOptions{})
	e := &entry{p: &Principal{UserID: "u1", Username: "alice"}}
	cc.remember(ctx, "k", cc.Epoch(ctx), e, "user:u1")
	saved := dump(t, srv)
	srv.Stop()
	cc.InvalidateUser(ctx, "u1") // fails: queued
	if cc.npending.Load() != 1 {
		t.Fatalf("%d pending invalidations, want 1", cc.npending.Load())
	}
	srv.Restart()
	restore(t, srv, saved)
	cc.downUntil.Store(0) // the pause after the failure is over
	if got := cc.lookup(ctx, "k", ""); got != nil {
		t.Fatal("the stale entry was trusted before the invalidation was replayed")
	}
	if cc.npending.Load() != 0 {
		t.Error("the invalidation was not replayed")
	}
	if n, _ := srv.Client().Exists(ctx, "loggate:k").Result(); n != 0 {
		t.Error("the replayed invalidation did not delete the stale entry")
	}
}

// dump and restore copy every key of a Redis server exactly (values, sets,
// TTLs), to play a Redis that comes back with the data it had.
func dump(t *testing.T, srv *redistest.Server) map[string]string {
	t.Helper()
	ctx := context.Background()
	keys, err := srv.Client().Keys(ctx, "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, k := range keys {
		v, err := srv.Client().Dump(ctx, k).Result()
		if err != nil {
			t.Fatal(err)
		}
		out[k] = v
	}
	return out
}

func restore(t *testing.T, srv *redistest.Server, saved map[string]string) {
	t.Helper()
	for k, v := range saved {
		if err := srv.Client().RestoreReplace(context.Background(), k, 0, v).Err(); err != nil {
			t.Fatal(err)
		}
	}
}

// The session key an authentication caches under is the one InvalidateSession
// deletes, which knows only the store's key and not the id.
func TestSessionCacheKeyIsInvalidationKey(t *testing.T) {
	keys := DeriveKeys("a secret of enough length")
	for _, id := range []string{"", "6f0a4c1e-9d2b-4b7a-8f3e-2a1c5d9e7b10", strings.Repeat("x", 300)} {
		key, skey := keys.sessionCacheKey(id)
		if skey != keys.SessionKey(id) {
			t.Errorf("session key %q, want SessionKey's %q", skey, keys.SessionKey(id))
		}
		if key != sessionCacheKey(keys.SessionKey(id)) {
			t.Errorf("cache key %q, want %q", key, sessionCacheKey(keys.SessionKey(id)))
		}
	}
}
