package extractors

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"go.mongodb.org/mongo-driver/bson/primitive"

	"github.com/loggate/loggate/backend/logs/inputs"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/backend/system/metrics"
	"github.com/loggate/loggate/router/api"
)

// changes is the change counter the service bumps on every write, so that
// every node reloads its extractors and static fields within a second.
const changes = "input_extractors"

// Recorder keeps system messages (/system/messages); *systemmessages.Service
// satisfies it.
type Recorder interface {
	Record(ctx context.Context, caller, format string, args ...any) error
}

// Options are a Service's optional dependencies.
type Options struct {
	Metrics  *metrics.Registry
	Messages Recorder
	Logger   *slog.Logger
	Now      func() time.Time
	// Lookup are the lookup tables of the lookup_table extractors and
	// converters.
	Lookup LookupTables
	// RefreshInterval bounds how long another node's change takes to
	// apply here (a second by default).
	RefreshInterval time.Duration
}

// Service stores extractors and static fields in the input documents and
// keeps them compiled in memory for processing.
type Service struct {
	st    store.Store
	grok  Grok
	opts  Options
	fresh *store.Freshness

	reloadMu sync.Mutex
	cur      atomic.Pointer[map[string]*inputFilters]
	// grokGen is the generation of the grok patterns cur was compiled
	// against (when the Grok tells one).
	grokGen atomic.Uint64
	// metrics are kept by extractor id across reloads.
	metricsMu sync.Mutex
	metrics   map[string]*extractorMetrics
}

// NewService returns the service and loads what is stored.
func NewService(ctx context.Context, st store.Store, g Grok, opts Options) (*Service, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Metrics == nil {
		opts.Metrics = metrics.New(opts.Now)
	}
	if opts.RefreshInterval <= 0 {
		opts.RefreshInterval = time.Second
	}
	s := &Service{st: st, grok: g, opts: opts, metrics: map[string]*extractorMetrics{},
		fresh: store.NewFreshness(st, changes, opts.RefreshInterval, opts.Now)}
	empty := map[string]*inputFilters{}
	s.cur.Store(&empty)
	return s, s.Reload(ctx)
}

// Filter returns the input filters of the Message Filter Chain.
func (s *Service) Filter() *Filter { return &Filter{s: s, log: s.opts.Logger} }

func (s *Service) snapshot() map[string]*inputFilters { return *s.cur.Load() }

// Refresh reloads when another node changed extractors or static fields,
// or when the grok patterns the extractors were compiled against changed
// (on any node); it asks the store at most once per RefreshInterval.
func (s *Service) Refresh(ctx context.Context) error {
	var gerr error
	if g, ok := s.grok.(followedGrok); ok {
		// Another node's pattern changes first, so that extractors it
		// saved with them compile here.
		gerr = g.Refresh(ctx)
		if g.Generation() != s.grokGen.Load() {
			return errors.Join(gerr, s.Reload(ctx))
		}
	}
	return errors.Join(gerr, s.fresh.Refresh(ctx, s.Reload))
}

// followedGrok is a Grok whose patterns change (*grok.Service): grok
// extractors are compiled again when its Generation moves.
type followedGrok interface {
	Refresh(ctx context.Context) error
	Generation() uint64
}

// doc is the part of an input document the service reads and writes.
type doc struct {
	ID           string            `json:"id"`
	Extractors   []Extractor       `json:"extractors"`
	StaticFields map[string]string `json:"static_fields"`
}

// Reload compiles every input's extractors and static fields anew. An
// extractor that no longer compiles (its grok pattern was deleted) is
// logged and left out.
func (s *Service) Reload(ctx context.Context) error {
	s.reloadMu.Lock()
	defer s.reloadMu.Unlock()
	return s.fresh.Load(ctx, s.compileAll)
}

// compileAll compiles what the inputs hold; s.reloadMu is held.
func (s *Service) compileAll(ctx context.Context) error {
	docs, err := store.All(ctx, s.st, inputs.Collection, decodeDoc)
	if err != nil {
		return fmt.Errorf("load extractors: %w", err)
	}
	g, followed := s.grok.(followedGrok)
	var gen uint64
	if followed {
		gen = g.Generation()
	}
	next := make(map[string]*inputFilters, len(docs))
	live := map[string]bool{}
	for _, d := range docs {
		f := &inputFilters{}
		for _, e := range sorted(d.Extractors) {
			live[metricsKey(e)] = true
			c, err := compile(e, s.deps(false), nil)
			if err != nil {
				s.opts.Logger.Warn("extractor does not compile; skipping it", "extractor", e.ID, "input", d.ID, "err", err)
				continue
			}
			c.m = s.metricsOf(e)
			f.extractors = append(f.extractors, c)
		}
		for _, k := range slices.Sorted(maps.Keys(d.StaticFields)) {
			f.static = append(f.static, kv{k, d.StaticFields[k]})
		}
		if len(f.extractors) > 0 || len(f.static) > 0 {
			next[d.ID] = f
		}
	}
	s.cur.Store(&next)
	s.dropMetrics(live)
	s.grokGen.Store(gen)
	return nil
}

// dropMetrics unregisters the metrics of extractors no longer stored (or
// of another type now), which /system/metrics would list for ever.
func (s *Service) dropMetrics(live map[string]bool) {
	s.metricsMu.Lock()
	defer s.metricsMu.Unlock()
	for key, m := range s.metrics {
		if !live[key] {
			delete(s.metrics, key)
			s.opts.Metrics.RemoveMatching(func(name string) bool { return strings.HasPrefix(name, m.prefix) })
		}
	}
}

func metricsKey(e Extractor) string { return e.Type + "/" + e.ID }

// deps are what extractors are built with; strict for a request.
func (s *Service) deps(strict bool) deps {
	return deps{grok: s.grok, tables: s.opts.Lookup, now: s.opts.Now, strict: strict}
}

// sorted returns the extractors in the order they run: ascending order,
// stored order among equals.
func sorted(list []Extractor) []Extractor {
	out := slices.Clone(list)
	slices.SortStableFunc(out, func(a, b Extractor) int { return cmp.Compare(a.Order, b.Order) })
	return out
}

func (s *Service) metricsOf(e Extractor) *extractorMetrics {
	s.metricsMu.Lock()
	defer s.metricsMu.Unlock()
	key := metricsKey(e)
	m, ok := s.metrics[key]
	if !ok {
		m = newMetrics(s.opts.Metrics, e)
		s.metrics[key] = m
	}
	return m
}

func decodeDoc(b []byte) (doc, error) {
	var d doc
	if err := json.Unmarshal(b, &d); err != nil {
		return doc{}, fmt.Errorf("stored input: %w", err)
	}
	return d, nil
}

// inputNotFound is Graylog's 404 for the input of an extractor request.
func inputNotFound(id string) error {
	if _, err := primitive.ObjectIDFromHex(id); err != nil {
		return &api.Error{Code: api.NotFound, Message: "Input id <" + id + "> is invalid!", Err: store.ErrNotFound}
	}
	return &api.Error{Code: api.NotFound, Message: "Input <" + id + "> not found!", Err: store.ErrNotFound}
}

// load reads an input's document; notFound builds the 404.
func (s *Service) load(ctx context.Context, inputID string, notFound func(string) error) (doc, error) {
	if _, err := primitive.ObjectIDFromHex(inputID); err != nil {
		return doc{}, notFound(inputID)
	}
	b, err := s.st.Get(ctx, inputs.Collection, inputID)
	if errors.Is(err, store.ErrNotFound) {
		return doc{}, notFound(inputID)
	}
	if err != nil {
		return doc{}, err
	}
	return decodeDoc(b)
}

// modify changes an input's document atomically in the store: fn edits
// the decoded part, every other property is kept as stored. fn may run
// more than once.
func (s *Service) modify(ctx context.Context, inputID string, notFound func(string) error, fn func(d *doc) error) error {
	if _, err := primitive.ObjectIDFromHex(inputID); err != nil {
		return notFound(inputID)
	}
	err := s.st.Update(ctx, inputs.Collection, inputID, func(b []byte) ([]byte, error) {
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(b, &raw); err != nil {
			return nil, fmt.Errorf("stored input: %w", err)
		}
		d, err := decodeDoc(b)
		if err != nil {
			return nil, err
		}
		if err := fn(&d); err != nil {
			return nil, err
		}
		if d.Extractors == nil {
			d.Extractors = []Extractor{}
		}
		if d.StaticFields == nil {
			d.StaticFields = map[string]string{}
		}
		if raw["extractors"], err = api.Marshal(d.Extractors); err != nil {
			return nil, err
		}
		if raw["static_fields"], err = api.Marshal(d.StaticFields); err != nil {
			return nil, err
		}
		return json.Marshal(raw)
	})
	var answer *api.Error
	if errors.Is(err, store.ErrNotFound) && !errors.As(err, &answer) {
		return notFound(inputID)
	}
	if err != nil {
		return err
	}
	s.fresh.Changed(ctx)
	// This node applies its own change at once.
	if err := s.Reload(ctx); err != nil {
		s.opts.Logger.Warn("reloading the extractors failed", "err", err)
	}
	return nil
}

// List returns an input's extractors in stored order.
func (s *Service) List(ctx context.Context, inputID string) ([]Extractor, error) {
	d, err := s.load(ctx, inputID, inputNotFound)
	if err != nil {
		return nil, err
	}
	if d.Extractors == nil {
		return []Extractor{}, nil
	}
	return d.Extractors, nil
}

func couldNotFindInput(id string) error {
	return &api.Error{Code: api.NotFound, Message: "Couldn't find input " + id, Err: store.ErrNotFound}
}

func couldNotFindExtractor(id string) error {
	return &api.Error{Code: api.NotFound, Message: "Couldn't find extractor " + id, Err: store.ErrNotFound}
}

// Get returns one extractor.
func (s *Service) Get(ctx context.Context, inputID, id string) (Extractor, error) {
	d, err := s.load(ctx, inputID, couldNotFindInput)
	if err != nil {
		return Extractor{}, err
	}
	i := slices.IndexFunc(d.Extractors, func(e Extractor) bool { return e.ID == id })
	if i < 0 {
		return Extractor{}, couldNotFindExtractor(id)
	}
	return d.Extractors[i], nil
}

// build validates a request and compiles what it describes, which also
// checks its configuration.
func (s *Service) build(req Request, id, creator string) (Extractor, error) {
	e, err := req.validate()
	if err != nil {
		return Extractor{}, err
	}
	e.ID, e.CreatorUserID = id, creator
	_, err = compile(e, s.deps(true), func(c Converter, err error) {
		s.opts.Logger.Warn("leaving out a converter with a bad configuration, as Graylog does", "converter", c.Type, "err", err)
	})
	if err != nil {
		return Extractor{}, err
	}
	// Graylog stores the converters it built, under their enum names in
	// lower case: one with a bad configuration is not saved.
	kept := make([]Converter, 0, len(e.Converters))
	for _, cv := range e.Converters {
		built, err := newConverter(cv.Type, cv.Config, s.deps(true))
		if err != nil {
			continue
		}
		kept = append(kept, Converter{Type: built.typ, Config: cv.Config})
	}
	e.Converters = kept
	return e, nil
}

// record writes a system message; losing it is logged, never fatal.
func (s *Service) record(ctx context.Context, caller, format string, args ...any) {
	if s.opts.Messages == nil {
		return
	}
	if err := s.opts.Messages.Record(ctx, caller, format, args...); err != nil && ctx.Err() == nil {
		s.opts.Logger.Warn("recording a system message failed", "err", err)
	}
}

const resource = "org.graylog2.rest.resources.system.inputs.ExtractorsResource"

// newID returns a time-based UUID, as Graylog's extractor ids are.
func newID() (string, error) {
	id, err := uuid.NewUUID()
	if err != nil {
		return "", fmt.Errorf("extractor id: %w", err)
	}
	return id.String(), nil
}

// Create stores a new extractor on an input.
func (s *Service) Create(ctx context.Context, inputID string, req Request, creator string) (Extractor, error) {
	if _, err := s.load(ctx, inputID, inputNotFound); err != nil {
		return Extractor{}, err
	}
	id, err := newID()
	if err != nil {
		return Extractor{}, err
	}
	e, err := s.build(req, id, creator)
	if err != nil {
		return Extractor{}, err
	}
	err = s.modify(ctx, inputID, inputNotFound, func(d *doc) error {
		d.Extractors = append(slices.Clip(d.Extractors), e)
		return nil
	})
	if err != nil {
		return Extractor{}, err
	}
	s.record(ctx, resource, "Added extractor %s of type [%s] to input %s.", e.ID, e.Type, inputID)
	return e, nil
}

// Update replaces an extractor's definition, keeping its id; the caller
// becomes its creator and a missing order is 0, as in Graylog.
func (s *Service) Update(ctx context.Context, inputID, id string, req Request, creator string) (Extractor, error) {
	if _, err := s.Get(ctx, inputID, id); err != nil {
		return Extractor{}, err
	}
	e, err := s.build(req, id, creator)
	if err != nil {
		return Extractor{}, err
	}
	err = s.modify(ctx, inputID, couldNotFindInput, func(d *doc) error {
		i := slices.IndexFunc(d.Extractors, func(x Extractor) bool { return x.ID == id })
		if i < 0 {
			return couldNotFindExtractor(id)
		}
		d.Extractors = slices.Clone(d.Extractors)
		d.Extractors[i] = e
		return nil
	})
	if err != nil {
		return Extractor{}, err
	}
	s.record(ctx, resource, "Updated extractor %s of type [%s] in input %s.", e.ID, e.Type, inputID)
	return e, nil
}

// Delete removes an extractor.
func (s *Service) Delete(ctx context.Context, inputID, id string) error {
	var gone Extractor
	err := s.modify(ctx, inputID, couldNotFindInput, func(d *doc) error {
		i := slices.IndexFunc(d.Extractors, func(x Extractor) bool { return x.ID == id })
		if i < 0 {
			return couldNotFindExtractor(id)
		}
		gone = d.Extractors[i]
		d.Extractors = slices.Delete(slices.Clone(d.Extractors), i, i+1)
		return nil
	})
	if err != nil {
		return err
	}
	s.record(ctx, resource, "Deleted extractor %s of type [%s] from input %s.", gone.ID, strings.ToUpper(gone.Type), inputID)
	return nil
}

// Reorder sets the order of the extractors named; ids not found are
// ignored, extractors not named keep their order.
func (s *Service) Reorder(ctx context.Context, inputID string, order map[int64]string) error {
	return s.modify(ctx, inputID, inputNotFound, func(d *doc) error {
		d.Extractors = slices.Clone(d.Extractors)
		// An id named at several positions takes the lowest, as Graylog's
		// Tools.getKeyByValue finds it first in its map of positions.
		for _, pos := range slices.Backward(slices.Sorted(maps.Keys(order))) {
			for i := range d.Extractors {
				if d.Extractors[i].ID == order[pos] {
					d.Extractors[i].Order = pos
				}
			}
		}
		return nil
	})
}

// Counts reports this node's live exception counts of an extractor.
func (s *Service) Counts(e Extractor) (exceptions, converterExceptions int64) {
	m := s.metricsOf(e)
	return m.exceptions.Load(), m.converterExceptions.Load()
}
