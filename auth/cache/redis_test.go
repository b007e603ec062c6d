package cache_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/loggate/loggate/auth/cache"
	"github.com/loggate/loggate/auth/cache/cachetest"
	"github.com/loggate/loggate/auth/cache/redistest"
	"github.com/redis/go-redis/v9"
)

func TestRedis(t *testing.T) {
	srv := redistest.Start(t)
	cachetest.Run(t, func(t *testing.T) (cache.Cache, func(time.Duration)) {
		// A prefix per subtest keeps subtests apart on one server.
		return cache.NewRedis(srv.Client(), t.Name()+":"), nil
	})
}

// TestRedisTTL checks the expiry Redis sets, since the contract suite cannot
// move Redis's clock.
func TestRedisTTL(t *testing.T) {
	srv := redistest.Start(t)
	c := cache.NewRedis(srv.Client(), "ttl:")
	for _, ttl := range []time.Duration{1500 * time.Millisecond, time.Minute, 36 * time.Hour} {
		t.Run(ttl.String(), func(t *testing.T) {
			key := ttl.String()
			if err := c.Set(t.Context(), key, []byte("v"), ttl); err != nil {
				t.Fatal(err)
			}
			got, err := srv.Client().PTTL(t.Context(), "ttl:"+key).Result()
			if err != nil {
				t.Fatal(err)
			}
			if got <= 0 || got > ttl {
				t.Errorf("PTTL = %v, want within (0, %v]", got, ttl)
			}
		})
	}
}

// TestRedisTagTTL checks that a tag set lives at least as long as its
// longest-lived member: a shorter-lived member must not shorten it, a
// longer-lived one must extend it.
func TestRedisTagTTL(t *testing.T) {
	srv := redistest.Start(t)
	c := cache.NewRedis(srv.Client(), "tagttl:")
	rdb := srv.Client()
	ctx := t.Context()
	pttl := func(key string) time.Duration {
		t.Helper()
		d, err := rdb.PTTL(ctx, key).Result()
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	var longest string
	for i, ttl := range []time.Duration{time.Hour, time.Minute, 2 * time.Hour, 30 * time.Minute} {
		key := fmt.Sprintf("k%d", i)
		if err := c.Set(ctx, key, []byte("v"), ttl, "tag"); err != nil {
			t.Fatal(err)
		}
		if longest == "" || pttl("tagttl:"+key) > pttl("tagttl:"+longest) {
			longest = key
		}
		tagTTL, memberTTL := pttl("tagttl:tag:tag"), pttl("tagttl:"+longest)
		if tagTTL < memberTTL {
			t.Errorf("after setting %s for %v: tag PTTL %v < PTTL %v of %s", key, ttl, tagTTL, memberTTL, longest)
		}
	}
}

// TestRedisKeyLayout checks where entries and tags live, and that caches
// with different prefixes on one server do not see each other.
func TestRedisKeyLayout(t *testing.T) {
	srv := redistest.Start(t)
	rdb := srv.Client()
	ctx := t.Context()
	a, b := cache.NewRedis(rdb, "a:"), cache.NewRedis(rdb, "b:")
	for _, c := range []*cache.Redis{a, b} {
		if err := c.Set(ctx, "k", []byte("v"), time.Hour, "t"); err != nil {
			t.Fatal(err)
		}
	}
	if v, err := rdb.Get(ctx, "a:k").Result(); err != nil || v != "v" {
		t.Errorf(`GET a:k = %q, %v; want "v"`, v, err)
	}
	if m, err := rdb.SMembers(ctx, "a:tag:t").Result(); err != nil || len(m) != 1 || m[0] != "a:k" {
		t.Errorf(`SMEMBERS a:tag:t = %q, %v; want ["a:k"]`, m, err)
	}
	if err := a.InvalidateTag(ctx, "t"); err != nil {
		t.Fatal(err)
	}
	if n, err := rdb.Exists(ctx, "a:k", "a:tag:t").Result(); err != nil || n != 0 {
		t.Errorf("after invalidation %d of a:k, a:tag:t exist (%v); want none", n, err)
	}
	if _, ok, err := b.Get(ctx, "k"); err != nil || !ok {
		t.Errorf("b.Get(k) = %v, %v after invalidating a's tag; want a hit", ok, err)
	}
}

// TestRedisUnavailable checks that an outage surfaces as ErrUnavailable and
// that the cache recovers when the server is back on the same address.
func TestRedisUnavailable(t *testing.T) {
	srv := redistest.Start(t)
	// Without retries an outage is reported at once rather than after
	// go-redis's seconds of backoff, and recovery must not depend on them.
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr, MaxRetries: -1, DialerRetries: 1})
	t.Cleanup(func() { _ = rdb.Close() })
	c := cache.NewRedis(rdb, "down:")
	ops := []struct {
		name string
		do   func(ctx context.Context) error
	}{
		{"get", func(ctx context.Context) error {
			_, ok, err := c.Get(ctx, "k")
			if ok {
				return errors.New("hit")
			}
			return err
		}},
		{"set", func(ctx context.Context) error { return c.Set(ctx, "k", []byte("v"), time.Hour, "t") }},
		{"delete", func(ctx context.Context) error { return c.Delete(ctx, "k") }},
		{"invalidate tag", func(ctx context.Context) error { return c.InvalidateTag(ctx, "t") }},
	}

	srv.Stop()
	for _, op := range ops {
		if err := op.do(t.Context()); !errors.Is(err, cache.ErrUnavailable) {
			t.Errorf("%s with the server stopped = %v; want ErrUnavailable", op.name, err)
		}
	}

	srv.Restart()
	for _, op := range ops {
		if err := op.do(t.Context()); err != nil {
			t.Errorf("%s after restart = %v", op.name, err)
		}
	}
	if err := c.Set(t.Context(), "k", []byte("v"), time.Hour); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := c.Get(t.Context(), "k"); err != nil || !ok || string(v) != "v" {
		t.Errorf(`Get after restart = %q, %v, %v; want "v"`, v, ok, err)
	}
}

// TestRedisContext checks that the caller's context reaches the client.
func TestRedisContext(t *testing.T) {
	srv := redistest.Start(t)
	c := cache.NewRedis(srv.Client(), "ctx:")
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	for name, err := range map[string]error{
		"get":            func() error { _, _, err := c.Get(ctx, "k"); return err }(),
		"set":            c.Set(ctx, "k", []byte("v"), time.Hour, "t"),
		"delete":         c.Delete(ctx, "k"),
		"invalidate tag": c.InvalidateTag(ctx, "t"),
	} {
		if !errors.Is(err, context.Canceled) || !errors.Is(err, cache.ErrUnavailable) {
			t.Errorf("%s with a cancelled context = %v; want context.Canceled and ErrUnavailable", name, err)
		}
	}
}

func BenchmarkRedisGetHit(b *testing.B) {
	srv := redistest.Start(b)
	c := cache.NewRedis(srv.Client(), "bench:")
	ctx := b.Context()
	if err := c.Set(ctx, "k", []byte(`{"user":"admin"}`), time.Hour, "user:1"); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, ok, err := c.Get(ctx, "k"); !ok || err != nil {
			b.Fatal("miss", err)
		}
	}
}

func BenchmarkRedisSet(b *testing.B) {
	srv := redistest.Start(b)
	c := cache.NewRedis(srv.Client(), "bench:")
	ctx := b.Context()
	value := []byte(`{"user":"admin","roles":["Admin"]}`)
	b.ReportAllocs()
	for b.Loop() {
		if err := c.Set(ctx, "k", value, time.Hour, "user:1", "session:1"); err != nil {
			b.Fatal(err)
		}
	}
}
