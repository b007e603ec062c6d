package lookup_test

import (
	"testing"

	"github.com/loggate/loggate/backend/logs/lookup"
	"github.com/loggate/loggate/backend/system/metrics"
	"github.com/loggate/loggate/internal/testclock"
)

// TestMetrics: a cache counts its lookups as Graylog's LookupCache does
// (requests, hits, misses, entries), an adapter times its requests, under
// Graylog's names; a deleted cache's and adapter's metrics go.
func TestMetrics(t *testing.T) {
	ctx := t.Context()
	f := newMetricsTable(t, `{"type":"guava_cache","max_size":10}`)
	svc, reg, kv, c, tbl := f.svc, f.reg, f.kv, f.cache, f.table
	if _, err := svc.SetValue(ctx, "seen", "k", "v"); err != nil {
		t.Fatal(err)
	}
	// "other" is found empty, which the cache keeps too, as Graylog's.
	for _, key := range []string{"k", "k", "k", "other"} {
		if _, err := svc.Lookup(ctx, "seen", key); err != nil {
			t.Fatal(err)
		}
	}
	cache, adapter := "org.graylog2.lookup.caches."+c.ID+".", "org.graylog2.lookup.adapters."+kv.ID+"."
	counts := map[string]int64{}
	for _, name := range []string{cache + "requests", cache + "hits", cache + "misses"} {
		counts[name] = reg.Meter(name).Count()
	}
	counts[adapter+"requests"] = reg.Timer(adapter + "requests").Count()
	want := map[string]int64{cache + "requests": 4, cache + "hits": 2, cache + "misses": 2, adapter + "requests": 2}
	for name, n := range want {
		if counts[name] != n {
			t.Errorf("%s = %d, want %d", name, counts[name], n)
		}
	}
	if b, ok := reg.MarshalMetric(cache + "entries"); !ok || string(b) != `{"value":2}` {
		t.Errorf("entries: %s, %v", b, ok)
	}

	allowed := func(string) error { return nil }
	if _, err := svc.DeleteTable(ctx, tbl.ID, allowed); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.DeleteComponent(ctx, lookup.Caches, c.ID, allowed); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.DeleteComponent(ctx, lookup.Adapters, kv.ID, allowed); err != nil {
		t.Fatal(err)
	}
	for _, name := range reg.Names() {
		if name == cache+"requests" || name == cache+"entries" || name == adapter+"requests" {
			t.Errorf("%s left after its component was deleted", name)
		}
	}
}

// A "none" cache counts nothing, as Graylog's NullCache, which only calls
// its loader: its page shows no hit rate rather than every lookup a miss.
func TestMetricsNoCache(t *testing.T) {
	ctx := t.Context()
	f := newMetricsTable(t, `{"type":"none"}`)
	svc, reg, kv, c := f.svc, f.reg, f.kv, f.cache
	for range 3 {
		if _, err := svc.Lookup(ctx, "seen", "k"); err != nil {
			t.Fatal(err)
		}
	}
	cache := "org.graylog2.lookup.caches." + c.ID + "."
	for _, name := range []string{cache + "requests", cache + "hits", cache + "misses"} {
		if n := reg.Meter(name).Count(); n != 0 {
			t.Errorf("%s = %d, want 0", name, n)
		}
	}
	if n := reg.Timer("org.graylog2.lookup.adapters." + kv.ID + ".requests").Count(); n != 3 {
		t.Errorf("adapter requests = %d, want 3", n)
	}
}

// metricsTable is a table "seen" over a key-value adapter and a cache of
// the configuration given, on a service reporting to reg.
type metricsTable struct {
	svc       *lookup.Service
	reg       *metrics.Registry
	kv, cache lookup.Component
	table     lookup.Table
}

func newMetricsTable(t *testing.T, cacheConfig string) metricsTable {
	t.Helper()
	ctx := t.Context()
	clock := testclock.New(epoch)
	f := metricsTable{reg: metrics.New(clock.Now)}
	var err error
	if f.svc, err = lookup.NewService(ctx, embedded(t), lookup.Options{Now: clock.Now, Metrics: f.reg}); err != nil {
		t.Fatal(err)
	}
	if f.kv, err = f.svc.CreateComponent(ctx, lookup.Adapters, component("KV", "kv", `{"type":"mongodb"}`)); err != nil {
		t.Fatal(err)
	}
	if f.cache, err = f.svc.CreateComponent(ctx, lookup.Caches, component("Cache", "c", cacheConfig)); err != nil {
		t.Fatal(err)
	}
	if f.table, err = f.svc.CreateTable(ctx, lookup.Table{Title: "Seen", Name: "seen", CacheID: f.cache.ID, DataAdapterID: f.kv.ID}); err != nil {
		t.Fatal(err)
	}
	return f
}
