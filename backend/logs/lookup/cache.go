package lookup

import (
	"strings"
	"sync/atomic"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/loggate/loggate/router/api"
)

// noCacheConfig is the "none" cache's settings: none.
type noCacheConfig struct {
	Type string `json:"type"`
}

func (c *noCacheConfig) check(*api.ValidationError) {}

// noCache asks the adapter every time.
type noCache struct{}

func (noCache) get(_ string, load func() (Result, error)) (Result, bool, error) {
	r, err := load()
	return r, false, err
}
func (noCache) purge(string) {}
func (noCache) purgeAll()    {}
func (noCache) len() int     { return 0 }

// lruConfig is the "guava_cache" settings (Graylog 4.0 runs it on
// Caffeine): at most max_size entries, each dropped a while after it was
// last read or after it was written; 0 is never.
type lruConfig struct {
	Type            string  `json:"type"`
	MaxSize         int     `json:"max_size"`
	AfterAccess     int64   `json:"expire_after_access"`
	AfterAccessUnit *string `json:"expire_after_access_unit"`
	AfterWrite      int64   `json:"expire_after_write"`
	AfterWriteUnit  *string `json:"expire_after_write_unit"`
}

func newLRUConfig() *lruConfig {
	seconds := "SECONDS"
	return &lruConfig{Type: "guava_cache", MaxSize: 1000, AfterAccess: 60, AfterAccessUnit: &seconds}
}

func (c *lruConfig) check(v *api.ValidationError) {
	if c.MaxSize < 1 {
		v.Add("max_size", "The maximum size must be at least 1.")
	}
	for _, f := range []struct {
		field string
		n     int64
		unit  *string
	}{{"expire_after_access", c.AfterAccess, c.AfterAccessUnit}, {"expire_after_write", c.AfterWrite, c.AfterWriteUnit}} {
		if f.n < 0 {
			v.Add(f.field, "The duration must be 0 (never) or more.")
		}
		if f.n > 0 {
			if f.unit == nil {
				v.Add(f.field+"_unit", "A unit is required: NANOSECONDS, MICROSECONDS, MILLISECONDS, SECONDS, MINUTES, HOURS or DAYS.")
			} else if _, ok := durationUnit(*f.unit); !ok {
				v.Add(f.field+"_unit", "Unknown unit %q: use NANOSECONDS, MICROSECONDS, MILLISECONDS, SECONDS, MINUTES, HOURS or DAYS.", strings.ToUpper(*f.unit))
			}
		}
	}
}

func (c *lruConfig) durations() (access, write time.Duration) {
	if c.AfterAccess > 0 && c.AfterAccessUnit != nil {
		u, _ := durationUnit(*c.AfterAccessUnit)
		access = time.Duration(c.AfterAccess) * u
	}
	if c.AfterWrite > 0 && c.AfterWriteUnit != nil {
		u, _ := durationUnit(*c.AfterWriteUnit)
		write = time.Duration(c.AfterWrite) * u
	}
	return access, write
}

// lruCache is the node-local in-memory cache: hashicorp's LRU keeps the
// entries and evicts the least recently used past max_size; each entry
// carries when it was written and last read, checked against the
// configured expiries on the node's clock when it is read.
type lruCache struct {
	entries       *lru.Cache[string, *cached]
	access, write time.Duration
	now           func() time.Time
}

type cached struct {
	r       Result
	written time.Time
	read    atomic.Int64 // unix nanoseconds
}

func newLRUCache(cfg config, e env) cache {
	c := cfg.(*lruConfig)
	entries, _ := lru.New[string, *cached](max(c.MaxSize, 1))
	access, write := c.durations()
	return &lruCache{entries: entries, access: access, write: write, now: e.now}
}

func (c *lruCache) get(key string, load func() (Result, error)) (Result, bool, error) {
	now := c.now()
	if e, ok := c.entries.Get(key); ok {
		if (c.write <= 0 || now.Sub(e.written) < c.write) && (c.access <= 0 || now.UnixNano()-e.read.Load() < int64(c.access)) {
			e.read.Store(now.UnixNano())
			return e.r, true, nil
		}
		c.entries.Remove(key)
	}
	r, err := load()
	if err != nil || r.HasError {
		// Failures are not kept: the next lookup tries again.
		return r, false, err
	}
	e := &cached{r: r, written: now}
	e.read.Store(now.UnixNano())
	c.entries.Add(key, e)
	return r, false, nil
}

func (c *lruCache) purge(key string) { c.entries.Remove(key) }
func (c *lruCache) purgeAll()        { c.entries.Purge() }
func (c *lruCache) len() int         { return c.entries.Len() }
