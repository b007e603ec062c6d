package streams

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/bson/primitive"

	"github.com/loggate/loggate/backend/logs/outputs"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/router/api"
)

// IndexSets is what streams need of the index sets.
type IndexSets interface {
	// Writable reports whether an index set accepts messages. An unknown id
	// is an error wrapping store.ErrNotFound.
	Writable(ctx context.Context, id string) (bool, error)
	// DefaultID returns the id of the default index set, which the default
	// stream writes to.
	DefaultID(ctx context.Context) (string, error)
	// Builtin returns the ids of the "Graylog Events" and "Graylog System
	// Events" index sets, which the built-in event streams write to.
	Builtin(ctx context.Context) (events, systemEvents string, err error)
}

// Outputs is what streams need of the outputs.
type Outputs interface {
	// Get returns an output. An unknown id is an error wrapping
	// store.ErrNotFound.
	Get(ctx context.Context, id string) (outputs.Summary, error)
}

// Service stores streams and their rules. The store is the source of truth;
// the service keeps a snapshot of every stream, loaded at construction and
// replaced after every write, so that listings and the message pipeline
// never wait on the store.
type Service struct {
	st        store.Store
	indexSets IndexSets
	outputs   Outputs
	now       func() time.Time

	// mu serializes writes and reloads, so that snapshots follow the order
	// of the store's writes. Readers do not take it.
	mu   sync.Mutex
	snap atomic.Pointer[snapshot]

	// fresh tells when another node of the cluster changed streams.
	fresh *store.Freshness
}

// refreshInterval bounds how stale a node's snapshot can be after another
// node of the cluster changed streams.
const refreshInterval = time.Second

// NewService returns the stream service. It creates the built-in streams
// that are missing — on the first start all three — and loads the snapshot.
func NewService(ctx context.Context, st store.Store, indexSets IndexSets, outs Outputs, now func() time.Time) (*Service, error) {
	s := &Service{st: st, indexSets: indexSets, outputs: outs, now: now,
		fresh: store.NewFreshness(st, Collection, refreshInterval, now)}
	s.snap.Store(newSnapshot(nil))
	if err := s.seed(ctx); err != nil {
		return nil, fmt.Errorf("create the built-in streams: %w", err)
	}
	if err := s.Reload(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// Reload replaces the snapshot by what the store holds, for a node that
// learns that another one changed streams.
func (s *Service) Reload(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.fresh.Load(ctx, s.load); err != nil {
		return fmt.Errorf("load streams: %w", err)
	}
	return nil
}

// load reads every stream into a new snapshot; s.mu is held.
func (s *Service) load(ctx context.Context) error {
	var all []*Stream
	err := s.st.List(ctx, Collection, func(id string, doc []byte) error {
		st, err := decodeStream(doc)
		if err != nil {
			return fmt.Errorf("stream %s: %w", id, err)
		}
		st.ID = id
		st.derive()
		all = append(all, st)
		return nil
	})
	if err != nil {
		return err
	}
	s.snap.Store(newSnapshot(all))
	return nil
}

// Refresh reloads the snapshot when another node sharing the store changed
// streams, asking the store at most once per refreshInterval. Handlers call
// it first; so will the message pipeline.
func (s *Service) Refresh(ctx context.Context) error {
	return s.fresh.Refresh(ctx, s.Reload)
}

// changed records a write of this node. s.mu is held.
func (s *Service) changed(ctx context.Context) { s.fresh.Changed(ctx) }

// All returns every stream, paused ones included, ordered by title. The
// slice is the caller's; the streams are shared and must not be modified.
func (s *Service) All() []*Stream {
	return slices.Clone(s.snap.Load().byTitle)
}

// errNotFound is Graylog's answer for an unknown stream. It wraps
// store.ErrNotFound for callers in other packages.
func errNotFound(id string) error {
	return &api.Error{Code: api.NotFound, Message: fmt.Sprintf("Stream <%s> not found!", id), Err: store.ErrNotFound}
}

// normalID returns the canonical form of a stream id: 24 lower-case hex
// digits. Anything else names no stream.
func normalID(id string) (string, bool) {
	oid, err := primitive.ObjectIDFromHex(id)
	if err != nil {
		return "", false
	}
	return oid.Hex(), true
}

// Get returns a stream. An unknown or malformed id is a 404 wrapping
// store.ErrNotFound.
func (s *Service) Get(id string) (*Stream, error) {
	norm, ok := normalID(id)
	if !ok {
		return nil, errNotFound(id)
	}
	st, ok := s.snap.Load().get(norm)
	if !ok {
		return nil, errNotFound(id)
	}
	return st, nil
}

// publish derives st and puts it into the snapshot. s.mu is held.
func (s *Service) publish(st *Stream) {
	st.derive()
	s.snap.Store(s.snap.Load().with(st))
}

// unpublish drops a stream from the snapshot. s.mu is held.
func (s *Service) unpublish(id string) {
	s.snap.Store(s.snap.Load().without(id))
}

// insert stores a new stream and publishes a copy of it, so that the
// caller's later changes to st never reach the snapshot.
func (s *Service) insert(ctx context.Context, st *Stream) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	st.derive()
	doc, err := api.Marshal(st)
	if err != nil {
		return fmt.Errorf("encode stream: %w", err)
	}
	shared, err := decodeStream(doc)
	if err != nil {
		return err
	}
	if err := s.st.Insert(ctx, Collection, st.ID, doc); err != nil {
		return fmt.Errorf("store stream %s: %w", st.ID, err)
	}
	s.publish(shared)
	s.changed(ctx)
	return nil
}

// modify changes a stored stream with fn, atomically in the store, and
// publishes the result. fn works on a fresh copy of the stored document and
// may run more than once. An unknown stream is errNotFound.
func (s *Service) modify(ctx context.Context, id string, fn func(*Stream) error) (*Stream, error) {
	norm, ok := normalID(id)
	if !ok {
		return nil, errNotFound(id)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var out *Stream
	err := s.st.Update(ctx, Collection, norm, func(doc []byte) ([]byte, error) {
		st, err := decodeStream(doc)
		if err != nil {
			return nil, err
		}
		st.ID = norm
		if err := fn(st); err != nil {
			return nil, err
		}
		out = st
		return api.Marshal(st)
	})
	var answer *api.Error
	switch {
	case errors.As(err, &answer):
		return nil, err // fn refused the change
	case errors.Is(err, store.ErrNotFound):
		// Another node may have deleted it.
		s.unpublish(norm)
		return nil, errNotFound(id)
	case err != nil:
		return nil, fmt.Errorf("update stream %s: %w", norm, err)
	}
	s.publish(out)
	s.changed(ctx)
	return out, nil
}

// UpdateAlertConditions changes a stream's legacy alert conditions with
// fn, atomically, as modify changes the rest of it.
func (s *Service) UpdateAlertConditions(ctx context.Context, id string, fn func([]json.RawMessage) ([]json.RawMessage, error)) (*Stream, error) {
	return s.modify(ctx, id, func(st *Stream) error {
		conds, err := fn(slices.Clone(st.AlertConditions))
		if err != nil {
			return err
		}
		st.AlertConditions = conds
		return nil
	})
}

// remove deletes a stream with its rules.
func (s *Service) remove(ctx context.Context, id string) error {
	norm, ok := normalID(id)
	if !ok {
		return errNotFound(id)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	err := s.st.Delete(ctx, Collection, norm)
	if errors.Is(err, store.ErrNotFound) {
		s.unpublish(norm)
		return errNotFound(id)
	}
	if err != nil {
		return fmt.Errorf("delete stream %s: %w", norm, err)
	}
	s.unpublish(norm)
	s.changed(ctx)
	return nil
}

// newID returns a fresh ObjectId.
func newID() string { return primitive.NewObjectID().Hex() }
