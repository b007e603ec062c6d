package processing

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/loggate/loggate/backend/logs/messages"
)

// Class names of the message processors processing knows, as Graylog 4.0
// names them in /system/messageprocessors/config.
const (
	// FilterChainClass is the Message Filter Chain: the input filters
	// (extractors, static fields; see AddFilter) and then stream matching.
	FilterChainClass = "org.graylog2.messageprocessors.MessageFilterChainProcessor"
	// PipelineClass is the Pipeline Processor; pipelines Register under it.
	PipelineClass = "org.graylog.plugins.pipelineprocessor.processors.PipelineInterpreter"
)

// MessageProcessor is one of Graylog's message processors (or one filter of
// the Message Filter Chain). Processing hands it each batch read from the
// journal, after decoding and before indexing, in the order
// /system/messageprocessors/config gives; it is never called when disabled
// there.
//
// Process changes the messages in place and returns the messages to go on
// with: normally msgs itself; without those it drops (Graylog's "filter
// out"), with those it creates appended. Every message starts on the
// default stream (Streams holds streams.DefaultStreamID), as in Graylog; a
// processor that routes appends stream ids to Streams and may remove the
// default one. Stream rules run later, in the filter chain, and keep what
// earlier processors routed.
//
// A processor records its failures on the messages (gl2_processing_error)
// and counts them; it never stops processing. Process is called from one
// goroutine; it must not block for long, since ingestion waits on it.
type MessageProcessor interface {
	Process(ctx context.Context, msgs []*messages.Message) []*messages.Message
}

// FieldAdder is a message processor that adds about as many fields to
// every message it sees, as pipelines do. Processing reads messages with
// that much room in their field slices, so that a processor adding fields
// does not copy each message's fields into a bigger slice.
type FieldAdder interface {
	AddedFields() int
}

// maxSpareFields bounds the room asked for: processors learn it from what
// they did to the messages before, which senders decide.
const maxSpareFields = 64

// spareFields is the room in fields the processors want in every message.
func (p *Processor) spareFields() int {
	n := 0
	for _, mp := range p.byClass {
		if a, ok := mp.(FieldAdder); ok {
			n += max(a.AddedFields(), 0)
		}
	}
	for _, mp := range p.filters {
		if a, ok := mp.(FieldAdder); ok {
			n += max(a.AddedFields(), 0)
		}
	}
	return min(n, maxSpareFields)
}

// OrderFunc returns the class names of the enabled message processors in the
// order they run. It is asked once per batch, so it should answer from
// memory (see NewOrderCache).
type OrderFunc func(ctx context.Context) ([]string, error)

// Register makes mp run as the message processor of the given class name,
// where the order puts it. Call it before Run.
func (p *Processor) Register(class string, mp MessageProcessor) {
	if p.byClass == nil {
		p.byClass = map[string]MessageProcessor{}
	}
	p.byClass[class] = mp
}

// AddFilter appends a filter of the Message Filter Chain, which runs before
// stream matching (Graylog's extractors at priority 10, static fields at
// 20, stream matching at 40). Call it before Run.
func (p *Processor) AddFilter(mp MessageProcessor) { p.filters = append(p.filters, mp) }

// SetOrder makes processing ask order which processors run and in which
// order; without it, 4.0's default runs (DefaultOrder). Call it before Run.
func (p *Processor) SetOrder(order OrderFunc) { p.order = order }

// DefaultOrder is Graylog 4.0's order when none is stored: the class names
// of the known processors sorted case-insensitively, which puts the
// pipeline processor before the Message Filter Chain.
func DefaultOrder(classes []string) []string {
	out := slices.Clone(classes)
	slices.SortFunc(out, func(a, b string) int { return strings.Compare(strings.ToLower(a), strings.ToLower(b)) })
	return out
}

// known returns the class names of the processors this processor runs.
func (p *Processor) known() []string {
	out := []string{FilterChainClass}
	for class := range p.byClass {
		out = append(out, class)
	}
	return out
}

// currentOrder returns the classes to run for this batch. When the order
// cannot be read, the last one read is kept.
func (p *Processor) currentOrder(ctx context.Context) []string {
	if p.order == nil {
		if p.lastOrder == nil {
			p.lastOrder = DefaultOrder(p.known())
		}
		return p.lastOrder
	}
	order, err := p.order(ctx)
	if err != nil {
		p.opts.Logger.Warn("reading the message processors' order failed; keeping the last one", "err", err)
		if p.lastOrder == nil {
			p.lastOrder = DefaultOrder(p.known())
		}
		return p.lastOrder
	}
	p.lastOrder = order
	return order
}

// process runs the enabled message processors over one batch; rt is the
// stream matcher of the batch.
func (p *Processor) process(ctx context.Context, msgs []*messages.Message, rt *router) []*messages.Message {
	for _, class := range p.currentOrder(ctx) {
		if class == FilterChainClass {
			for _, f := range p.filters {
				msgs = f.Process(ctx, msgs)
			}
			for _, m := range msgs {
				rt.match(m)
			}
			continue
		}
		if mp := p.byClass[class]; mp != nil {
			msgs = mp.Process(ctx, msgs)
		}
	}
	return msgs
}

// OrderSource reads the stored processor configuration: the class names in
// order and the disabled ones. The cluster configuration service satisfies
// it through a small adapter.
type OrderSource func(ctx context.Context) (order, disabled []string, err error)

// OrderCache answers the enabled processors' order from memory, reading the
// stored configuration at most once per TTL, so that a change made on any
// node applies everywhere within it, as Graylog applies it on a
// ClusterConfigChangedEvent.
type OrderCache struct {
	src OrderSource
	ttl time.Duration
	now func() time.Time

	mu     sync.Mutex
	loaded time.Time
	order  []string
}

// NewOrderCache returns a cache over src.
func NewOrderCache(src OrderSource, ttl time.Duration, now func() time.Time) *OrderCache {
	return &OrderCache{src: src, ttl: ttl, now: now}
}

// Order returns the enabled processors in order; it is an OrderFunc.
func (c *OrderCache) Order(ctx context.Context) ([]string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.order != nil && c.now().Sub(c.loaded) < c.ttl {
		return c.order, nil
	}
	order, disabled, err := c.src(ctx)
	if err != nil {
		if c.order != nil {
			return c.order, nil
		}
		return nil, err
	}
	enabled := make([]string, 0, len(order))
	for _, class := range order {
		if !slices.Contains(disabled, class) {
			enabled = append(enabled, class)
		}
	}
	c.order, c.loaded = enabled, c.now()
	return enabled, nil
}
