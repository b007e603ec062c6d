package definitions

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/auth/permission"
	"github.com/loggate/loggate/backend/alerts/events"
	"github.com/loggate/loggate/backend/alerts/scheduler"
	"github.com/loggate/loggate/backend/alerts/template"
	"github.com/loggate/loggate/backend/analysis/search"
	"github.com/loggate/loggate/backend/analysis/search/query"
	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/logs/streams"
	"github.com/loggate/loggate/router/api"
)

// Searcher runs the searches of a definition; *search.Service is one.
type Searcher interface {
	Aggregate(ctx context.Context, r search.Request, a search.Aggregation) (*search.Aggregated, error)
	AggregateEach(ctx context.Context, r search.Request, parts []search.Part) ([]*search.Aggregated, error)
	Scan(ctx context.Context, r search.Request, window int) (messages.Cursor, query.Node, error)
}

// EventWriter stores events (in the events index set).
type EventWriter interface {
	WriteEvents(ctx context.Context, evs []events.Event) error
}

// Notifier schedules the notifications of a definition's new events.
type Notifier interface {
	Notify(ctx context.Context, d Definition, evs []events.Event) error
}

// Streams lists the ids of the message streams (events streams excluded).
type Streams func() []string

// Processor is the event processor: the job of event-processor-execution-v1
// job definitions, and the runner of /execute.
type Processor struct {
	defs    *Service
	search  Searcher
	out     EventWriter
	notify  Notifier
	streams Streams
	now     func() time.Time
	source  string
	opts    ProcessorOptions

	mu sync.Mutex
	// prepared are the aggregations Prepare computed for the firings of
	// the scheduler's pass, by aggregationKey; each is taken once.
	prepared map[string]*search.Aggregated
}

// ProcessorOptions tune a processor.
type ProcessorOptions struct {
	// Indexed returns the timestamp up to which every received message is
	// searchable (the node's processed and indexed watermark); a window
	// ending after it is not evaluated yet but tried again IndexedRetry
	// later, so that messages still in the journal count in their window.
	// Nil evaluates every window as soon as it ends.
	Indexed func(ctx context.Context) (time.Time, error)
	// CatchupWindow is Graylog's events_catchup_window: a definition whose
	// next window ended longer ago than this, and whose hop is not larger
	// than its window, evaluates the missed windows merged into one
	// search of up to this length. 0 means DefaultCatchupWindow; negative
	// turns merging off.
	CatchupWindow time.Duration
	// Catchup, when set, reads the catch-up window (events_catchup_window
	// of the cluster's EventsConfiguration) at every firing, instead of
	// CatchupWindow; 0 turns merging off, as in Graylog, and a failure
	// means the default.
	Catchup func(ctx context.Context) (time.Duration, error)
	// Lookups evaluates lookup-v1 field providers; nil makes their
	// fields errors, which events do not keep.
	Lookups Lookups
}

// Lookups looks a key up in a lookup table (Graylog's lookup-v1 field
// provider): the value, and false when the table has none for the key.
type Lookups interface {
	LookupValue(ctx context.Context, table, key string) (string, bool, error)
}

// Defaults of ProcessorOptions, Graylog's.
const (
	DefaultCatchupWindow = time.Hour
	// IndexedRetry is when a window whose end is not indexed yet is
	// tried again.
	IndexedRetry = 5 * time.Second
)

// NewProcessor returns the event processor. source is the node's host
// name, each event's source.
func NewProcessor(defs *Service, s Searcher, out EventWriter, n Notifier, st Streams, now func() time.Time, source string, opts ProcessorOptions) *Processor {
	if opts.CatchupWindow == 0 {
		opts.CatchupWindow = DefaultCatchupWindow
	}
	return &Processor{defs: defs, search: s, out: out, notify: n, streams: st, now: now, source: source, opts: opts}
}

// groupLimit is how many groups of a group_by an aggregation keeps.
const groupLimit = 10_000

// SystemContext is ctx as the server itself: every stream readable; the
// searches of event processing run so.
func SystemContext(ctx context.Context) context.Context {
	perms, _ := permission.NewSet([]string{"*"}) // "*" always parses
	return auth.WithPrincipal(ctx, &auth.Principal{UserID: "system", Username: "system", Permissions: perms})
}

// Execute runs one firing of a definition's job: the trigger's window,
// unless it ends in the future or after what is indexed, then moves the
// trigger to the next window. A firing that runs again (its runner died
// before recording it) makes the same events with the same ids, which
// replace the stored ones, and notifications scheduled under fixed ids:
// nothing is doubled.
func (p *Processor) Execute(ctx context.Context, job scheduler.JobDefinition, tr scheduler.Trigger) (scheduler.Outcome, error) {
	cfg, data, err := firing(job, tr)
	if err != nil {
		return scheduler.Outcome{}, err
	}
	now := p.now()
	if data.TimerangeTo.After(now) {
		return scheduler.Outcome{Next: data.TimerangeTo.Time}, nil
	}
	if ok, err := p.indexed(ctx, data.TimerangeTo.Time); err != nil || !ok {
		// Graylog's processing-status check: not an error, a later try.
		return scheduler.Outcome{Next: now.Add(IndexedRetry)}, err
	}
	d, err := p.defs.Get(ctx, cfg.EventDefinitionID)
	if err != nil {
		if api.ErrorCode(err) == api.NotFound {
			return scheduler.Outcome{}, &scheduler.Permanent{Err: err}
		}
		return scheduler.Outcome{}, err
	}
	if d.Config.SearchWithinMs > MaxIntervalMs || d.Config.ExecuteEveryMs > MaxIntervalMs {
		// Stored by another server (Graylog's takes any positive window):
		// the next window would wrap around into the past, due again at
		// once.
		return scheduler.Outcome{}, &scheduler.Permanent{Err: fmt.Errorf("event definition %s: search_within_ms and execute_every_ms must be at most %d", d.ID, MaxIntervalMs)}
	}
	from, to := data.TimerangeFrom.Time, p.catchup(ctx, d, data.TimerangeTo.Time, now)
	if err := p.Run(ctx, d, api.Time{Time: from}, api.Time{Time: to}); err != nil {
		return scheduler.Outcome{}, err
	}
	hop := time.Duration(d.Config.ExecuteEveryMs) * time.Millisecond
	nextTo := to.Add(hop)
	nextFrom, _ := window(nextTo, d.Config)
	next, _ := json.Marshal(triggerData{Type: TypeExecutionJob, TimerangeFrom: api.Time{Time: nextFrom}, TimerangeTo: api.Time{Time: nextTo}})
	return scheduler.Outcome{Next: nextTo, Data: next}, nil
}

// firing reads a firing's job config and window.
func firing(job scheduler.JobDefinition, tr scheduler.Trigger) (jobConfig, triggerData, error) {
	var cfg jobConfig
	if err := json.Unmarshal(job.Config, &cfg); err != nil {
		return cfg, triggerData{}, &scheduler.Permanent{Err: fmt.Errorf("job %s: %w", job.ID, err)}
	}
	var data triggerData
	if err := json.Unmarshal(tr.Data, &data); err != nil || data.TimerangeTo.IsZero() {
		return cfg, data, &scheduler.Permanent{Err: fmt.Errorf("trigger %s has no window", tr.ID)}
	}
	return cfg, data, nil
}

// indexed reports whether every message up to `to` is searchable.
func (p *Processor) indexed(ctx context.Context, to time.Time) (bool, error) {
	if p.opts.Indexed == nil {
		return true, nil
	}
	upTo, err := p.opts.Indexed(ctx)
	if err != nil {
		return false, err
	}
	return !to.After(upTo), nil
}

// catchup returns the end of the search of a window ending at to: to
// itself, or, when the window ended more than the catch-up window ago,
// the end of the last whole hop within the catch-up window after it, so
// that a definition far behind makes up the missed windows in searches of
// up to the catch-up window rather than one by one (Graylog 4.0's
// EventProcessorExecutionJob). A hop larger than the window skips
// messages on purpose; such windows are made up one by one.
func (p *Processor) catchup(ctx context.Context, d Definition, to, now time.Time) time.Time {
	hop := time.Duration(d.Config.ExecuteEveryMs) * time.Millisecond
	size := time.Duration(d.Config.SearchWithinMs) * time.Millisecond
	c := p.opts.CatchupWindow
	if p.opts.Catchup != nil {
		var err error
		if c, err = p.opts.Catchup(ctx); err != nil {
			c = DefaultCatchupWindow
		}
	}
	if c <= 0 || hop <= 0 || hop > size || now.Sub(to) <= c {
		return to
	}
	// Whole hops only, so that the next windows stay aligned.
	ext := c - c%hop
	// Not past what is indexed: the trigger moves past the search's end,
	// so messages still being processed there would never be searched.
	// The window itself is indexed, which the caller checked.
	if p.opts.Indexed != nil {
		upTo, err := p.opts.Indexed(ctx)
		if err != nil {
			return to
		}
		if most := upTo.Sub(to); most < ext {
			ext = max(most-most%hop, 0)
		}
	}
	return to.Add(ext)
}

// Run runs a definition over [from, to]: its events are stored and their
// notifications scheduled, a batch at a time. A run that fails part way
// is run again whole; events and notifications have fixed ids, so what
// the first stored is replaced, not doubled.
func (p *Processor) Run(ctx context.Context, d Definition, from, to api.Time) error {
	return p.events(ctx, d, from.Time, to.Time, func(evs []events.Event) error {
		if len(d.Notifications) > 0 && p.notify != nil {
			if err := p.notify.Notify(ctx, d, evs); err != nil {
				return err
			}
		}
		return p.out.WriteEvents(ctx, evs)
	})
}

// request is the search of a definition over a window.
func (p *Processor) request(d Definition, from, to time.Time) search.Request {
	r := search.Request{Query: d.Config.Query, Range: search.TimeRange{From: from, To: to}, Streams: d.Config.Streams}
	if len(r.Streams) == 0 {
		// Every message stream; never the events streams.
		r.Streams = p.streams()
	}
	return r
}

// Backlog returns up to n messages of the event's window matching the
// definition, newest first: what a notification shows with the event.
func (p *Processor) Backlog(ctx context.Context, d Definition, ev events.Event, n int) ([]messages.Hit, error) {
	if n <= 0 {
		return nil, nil
	}
	from, to := ev.Timestamp.Time, ev.Timestamp.Time
	if ev.TimerangeStart != nil && ev.TimerangeEnd != nil {
		from, to = ev.TimerangeStart.Time, ev.TimerangeEnd.Time
	}
	r := p.request(d, from, to)
	r.Limit = n
	cur, _, err := p.search.Scan(SystemContext(ctx), r, 0)
	if err != nil {
		return nil, err
	}
	defer cur.Close()
	var out []messages.Hit
	for h, ok := cur.Next(); ok && len(out) < n; h, ok = cur.Next() {
		out = append(out, h)
	}
	return out, cur.Err()
}

// events computes the events of a definition over [from, to] and hands
// them to fn, a batch at a time.
func (p *Processor) events(ctx context.Context, d Definition, from, to time.Time, fn func([]events.Event) error) error {
	if d.Config.Type != TypeAggregation {
		return &scheduler.Permanent{Err: fmt.Errorf("event definition %s has config type %q", d.ID, d.Config.Type)}
	}
	ctx = SystemContext(ctx)
	r := p.request(d, from, to)
	if len(r.Streams) == 0 {
		return nil
	}
	if d.Config.IsAggregation() {
		evs, err := p.aggregate(ctx, d, r, from, to)
		if err != nil || len(evs) == 0 {
			return err
		}
		return fn(evs)
	}
	return p.filter(ctx, d, r, fn)
}

// filterBatch is how many events of a filter definition are stored and
// notified at once, as Graylog pages through the matches of a window
// (batches of 500): however many messages match, a window holds one
// batch.
const filterBatch = 500

// filter makes one event per matching message, every one of the window.
func (p *Processor) filter(ctx context.Context, d Definition, r search.Request, fn func([]events.Event) error) error {
	r.Sort = messages.Sort{Asc: true}
	r.Limit = 0 // all, past the result window as exports read
	cur, _, err := p.search.Scan(ctx, r, api.MaxInt32)
	if err != nil {
		return err
	}
	defer cur.Close()
	batch := make([]events.Event, 0, filterBatch)
	for h, ok := cur.Next(); ok; h, ok = cur.Next() {
		m := h.Message
		origin := "urn:graylog:message:es:" + h.Index + ":" + m.ID
		ev := p.event(d, eventID(m.Timestamp, d.ID, m.ID), m.Timestamp, d.Title)
		ev.OriginContext = &origin
		ev.SourceStreams = sourceStreams(m.Streams, d.Config.Streams)
		source := m.Map()
		p.finish(ctx, &ev, d, source)
		if batch = append(batch, ev); len(batch) == filterBatch {
			if err := fn(batch); err != nil {
				return err
			}
			batch = make([]events.Event, 0, filterBatch)
		}
	}
	if err := cur.Err(); err != nil {
		return err
	}
	if len(batch) == 0 {
		return nil
	}
	return fn(batch)
}

func sourceStreams(msg, def []string) []string {
	var out []string
	for _, s := range msg {
		if len(def) == 0 || slices.Contains(def, s) {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		out = slices.Clone(def)
	}
	return nonNil(out)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// aggregation is what a definition aggregates.
func aggregation(d Definition) search.Aggregation {
	a := search.Aggregation{}
	for _, f := range d.Config.GroupBy {
		a.Rows = append(a.Rows, search.Grouping{Field: f, Limit: groupLimit})
	}
	for _, s := range d.Config.Series {
		field := ""
		if s.Field != nil {
			field = *s.Field
		}
		a.Series = append(a.Series, search.Series{ID: s.ID, Type: s.Function, Field: field})
	}
	return a
}

// aggregationKey identifies an aggregation of a definition over a window
// with everything it depends on, so that a prepared result is used only
// by the firing it was computed for.
func aggregationKey(id string, r search.Request, a search.Aggregation) string {
	b, _ := json.Marshal(struct {
		R search.Request
		A search.Aggregation
	}{r, a})
	return id + "\x00" + string(b)
}

// aggregate makes one event per result row whose conditions hold.
func (p *Processor) aggregate(ctx context.Context, d Definition, r search.Request, from, to time.Time) ([]events.Event, error) {
	a := aggregation(d)
	res := p.takePrepared(aggregationKey(d.ID, r, a))
	if res == nil {
		var err error
		if res, err = p.search.Aggregate(ctx, r, a); err != nil {
			return nil, err
		}
	}
	var out []events.Event
	var walk func(b *search.Bucket, keys []string)
	walk = func(b *search.Bucket, keys []string) {
		if len(keys) < len(d.Config.GroupBy) {
			for _, c := range b.Buckets {
				walk(c, append(slices.Clone(keys), c.Key))
			}
			return
		}
		values := map[string]float64{}
		for i, s := range d.Config.Series {
			values[s.ID] = SeriesFloat(b.Values[i])
		}
		if c := d.Config.Conditions; c != nil && c.Expression != nil && !c.Expression.Holds(values) {
			return
		}
		out = append(out, p.aggregationEvent(ctx, d, keys, values, from, to))
	}
	if res.Root != nil {
		walk(res.Root, nil)
	}
	return out, nil
}

// SeriesFloat is a series value of an aggregation as a number; NaN when
// the series is undefined (the mean of no values).
func SeriesFloat(v any) float64 {
	switch n := v.(type) {
	case float64:
		return n
	case int64:
		return float64(n)
	case int:
		return float64(n)
	}
	return math.NaN()
}

// aggregationEvent is the event of one result row, with the fields of
// Graylog's synthetic source message.
func (p *Processor) aggregationEvent(ctx context.Context, d Definition, keys []string, values map[string]float64, from, to time.Time) events.Event {
	var msg strings.Builder
	msg.WriteString(d.Title)
	key := strings.Join(keys, "|")
	if key != "" {
		msg.WriteString(": " + key)
	}
	source := map[string]any{"aggregation_key": key}
	for i, f := range d.Config.GroupBy {
		source[f] = keys[i]
	}
	parts := make([]string, 0, len(d.Config.Series))
	for _, s := range d.Config.Series {
		field := ""
		if s.Field != nil {
			field = *s.Field
		}
		parts = append(parts, fmt.Sprintf("%s(%s)=%s", s.Function, field, messages.JavaDouble(values[s.ID])))
		name := "aggregation_value_" + s.Function
		if field != "" {
			name += "_" + field
		}
		source[name] = values[s.ID]
	}
	if len(parts) > 0 {
		msg.WriteString(" - " + strings.Join(parts, " "))
	}
	ev := p.event(d, eventID(to, d.ID, from.Format(time.RFC3339Nano), key), to, msg.String())
	start, end := api.Time{Time: from}, api.Time{Time: to}
	ev.TimerangeStart, ev.TimerangeEnd = &start, &end
	ev.SourceStreams = nonNil(slices.Clone(d.Config.Streams))
	if len(ev.SourceStreams) == 0 {
		ev.SourceStreams = nonNil(p.streams())
	}
	p.finish(ctx, &ev, d, source)
	return ev
}

// event is an event of d with what every event has.
func (p *Processor) event(d Definition, id string, at time.Time, message string) events.Event {
	return events.Event{ID: id, EventDefinitionType: d.Config.Type, EventDefinitionID: d.ID,
		Timestamp: api.Time{Time: at.UTC()}, TimestampProcessing: api.Time{Time: p.now().UTC().Truncate(time.Millisecond)},
		Streams: []string{streams.EventsStreamID}, Message: message, Source: p.source,
		Priority: d.Priority, Alert: d.Alert, KeyTuple: []string{}, Fields: map[string]string{}}
}

// finish evaluates the field specs over the source message, then the key.
// A provider that fails (a lookup without a value) makes the field an
// error, which the stored event leaves out, as Graylog's does.
func (p *Processor) finish(ctx context.Context, ev *events.Event, d Definition, source map[string]any) {
	model := map[string]any{"source": source}
	for name, spec := range d.FieldSpec {
		for _, pr := range spec.Providers {
			switch pr.Type {
			case TypeTemplateField:
				t, err := template.Parse(pr.Template)
				if err != nil {
					continue
				}
				v, err := t.Execute(model)
				if err != nil {
					// Rendering past its bounds: an error field, left out
					// as a lookup without a value is.
					delete(ev.Fields, name)
					continue
				}
				if v != "" || !pr.RequireValues {
					ev.Fields[name] = v
				}
			case TypeLookupField:
				if v, ok := p.lookup(ctx, pr, source); ok {
					ev.Fields[name] = v
				} else {
					delete(ev.Fields, name)
				}
			}
		}
	}
	for _, k := range d.KeySpec {
		ev.KeyTuple = append(ev.KeyTuple, ev.Fields[k])
	}
	key := strings.Join(ev.KeyTuple, "|")
	ev.Key = &key
}

// lookup runs a lookup-v1 provider: the source message's key_field looked
// up in table_name.
func (p *Processor) lookup(ctx context.Context, pr Provider, source map[string]any) (string, bool) {
	key, ok := source[pr.KeyField]
	if !ok || key == nil || p.opts.Lookups == nil {
		return "", false
	}
	v, found, err := p.opts.Lookups.LookupValue(ctx, pr.TableName, messages.FormatValue(key))
	return v, found && err == nil
}

// crockford is ULID's alphabet.
const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// eventID is a ULID, as Graylog's event ids are, whose time is the event's
// and whose random part is a hash of what identifies the event, so that
// running a window again gives its events the same ids.
func eventID(at time.Time, parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	var b [16]byte
	ms := uint64(at.UnixMilli())
	binary.BigEndian.PutUint16(b[0:2], uint16(ms>>32))
	binary.BigEndian.PutUint32(b[2:6], uint32(ms))
	copy(b[6:], h[:10])
	// 128 bits in 26 base-32 digits, the first carrying 3 bits.
	var out [26]byte
	hi, lo := binary.BigEndian.Uint64(b[0:8]), binary.BigEndian.Uint64(b[8:16])
	for i := 25; i >= 0; i-- {
		out[i] = crockford[lo&31]
		lo = lo>>5 | hi<<59
		hi >>= 5
	}
	return string(out[:])
}
