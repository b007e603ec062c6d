package forward

import (
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/logs/outputs"
	"github.com/loggate/loggate/backend/system/metrics"
)

// RouterOptions are a Router's dependencies, passed on to its forwarders.
type RouterOptions struct {
	Metrics      *metrics.Registry
	Logger       *slog.Logger
	FlushTimeout time.Duration
}

// Router runs the forwarders of every output and sends each message to the
// outputs of its streams. Forward may be called from any goroutine while
// Apply reconfigures.
type Router struct {
	opts RouterOptions
	log  *slog.Logger

	// routes is the current stream id → forwarders table, replaced whole by
	// Apply so that Forward reads it without a lock.
	routes atomic.Pointer[map[string][]*Forwarder]

	mu      sync.Mutex // serializes Apply and Close
	running map[string]*Forwarder
	closed  bool
	// retiring counts forwarders being closed in the background.
	retiring sync.WaitGroup
	// lastErr is the last Sync error, logged only when it changes.
	lastErr string
}

// NewRouter returns a router with no outputs.
func NewRouter(opts RouterOptions) *Router {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	r := &Router{opts: opts, log: log, running: map[string]*Forwarder{}}
	r.routes.Store(new(map[string][]*Forwarder))
	return r
}

// maxInline is the number of distinct outputs one message can reach
// before Forward's duplicate check allocates.
const maxInline = 8

// Forward sends m to every output of the streams in m.Streams, once per
// output even when several of its streams share one, as Graylog's
// OutputRouter does. It never blocks and does not retain m. It satisfies
// processing.Forwarder.
func (r *Router) Forward(m *messages.Message) {
	routes := *r.routes.Load()
	if len(routes) == 0 {
		return
	}
	var inline [maxInline]*Forwarder
	seen := inline[:0]
	for _, sid := range m.Streams {
		for _, f := range routes[sid] {
			if slices.Contains(seen, f) {
				continue
			}
			seen = append(seen, f)
			f.Send(m)
		}
	}
}

// Apply makes the running forwarders those of outs and routes each stream
// to its outputs: streamOutputs maps a stream id to output ids (as
// Stream.Outputs holds them; StreamOutputs builds it). A new output starts,
// one whose configuration changed restarts, and one no longer listed stops
// (its queue flushed in the background, within the flush timeout).
// Outputs of another type than GELF are skipped; output ids that no
// stream names run without receiving anything, and output ids of
// streamOutputs with no output are ignored.
//
// An output whose configuration is invalid is not started and its error
// is returned, joined with the others; the rest are applied regardless,
// and the next Apply tries the failed ones again.
func (r *Router) Apply(streamOutputs map[string][]string, outs []outputs.Summary) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return errors.New("forward: router is closed")
	}
	var errs []error
	desired := make(map[string]Config, len(outs))
	for _, o := range outs {
		if o.Type != outputs.GELFType {
			continue
		}
		cfg, err := ParseConfig(o.Configuration)
		if err != nil {
			errs = append(errs, fmt.Errorf("output %s (%q): %w", o.ID, o.Title, err))
			continue
		}
		desired[o.ID] = cfg
	}

	next := make(map[string]*Forwarder, len(desired))
	var retire []*Forwarder
	for id, f := range r.running {
		if cfg, ok := desired[id]; ok && cfg == f.Config() {
			next[id] = f
		} else {
			retire = append(retire, f)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(desired)) {
		if _, ok := next[id]; ok {
			continue
		}
		f, err := New(desired[id], Options{ID: id, Metrics: r.opts.Metrics, Logger: r.opts.Logger, FlushTimeout: r.opts.FlushTimeout})
		if err != nil {
			errs = append(errs, fmt.Errorf("output %s: %w", id, err))
			continue
		}
		next[id] = f
	}

	routes := make(map[string][]*Forwarder, len(streamOutputs))
	for sid, ids := range streamOutputs {
		var fs []*Forwarder
		for _, id := range ids {
			if f, ok := next[id]; ok && !slices.Contains(fs, f) {
				fs = append(fs, f)
			}
		}
		if len(fs) > 0 {
			routes[sid] = fs
		}
	}
	// Publish the new table before closing the old forwarders, so that
	// Forward stops picking them first.
	r.routes.Store(&routes)
	r.running = next
	for _, f := range retire {
		r.retiring.Add(1)
		go func() {
			defer r.retiring.Done()
			f.Close()
		}()
	}
	return errors.Join(errs...)
}

// Stats returns the counters of every running forwarder by output id.
func (r *Router) Stats() map[string]Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]Stats, len(r.running))
	for id, f := range r.running {
		out[id] = f.Stats()
	}
	return out
}

// Close stops every forwarder, each flushing its queue within the flush
// timeout, and waits for those Apply retired. Later Forward calls do
// nothing and Apply fails.
func (r *Router) Close() {
	r.mu.Lock()
	r.closed = true
	running := r.running
	r.running = map[string]*Forwarder{}
	r.routes.Store(new(map[string][]*Forwarder))
	r.mu.Unlock()
	var wg sync.WaitGroup
	for _, f := range running {
		wg.Go(f.Close)
	}
	wg.Wait()
	r.retiring.Wait()
}
