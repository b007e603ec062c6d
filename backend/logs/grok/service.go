// Package grok owns grok patterns: their storage, the default set installed
// on first start, validation and compilation, and the
// /system/grok resource of Graylog 4.0.
package grok

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/bson/primitive"

	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/router/api"
)

// Collection is the store collection of grok patterns (Graylog's name).
const Collection = "grok_patterns"

// Indexes are the unique indexes grok patterns need: names are unique.
var Indexes = []store.Index{{Collection: Collection, Field: "name"}}

// Service stores grok patterns and compiles patterns against them. Writes go
// to the store first and are then published as a new in-memory snapshot, so
// that readers never see a pattern the store does not hold.
type Service struct {
	st  store.Store
	now func() time.Time

	write sync.Mutex // serializes writers: validate, store, publish
	// snap is read for every message a grok rule or extractor matches:
	// an atomic load, no lock shared between cores.
	snap atomic.Pointer[snapshot]
	// fresh tells when another node of the cluster changed patterns.
	fresh *store.Freshness
}

// NewService loads the stored patterns, installing the default set first
// when this store has never had it.
func NewService(ctx context.Context, st store.Store, now func() time.Time) (*Service, error) {
	s := &Service{st: st, now: now, fresh: store.NewFreshness(st, Collection, time.Second, now)}
	if err := s.seed(ctx); err != nil {
		return nil, err
	}
	if err := s.Reload(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// Reload replaces the in-memory patterns with the stored ones, for when
// another node changed them.
func (s *Service) Reload(ctx context.Context) error {
	s.write.Lock()
	defer s.write.Unlock()
	return s.reload(ctx)
}

func (s *Service) reload(ctx context.Context) error {
	if err := s.fresh.Load(ctx, s.load); err != nil {
		return fmt.Errorf("grok: loading patterns: %w", err)
	}
	return nil
}

func (s *Service) load(ctx context.Context) error {
	var ps []Pattern
	err := s.st.List(ctx, Collection, func(id string, doc []byte) error {
		var p Pattern
		if err := json.Unmarshal(doc, &p); err != nil {
			return fmt.Errorf("pattern %s: %w", id, err)
		}
		p.ID = id
		ps = append(ps, p)
		return nil
	})
	if err != nil {
		return err
	}
	s.publish(ps)
	return nil
}

// Refresh reloads the patterns when another node sharing the store changed
// them, asking the store at most once a second.
func (s *Service) Refresh(ctx context.Context) error {
	return s.fresh.Refresh(ctx, s.Reload)
}

// published publishes this node's write and records it for the others.
func (s *Service) published(ctx context.Context, ps []Pattern) {
	s.publish(ps)
	s.fresh.Changed(ctx)
}

func (s *Service) current() *snapshot { return s.snap.Load() }

// Generation changes whenever the patterns in memory change (a write of
// this node, or a reload after another node's): matchers compiled with
// Compile before it changed may be out of date.
func (s *Service) Generation() uint64 { return s.current().gen }

// publish makes ps the current patterns. Callers hold s.write.
func (s *Service) publish(ps []Pattern) {
	s.snap.Store(newSnapshot(ps, s.current()))
}

func (s *Service) insert(ctx context.Context, p Pattern) error {
	doc, err := api.Marshal(p)
	if err != nil {
		return fmt.Errorf("grok: %w", err)
	}
	return s.st.Insert(ctx, Collection, p.ID, doc)
}

// All returns every pattern, sorted by name.
func (s *Service) All() []Pattern {
	snap := s.current()
	out := make([]Pattern, len(snap.sorted))
	copy(out, snap.sorted)
	return out
}

// Count returns the number of stored patterns.
func (s *Service) Count(ctx context.Context) (int, error) {
	n, err := s.st.Count(ctx, Collection)
	if err != nil {
		return 0, fmt.Errorf("grok: counting patterns: %w", err)
	}
	return n, nil
}

// Get returns a pattern by id, or a 404 in Graylog's words.
func (s *Service) Get(id string) (Pattern, error) {
	p, ok := s.current().byIDOf(id)
	if !ok {
		return Pattern{}, notFound(id)
	}
	return p, nil
}

func notFound(id string) error {
	return api.Errorf(api.NotFound, "Couldn't find Grok pattern with ID %s", id)
}

func alreadyExists(name string) error {
	return api.Invalidf("_", "Grok pattern %s already exists", name)
}

// invalid words a failed validation as Graylog's ValidationException does,
// under the field "_".
func invalid(name string, err error) string {
	if name == "" {
		return "Invalid pattern: " + err.Error()
	}
	return "Invalid pattern " + name + ": " + err.Error()
}

// check validates p as it would be stored: a usable name, a pattern that
// reads, and one that compiles as %{name} against defs, which hold p. It
// returns the compiled %{name}.
func check(p Pattern, d *definition, defs definitions) (*Matcher, error) {
	if err := checkName(p.Name); err != nil {
		return nil, err
	}
	if p.Pattern == "" {
		return nil, errors.New("the pattern must not be empty")
	}
	if d.err != nil {
		return nil, d.err
	}
	if err := checkSyntax(p.Pattern); err != nil {
		return nil, err
	}
	return compile(defs, "%{"+p.Name+"}", false)
}

// Create validates and stores a new pattern with a new id. A taken name is
// a validation error, as in Graylog.
func (s *Service) Create(ctx context.Context, p Pattern) (Pattern, error) {
	s.write.Lock()
	defer s.write.Unlock()
	snap := s.current()
	d := newDefinition(p.Pattern)
	if _, err := check(p, d, overlay{top: library{p.Name: d}, base: snap.lib}); err != nil {
		return Pattern{}, api.Invalidf("_", "%s", invalid(p.Name, err))
	}
	if snap.nameTaken(p.Name, "") {
		return Pattern{}, alreadyExists(p.Name)
	}
	p.ID = primitive.NewObjectID().Hex()
	if err := s.insert(ctx, p); err != nil {
		if errors.Is(err, store.ErrConflict) {
			return Pattern{}, alreadyExists(p.Name) // taken on another node meanwhile
		}
		return Pattern{}, fmt.Errorf("grok: saving pattern %s: %w", p.Name, err)
	}
	s.published(ctx, snap.with(p))
	return p, nil
}

// Update replaces the name and pattern of the pattern with id; the content
// pack is cleared, as Graylog's update does. An unknown id is a validation
// error, as in Graylog. Patterns using this one are not checked again,
// as in Graylog.
func (s *Service) Update(ctx context.Context, id string, p Pattern) (Pattern, error) {
	s.write.Lock()
	defer s.write.Unlock()
	snap := s.current()
	p.ID, p.ContentPack = id, nil
	old, exists := snap.byIDOf(id)
	d := newDefinition(p.Pattern)
	// A renamed pattern no longer answers to its old name.
	defs := overlay{top: library{p.Name: d}, base: snap.lib}
	if exists && old.Name != p.Name {
		defs.hide = old.Name
	}
	if _, err := check(p, d, defs); err != nil {
		return Pattern{}, api.Invalidf("_", "%s", invalid(p.Name, err))
	}
	if !exists {
		return Pattern{}, api.Invalidf("_", "Invalid pattern %s: there is no Grok pattern with ID %s", p.Name, id)
	}
	if snap.nameTaken(p.Name, id) {
		return Pattern{}, alreadyExists(p.Name)
	}
	doc, err := api.Marshal(p)
	if err != nil {
		return Pattern{}, fmt.Errorf("grok: %w", err)
	}
	err = s.st.Update(ctx, Collection, id, func([]byte) ([]byte, error) { return doc, nil })
	switch {
	case errors.Is(err, store.ErrNotFound):
		return Pattern{}, api.Invalidf("_", "Invalid pattern %s: there is no Grok pattern with ID %s", p.Name, id)
	case errors.Is(err, store.ErrConflict):
		return Pattern{}, alreadyExists(p.Name)
	case err != nil:
		return Pattern{}, fmt.Errorf("grok: updating pattern %s: %w", id, err)
	}
	s.published(ctx, snap.with(p))
	return p, nil
}

// Delete removes a pattern. Patterns that use it are not checked, as in
// Graylog 4.0: they fail to compile until it is back.
func (s *Service) Delete(ctx context.Context, id string) error {
	s.write.Lock()
	defer s.write.Unlock()
	snap := s.current()
	if _, ok := snap.byIDOf(id); !ok {
		return notFound(id)
	}
	err := s.st.Delete(ctx, Collection, id)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("grok: deleting pattern %s: %w", id, err)
	}
	s.published(ctx, snap.without(id))
	if err != nil {
		return notFound(id) // deleted on another node meanwhile
	}
	return nil
}
