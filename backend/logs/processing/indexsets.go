package processing

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/loggate/loggate/backend/logs/indexsets"
)

// IndexSetSource lists index sets; *indexsets.Service satisfies it.
type IndexSetSource interface {
	All(ctx context.Context) ([]indexsets.IndexSet, error)
	DefaultID(ctx context.Context) (string, error)
}

// IndexSetCache answers prefix lookups for every message from memory,
// reloading from the source at most once per TTL, or at once when asked for
// an id it does not know (an index set created a moment ago).
type IndexSetCache struct {
	src IndexSetSource
	ttl time.Duration
	now func() time.Time

	mu       sync.Mutex
	loaded   time.Time
	prefixes map[string]string
	def      string
}

const unknownReload = 100 * time.Millisecond

var _ IndexSets = (*IndexSetCache)(nil)

var _ IndexSetSource = (*indexsets.Service)(nil)

// NewIndexSetCache returns a cache over src.
func NewIndexSetCache(src IndexSetSource, ttl time.Duration, now func() time.Time) *IndexSetCache {
	return &IndexSetCache{src: src, ttl: ttl, now: now}
}

// Prefix returns the index prefix of an index set.
func (c *IndexSetCache) Prefix(ctx context.Context, id string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.prefixes[id]
	age := c.now().Sub(c.loaded)
	// An unknown id reloads, but not for every message of a stream whose
	// index set is gone.
	if age >= c.ttl || (!ok && age >= unknownReload) {
		if c.reload(ctx) == nil {
			p, ok = c.prefixes[id]
		}
	}
	return p, ok
}

// DefaultPrefix returns the prefix of the default index set. When a reload
// fails it answers from what it loaded before, as Prefix does; it fails
// only when it never learnt the default index set's prefix.
func (c *IndexSetCache) DefaultPrefix(ctx context.Context) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.prefixes[c.def]
	age := c.now().Sub(c.loaded)
	// An unknown default (another index set was made the default between
	// the two reads of a reload) reloads as an unknown id does.
	if c.def == "" || age >= c.ttl || (!ok && age >= unknownReload) {
		if err := c.reload(ctx); err != nil && !ok {
			return "", err
		}
		p, ok = c.prefixes[c.def]
	}
	if !ok {
		return "", fmt.Errorf("processing: the default index set %s is not among the index sets", c.def)
	}
	return p, nil
}

// Invalidate makes the next lookup reload, after an index set changed.
func (c *IndexSetCache) Invalidate() {
	c.mu.Lock()
	c.loaded = time.Time{}
	c.mu.Unlock()
}

func (c *IndexSetCache) reload(ctx context.Context) error {
	all, err := c.src.All(ctx)
	if err != nil {
		return fmt.Errorf("processing: loading the index sets: %w", err)
	}
	def, err := c.src.DefaultID(ctx)
	if err != nil {
		return fmt.Errorf("processing: loading the default index set: %w", err)
	}
	m := make(map[string]string, len(all))
	for _, is := range all {
		m[is.ID] = is.IndexPrefix
	}
	c.prefixes, c.def, c.loaded = m, def, c.now()
	return nil
}
