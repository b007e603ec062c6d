// Package lastuse records when things (access tokens, sessions) were last
// used and writes those uses in batches, so that a busy token or session
// costs no store write per request.
package lastuse

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"sync"
	"time"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/loggate/loggate/backend/store"
)

// Write stores a use. It returns an error matching store.ErrNotFound when the
// thing is gone, which drops the use.
type Write func(ctx context.Context, id string, at time.Time) error

// Recorder keeps uses in memory until Flush writes them.
type Recorder struct {
	write    Write
	flushing sync.Mutex

	mu      sync.Mutex
	pending map[string]time.Time
	// writing holds what is left of the batch Flush is writing: still
	// visible to Last until stored, so nobody judges a session by the
	// older stored time meanwhile. Forget deletes from it, so Flush ranges
	// over a copy of its own.
	writing map[string]time.Time
}

// New returns a recorder that stores uses with write.
func New(write Write) *Recorder {
	return &Recorder{write: write, pending: map[string]time.Time{}}
}

// Touch records a use at at; earlier uses than one already recorded are
// ignored.
func (r *Recorder) Touch(id string, at time.Time) {
	r.mu.Lock()
	if at.After(r.pending[id]) {
		r.pending[id] = at
	}
	r.mu.Unlock()
}

// Last returns a recorded use not yet written.
func (r *Recorder) Last(id string) (time.Time, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	t, ok := r.pending[id]
	if w, inFlight := r.writing[id]; inFlight && (!ok || w.After(t)) {
		return w, true
	}
	return t, ok
}

// Forget drops the uses of a deleted thing.
func (r *Recorder) Forget(id string) {
	r.mu.Lock()
	delete(r.pending, id)
	delete(r.writing, id)
	r.mu.Unlock()
}

// Flush writes every recorded use. Uses that fail to be written stay for the
// next flush; the first error is returned.
func (r *Recorder) Flush(ctx context.Context) error {
	r.flushing.Lock() // one batch at a time: writing holds one batch
	defer r.flushing.Unlock()
	r.mu.Lock()
	batch := r.pending
	r.pending = make(map[string]time.Time, len(batch))
	r.writing = maps.Clone(batch)
	r.mu.Unlock()
	var first error
	for id, at := range batch {
		r.mu.Lock()
		_, live := r.writing[id]
		r.mu.Unlock()
		if !live {
			continue // forgotten since the batch was taken
		}
		err := r.write(ctx, id, at)
		switch {
		case err == nil, errors.Is(err, store.ErrNotFound):
		default:
			r.Touch(id, at)
			if first == nil {
				first = err
			}
		}
	}
	r.mu.Lock()
	r.writing = nil
	r.mu.Unlock()
	return first
}

// Run flushes every interval until ctx ends, then once more.
func (r *Recorder) Run(ctx context.Context, interval time.Duration, log *slog.Logger, what string) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			if err := r.Flush(context.WithoutCancel(ctx)); err != nil {
				log.Warn("writing last uses failed", "of", what, "err", err)
			}
			return
		case <-t.C:
			if err := r.Flush(ctx); err != nil {
				log.Warn("writing last uses failed", "of", what, "err", err)
			}
		}
	}
}

// StoreField returns a Write that sets a document's RFC 3339 time field
// (last_access) to the use, unless the stored time is already later.
func StoreField(st store.Store, coll, field string) Write {
	return func(ctx context.Context, id string, at time.Time) error {
		return st.Update(ctx, coll, id, func(doc []byte) ([]byte, error) {
			stored, err := time.Parse(time.RFC3339Nano, gjson.GetBytes(doc, field).String())
			if err == nil && !at.After(stored) {
				return doc, nil
			}
			return sjson.SetBytes(doc, field, at.UTC().Truncate(time.Millisecond).Format(time.RFC3339Nano))
		})
	}
}
