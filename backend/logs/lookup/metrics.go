package lookup

import (
	"strings"

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
// or asked its adapter for (misses); its entries are a gauge. (Graylog's
// lookupTime timer, which no page reads, is left out: it would double the
// time of a hit.)
type cacheMeters struct {
	requests, hits, misses *metrics.Meter
}

func newCacheMeters(reg *metrics.Registry, c *liveCache) cacheMeters {
	prefix := cacheMetrics + c.c.ID + "."
	impl := c.impl
	reg.Gauge(prefix+"entries", func() any { return int64(impl.len()) })
	return cacheMeters{requests: reg.Meter(prefix + "requests"), hits: reg.Meter(prefix + "hits"), misses: reg.Meter(prefix + "misses")}
}

// get looks key up through the cache, counting a hit or a miss. The
// "none" cache counts nothing, as Graylog's NullCache only calls its loader.
func (c *liveCache) get(key string, load func() (Result, error)) (Result, error) {
	r, hit, err := c.impl.get(key, load)
	if _, none := c.impl.(noCache); none {
		return r, err
	}
	c.m.requests.Mark(1)
	if hit {
		c.m.hits.Mark(1)
	} else {
		c.m.misses.Mark(1)
	}
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
