package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"time"
)

// changesCollection holds one change counter per collection that services
// keep in memory, so that nodes sharing a store notice each other's writes.
const changesCollection = "changes"

type counter struct {
	N uint64 `json:"n"`
}

// Bump increments the change counter of coll and returns its new value.
func Bump(ctx context.Context, st Store, coll string) (uint64, error) {
	for {
		var n uint64
		err := st.Update(ctx, changesCollection, coll, func(doc []byte) ([]byte, error) {
			var c counter
			if err := json.Unmarshal(doc, &c); err != nil {
				return nil, fmt.Errorf("change counter of %s: %w", coll, err)
			}
			c.N++
			n = c.N
			return json.Marshal(c)
		})
		if !errors.Is(err, ErrNotFound) {
			return n, err
		}
		err = st.Insert(ctx, changesCollection, coll, []byte(`{"n":1}`))
		if !errors.Is(err, ErrConflict) {
			return 1, err
		}
		// Another writer created it meanwhile: count on top of theirs.
	}
}

// Version returns the change counter of coll: 0 before the first Bump.
func Version(ctx context.Context, st Store, coll string) (uint64, error) {
	doc, err := st.Get(ctx, changesCollection, coll)
	if errors.Is(err, ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	var c counter
	if err := json.Unmarshal(doc, &c); err != nil {
		return 0, fmt.Errorf("change counter of %s: %w", coll, err)
	}
	return c.N, nil
}

// Freshness tells a service that keeps a collection in memory when another
// node sharing the store wrote to it: the service calls Loaded after
// (re)loading, Changed after each of its own writes, and Stale before
// serving, which asks the store at most once per interval.
type Freshness struct {
	st       Store
	coll     string
	now      func() time.Time
	interval time.Duration

	seen    atomic.Uint64 // the change counter the memory reflects
	checked atomic.Int64  // when Stale last asked, unix nanoseconds
}

// NewFreshness tracks coll in st.
func NewFreshness(st Store, coll string, interval time.Duration, now func() time.Time) *Freshness {
	return &Freshness{st: st, coll: coll, now: now, interval: interval}
}

// Version reads the counter; call it before loading the collection and pass
// the result to Loaded, so that a write during the load is not missed.
func (f *Freshness) Version(ctx context.Context) (uint64, error) { return Version(ctx, f.st, f.coll) }

// Loaded records that memory reflects the collection at version.
func (f *Freshness) Loaded(version uint64) {
	f.seen.Store(version)
	f.checked.Store(f.now().UnixNano())
}

// Changed records one of this node's writes. Memory (already updated by
// the caller) stays current unless another node wrote since, in which case
// the next Stale says so.
func (f *Freshness) Changed(ctx context.Context) {
	if n, err := Bump(ctx, f.st, f.coll); err == nil {
		f.seen.CompareAndSwap(n-1, n)
	}
}

// Stale reports whether another node wrote since memory was loaded; it
// asks the store at most once per interval and says false in between.
func (f *Freshness) Stale(ctx context.Context) (bool, error) {
	now := f.now().UnixNano()
	if now-f.checked.Load() < int64(f.interval) {
		return false, nil
	}
	f.checked.Store(now)
	v, err := Version(ctx, f.st, f.coll)
	if err != nil {
		return false, fmt.Errorf("check %s for changes: %w", f.coll, err)
	}
	return v != f.seen.Load(), nil
}

// Load runs load, which reads the collection into memory, between reading
// the counter and recording it loaded: a write during the load makes the
// next Stale say so rather than be missed. Nothing is recorded when load
// fails.
func (f *Freshness) Load(ctx context.Context, load func(context.Context) error) error {
	version, err := f.Version(ctx)
	if err != nil {
		return err
	}
	if err := load(ctx); err != nil {
		return err
	}
	f.Loaded(version)
	return nil
}

// Refresh calls reload when another node wrote since memory was loaded (see
// Stale): what a cached service's Refresh does.
func (f *Freshness) Refresh(ctx context.Context, reload func(context.Context) error) error {
	stale, err := f.Stale(ctx)
	if err != nil || !stale {
		return err
	}
	return reload(ctx)
}
