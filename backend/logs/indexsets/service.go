package indexsets

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tidwall/gjson"
	"go.mongodb.org/mongo-driver/bson/primitive"

	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/router/api"
)

// Streams is what index sets need of streams: an index set that streams
// still write to cannot be deleted.
type Streams interface {
	// UsingIndexSet returns the titles of the streams assigned to the index
	// set, none when no stream is.
	UsingIndexSet(ctx context.Context, indexSetID string) ([]string, error)
}

// Stats is what index sets need of the message index: the size of an index
// set's indices, for the stats endpoints.
type Stats interface {
	// IndexSetStats returns the number of indices (open and closed), of
	// documents and their size in bytes of one index set.
	IndexSetStats(ctx context.Context, indexSetID string) (indices, documents, size int64, err error)
}

// Service stores index sets and knows the default one.
type Service struct {
	st      store.Store
	statsMu sync.Mutex
	stats   Stats
	now     func() time.Time
	// streams is set after construction when streams are built after index
	// sets (they validate their index_set_id through this service).
	streams atomic.Pointer[Streams]
	// mu serialises the writes whose checks read other index sets (prefix
	// conflicts, the default) with those that could invalidate them.
	mu sync.Mutex
	// onChange, when set, is called after every change of an index set.
	onChange atomic.Pointer[func()]
}

// OnChange sets fn to be called after every change of an index set or of
// the default: caches of them (processing's prefixes) reload at once, so
// that a stream of an index set created a moment ago is routed to it.
func (s *Service) OnChange(fn func()) { s.onChange.Store(&fn) }

func (s *Service) changed() {
	if fn := s.onChange.Load(); fn != nil {
		(*fn)()
	}
}

// NewService returns the index set service and creates, on the first start,
// the index sets Graylog 4.0 creates (seed.go). streams may be nil and set
// later with SetStreams; a nil stats means no message is stored yet, so every
// index set's stats are zero.
func NewService(ctx context.Context, st store.Store, streams Streams, stats Stats, now func() time.Time) (*Service, error) {
	s := &Service{st: st, stats: stats, now: now}
	if streams != nil {
		s.SetStreams(streams)
	}
	if err := s.seed(ctx); err != nil {
		return nil, fmt.Errorf("index sets: %w", err)
	}
	return s, nil
}

// SetStats sets where index set stats come from, the message store opened
// after the service; until then the stats are zeros.
func (s *Service) SetStats(stats Stats) {
	s.statsMu.Lock()
	s.stats = stats
	s.statsMu.Unlock()
}

// SetStreams sets the streams consulted before an index set is deleted. Until
// it is called (or with nil), no stream is taken to use any index set.
func (s *Service) SetStreams(streams Streams) {
	if streams == nil {
		s.streams.Store(nil)
		return
	}
	s.streams.Store(&streams)
}

// canonicalID returns the stored form of an id: Graylog's ids are MongoDB
// ObjectIds, and a malformed one names no index set.
func canonicalID(id string) (string, error) {
	oid, err := primitive.ObjectIDFromHex(id)
	if err != nil {
		return "", fmt.Errorf("index set %q: %w", id, store.ErrNotFound)
	}
	return oid.Hex(), nil
}

// Get returns an index set by id; an unknown or malformed id wraps
// store.ErrNotFound.
func (s *Service) Get(ctx context.Context, id string) (IndexSet, error) {
	cid, err := canonicalID(id)
	if err != nil {
		return IndexSet{}, err
	}
	doc, err := s.st.Get(ctx, Collection, cid)
	if err != nil {
		return IndexSet{}, fmt.Errorf("index set %s: %w", id, err)
	}
	return decode(doc)
}

// All returns every index set sorted by title (byte order, as MongoDB sorts
// Graylog's), ties by id.
func (s *Service) All(ctx context.Context) ([]IndexSet, error) {
	var out []IndexSet
	err := s.st.List(ctx, Collection, func(_ string, doc []byte) error {
		is, err := decode(doc)
		out = append(out, is)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("listing index sets: %w", err)
	}
	slices.SortStableFunc(out, func(a, b IndexSet) int {
		return cmp.Or(strings.Compare(a.Title, b.Title), strings.Compare(a.ID, b.ID))
	})
	return out, nil
}

// Count returns the number of index sets.
func (s *Service) Count(ctx context.Context) (int, error) {
	n, err := s.st.Count(ctx, Collection)
	if err != nil {
		return 0, fmt.Errorf("counting index sets: %w", err)
	}
	return n, nil
}

// Writable reports whether messages may be written to the index set; an
// unknown or malformed id wraps store.ErrNotFound.
func (s *Service) Writable(ctx context.Context, id string) (bool, error) {
	cid, err := canonicalID(id)
	if err != nil {
		return false, err
	}
	doc, err := s.st.Get(ctx, Collection, cid)
	if err != nil {
		return false, fmt.Errorf("index set %s: %w", id, err)
	}
	// One field of a document this package wrote: no need to decode it all.
	return gjson.GetBytes(doc, "writable").Bool(), nil
}

// defaultDoc is Graylog's DefaultIndexSetConfig.
type defaultDoc struct {
	ID string `json:"default_index_set_id"`
}

const defaultKey = "default"

// errNoDefault is a broken installation, never the client's doing: it must
// not read as a 404 of the index set asked for.
var errNoDefault = errors.New("no default index set is configured")

// DefaultID returns the id of the default index set, where streams without
// one of their own and the default stream write.
func (s *Service) DefaultID(ctx context.Context) (string, error) {
	doc, err := s.st.Get(ctx, ConfigCollection, defaultKey)
	if errors.Is(err, store.ErrNotFound) {
		return "", errNoDefault
	}
	if err != nil {
		return "", fmt.Errorf("reading the default index set: %w", err)
	}
	var d defaultDoc
	if err := json.Unmarshal(doc, &d); err != nil || d.ID == "" {
		return "", fmt.Errorf("stored default index set %q: %w", doc, errors.Join(err, errNoDefault))
	}
	return d.ID, nil
}

// Create stores a new index set built by CreateRequest.IndexSet, after
// IndexSetValidator's prefix check: the prefix must not be, or start with,
// or be the start of, another index set's prefix, so that no index set's
// wildcard (prefix_*) covers another's indices.
func (s *Service) Create(ctx context.Context, is IndexSet) (IndexSet, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	all, err := s.All(ctx)
	if err != nil {
		return IndexSet{}, err
	}
	if msg := prefixConflict(is.IndexPrefix, all); msg != "" {
		return IndexSet{}, api.Invalidf("index_prefix", "%s", msg)
	}
	is.ID = primitive.NewObjectID().Hex()
	if err := s.insert(ctx, is); err != nil {
		return IndexSet{}, err
	}
	s.changed()
	return is, nil
}

func (s *Service) insert(ctx context.Context, is IndexSet) error {
	doc, err := api.Marshal(is)
	if err != nil {
		return fmt.Errorf("encoding index set: %w", err)
	}
	err = s.st.Insert(ctx, Collection, is.ID, doc)
	if errors.Is(err, store.ErrConflict) {
		// Another node took the prefix since the check.
		return api.Invalidf("index_prefix", "Index prefix %q would conflict with an existing index set!", is.IndexPrefix)
	}
	if err != nil {
		return fmt.Errorf("storing index set %s: %w", is.IndexPrefix, err)
	}
	return nil
}

// prefixConflict returns IndexSetValidator's violation for a new prefix, or
// "". Graylog first asks whether the new set's first index (prefix_0) would
// be one of an existing set's indices (<prefix>_<digits>), which holds
// exactly when the prefixes are equal; then whether either prefix is the
// start of the other, which would let one set's wildcard (prefix*) reach the
// other's indices.
func prefixConflict(prefix string, existing []IndexSet) string {
	for _, o := range existing {
		if o.IndexPrefix == prefix {
			return fmt.Sprintf("Index prefix %q would conflict with an existing index set!", prefix)
		}
	}
	for _, o := range existing {
		if strings.HasPrefix(prefix, o.IndexPrefix) || strings.HasPrefix(o.IndexPrefix, prefix) {
			return fmt.Sprintf("Index prefix %q would conflict with existing index set prefix %q", prefix, o.IndexPrefix)
		}
	}
	return ""
}

// Update stores is, changed by UpdateRequest.Apply from the stored index
// set. The default index set must stay writable (409, as Graylog).
func (s *Service) Update(ctx context.Context, is IndexSet) (IndexSet, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	def, err := s.DefaultID(ctx)
	if err != nil {
		return IndexSet{}, err
	}
	if is.ID == def && !is.Writable {
		return IndexSet{}, api.Errorf(api.Conflict, "Default index set must be writable.")
	}
	doc, err := api.Marshal(is)
	if err != nil {
		return IndexSet{}, fmt.Errorf("encoding index set: %w", err)
	}
	// Update, not Put: an index set deleted meanwhile stays deleted.
	err = s.st.Update(ctx, Collection, is.ID, func(old []byte) ([]byte, error) {
		var prev IndexSet
		if err := json.Unmarshal(old, &prev); err != nil {
			return nil, fmt.Errorf("stored index set %s: %w", is.ID, err)
		}
		if prev.IndexPrefix != is.IndexPrefix {
			return nil, api.Errorf(api.Invalid, "The index prefix of an index set cannot be changed")
		}
		return doc, nil
	})
	if err != nil {
		return IndexSet{}, fmt.Errorf("index set %s: %w", is.ID, err)
	}
	s.changed()
	return is, nil
}

// SetDefault makes an index set the default. Only a writable one can be
// (409, as Graylog).
func (s *Service) SetDefault(ctx context.Context, id string) (IndexSet, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	is, err := s.Get(ctx, id)
	if err != nil {
		return IndexSet{}, err
	}
	if !is.Writable {
		return IndexSet{}, api.Errorf(api.Conflict, "Default index set must be writable.")
	}
	if err := s.putDefault(ctx, is.ID); err != nil {
		return IndexSet{}, err
	}
	s.changed()
	return is, nil
}

func (s *Service) putDefault(ctx context.Context, id string) error {
	doc, _ := api.Marshal(defaultDoc{ID: id}) // a struct of a string always marshals
	if err := s.st.Put(ctx, ConfigCollection, defaultKey, doc); err != nil {
		return fmt.Errorf("storing the default index set: %w", err)
	}
	return nil
}

// IndexDeleter is implemented by a Stats that can delete the indices of an
// index set, as Graylog's IndexSetCleanupJob does.
type IndexDeleter interface {
	// DeleteIndices deletes every message of the series of prefix: all
	// its indices, its write index emptied.
	DeleteIndices(ctx context.Context, prefix string) error
}

// Delete removes an index set, and with indices its indices and messages
// (Graylog's delete_indices). The default index set cannot be deleted
// (400, as Graylog), nor one that streams still use (409: loggate never
// leaves a stream pointing at nothing, where Graylog answers 404).
func (s *Service) Delete(ctx context.Context, id string, indices bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	is, err := s.Get(ctx, id)
	if err != nil {
		return err
	}
	def, err := s.DefaultID(ctx)
	if err != nil {
		return err
	}
	if is.ID == def {
		return api.Errorf(api.Invalid, "Default index set <%s> cannot be deleted!", is.ID)
	}
	if streams := s.streams.Load(); streams != nil {
		using, err := (*streams).UsingIndexSet(ctx, is.ID)
		if err != nil {
			return fmt.Errorf("finding the streams of index set %s: %w", is.ID, err)
		}
		if len(using) > 0 {
			return api.Errorf(api.Conflict, "Index set <%s> is still assigned to streams: %s. Assign them to another index set first.", is.ID, strings.Join(using, ", "))
		}
	}
	if err := s.st.Delete(ctx, Collection, is.ID); err != nil {
		return fmt.Errorf("index set %s: %w", id, err)
	}
	s.changed()
	if !indices {
		return nil
	}
	s.statsMu.Lock()
	d, ok := s.stats.(IndexDeleter)
	s.statsMu.Unlock()
	if !ok {
		return nil // no message is stored yet
	}
	if err := d.DeleteIndices(ctx, is.IndexPrefix); err != nil {
		return fmt.Errorf("index set %s is deleted, but not all of its indices (prefix %s): %w", is.ID, is.IndexPrefix, err)
	}
	return nil
}

// Stats returns the stats of one index set; an unknown or malformed id wraps
// store.ErrNotFound.
func (s *Service) Stats(ctx context.Context, id string) (IndexSetStats, error) {
	is, err := s.Get(ctx, id)
	if err != nil {
		return IndexSetStats{}, err
	}
	return s.statsOf(ctx, is.ID)
}

func (s *Service) statsOf(ctx context.Context, id string) (IndexSetStats, error) {
	s.statsMu.Lock()
	stats := s.stats
	s.statsMu.Unlock()
	if stats == nil {
		return IndexSetStats{}, nil
	}
	indices, docs, size, err := stats.IndexSetStats(ctx, id)
	if err != nil {
		return IndexSetStats{}, fmt.Errorf("stats of index set %s: %w", id, err)
	}
	return IndexSetStats{Indices: indices, Documents: docs, Size: size}, nil
}

// TotalStats returns the stats of all index sets together.
func (s *Service) TotalStats(ctx context.Context) (IndexSetStats, error) {
	all, err := s.All(ctx)
	if err != nil {
		return IndexSetStats{}, err
	}
	var total IndexSetStats
	for _, is := range all {
		st, err := s.statsOf(ctx, is.ID)
		if err != nil {
			return IndexSetStats{}, err
		}
		total = total.plus(st)
	}
	return total, nil
}

func decode(doc []byte) (IndexSet, error) {
	var is IndexSet
	if err := json.Unmarshal(doc, &is); err != nil {
		return IndexSet{}, fmt.Errorf("stored index set: %w", err)
	}
	return is, nil
}
