package lookup

import (
	"strings"
	"time"

	"github.com/loggate/loggate/backend/system/metrics"
)

// The prefixes of Graylog's LookupCache and LookupDataAdapter metrics,
// followed by the component's id: the caches and data adapters pages show
// a cache's entries and hit rate and an adapter's request rate from them.
const (
	cacheMetrics   = "org.graylog2.lookup.caches."
	adapterMetrics = "org.graylog2.lookup.adapters."
)

// cacheMeters are a cache's lookups (requests), which it answered (hits)
// or asked its adapter for (misses), and their time; its entries are a
// gauge.
type cacheMeters struct {
	requests, hits, misses *metrics.Meter
	lookupTime             *metrics.Timer
	now                    func() time.Time // the registry's clock
}

func newCacheMeters(reg *metrics.Registry, now func() time.Time, c *liveCache) cacheMeters {
	prefix := cacheMetrics + c.c.ID + "."
	impl := c.impl
	reg.Gauge(prefix+"entries", func() any { return int64(impl.len()) })
	return cacheMeters{requests: reg.Meter(prefix + "requests"), hits: reg.Meter(prefix + "hits"),
		misses: reg.Meter(prefix + "misses"), lookupTime: reg.Timer(prefix + "lookupTime"), now: now}
}

// get looks key up through the cache, counting a hit or a miss.
func (c *liveCache) get(key string, load func() (Result, error)) (Result, error) {
	start := c.m.now()
	missed := false
	r, err := c.impl.get(key, func() (Result, error) {
		missed = true
		return load()
	})
	c.m.requests.Mark(1)
	if missed {
		c.m.misses.Mark(1)
	} else {
		c.m.hits.Mark(1)
	}
	c.m.lookupTime.UpdateSince(start)
	return r, err
}

// dropMetrics unregisters the metrics of caches and adapters next no
// longer runs, which /system/metrics would list for ever.
func dropMetrics(reg *metrics.Registry, next *state) {
	live := map[string]bool{}
	for _, c := range next.caches {
		live[cacheMetrics+c.c.ID] = true
	}
	for _, a := range next.adapters {
		live[adapterMetrics+a.c.ID] = true
	}
	reg.RemoveMatching(func(name string) bool {
		for _, prefix := range [...]string{cacheMetrics, adapterMetrics} {
			if rest, ok := strings.CutPrefix(name, prefix); ok {
				id, _, _ := strings.Cut(rest, ".")
				return !live[prefix+id]
			}
		}
		return false
	})
}
