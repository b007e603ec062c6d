package processing_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/logs/indexsets"
	"github.com/loggate/loggate/backend/logs/processing"
)

// countingSource is the real index set service, counting the reloads.
type countingSource struct {
	*indexsets.Service
	loads atomic.Int64
}

func (c *countingSource) All(ctx context.Context) ([]indexsets.IndexSet, error) {
	c.loads.Add(1)
	return c.Service.All(ctx)
}

// TestIndexSetCache walks a cache through its reloads: the first lookup,
// an unknown id (at once, but at most every 100ms), the TTL, Invalidate,
// the default index set, and a source that fails.
func TestIndexSetCache(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	src := &countingSource{Service: e.sets}
	const ttl = time.Minute
	now := epoch
	c := processing.NewIndexSetCache(src, ttl, func() time.Time { return now })
	def, err := e.sets.DefaultID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var a, b string

	steps := []struct {
		name      string
		advance   time.Duration
		before    func()
		id        func() string // looked up; nil asks for the default prefix
		want      string
		wantOK    bool
		wantLoads int64
	}{
		{name: "first lookup loads", id: func() string { return def }, want: e.defaultPrefix, wantOK: true, wantLoads: 1},
		{name: "known id is cached", advance: 10 * time.Millisecond, id: func() string { return def }, want: e.defaultPrefix, wantOK: true, wantLoads: 1},
		{name: "unknown id within 100ms of a load does not reload",
			advance: 50 * time.Millisecond, before: func() { a = e.indexSet("a") },
			id: func() string { return a }, wantOK: false, wantLoads: 1},
		{name: "unknown id reloads after 100ms",
			advance: 100 * time.Millisecond, id: func() string { return a }, want: "a", wantOK: true, wantLoads: 2},
		{name: "an id that stays unknown reloads at most every 100ms",
			advance: 99 * time.Millisecond, id: func() string { return "5f00000000000000000000ff" }, wantOK: false, wantLoads: 2},
		{name: "and again once 100ms passed",
			advance: time.Millisecond, id: func() string { return "5f00000000000000000000ff" }, wantOK: false, wantLoads: 3},
		{name: "default prefix is cached", advance: time.Second, want: e.defaultPrefix, wantOK: true, wantLoads: 3},
		{name: "deleted index set is remembered until the TTL",
			advance: time.Second, before: func() {
				if err := e.sets.Delete(ctx, a, true); err != nil {
					t.Fatal(err)
				}
			},
			id: func() string { return a }, want: "a", wantOK: true, wantLoads: 3},
		{name: "TTL reloads", advance: ttl, id: func() string { return a }, wantOK: false, wantLoads: 4},
		{name: "Invalidate reloads a known id",
			before: func() {
				b = e.indexSet("b")
				if _, err := e.sets.SetDefault(ctx, b); err != nil {
					t.Fatal(err)
				}
				c.Invalidate()
			},
			id: func() string { return def }, want: e.defaultPrefix, wantOK: true, wantLoads: 5},
		{name: "default prefix follows the reload", want: "b", wantOK: true, wantLoads: 5},
		{name: "default prefix reloads after the TTL",
			advance: ttl, before: func() {
				if _, err := e.sets.SetDefault(ctx, def); err != nil {
					t.Fatal(err)
				}
			},
			want: e.defaultPrefix, wantOK: true, wantLoads: 6},
		{name: "failing source keeps the last prefixes",
			advance: ttl, before: func() { e.db.Close() },
			id: func() string { return b }, want: "b", wantOK: true, wantLoads: 7},
		{name: "failing source keeps the last default prefix", advance: ttl, want: e.defaultPrefix, wantOK: true, wantLoads: 8},
	}
	for _, s := range steps {
		now = now.Add(s.advance)
		if s.before != nil {
			s.before()
		}
		var got string
		var ok bool
		if s.id != nil {
			got, ok = c.Prefix(ctx, s.id())
		} else {
			var err error
			got, err = c.DefaultPrefix(ctx)
			ok = err == nil
		}
		if got != s.want || ok != s.wantOK {
			t.Errorf("%s: got %q, %v; want %q, %v", s.name, got, ok, s.want, s.wantOK)
		}
		if n := src.loads.Load(); n != s.wantLoads {
			t.Errorf("%s: %d loads, want %d", s.name, n, s.wantLoads)
		}
	}
	// A cache that never loaded has nothing to fall back on.
	fresh := processing.NewIndexSetCache(src, ttl, func() time.Time { return now })
	if p, err := fresh.DefaultPrefix(ctx); err == nil {
		t.Errorf("DefaultPrefix of a failing source = %q, want an error", p)
	}
	if p, ok := fresh.Prefix(ctx, def); ok {
		t.Errorf("Prefix of a failing source = %q, want none", p)
	}
}
