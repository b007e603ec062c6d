// Package cachetest is the contract that every cache.Cache implementation
// meets: one suite, run against Memory and against a real Redis.
package cachetest

import (
	"bytes"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/loggate/loggate/auth/cache"
)

// Run runs the contract suite. newCache is called once per subtest and must
// return an empty cache with room for at least 1000 entries, and a function
// that moves the cache's clock forward, or nil when its clock cannot be moved
// (then only the expiry subtest is skipped).
func Run(t *testing.T, newCache func(t *testing.T) (c cache.Cache, advance func(time.Duration))) {
	t.Helper()
	for _, tc := range []struct {
		name string
		fn   func(t *testing.T, c cache.Cache, advance func(time.Duration))
	}{
		{"miss", testMiss},
		{"set and get", testSetGet},
		{"set copies the value", testSetCopies},
		{"overwrite", testOverwrite},
		{"invalid ttl", testInvalidTTL},
		{"delete", testDelete},
		{"tags", testTags},
		{"expiry", testExpiry},
		{"concurrent use", testConcurrent},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, advance := newCache(t)
			tc.fn(t, c, advance)
		})
	}
}

func testMiss(t *testing.T, c cache.Cache, _ func(time.Duration)) {
	v, ok, err := c.Get(t.Context(), "absent")
	if err != nil || ok || v != nil {
		t.Fatalf("Get(absent) = %q, %v, %v; want nil, false, nil", v, ok, err)
	}
}

func testSetGet(t *testing.T, c cache.Cache, _ func(time.Duration)) {
	large := make([]byte, 64<<10)
	for i := range large {
		large[i] = byte(i * 7)
	}
	for _, tc := range []struct {
		name  string
		value []byte
	}{
		{"text", []byte(`{"user":"admin"}`)},
		{"empty", []byte{}},
		{"binary", []byte{0, 0xff, '\r', '\n', 0, 1}},
		{"large", large},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mustSet(t, c, tc.name, tc.value, time.Hour)
			mustHave(t, c, tc.name, tc.value)
		})
	}
}

func testSetCopies(t *testing.T, c cache.Cache, _ func(time.Duration)) {
	buf := []byte("original")
	mustSet(t, c, "k", buf, time.Hour)
	copy(buf, "mutated!")
	mustHave(t, c, "k", []byte("original"))
}

func testOverwrite(t *testing.T, c cache.Cache, _ func(time.Duration)) {
	mustSet(t, c, "k", []byte("first"), time.Hour)
	mustSet(t, c, "k", []byte("second"), time.Hour)
	mustHave(t, c, "k", []byte("second"))
}

func testInvalidTTL(t *testing.T, c cache.Cache, _ func(time.Duration)) {
	for _, ttl := range []time.Duration{0, -time.Second} {
		err := c.Set(t.Context(), "k", []byte("v"), ttl)
		if err == nil || errors.Is(err, cache.ErrUnavailable) {
			t.Errorf("Set(ttl=%v) = %v; want an error that is not ErrUnavailable", ttl, err)
		}
	}
	mustMiss(t, c, "k")
}

func testDelete(t *testing.T, c cache.Cache, _ func(time.Duration)) {
	for _, tc := range []struct {
		name       string
		del        []string
		gone, kept []string
	}{
		{"single", []string{"a"}, []string{"a"}, []string{"b", "c"}},
		{"several", []string{"a", "c"}, []string{"a", "c"}, []string{"b"}},
		{"absent", []string{"nope"}, nil, []string{"a", "b", "c"}},
		{"present and absent", []string{"nope", "b"}, []string{"b"}, []string{"a", "c"}},
		{"none", nil, nil, []string{"a", "b", "c"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			for _, k := range []string{"a", "b", "c"} {
				mustSet(t, c, k, []byte("v"+k), time.Hour)
			}
			if err := c.Delete(ctx, tc.del...); err != nil {
				t.Fatalf("Delete(%q) = %v", tc.del, err)
			}
			for _, k := range tc.gone {
				mustMiss(t, c, k)
			}
			for _, k := range tc.kept {
				mustHave(t, c, k, []byte("v"+k))
			}
		})
	}
}

func testTags(t *testing.T, c cache.Cache, _ func(time.Duration)) {
	// Each case starts from the same entries: k1 is under two tags.
	entries := map[string][]string{"k1": {"t1", "t2"}, "k2": {"t2"}, "k3": {"t3"}, "k4": nil}
	for _, tc := range []struct {
		name       string
		invalidate []string
		gone, kept []string
	}{
		{"one of two tags", []string{"t1"}, []string{"k1"}, []string{"k2", "k3", "k4"}},
		{"shared tag", []string{"t2"}, []string{"k1", "k2"}, []string{"k3", "k4"}},
		{"both tags of a key", []string{"t1", "t2"}, []string{"k1", "k2"}, []string{"k3", "k4"}},
		{"same tag twice", []string{"t3", "t3"}, []string{"k3"}, []string{"k1", "k2", "k4"}},
		{"unknown tag", []string{"unknown"}, nil, []string{"k1", "k2", "k3", "k4"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for k, tags := range entries {
				mustSet(t, c, k, []byte("v"+k), time.Hour, tags...)
			}
			for _, tag := range tc.invalidate {
				if err := c.InvalidateTag(t.Context(), tag); err != nil {
					t.Fatalf("InvalidateTag(%q) = %v", tag, err)
				}
			}
			for _, k := range tc.gone {
				mustMiss(t, c, k)
			}
			for _, k := range tc.kept {
				mustHave(t, c, k, []byte("v"+k))
			}
		})
	}

	t.Run("tag is reusable after invalidation", func(t *testing.T) {
		mustSet(t, c, "r1", []byte("v"), time.Hour, "reused")
		mustInvalidate(t, c, "reused")
		mustSet(t, c, "r2", []byte("v"), time.Hour, "reused")
		mustHave(t, c, "r2", []byte("v"))
		mustInvalidate(t, c, "reused")
		mustMiss(t, c, "r2")
	})
}

func testExpiry(t *testing.T, c cache.Cache, advance func(time.Duration)) {
	if advance == nil {
		t.Skip("advance is nil: this cache's clock cannot be moved without sleeping; its own tests check expiry")
	}
	mustSet(t, c, "minute", []byte("m"), time.Minute, "tag")
	mustSet(t, c, "hour", []byte("h"), time.Hour, "tag")
	advance(59 * time.Second)
	mustHave(t, c, "minute", []byte("m"))
	advance(2 * time.Second)
	mustMiss(t, c, "minute")
	mustHave(t, c, "hour", []byte("h"))

	// An expired key set again lives again, and its tag still reaches it.
	mustSet(t, c, "minute", []byte("m2"), time.Minute, "tag")
	mustHave(t, c, "minute", []byte("m2"))
	mustInvalidate(t, c, "tag")
	mustMiss(t, c, "minute")
	mustMiss(t, c, "hour")
}

// testConcurrent has goroutines work on their own keys under their own tag
// and one shared tag, while all of them read and write one shared key. Odd
// goroutines invalidate their own tag while the others are still writing.
func testConcurrent(t *testing.T, c cache.Cache, _ func(time.Duration)) {
	const workers, perWorker = 8, 50
	ctx := t.Context()
	key := func(w, i int) string { return fmt.Sprintf("w%d/k%d", w, i) }
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			own := fmt.Sprintf("w%d", w)
			for i := range perWorker {
				k := key(w, i)
				if err := c.Set(ctx, k, []byte(k), time.Hour, own, "all"); err != nil {
					t.Errorf("Set(%s) = %v", k, err)
					return
				}
				if v, ok, err := c.Get(ctx, k); err != nil || !ok || string(v) != k {
					t.Errorf("Get(%s) = %q, %v, %v; want its own value", k, v, ok, err)
				}
				if err := c.Set(ctx, "shared", []byte(own), time.Hour); err != nil {
					t.Errorf("Set(shared) = %v", err)
				}
				if v, ok, err := c.Get(ctx, "shared"); err != nil || !ok || !bytes.HasPrefix(v, []byte("w")) {
					t.Errorf("Get(shared) = %q, %v, %v; want some worker's value", v, ok, err)
				}
			}
			if w%2 == 1 {
				if err := c.InvalidateTag(ctx, own); err != nil {
					t.Errorf("InvalidateTag(%s) = %v", own, err)
				}
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	for w := range workers {
		for i := range perWorker {
			if w%2 == 1 {
				mustMiss(t, c, key(w, i))
			} else {
				mustHave(t, c, key(w, i), []byte(key(w, i)))
			}
		}
	}
	mustInvalidate(t, c, "all")
	for w := range workers {
		for i := range perWorker {
			mustMiss(t, c, key(w, i))
		}
	}
}

func mustSet(t *testing.T, c cache.Cache, key string, value []byte, ttl time.Duration, tags ...string) {
	t.Helper()
	if err := c.Set(t.Context(), key, value, ttl, tags...); err != nil {
		t.Fatalf("Set(%q) = %v", key, err)
	}
}

func mustInvalidate(t *testing.T, c cache.Cache, tag string) {
	t.Helper()
	if err := c.InvalidateTag(t.Context(), tag); err != nil {
		t.Fatalf("InvalidateTag(%q) = %v", tag, err)
	}
}

func mustHave(t *testing.T, c cache.Cache, key string, want []byte) {
	t.Helper()
	got, ok, err := c.Get(t.Context(), key)
	if err != nil || !ok || !bytes.Equal(got, want) {
		t.Fatalf("Get(%q) = %.40q, %v, %v; want %.40q, true, nil", key, got, ok, err, want)
	}
}

func mustMiss(t *testing.T, c cache.Cache, key string) {
	t.Helper()
	got, ok, err := c.Get(t.Context(), key)
	if err != nil || ok || got != nil {
		t.Fatalf("Get(%q) = %.40q, %v, %v; want nil, false, nil", key, got, ok, err)
	}
}
