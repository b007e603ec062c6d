package ingest

import (
	"context"
	"log/slog"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/loggate/loggate/backend/logs/inputs"
	"github.com/loggate/loggate/backend/logs/journal"
	"github.com/loggate/loggate/backend/system/metrics"
)

// Journal is where inputs put accepted messages. *journal.Journal
// satisfies it.
type Journal interface {
	// Append writes records durably and returns their offsets; it returns
	// an error wrapping journal.ErrFull while the journal is full.
	Append(ctx context.Context, records ...[]byte) (first, last uint64, err error)
	// WaitNotFull blocks until a record of size bytes would be accepted.
	WaitNotFull(ctx context.Context, size int) error
}

// States is where the runner reports input states. *inputs.States
// satisfies it.
type States interface {
	Set(inputID, state, detail string)
	Forget(inputID string)
}

var (
	_ Journal = (*journal.Journal)(nil)
	_ States  = (*inputs.States)(nil)
)

// Options configures a Runner. Zero fields take the defaults documented on
// each.
type Options struct {
	// NodeID is this node's id: the value of gl2_source_node, and the node
	// whose non-global inputs the runner launches.
	NodeID string
	// Now is the clock for receive times, gl2_message_id and chunk expiry;
	// time.Now if nil.
	Now func() time.Time
	// Logger reports input failures; discarded if nil.
	Logger *slog.Logger
	// Metrics receives the inputs' metrics; a private registry if nil.
	Metrics *metrics.Registry
	// NewID returns a message's _id; a time-based UUID if nil, as Graylog's.
	NewID func() string
	// BatchSize bounds the messages of one journal append (512).
	BatchSize int
	// BatchDelay bounds how long a UDP datagram waits for more to fill its
	// batch (5 ms).
	BatchDelay time.Duration
	// FullWait is how long an HTTP request waits for room in a full journal
	// before it is answered 503 (250 ms).
	FullWait time.Duration
	// RetryAfter is the Retry-After of a 503 (1 s; whole seconds are sent).
	RetryAfter time.Duration
	// ShutdownTimeout bounds how long stopping an HTTP input waits for the
	// requests in flight (5 s).
	ShutdownTimeout time.Duration
	// MaxRecordSize is the journal's record limit (journal.DefaultMaxRecordSize):
	// no payload is decompressed beyond it, whatever an input's
	// decompress_size_limit says, since a larger message could not be
	// journaled anyway.
	MaxRecordSize int
	// DecodeBudget bounds the bytes all inputs decode at once
	// (DefaultDecodeBudget); it is raised to twice MaxRecordSize so the
	// largest message can always be decoded.
	DecodeBudget int64
}

func (o Options) withDefaults() Options {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Metrics == nil {
		o.Metrics = metrics.New(o.Now)
	}
	if o.BatchSize <= 0 {
		o.BatchSize = 512
	}
	if o.BatchDelay <= 0 {
		o.BatchDelay = 5 * time.Millisecond
	}
	if o.FullWait <= 0 {
		o.FullWait = 250 * time.Millisecond
	}
	if o.RetryAfter < time.Second {
		o.RetryAfter = time.Second
	}
	if o.ShutdownTimeout <= 0 {
		o.ShutdownTimeout = 5 * time.Second
	}
	if o.MaxRecordSize <= 0 {
		o.MaxRecordSize = journal.DefaultMaxRecordSize
	}
	if o.DecodeBudget <= 0 {
		o.DecodeBudget = DefaultDecodeBudget
	}
	// A compressed message takes its decompressed text twice: the
	// decompression buffer (one byte over, to see the stream go on) and
	// the text decoded from it.
	o.DecodeBudget = max(o.DecodeBudget, 2*(int64(o.MaxRecordSize)+1))
	return o
}

// Runner starts and stops this node's GELF inputs. Its methods are safe for
// concurrent use.
type Runner struct {
	j      Journal
	states States
	opts   Options
	ids    *ulids
	budget *budget

	mu      sync.Mutex
	entries map[string]*entry
	closed  bool
}

// entry is an input the runner knows: running, or failed to start.
type entry struct {
	cfg    config
	cfgErr string
	inst   *instance // nil when the input failed or was stopped
	srv    server    // nil when the input failed or was stopped
	// stopped is set by Stop: Apply leaves the input stopped, even when
	// its configuration changes, until Start.
	stopped bool
}

// server is a running transport.
type server interface {
	// addr returns the bound address.
	addr() net.Addr
	// stop closes the listener and every connection and waits for the
	// goroutines to end.
	stop()
}

// NewRunner returns a Runner appending to j and reporting to states. It
// runs nothing until Apply.
func NewRunner(j Journal, states States, opts Options) *Runner {
	opts = opts.withDefaults()
	return &Runner{j: j, states: states, opts: opts, ids: newULIDs(), entries: map[string]*entry{},
		budget: newBudget(opts.DecodeBudget, opts.Metrics)}
}

// Apply reconciles the running inputs with ins, the inputs stored now: it
// starts the inputs of this node (global ones, and those whose node is
// Options.NodeID) that are not running, restarts those whose configuration
// changed, and stops those no longer listed, forgetting their state. Static
// fields are processing's (the extractors package): changing them restarts
// nothing. An input that failed to start stays
// FAILED until its configuration changes, as in Graylog. Apply with an
// unchanged list does no I/O.
func (r *Runner) Apply(ctx context.Context, ins []inputs.Input) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	seen := make(map[string]bool, len(ins))
	for _, in := range ins {
		if !r.mine(in) || seen[in.ID] {
			continue
		}
		seen[in.ID] = true
		cfg, err := parseConfig(in)
		cfgErr := ""
		if err != nil {
			cfgErr = err.Error()
		}
		e := r.entries[in.ID]
		if e != nil && e.stopped {
			e.cfg, e.cfgErr = cfg, cfgErr
			continue
		}
		if e != nil && e.cfg == cfg && e.cfgErr == cfgErr {
			continue
		}
		if e != nil && e.srv != nil {
			r.states.Set(in.ID, inputs.StateStopping, "")
			e.srv.stop()
		}
		r.entries[in.ID] = r.start(ctx, in, cfg, err)
	}
	for id, e := range r.entries {
		if seen[id] {
			continue
		}
		if e.srv != nil {
			e.srv.stop()
		}
		delete(r.entries, id)
		r.states.Forget(id)
		// The deleted input's metrics (<input class>.<id>.…, see
		// newInstance) go with it.
		prefix := e.cfg.typ + "." + id + "."
		r.opts.Metrics.RemoveMatching(func(name string) bool { return strings.HasPrefix(name, prefix) })
	}
}

// Start (re)starts one of this node's inputs now, as Graylog's "start
// input" does: a running input restarts, a FAILED or stopped one tries
// again. It reports false for an input that does not run on this node.
func (r *Runner) Start(ctx context.Context, in inputs.Input) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed || !r.mine(in) {
		return false
	}
	if e := r.entries[in.ID]; e != nil && e.srv != nil {
		r.states.Set(in.ID, inputs.StateStopping, "")
		e.srv.stop()
	}
	cfg, err := parseConfig(in)
	r.entries[in.ID] = r.start(ctx, in, cfg, err)
	return true
}

// Stop stops one of this node's inputs until Start, leaving it configured
// (STOPPED in its state). It reports false for an input this node does not
// run.
func (r *Runner) Stop(inputID string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	e := r.entries[inputID]
	if r.closed || e == nil {
		return false
	}
	if e.srv != nil {
		r.states.Set(inputID, inputs.StateStopping, "")
		e.srv.stop()
	}
	e.inst, e.srv, e.stopped = nil, nil, true
	r.states.Set(inputID, inputs.StateStopped, "")
	return true
}

// Runs reports whether the input runs on this node: a global input, or
// one of this node's.
func (r *Runner) Runs(in inputs.Input) bool { return r.mine(in) }

// mine reports whether the input runs on this node.
func (r *Runner) mine(in inputs.Input) bool {
	return in.Global || in.Node != nil && *in.Node == r.opts.NodeID
}

// start launches one input and reports its state.
func (r *Runner) start(ctx context.Context, in inputs.Input, cfg config, cfgErr error) *entry {
	e := &entry{cfg: cfg}
	log := r.opts.Logger.With("input", in.ID, "type", in.Type, "title", in.Title)
	if cfgErr != nil {
		e.cfgErr = cfgErr.Error()
		log.Error("input not started", "err", cfgErr)
		r.states.Set(in.ID, inputs.StateFailed, e.cfgErr)
		return e
	}
	r.states.Set(in.ID, inputs.StateStarting, "")
	inst := r.newInstance(in, cfg, log)
	var srv server
	var err error
	switch cfg.typ {
	case inputs.GELFHTTPType:
		srv, err = startHTTP(ctx, inst)
	case inputs.GELFTCPType:
		srv, err = startTCP(ctx, inst)
	case inputs.GELFUDPType:
		srv, err = startUDP(ctx, inst)
	}
	if err != nil {
		log.Error("input failed to start", "err", err)
		r.states.Set(in.ID, inputs.StateFailed, err.Error())
		return e
	}
	e.inst, e.srv = inst, srv
	log.Info("input started", "address", srv.addr().String())
	r.states.Set(in.ID, inputs.StateRunning, "")
	return e
}

// Addr returns the address a running input is bound to, which tells the
// port of an input configured with port 0.
func (r *Runner) Addr(inputID string) (net.Addr, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e := r.entries[inputID]
	if e == nil || e.srv == nil {
		return nil, false
	}
	return e.srv.addr(), true
}

// Close stops every input, releasing their ports, and reports them
// STOPPED. Apply does nothing afterwards. Call it before closing the
// journal.
func (r *Runner) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	r.closed = true
	var wg sync.WaitGroup
	for id, e := range r.entries {
		if e.srv == nil {
			continue
		}
		wg.Go(func() {
			e.srv.stop()
			r.states.Set(id, inputs.StateStopped, "")
		})
	}
	wg.Wait()
	clear(r.entries)
	return nil
}
