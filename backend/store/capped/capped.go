// Package capped is a capped collection over the document store, as
// Graylog keeps its system messages and indexing failures in MongoDB capped
// collections: documents in the order they were added, the oldest dropped
// past a fixed number, read newest first.
package capped

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/loggate/loggate/backend/store"
)

// trimEvery is how many appends pass between two trims: a collection may
// hold a little over its size for a while, which is cheaper than counting
// on every append.
const trimEvery = 50

// Collection is one capped collection.
type Collection struct {
	st   store.Store
	name string
	keep int
	now  func() time.Time

	mu      sync.Mutex
	entropy *ulid.MonotonicEntropy
	added   int
}

// New returns the capped collection name of st keeping about keep
// documents.
func New(st store.Store, name string, keep int, now func() time.Time) *Collection {
	return &Collection{st: st, name: name, keep: keep, now: now, entropy: ulid.Monotonic(rand.Reader, 0)}
}

// Add stores doc after every document added before it (by this node; the
// ids of several nodes interleave by time).
func (c *Collection) Add(ctx context.Context, doc []byte) error {
	c.mu.Lock()
	id, err := ulid.New(ulid.Timestamp(c.now()), c.entropy)
	c.added++
	trim := c.added%trimEvery == 1
	c.mu.Unlock()
	if err != nil {
		return fmt.Errorf("%s: id: %w", c.name, err)
	}
	if err := c.st.Insert(ctx, c.name, id.String(), doc); err != nil {
		return fmt.Errorf("%s: %w", c.name, err)
	}
	if trim {
		return c.trim(ctx)
	}
	return nil
}

var errEnough = errors.New("enough")

// trim drops the oldest documents beyond keep.
func (c *Collection) trim(ctx context.Context) error {
	n, err := c.st.Count(ctx, c.name)
	if err != nil || n <= c.keep {
		return err
	}
	var old []string
	err = c.st.List(ctx, c.name, func(id string, _ []byte) error {
		if len(old) == n-c.keep {
			return errEnough
		}
		old = append(old, id)
		return nil
	})
	if err != nil && !errors.Is(err, errEnough) {
		return err
	}
	for _, id := range old {
		if err := c.st.Delete(ctx, c.name, id); err != nil && !errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("%s: drop the oldest: %w", c.name, err)
		}
	}
	return nil
}

// Newest returns up to limit documents, newest first, skipping the offset
// newest, and how many there are. keep bounds what is read.
func (c *Collection) Newest(ctx context.Context, offset, limit int) ([][]byte, int, error) {
	var all [][]byte
	err := c.st.List(ctx, c.name, func(_ string, doc []byte) error {
		all = append(all, doc)
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	slices.Reverse(all)
	if offset < 0 || limit < 0 || offset >= len(all) {
		return nil, len(all), nil
	}
	return all[offset:min(offset+min(limit, len(all)), len(all))], len(all), nil
}
