package cache_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/loggate/loggate/internal/testclock"

	"github.com/loggate/loggate/auth/cache"
	"github.com/loggate/loggate/auth/cache/cachetest"
)

func newClock() *testclock.Clock { return testclock.New(time.Date(2021, 1, 2, 3, 4, 5, 0, time.UTC)) }

func TestMemory(t *testing.T) {
	cachetest.Run(t, func(t *testing.T) (cache.Cache, func(time.Duration)) {
		clk := newClock()
		return cache.NewMemory(1024, clk.Now), clk.Advance
	})
}

// TestMemoryEviction checks that the least recently used entry goes first
// and takes its tag records with it: a key evicted and set again under other
// tags must survive invalidation of its old tag.
func TestMemoryEviction(t *testing.T) {
	ctx := t.Context()
	m := cache.NewMemory(2, newClock().Now)
	set := func(key string, tags ...string) {
		t.Helper()
		if err := m.Set(ctx, key, []byte(key), time.Hour, tags...); err != nil {
			t.Fatalf("Set(%s) = %v", key, err)
		}
	}
	has := func(key string) bool {
		t.Helper()
		_, ok, err := m.Get(ctx, key)
		if err != nil {
			t.Fatalf("Get(%s) = %v", key, err)
		}
		return ok
	}

	set("a", "old")
	set("b")
	if !has("a") { // a is now more recently used than b
		t.Fatal("a missing before any eviction")
	}
	set("c") // evicts b
	if has("b") || !has("a") || !has("c") {
		t.Fatalf("after eviction: a=%v b=%v c=%v; want a and c only", has("a"), has("b"), has("c"))
	}
	set("d") // evicts a (c and d were used later)
	if has("a") {
		t.Fatal("a not evicted")
	}
	set("a", "new")
	if err := m.InvalidateTag(ctx, "old"); err != nil {
		t.Fatal(err)
	}
	if !has("a") {
		t.Error(`invalidating "old" removed a, which was evicted and set again without that tag`)
	}
	if err := m.InvalidateTag(ctx, "new"); err != nil {
		t.Fatal(err)
	}
	if has("a") {
		t.Error(`invalidating "new" kept a`)
	}
}

// TestMemoryRetag checks that overwriting a key replaces its tags.
func TestMemoryRetag(t *testing.T) {
	for _, tc := range []struct {
		tag  string
		gone bool
	}{
		{"before", false},
		{"after", true},
	} {
		t.Run(tc.tag, func(t *testing.T) {
			ctx := t.Context()
			m := cache.NewMemory(8, nil)
			for _, tag := range []string{"before", "after"} {
				if err := m.Set(ctx, "k", []byte(tag), time.Hour, tag); err != nil {
					t.Fatal(err)
				}
			}
			if err := m.InvalidateTag(ctx, tc.tag); err != nil {
				t.Fatal(err)
			}
			if _, ok, _ := m.Get(ctx, "k"); ok == tc.gone {
				t.Errorf("after InvalidateTag(%s): present = %v, want %v", tc.tag, ok, !tc.gone)
			}
		})
	}
}

// TestMemoryExpiryFreesSlot checks that an expired entry found by Get is
// removed, so it no longer pushes live entries out.
func TestMemoryExpiryFreesSlot(t *testing.T) {
	ctx := t.Context()
	clk := newClock()
	m := cache.NewMemory(2, clk.Now)
	mustSet := func(key string, ttl time.Duration) {
		t.Helper()
		if err := m.Set(ctx, key, []byte(key), ttl); err != nil {
			t.Fatal(err)
		}
	}
	mustSet("short", time.Second)
	mustSet("long", time.Hour)
	clk.Advance(2 * time.Second)
	if _, ok, _ := m.Get(ctx, "short"); ok {
		t.Fatal("short not expired")
	}
	// long is now the least recently used; had short stayed, adding a third
	// entry would have evicted long instead.
	mustSet("third", time.Hour)
	for _, k := range []string{"long", "third"} {
		if _, ok, _ := m.Get(ctx, k); !ok {
			t.Errorf("%s evicted; the expired entry should have made room", k)
		}
	}
}

// TestMemoryGetHitDoesNotAllocate guards the hot path: a hit returns the
// stored slice rather than a copy.
func TestMemoryGetHitDoesNotAllocate(t *testing.T) {
	ctx := t.Context()
	m := cache.NewMemory(8, newClock().Now)
	if err := m.Set(ctx, "k", []byte("v"), time.Hour, "tag"); err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(100, func() {
		if _, ok, _ := m.Get(ctx, "k"); !ok {
			t.Fatal("miss")
		}
	})
	if allocs > 0 {
		t.Errorf("Get hit allocates %v times, want 0", allocs)
	}
}

func TestNewMemoryRejectsNonPositiveSize(t *testing.T) {
	for _, n := range []int{0, -1} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("NewMemory(%d) did not panic", n)
				}
			}()
			cache.NewMemory(n, nil)
		})
	}
}

// benchClocks separates the cache's own cost from the clock's: on some
// virtual machines (kvm-clock) time.Now alone costs a few hundred ns.
var benchClocks = []struct {
	name string
	now  func() time.Time
}{
	{"clock=fixed", func() time.Time { return time.Unix(1e9, 0) }},
	{"clock=time.Now", time.Now},
}

func BenchmarkMemoryGetHit(b *testing.B) {
	for _, clk := range benchClocks {
		b.Run(clk.name, func(b *testing.B) {
			m, keys := benchMemory(b, clk.now)
			ctx := b.Context()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, ok, _ := m.Get(ctx, keys[i%len(keys)]); !ok {
					b.Fatal("miss")
				}
				i++
			}
		})
	}
}

// BenchmarkLockedMapGet is the floor Memory's Get is measured against: a map
// lookup under a mutex, with no recency or expiry bookkeeping. On a shared
// machine only the ratio between the two is meaningful.
func BenchmarkLockedMapGet(b *testing.B) {
	_, keys := benchMemory(b, nil)
	var mu sync.Mutex
	m := make(map[string][]byte, len(keys))
	for _, k := range keys {
		m[k] = []byte(`{"user":"admin"}`)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		mu.Lock()
		_, ok := m[keys[i%len(keys)]]
		mu.Unlock()
		if !ok {
			b.Fatal("miss")
		}
		i++
	}
}

func BenchmarkMemoryGetHitParallel(b *testing.B) {
	for _, clk := range benchClocks {
		b.Run(clk.name, func(b *testing.B) {
			m, keys := benchMemory(b, clk.now)
			ctx := b.Context()
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				i := 0
				for pb.Next() {
					if _, ok, _ := m.Get(ctx, keys[i%len(keys)]); !ok {
						b.Error("miss")
						return
					}
					i++
				}
			})
		})
	}
}

func BenchmarkMemorySet(b *testing.B) {
	m, keys := benchMemory(b, time.Now)
	ctx := b.Context()
	value := []byte(`{"user":"admin","roles":["Admin"]}`)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if err := m.Set(ctx, keys[i%len(keys)], value, time.Hour, "user:1", "session:1"); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

func benchMemory(b *testing.B, now func() time.Time) (*cache.Memory, []string) {
	b.Helper()
	m := cache.NewMemory(10000, now)
	keys := make([]string, 1000)
	for i := range keys {
		keys[i] = fmt.Sprintf("pw:%064x", i)
		if err := m.Set(b.Context(), keys[i], []byte(`{"user":"admin"}`), time.Hour, "user:1"); err != nil {
			b.Fatal(err)
		}
	}
	return m, keys
}
