package views

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/loggate/loggate/backend/logs/indexsets"
	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/logs/streams"
)

// FieldStore is the part of the message store field types read.
type FieldStore interface {
	Search(ctx context.Context, q messages.Query) (messages.Result, error)
	Indices(ctx context.Context, prefix string) ([]messages.Index, error)
}

// StreamSource gives the current streams; *streams.Service satisfies it.
type StreamSource interface {
	All() []*streams.Stream
}

// IndexSetSource lists index sets; *indexsets.Service satisfies it.
type IndexSetSource interface {
	All(ctx context.Context) ([]indexsets.IndexSet, error)
}

// Field type names loggate derives from values. Graylog maps them from the
// Elasticsearch mappings; these are the types its FieldTypeMapper answers
// for the mappings Graylog's index template gives such values.
const (
	typeString   = "string"
	typeFullText = "string_fts" // message and full_message: analyzed text
	typeLong     = "long"
	typeDouble   = "double"
	typeBoolean  = "boolean"
	typeDate     = "date"
)

// sampleSize is how many of an index set's newest messages are read for
// their fields when the node has seen none written since it started.
const sampleSize = 1000

// Fields knows the names and types of the fields of stored messages, per
// index set (index prefix): from every message written through Recording,
// and, for an index set this node has seen nothing written to since it
// started, from a sample of its newest messages.
type Fields struct {
	store   FieldStore
	streams StreamSource
	sets    IndexSetSource

	mu      sync.RWMutex
	seen    map[string]map[string]string // prefix → field → type
	sampled map[string]bool
}

// NewFields returns the field types over store.
func NewFields(store FieldStore, ss StreamSource, sets IndexSetSource) *Fields {
	return &Fields{store: store, streams: ss, sets: sets, seen: map[string]map[string]string{}, sampled: map[string]bool{}}
}

// valueType is the type of one field value.
func valueType(key string, v any) string {
	switch v.(type) {
	case int64:
		return typeLong
	case float64:
		return typeDouble
	case bool:
		return typeBoolean
	}
	if key == messages.FieldMessage || key == messages.FieldFull {
		return typeFullText
	}
	return typeString
}

// merge is the type of a field seen with both types: numbers widen to
// double, anything else mixed is a string, as Elasticsearch's dynamic
// mapping keeps the first type and Graylog's keyword fields take any text.
func merge(a, b string) string {
	switch {
	case a == b || a == "":
		return b
	case (a == typeLong || a == typeDouble) && (b == typeLong || b == typeDouble):
		return typeDouble
	}
	return typeString
}

// observedPerBatch is how many messages of a batch Observe looks at: all
// of a small batch, an even spread of a large one. Large batches come when
// ingestion is busy, where looking at every field of every message would
// cost a noticeable share of the processor's time; a field common enough to
// matter is met in a spread soon enough.
const observedPerBatch = 64

// Observe records the fields of msgs written to the index set of prefix.
// Called for every batch the processor stores, it takes the write lock
// only when a field is new or changes type.
func (f *Fields) Observe(prefix string, msgs []messages.Message) {
	if len(msgs) > observedPerBatch {
		step := len(msgs) / observedPerBatch
		spread := make([]messages.Message, 0, observedPerBatch)
		for i := 0; i < len(msgs) && len(spread) < observedPerBatch; i += step {
			spread = append(spread, msgs[i])
		}
		msgs = spread
	}
	f.mu.RLock()
	known := f.seen[prefix]
	fresh := false
	for i := range msgs {
		for _, fl := range msgs[i].Fields {
			if t, ok := known[fl.Key]; !ok || merge(t, valueType(fl.Key, fl.Value)) != t {
				fresh = true
				break
			}
		}
		if fresh {
			break
		}
	}
	f.mu.RUnlock()
	if !fresh {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record(prefix, msgs)
}

// record adds the fields of msgs; f.mu is held for writing.
func (f *Fields) record(prefix string, msgs []messages.Message) {
	known := f.seen[prefix]
	if known == nil {
		known = map[string]string{messages.FieldTimestamp: typeDate, messages.FieldStreams: typeString}
		f.seen[prefix] = known
	}
	for i := range msgs {
		for _, fl := range msgs[i].Fields {
			known[fl.Key] = merge(known[fl.Key], valueType(fl.Key, fl.Value))
		}
	}
}

// sample reads the newest messages of an index set the node has not seen
// written to, once.
func (f *Fields) sample(ctx context.Context, prefix string) error {
	f.mu.RLock()
	done := f.sampled[prefix]
	f.mu.RUnlock()
	if done {
		return nil
	}
	res, err := f.store.Search(ctx, messages.Query{Prefixes: []string{prefix}, Limit: sampleSize})
	if err != nil {
		return fmt.Errorf("sample the fields of %s: %w", prefix, err)
	}
	msgs := make([]messages.Message, len(res.Hits))
	for i, h := range res.Hits {
		msgs[i] = h.Message
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(msgs) > 0 {
		f.record(prefix, msgs)
	}
	f.sampled[prefix] = true
	return nil
}

// FieldType is Graylog's MappedFieldTypeDTO.
type FieldType struct {
	Name string       `json:"name"`
	Type fieldTypeDTO `json:"type"`
}

type fieldTypeDTO struct {
	Type       string   `json:"type"`
	Properties []string `json:"properties"`
	IndexNames []string `json:"index_names"`
}

// properties are FieldTypeMapper's properties of each type.
var properties = map[string][]string{
	typeString:   {"enumerable"},
	typeFullText: {"full-text-search"},
	typeLong:     {"numeric", "enumerable"},
	typeDouble:   {"numeric", "enumerable"},
	typeBoolean:  {"enumerable"},
	typeDate:     {"enumerable"},
}

// Types returns the fields of the messages of the given streams, sorted by
// name. A field whose type differs between index sets is a compound one,
// as Graylog names it: compound(long,string).
func (f *Fields) Types(ctx context.Context, streamIDs []string) ([]FieldType, error) {
	sets, err := f.sets.All(ctx)
	if err != nil {
		return nil, fmt.Errorf("field types: list index sets: %w", err)
	}
	prefixOf := make(map[string]string, len(sets))
	for _, is := range sets {
		prefixOf[is.ID] = is.IndexPrefix
	}
	var prefixes []string
	for _, st := range f.streams.All() {
		if p, ok := prefixOf[st.IndexSetID]; ok && slices.Contains(streamIDs, st.ID) && !slices.Contains(prefixes, p) {
			prefixes = append(prefixes, p)
		}
	}
	slices.Sort(prefixes)
	types := map[string][]string{} // field → its types, one per index set
	indices := map[string][]string{}
	for _, p := range prefixes {
		if err := f.sample(ctx, p); err != nil {
			return nil, err
		}
		list, err := f.store.Indices(ctx, p)
		if err != nil {
			return nil, fmt.Errorf("field types: indices of %s: %w", p, err)
		}
		names := make([]string, len(list))
		for i, ix := range list {
			names[i] = ix.Name
		}
		f.mu.RLock()
		for name, t := range f.seen[p] {
			if !slices.Contains(types[name], t) {
				types[name] = append(types[name], t)
			}
			indices[name] = append(indices[name], names...)
		}
		f.mu.RUnlock()
	}
	out := make([]FieldType, 0, len(types))
	for _, name := range slices.Sorted(maps.Keys(types)) {
		out = append(out, FieldType{Name: name, Type: dto(types[name], indices[name])})
	}
	return out, nil
}

// dto is the field type of a field seen with ts.
func dto(ts, indexNames []string) fieldTypeDTO {
	if len(ts) == 1 {
		name := ts[0]
		if name == typeFullText {
			name = typeString
		}
		return fieldTypeDTO{Type: name, Properties: properties[ts[0]], IndexNames: indexNames}
	}
	// The properties every type has, and compound.
	names := make([]string, len(ts))
	props := properties[ts[0]]
	for i, t := range ts {
		names[i] = strings.TrimSuffix(t, "_fts")
		props = slices.DeleteFunc(slices.Clone(props), func(p string) bool { return !slices.Contains(properties[t], p) })
	}
	slices.Sort(names)
	names = slices.Compact(names)
	return fieldTypeDTO{Type: "compound(" + strings.Join(names, ",") + ")", Properties: append(props, "compound"), IndexNames: indexNames}
}

// Recording returns st writing through which records the fields of what is
// written.
func (f *Fields) Recording(st messages.Store) messages.Store {
	return recordingStore{Store: st, fields: f}
}

type recordingStore struct {
	messages.Store
	fields *Fields
}

// Seal seals the wrapped store's writes when it can (processing.Sealer),
// and answers errors.ErrUnsupported otherwise.
func (r recordingStore) Seal(ctx context.Context, checkpoint uint64) (func(context.Context) error, error) {
	s, ok := r.Store.(interface {
		Seal(context.Context, uint64) (func(context.Context) error, error)
	})
	if !ok {
		return nil, errors.ErrUnsupported
	}
	return s.Seal(ctx, checkpoint)
}

func (r recordingStore) Write(ctx context.Context, prefix string, msgs []messages.Message) error {
	if err := r.Store.Write(ctx, prefix, msgs); err != nil {
		return err
	}
	r.fields.Observe(prefix, msgs)
	return nil
}
