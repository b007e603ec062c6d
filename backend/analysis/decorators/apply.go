package decorators

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/router/api"
)

// SetRuntime gives the decorators the lookup tables and pipelines they
// use; without them (nil) the lookup table decorator finds no table and
// the pipeline decorator is not offered.
func (s *Service) SetRuntime(l Lookups, p Pipelines, log *slog.Logger) *Service {
	s.lookups, s.pipes, s.log = l, p, log
	return s
}

// Chain is the decorators of one search answer, in their order: it
// decorates the answer's messages one at a time, as they are written, and
// sums up what it changed (Graylog's DecoratorProcessorImpl).
type Chain struct {
	ds                      []decorator
	added, changed, removed map[string]struct{}
}

// Empty reports whether the chain has no decorator: the answer is not
// decorated at all, and has no decoration stats.
func (c *Chain) Empty() bool { return c == nil || len(c.ds) == 0 }

// Stats is Graylog's DecorationStats of one message: the fields the
// decorators added (with their new values), changed and removed (with
// their original values).
type Stats struct {
	Added   map[string]any `json:"added_fields"`
	Changed map[string]any `json:"changed_fields"`
	Removed map[string]any `json:"removed_fields"`
}

// SearchStats is Graylog's SearchDecorationStats: the names of the fields
// decorators added, changed and removed in any message of the answer.
type SearchStats struct {
	Added   []string `json:"added_fields"`
	Changed []string `json:"changed_fields"`
	Removed []string `json:"removed_fields"`
}

// Decorated is one message of a decorated answer.
type Decorated struct {
	Message map[string]any
	Index   string
	// Stats is nil for a message a decorator created.
	Stats *Stats
}

// CreatedIndex is the index of the messages a pipeline decorator created.
const CreatedIndex = "[created from decorator]"

// Decorate runs the chain's decorators on one message of index and
// returns the messages to answer in its place: the decorated message,
// then those the decorators created. m is not changed.
func (c *Chain) Decorate(ctx context.Context, m map[string]any, index string) []Decorated {
	if c.Empty() {
		return []Decorated{{Message: m, Index: index}}
	}
	type item struct {
		m        map[string]any
		original bool
	}
	list := []item{{m: m, original: true}}
	for _, d := range c.ds {
		next := make([]item, 0, len(list))
		for _, it := range list {
			out, created := d.apply(ctx, it.m)
			next = append(next, item{m: out, original: it.original})
			for _, cm := range created {
				next = append(next, item{m: cm})
			}
		}
		list = next
	}
	out := make([]Decorated, 0, len(list))
	for _, it := range list {
		d := Decorated{Message: it.m, Index: CreatedIndex}
		if it.original {
			d.Index = index
			d.Stats = c.stats(m, it.m)
		}
		out = append(out, d)
	}
	return out
}

// stats compares a message before and after decoration and records the
// names for SearchStats.
func (c *Chain) stats(before, after map[string]any) *Stats {
	st := &Stats{Added: map[string]any{}, Changed: map[string]any{}, Removed: map[string]any{}}
	for k, v := range after {
		old, ok := before[k]
		switch {
		case !ok:
			st.Added[k] = v
			c.added[k] = struct{}{}
		case !equal(old, v):
			st.Changed[k] = old
			c.changed[k] = struct{}{}
		}
	}
	for k, v := range before {
		if _, ok := after[k]; !ok {
			st.Removed[k] = v
			c.removed[k] = struct{}{}
		}
	}
	return st
}

func equal(a, b any) bool {
	switch a.(type) {
	case string, int64, float64, bool, int:
		return a == b
	}
	return reflect.DeepEqual(a, b)
}

// SearchStats returns the fields decorated so far in any message; nil
// for an empty chain, whose answer has none.
func (c *Chain) SearchStats() *SearchStats {
	if c.Empty() {
		return nil
	}
	return &SearchStats{Added: sorted(c.added), Changed: sorted(c.changed), Removed: sorted(c.removed)}
}

func sorted(set map[string]struct{}) []string {
	if len(set) == 0 {
		return []string{}
	}
	return slices.Sorted(maps.Keys(set))
}

func newChain(ds []decorator) *Chain {
	return &Chain{ds: ds, added: map[string]struct{}{}, changed: map[string]struct{}{}, removed: map[string]struct{}{}}
}

// ForStream returns the chain of the decorators stored for a stream, or
// the global ones (stream null) when stream is "", ordered by order, as
// Graylog's DecoratorResolver builds them: a decorator of an unknown type
// or whose configuration its type refuses is left out, and logged.
func (s *Service) ForStream(ctx context.Context, stream string) (*Chain, error) {
	all, err := s.All(ctx)
	if err != nil {
		return nil, err
	}
	var mine []Decorator
	for _, d := range all {
		if deref(d.Stream) == stream {
			mine = append(mine, d)
		}
	}
	slices.SortStableFunc(mine, func(a, b Decorator) int { return a.Order - b.Order })
	var ds []decorator
	for _, d := range mine {
		t, ok := s.typeOf(d.Type)
		if !ok {
			continue
		}
		built, err := t.build(ctx, s, d.Config)
		if err != nil {
			if s.log != nil {
				s.log.Warn("unable to create decorator", "type", t.name, "id", d.ID, "error", err)
			}
			continue
		}
		ds = append(ds, built)
	}
	return newChain(ds), nil
}

// Build returns the chain of the decorators a views message list names,
// ordered by order, as Graylog's LegacyDecoratorProcessor builds them: an
// unknown type or a configuration its type refuses fails the search (400).
func (s *Service) Build(ctx context.Context, list []Decorator) (*Chain, error) {
	list = slices.Clone(list)
	slices.SortStableFunc(list, func(a, b Decorator) int { return a.Order - b.Order })
	ds := make([]decorator, 0, len(list))
	for _, d := range list {
		t, ok := s.typeOf(d.Type)
		if !ok {
			return nil, api.Errorf(api.Invalid, "Unknown decorator type <%s>", d.Type)
		}
		built, err := t.build(ctx, s, d.Config)
		if err != nil {
			return nil, api.Errorf(api.Invalid, "Unable to create <%s> decorator: %v", t.name, err)
		}
		ds = append(ds, built)
	}
	return newChain(ds), nil
}

// rebuild is Graylog's new Message(summary.message()): a copy of the
// message with every field set again as Message.addField sets it (string
// values trimmed, empty ones and invalid or Elasticsearch-reserved names
// left out). _id is kept as it is.
func rebuild(m map[string]any) map[string]any {
	out := make(map[string]any, len(m)+1)
	for k, v := range m {
		if k == messages.FieldID {
			out[k] = v
			continue
		}
		addField(out, k, v)
	}
	return out
}

// addField is Graylog's Message.addField on a message map.
func addField(m map[string]any, key string, v any) {
	key = messages.Trim(key)
	if !messages.ValidKey(key) || esReserved(key) || v == nil {
		return
	}
	if s, ok := v.(string); ok {
		if s = messages.Trim(s); s == "" {
			return
		}
		v = s
	}
	m[key] = v
}

// esReserved are Message.RESERVED_FIELDS minus the settable ones.
func esReserved(key string) bool {
	switch key {
	case messages.FieldID, "_ttl", "_source", "_all", "_index", "_type", "_score":
		return true
	}
	return false
}

// syslog maps numeric severities to names (SyslogSeverityMapperDecorator).
type syslog struct{ source, target string }

var syslogNames = map[string]string{
	"0": "Emergency (0)", "1": "Alert (1)", "2": "Critical (2)", "3": "Error (3)",
	"4": "Warning (4)", "5": "Notice (5)", "6": "Informational (6)", "7": "Debug (7)",
}

func buildSyslog(_ context.Context, _ *Service, config map[string]any) (decorator, error) {
	src, err := requiredString(config, "source_field")
	if err != nil {
		return nil, err
	}
	dst, err := requiredString(config, "target_field")
	if err != nil {
		return nil, err
	}
	return syslog{source: src, target: dst}, nil
}

func (d syslog) apply(_ context.Context, m map[string]any) (map[string]any, []map[string]any) {
	v, ok := m[d.source]
	if !ok {
		return m, nil
	}
	name, ok := syslogNames[javaString(v)]
	if !ok {
		return m, nil
	}
	out := rebuild(m)
	addField(out, d.target, name)
	return out, nil
}

// linkField turns a URL into Graylog's link shape (LinkFieldDecorator).
type linkField struct{ field string }

func buildLink(_ context.Context, _ *Service, config map[string]any) (decorator, error) {
	f, err := requiredString(config, "link_field")
	if err != nil {
		return nil, err
	}
	return linkField{field: f}, nil
}

func (d linkField) apply(_ context.Context, m map[string]any) (map[string]any, []map[string]any) {
	v, ok := m[d.field]
	if !ok {
		return m, nil
	}
	href, isString := v.(string)
	if !isString && v != nil {
		// Graylog's cast fails and the whole answer goes undecorated; an
		// answer written message by message leaves this one alone.
		return m, nil
	}
	out := rebuild(m)
	if isString && validURL(href) {
		addField(out, d.field, map[string]any{"type": "a", "href": href})
	} else {
		addField(out, d.field, v)
	}
	return out, nil
}

// lookupField sets the result of a lookup (LookupTableDecorator).
type lookupField struct {
	source, target, table string
	lookups               Lookups
}

func buildLookup(ctx context.Context, s *Service, config map[string]any) (decorator, error) {
	src, err := nonEmptyString(config, "source_field")
	if err != nil {
		return nil, err
	}
	dst, err := nonEmptyString(config, "target_field")
	if err != nil {
		return nil, err
	}
	table, err := nonEmptyString(config, "lookup_table_name")
	if err != nil {
		return nil, err
	}
	if s.lookups == nil || !s.lookups.Exists(ctx, table) {
		return nil, fmt.Errorf("configured lookup table <%s> doesn't exist", table)
	}
	return lookupField{source: src, target: dst, table: table, lookups: s.lookups}, nil
}

func (d lookupField) apply(ctx context.Context, m map[string]any) (map[string]any, []map[string]any) {
	v, ok := m[d.source]
	if !ok {
		return m, nil
	}
	// Through the table's cache, as every lookup.
	r, err := d.lookups.Lookup(ctx, d.table, v)
	if err != nil || r.Empty() {
		return m, nil
	}
	out := rebuild(m)
	addField(out, d.target, r.Single)
	return out, nil
}

// pipeline runs one pipeline on a copy of the message
// (PipelineProcessorMessageDecorator).
type pipeline struct {
	id    string
	pipes Pipelines
}

func buildPipeline(_ context.Context, s *Service, config map[string]any) (decorator, error) {
	id, _, err := configString(config, "pipeline")
	if err != nil {
		return nil, err
	}
	return pipeline{id: id, pipes: s.pipes}, nil
}

func (d pipeline) apply(ctx context.Context, m map[string]any) (map[string]any, []map[string]any) {
	if d.id == "" {
		return m, nil
	}
	msg := toMessage(rebuild(m))
	created := d.pipes.Decorate(ctx, d.id, &msg)
	out := fromMessage(msg, m)
	var extra []map[string]any
	for i := range created {
		extra = append(extra, created[i].Map())
	}
	return out, extra
}

// toMessage turns an answer's message map into a message the rules run
// on: _id, timestamp and streams apart, as stored.
func toMessage(m map[string]any) messages.Message {
	msg := messages.Message{Fields: make([]messages.Field, 0, len(m)+4)}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		v := m[k]
		switch k {
		case messages.FieldID:
			msg.ID, _ = v.(string)
		case messages.FieldTimestamp:
			if s, ok := v.(string); ok {
				if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
					msg.Timestamp = t.UTC()
					continue
				}
			}
			msg.Fields = append(msg.Fields, messages.Field{Key: k, Value: v})
		case messages.FieldStreams:
			switch x := v.(type) {
			case []string:
				msg.Streams = slices.Clone(x)
			case []any:
				for _, s := range x {
					if s, ok := s.(string); ok {
						msg.Streams = append(msg.Streams, s)
					}
				}
			}
		default:
			msg.Fields = append(msg.Fields, messages.Field{Key: k, Value: v})
		}
	}
	return msg
}

// fromMessage is toMessage's inverse; fields the answer did not have
// (a field selection left out timestamp or streams) stay out unless the
// rules set them.
func fromMessage(msg messages.Message, orig map[string]any) map[string]any {
	out := msg.Map()
	if _, ok := orig[messages.FieldStreams]; !ok && len(msg.Streams) == 0 {
		delete(out, messages.FieldStreams)
	}
	if _, ok := orig[messages.FieldTimestamp]; !ok && msg.Timestamp.IsZero() {
		delete(out, messages.FieldTimestamp)
	}
	return out
}

// javaString is String.valueOf of a field value as Java holds it: longs
// in digits, doubles as Double.toString writes them ("3.0", "1.0E10").
func javaString(v any) string {
	switch x := v.(type) {
	case float64:
		return messages.JavaDouble(x)
	case []string:
		return "[" + strings.Join(x, ", ") + "]"
	case map[string]any:
		return mapString(x)
	case nil:
		return "null"
	}
	return messages.FormatValue(v)
}
