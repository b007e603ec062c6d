package lookup

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/bson/primitive"

	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/backend/system/metrics"
	"github.com/loggate/loggate/router/api"
)

// Indexes make names unique within each kind.
var Indexes = []store.Index{
	{Collection: TablesCollection, Field: "name"},
	{Collection: CachesCollection, Field: "name"},
	{Collection: AdaptersCollection, Field: "name"},
}

// Options are a Service's optional dependencies.
type Options struct {
	Now    func() time.Time
	Logger *slog.Logger
	// Client makes the HTTP adapters' requests; default: 30 s timeout.
	Client *http.Client
	// RefreshInterval bounds how long another node's change takes to
	// apply here (a second by default).
	RefreshInterval time.Duration
	// URLPermitted, when set, is asked for every URL the HTTP adapters
	// would call, redirects included, and for their configured URLs when
	// they are stored: Graylog's URL whitelist, without which any user
	// allowed to create an adapter could make the server fetch internal
	// addresses and read the answers.
	URLPermitted func(ctx context.Context, url string) (bool, error)
	// Metrics receives the caches' and adapters' metrics under Graylog's
	// names; none are reported when nil. Its clock must be Now, which
	// times the adapters' requests.
	Metrics *metrics.Registry
}

// Service stores lookup tables, caches and data adapters and keeps them
// running on this node.
type Service struct {
	st    store.Store
	opts  Options
	fresh *store.Freshness
	// writes tracks the writes to the writable adapters: another node's
	// write drops this node's cached results of those adapters within a
	// second.
	writes *store.Freshness

	reloadMu sync.Mutex
	cur      atomic.Pointer[state]
}

// state is what runs on this node, rebuilt on every change.
type state struct {
	tables   map[string]*liveTable // by name
	adapters map[string]*liveAdapter
	caches   map[string]*liveCache
	// The stored definitions, for the listings.
	tableList   []Table
	adapterList []Component
	cacheList   []Component
}

type liveAdapter struct {
	c      Component
	impl   adapter
	config string // the stored config, to reuse the adapter while it is unchanged
	err    atomic.Pointer[string]
	// requests times the adapter's lookups (Graylog's requests timer) on
	// the registry's clock, now.
	requests *metrics.Timer
	now      func() time.Time
}

type liveCache struct {
	c      Component
	impl   cache
	config string
	m      cacheMeters
}

type liveTable struct {
	t       Table
	adapter *liveAdapter
	cache   *liveCache
	def     defaults
}

// NewService returns the service and starts what is stored.
func NewService(ctx context.Context, st store.Store, opts Options) (*Service, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Client == nil {
		opts.Client = &http.Client{Timeout: 30 * time.Second}
	}
	if opts.RefreshInterval <= 0 {
		opts.RefreshInterval = time.Second
	}
	if opts.Metrics == nil {
		opts.Metrics = metrics.New(time.Now) // counted, never reported
	}
	s := &Service{st: st, opts: opts, fresh: store.NewFreshness(st, changes, opts.RefreshInterval, opts.Now),
		writes: store.NewFreshness(st, writesCounter, opts.RefreshInterval, opts.Now)}
	s.cur.Store(&state{})
	return s, s.Reload(ctx)
}

func (s *Service) snapshot() *state { return s.cur.Load() }

// Refresh reloads when another node changed tables, caches or adapters,
// and drops the cached results of the writable adapters when another node
// wrote to one; it asks the store at most once per RefreshInterval.
func (s *Service) Refresh(ctx context.Context) error {
	if err := s.writes.Refresh(ctx, s.purgeWritten); err != nil {
		return err
	}
	return s.fresh.Refresh(ctx, s.Reload)
}

// writesCounter is the change counter every write to a writable adapter
// bumps.
const writesCounter = "lut_writes"

// purgeWritten drops every cached result of a writable adapter.
func (s *Service) purgeWritten(ctx context.Context) error {
	return s.writes.Load(ctx, func(context.Context) error {
		for _, t := range s.snapshot().tables {
			if t.adapter == nil || t.cache == nil {
				continue
			}
			if _, ok := t.adapter.impl.(writer); ok {
				t.cache.impl.purgeAll()
			}
		}
		return nil
	})
}

func decode[T any](b []byte) (T, error) {
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		return v, fmt.Errorf("stored lookup definition: %w", err)
	}
	return v, nil
}

// Reload reads every definition and builds what runs, keeping the running
// adapters and caches whose definition did not change (a loaded file, the
// cached results).
func (s *Service) Reload(ctx context.Context) error {
	s.reloadMu.Lock()
	defer s.reloadMu.Unlock()
	return s.fresh.Load(ctx, s.load)
}

// load reads every definition and builds what runs; s.reloadMu is held.
func (s *Service) load(ctx context.Context) error {
	tables, err := store.All(ctx, s.st, TablesCollection, decode[Table])
	if err != nil {
		return fmt.Errorf("load lookup tables: %w", err)
	}
	adapters, err := store.All(ctx, s.st, AdaptersCollection, decode[Component])
	if err != nil {
		return fmt.Errorf("load data adapters: %w", err)
	}
	caches, err := store.All(ctx, s.st, CachesCollection, decode[Component])
	if err != nil {
		return fmt.Errorf("load lookup caches: %w", err)
	}
	old := s.snapshot()
	next := &state{tables: map[string]*liveTable{}, adapters: map[string]*liveAdapter{}, caches: map[string]*liveCache{},
		tableList: tables, adapterList: adapters, cacheList: caches}
	adapterByID, cacheByID := map[string]*liveAdapter{}, map[string]*liveCache{}
	for _, c := range adapters {
		a := s.liveAdapter(old, c)
		if a == nil {
			continue
		}
		next.adapters[c.Name], adapterByID[c.ID] = a, a
	}
	for _, c := range caches {
		lc := s.liveCache(old, c)
		if lc == nil {
			continue
		}
		next.caches[c.Name], cacheByID[c.ID] = lc, lc
	}
	for _, t := range tables {
		def, verr := t.parseDefaults()
		if verr != nil {
			s.opts.Logger.Warn("lookup table has bad default values; they are left out", "table", t.Name, "err", verr)
		}
		next.tables[t.Name] = &liveTable{t: t, adapter: adapterByID[t.DataAdapterID], cache: cacheByID[t.CacheID], def: def}
	}
	s.cur.Store(next)
	dropMetrics(s.opts.Metrics, next)
	return nil
}

func (s *Service) liveAdapter(old *state, c Component) *liveAdapter {
	if prev, ok := old.adapters[c.Name]; ok && prev.c.ID == c.ID && prev.config == string(c.Config) {
		// The running adapter goes on under the new definition; the old
		// state, which lookups may still read, is left as it is.
		next := &liveAdapter{c: c, impl: prev.impl, config: prev.config, requests: prev.requests, now: prev.now}
		next.err.Store(prev.err.Load())
		return next
	}
	k, cfg, err := decodeConfig(c.Config, adapterKinds, "data adapter")
	if err != nil {
		s.opts.Logger.Warn("data adapter does not start", "adapter", c.Name, "err", err)
		return nil
	}
	e := env{id: c.ID, now: s.opts.Now, client: s.opts.Client, st: s.st, permitted: s.opts.URLPermitted}
	return &liveAdapter{c: c, impl: k.adapter(cfg, e), config: string(c.Config),
		requests: s.opts.Metrics.Timer(adapterMetrics + c.ID + ".requests"), now: s.opts.Now}
}

func (s *Service) liveCache(old *state, c Component) *liveCache {
	if prev, ok := old.caches[c.Name]; ok && prev.c.ID == c.ID && prev.config == string(c.Config) {
		return &liveCache{c: c, impl: prev.impl, config: prev.config, m: prev.m}
	}
	k, cfg, err := decodeConfig(c.Config, cacheKinds, "cache")
	if err != nil {
		s.opts.Logger.Warn("lookup cache does not start", "cache", c.Name, "err", err)
		return nil
	}
	lc := &liveCache{c: c, impl: k.cache(cfg, env{id: c.ID, now: s.opts.Now}), config: string(c.Config)}
	lc.m = newCacheMeters(s.opts.Metrics, lc)
	return lc
}

// ErrNoTable is the error of a lookup in a table that does not exist.
var ErrNoTable = errors.New("lookup table not found")

// table finds a running table, seeing other nodes' changes within the
// refresh interval.
func (s *Service) table(ctx context.Context, name string) (*liveTable, error) {
	if err := s.Refresh(ctx); err != nil {
		s.opts.Logger.Warn("checking lookup tables for changes failed", "err", err)
	}
	if t, ok := s.snapshot().tables[name]; ok {
		return t, nil
	}
	return nil, fmt.Errorf("%w: <%s>", ErrNoTable, name)
}

// Exists reports whether a lookup table has that name. A name this node
// does not know is looked for in the store, as another node may have just
// created it: a rule or an extractor saved right after its table is not
// refused. (Lookups do not read the store for a missing table: one per
// message would be too many.)
func (s *Service) Exists(ctx context.Context, name string) bool {
	if _, err := s.table(ctx, name); err == nil {
		return true
	}
	if err := s.Reload(ctx); err != nil {
		s.opts.Logger.Warn("reloading the lookup tables failed", "err", err)
	}
	_, ok := s.snapshot().tables[name]
	return ok
}

// Lookup looks key up in the named table: through its cache, from its
// adapter, with the table's defaults when nothing is found.
func (s *Service) Lookup(ctx context.Context, table string, key any) (Result, error) {
	t, err := s.table(ctx, table)
	if err != nil {
		return Result{}, err
	}
	return t.lookup(ctx, key), nil
}

func (t *liveTable) lookup(ctx context.Context, key any) Result {
	if t.adapter == nil || key == nil {
		return t.def.apply(empty())
	}
	k := Key(key)
	load := func() (Result, error) { return t.adapter.get(ctx, k) }
	var r Result
	var err error
	if t.cache != nil {
		r, err = t.cache.get(t.adapter.c.ID+"\x00"+k, load)
	} else {
		r, err = load()
	}
	if err != nil {
		r = failed()
	}
	if r.Empty() {
		return t.def.apply(r)
	}
	return r
}

// get asks the adapter, recording a failure as its error state.
func (a *liveAdapter) get(ctx context.Context, key string) (Result, error) {
	start := a.now()
	r, err := a.impl.get(ctx, key)
	a.requests.UpdateSince(start)
	if err != nil {
		msg := err.Error()
		a.err.Store(&msg)
		return failed(), err
	}
	if _, loads := a.impl.(failing); !loads {
		a.err.Store(nil)
	}
	return r, nil
}

// failure is the adapter's error state: its last load's or lookup's
// failure.
func (a *liveAdapter) failure() *string {
	if f, ok := a.impl.(failing); ok {
		if msg := f.failure(); msg != "" {
			return &msg
		}
	}
	return a.err.Load()
}

// AdapterLookup asks a data adapter directly, without cache or defaults.
func (s *Service) AdapterLookup(ctx context.Context, name, key string) (Result, bool) {
	a, ok := s.snapshot().adapters[name]
	if !ok {
		return Result{}, false
	}
	r, _ := a.get(ctx, key)
	return r, true
}

// Purge drops a key, or everything, from a table's cache on this node.
func (s *Service) Purge(ctx context.Context, idOrName, key string) error {
	t, err := s.findTable(ctx, idOrName)
	if err != nil {
		return err
	}
	lt, ok := s.snapshot().tables[t.Name]
	if !ok || lt.cache == nil {
		return api.Errorf(api.NotFound, "Lookup table <%s> not found", idOrName)
	}
	if key == "" {
		lt.cache.impl.purgeAll()
		return nil
	}
	if lt.adapter != nil {
		lt.cache.impl.purge(lt.adapter.c.ID + "\x00" + key)
	}
	return nil
}

// ErrorStates answers /system/lookup/errorstates for the named tables,
// caches and adapters this node runs.
func (s *Service) ErrorStates(tables, caches, adapters []string) map[string]map[string]*string {
	st := s.snapshot()
	out := map[string]map[string]*string{"tables": {}, "caches": {}, "data_adapters": {}}
	for _, n := range tables {
		t, ok := st.tables[n]
		if !ok {
			continue
		}
		var msg *string
		switch {
		case t.adapter == nil:
			msg = ptr(fmt.Sprintf("The data adapter %s of the lookup table does not run", t.t.DataAdapterID))
		case t.cache == nil:
			msg = ptr(fmt.Sprintf("The cache %s of the lookup table does not run", t.t.CacheID))
		default:
			msg = t.adapter.failure()
		}
		out["tables"][n] = msg
	}
	for _, n := range caches {
		if _, ok := st.caches[n]; ok {
			out["caches"][n] = nil
		}
	}
	for _, n := range adapters {
		if a, ok := st.adapters[n]; ok {
			out["data_adapters"][n] = a.failure()
		}
	}
	return out
}

func ptr(s string) *string { return &s }

// ErrNotWritable is the error of a write to a table whose adapter keeps
// no writes.
var ErrNotWritable = errors.New("the data adapter of the lookup table is not writable")

// writeTo runs a write on a table's adapter and drops the key from the
// caches of this node's tables on that adapter.
func (s *Service) writeTo(ctx context.Context, table string, key any, fn func(w writer, k string) error) error {
	t, err := s.table(ctx, table)
	if err != nil {
		return err
	}
	if t.adapter == nil {
		return fmt.Errorf("%w: <%s> has no running data adapter", ErrNotWritable, table)
	}
	w, ok := t.adapter.impl.(writer)
	if !ok {
		return fmt.Errorf("%w: <%s> uses a %s adapter", ErrNotWritable, table, t.adapter.c.Type())
	}
	k := Key(key)
	if err := fn(w, k); err != nil {
		return err
	}
	s.writes.Changed(ctx)
	for _, other := range s.snapshot().tables {
		if other.adapter == t.adapter && other.cache != nil {
			other.cache.impl.purge(t.adapter.c.ID + "\x00" + k)
		}
	}
	return nil
}

// SetValue sets a key's value and returns it as stored.
func (s *Service) SetValue(ctx context.Context, table string, key, value any) (any, error) {
	v := Key(value)
	err := s.writeTo(ctx, table, key, func(w writer, k string) error { return w.setValue(ctx, k, v) })
	if err != nil {
		return nil, err
	}
	return v, nil
}

// ClearKey removes a key.
func (s *Service) ClearKey(ctx context.Context, table string, key any) error {
	return s.writeTo(ctx, table, key, func(w writer, k string) error { return w.clearKey(ctx, k) })
}

// SetStringList sets a key's string list.
func (s *Service) SetStringList(ctx context.Context, table string, key any, values []string) ([]string, error) {
	err := s.writeTo(ctx, table, key, func(w writer, k string) error { return w.setList(ctx, k, values) })
	if err != nil {
		return nil, err
	}
	return values, nil
}

// AddStringList appends values to a key's string list, leaving out those
// it holds unless keepDuplicates, and returns the new list.
func (s *Service) AddStringList(ctx context.Context, table string, key any, values []string, keepDuplicates bool) ([]string, error) {
	return s.updateList(ctx, table, key, func(cur []string) []string {
		out := slices.Clone(cur)
		for _, v := range values {
			if keepDuplicates || !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
		return out
	})
}

// RemoveStringList removes values from a key's string list and returns
// the new list.
func (s *Service) RemoveStringList(ctx context.Context, table string, key any, values []string) ([]string, error) {
	return s.updateList(ctx, table, key, func(cur []string) []string {
		return slices.DeleteFunc(slices.Clone(cur), func(v string) bool { return slices.Contains(values, v) })
	})
}

func (s *Service) updateList(ctx context.Context, table string, key any, fn func([]string) []string) ([]string, error) {
	var out []string
	err := s.writeTo(ctx, table, key, func(w writer, k string) error {
		var err error
		out, err = w.update(ctx, k, fn)
		return err
	})
	return out, err
}

// changed records a write: other nodes reload, this one at once.
func (s *Service) changed(ctx context.Context) {
	s.fresh.Changed(ctx)
	if err := s.Reload(ctx); err != nil {
		s.opts.Logger.Warn("reloading the lookup tables failed", "err", err)
	}
}

// newID returns a MongoDB ObjectId, as Graylog's ids are.
func newID() string { return primitive.NewObjectID().Hex() }

// find reads a definition by id or, when the text is no ObjectId, by name,
// as Graylog's services do; notFound is the 404.
func find[T any](ctx context.Context, st store.Store, coll, idOrName string, notFound error) (T, error) {
	var b []byte
	var err error
	if _, perr := primitive.ObjectIDFromHex(idOrName); perr == nil {
		b, err = st.Get(ctx, coll, idOrName)
	} else {
		_, b, err = st.FindUnique(ctx, coll, "name", idOrName)
	}
	if errors.Is(err, store.ErrNotFound) {
		var zero T
		return zero, notFound
	}
	if err != nil {
		var zero T
		return zero, err
	}
	return decode[T](b)
}

// notFound is Graylog's bare NotFoundException.
var notFound = &api.Error{Code: api.NotFound, Message: "HTTP 404 Not Found", Err: store.ErrNotFound}

func (s *Service) findTable(ctx context.Context, idOrName string) (Table, error) {
	return find[Table](ctx, s.st, TablesCollection, idOrName,
		&api.Error{Code: api.NotFound, Message: "Lookup table <" + idOrName + "> not found", Err: store.ErrNotFound})
}

// Table returns a stored table by id or name.
func (s *Service) Table(ctx context.Context, idOrName string) (Table, error) {
	return find[Table](ctx, s.st, TablesCollection, idOrName, notFound)
}

// Tables are the stored lookup tables.
func (s *Service) Tables() []Table { return s.snapshot().tableList }

// Caches are the stored caches.
func (s *Service) Caches() []Component { return s.snapshot().cacheList }

// Adapters are the stored data adapters.
func (s *Service) Adapters() []Component { return s.snapshot().adapterList }

// nameTaken is the answer to a name another definition has.
func nameTaken(what, name string) error {
	return api.Errorf(api.Invalid, "The %s name <%s> is already in use.", what, name)
}

// save writes a definition: insert when new, replace otherwise.
func (s *Service) save(ctx context.Context, coll, what, id, name string, v any, isNew bool) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if isNew {
		err = s.st.Insert(ctx, coll, id, b)
	} else {
		err = s.st.Update(ctx, coll, id, func([]byte) ([]byte, error) { return b, nil })
	}
	switch {
	case errors.Is(err, store.ErrConflict):
		return nameTaken(what, name)
	case errors.Is(err, store.ErrNotFound):
		return notFound
	case err != nil:
		return err
	}
	s.changed(ctx)
	return nil
}

// required answers empty required fields as bean validation does.
func required(fields ...[2]string) error {
	var v api.ValidationError
	for _, f := range fields {
		if strings.TrimSpace(f[1]) == "" {
			v.Add(f[0], "must not be empty")
		}
	}
	return v.Err()
}
