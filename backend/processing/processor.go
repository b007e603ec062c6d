// Package processing owns the message pipeline between the journal and the
// message store: it reads what inputs journaled, routes each message into
// its streams, writes it to the index sets of those streams, hands it to
// the streams' outputs, and commits the journal only once the store has
// made the messages durable.
package processing

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/loggate/loggate/backend/journal"
	"github.com/loggate/loggate/backend/messages"
	"github.com/loggate/loggate/backend/metrics"
	"github.com/loggate/loggate/backend/streams"
)

// Journal is the part of *journal.Journal processing reads and commits.
type Journal interface {
	Committed() uint64
	End() uint64
	Wait(ctx context.Context, offset uint64) error
	Read(from uint64, limit int) ([]journal.Entry, error)
	Commit(offset uint64) error
}

// Store is the part of messages.Store processing writes to.
type Store interface {
	Write(ctx context.Context, prefix string, msgs []messages.Message) error
	Flush(ctx context.Context, checkpoint uint64) error
	Checkpoint() uint64
}

// Streams gives the current streams; *streams.Service satisfies it.
type Streams interface {
	All() []*streams.Stream
	// Refresh picks up what other nodes of the cluster changed; it asks
	// the store at most once a second.
	Refresh(ctx context.Context) error
}

// IndexSets resolves an index set id to its index prefix.
type IndexSets interface {
	Prefix(ctx context.Context, indexSetID string) (string, bool)
	DefaultPrefix(ctx context.Context) (string, error)
}

// Forwarder hands a stored message to the outputs of its streams. It must
// not block.
type Forwarder interface {
	Forward(m *messages.Message)
}

// PipelineRunner runs Graylog's pipeline processor on a message before it
// is routed by stream rules. It appends to dst the messages to go on with:
// msg itself, changed, unless a rule dropped it, then the messages rules
// created. It must not fail: a rule's error is recorded on the message.
type PipelineRunner interface {
	Process(ctx context.Context, msg messages.Message, dst []messages.Message) []messages.Message
}

// Options tune a Processor. Zero fields take the defaults.
type Options struct {
	// BatchSize is the most records read from the journal at once.
	BatchSize int
	// FlushEvery is the most messages written between two flushes, and
	// FlushInterval the longest time; a flush is what lets the journal
	// commit, so these bound the journal's uncommitted backlog.
	FlushEvery    int
	FlushInterval time.Duration
	// FlushBytes is the most journal record bytes written between two
	// flushes (16 MiB): the store holds what it has not flushed in
	// memory, so a burst of large messages must not wait for the count
	// or the interval.
	FlushBytes int
	// RetryMin and RetryMax bound the backoff while the store fails.
	RetryMin, RetryMax time.Duration
	// Processing reports whether processing runs; when it returns false
	// the processor stops reading (paused via /system/processing/pause).
	Processing func() bool
	Forwarder  Forwarder
	// Pipelines, when set, runs on every message before stream routing.
	Pipelines PipelineRunner
	// Refused, when set, is told of each message the store refused for
	// good, to keep as an indexing failure (/system/indexer/failures).
	Refused func(ctx context.Context, msg messages.Message, prefix string, err error)
	Metrics *metrics.Registry
	Logger  *slog.Logger
	// Now is the clock of the metrics.
	Now func() time.Time
}

// Processor is the pipeline of one node. Run it in one goroutine.
type Processor struct {
	j       Journal
	st      Store
	streams Streams
	sets    IndexSets
	opts    Options

	incoming, processed, written, failures, bad *metrics.Meter
	decodedBytes, outputBytes                   *metrics.Counter

	mu    sync.Mutex
	state State
	// progress is closed and replaced whenever next advances, so tests and
	// shutdown can wait for processing to reach an offset without polling.
	progress chan struct{}
}

// State is what the processor has done, for /system/journal and tests.
type State struct {
	// Next is the first journal offset not yet written to the store.
	Next uint64
	// Flushed is the checkpoint of the last flush: everything before it
	// is durable in the store and committed in the journal.
	Flushed uint64
	// Failing is the last store error while it lasts, "" otherwise.
	Failing string
	// Dropped counts the messages the store refused for good (see write).
	Dropped uint64
}

var (
	_ Journal = (*journal.Journal)(nil)
	_ Store   = messages.Store(nil)
	_ Streams = (*streams.Service)(nil)
)

// New returns a processor; Run starts it.
func New(j Journal, st Store, ss Streams, sets IndexSets, opts Options) *Processor {
	if opts.BatchSize <= 0 {
		opts.BatchSize = 1024
	}
	if opts.FlushEvery <= 0 {
		opts.FlushEvery = 50000
	}
	if opts.FlushInterval <= 0 {
		opts.FlushInterval = time.Second
	}
	if opts.FlushBytes <= 0 {
		opts.FlushBytes = 16 << 20
	}
	if opts.RetryMin <= 0 {
		opts.RetryMin = 50 * time.Millisecond
	}
	if opts.RetryMax <= 0 {
		opts.RetryMax = 5 * time.Second
	}
	if opts.Processing == nil {
		opts.Processing = func() bool { return true }
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Metrics == nil {
		opts.Metrics = metrics.New(opts.Now)
	}
	p := &Processor{j: j, st: st, streams: ss, sets: sets, opts: opts, progress: make(chan struct{})}
	r := opts.Metrics
	p.incoming = r.Meter("org.graylog2.shared.buffers.processors.ProcessBufferProcessor.incomingMessages")
	p.processed = r.Meter("org.graylog2.throughput.input")
	p.written = r.Meter("org.graylog2.throughput.output")
	p.failures = r.Meter("org.graylog2.indexer.messages.Messages.failures")
	p.bad = r.Meter("org.graylog2.shared.buffers.processors.ProcessBufferProcessor.decodeFailures")
	// Graylog's traffic counters, which /system/cluster/traffic reports:
	// bytes of the messages decoded and of those written to the store.
	p.decodedBytes = r.Counter("org.graylog2.traffic.decoded")
	p.outputBytes = r.Counter("org.graylog2.traffic.output")
	return p
}

// State returns what the processor has done so far.
func (p *Processor) State() State {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.state
}

// WaitFlushed blocks until every journal offset below next is durable in
// the store, or ctx ends.
func (p *Processor) WaitFlushed(ctx context.Context, next uint64) error {
	return p.wait(ctx, func(s State) bool { return s.Flushed >= next })
}

// WaitProcessed blocks until every journal offset below next is written to
// the store (searchable, not necessarily durable), or ctx ends.
func (p *Processor) WaitProcessed(ctx context.Context, next uint64) error {
	return p.wait(ctx, func(s State) bool { return s.Next >= next })
}

func (p *Processor) wait(ctx context.Context, done func(State) bool) error {
	for {
		p.mu.Lock()
		done, ch := done(p.state), p.progress
		p.mu.Unlock()
		if done {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (p *Processor) update(fn func(*State)) {
	p.mu.Lock()
	fn(&p.state)
	close(p.progress)
	p.progress = make(chan struct{})
	p.mu.Unlock()
}

// Run processes until ctx ends, then flushes what it wrote. It resumes
// after the store's checkpoint or the journal's commit, whichever is
// further: a crash between a flush and its commit replays nothing twice.
func (p *Processor) Run(ctx context.Context) error {
	committed, cp := p.j.Committed(), p.st.Checkpoint()
	next := max(committed, cp)
	if cp > p.j.End() {
		// The store was flushed from a journal that held more than this
		// one ever did: the journal directory was lost or replaced, and
		// its offsets started again. Resuming at the checkpoint would
		// silently skip every record up to it.
		p.opts.Logger.Warn("the message store's checkpoint is beyond the end of the journal; the journal was replaced, processing it from its start",
			"checkpoint", cp, "journal_end", p.j.End(), "journal_committed", committed)
		next = committed
	}
	if next > committed {
		// The store flushed past the commit before a crash: commit now so
		// the journal can drop what the store already holds. Before the
		// state is published, so that WaitFlushed implies the commit.
		_ = p.j.Commit(next - 1)
	}
	p.update(func(s *State) { s.Next, s.Flushed = next, next })
	pending, pendingBytes := 0, 0
	// Flush timing runs on the monotonic clock, not on Options.Now: it is
	// about disk work, and a test's frozen clock must not stop flushes.
	lastFlush := time.Now()
	for {
		if ctx.Err() != nil {
			return p.final(next, pending)
		}
		if !p.opts.Processing() {
			// What was written before the pause is flushed now, not when
			// processing resumes: a pause may last, and until the flush
			// the journal cannot drop those records.
			if pending > 0 {
				if err := p.flush(ctx, next); err != nil {
					return p.stopped(ctx, next, pending, err)
				}
				pending, pendingBytes, lastFlush = 0, 0, time.Now()
			}
			if err := p.pausedWait(ctx); err != nil {
				return p.final(next, pending)
			}
			continue
		}
		wait := p.opts.FlushInterval
		if pending > 0 {
			wait = max(0, p.opts.FlushInterval-time.Since(lastFlush))
		}
		wctx, cancel := context.WithTimeout(ctx, wait)
		err := p.j.Wait(wctx, next)
		cancel()
		switch {
		case err == nil:
			n, size, err := p.batch(ctx, next)
			if err != nil {
				if ctx.Err() != nil {
					return p.final(next, pending)
				}
				return err
			}
			next += uint64(n)
			pending += n
			pendingBytes += size
			p.update(func(s *State) { s.Next = next })
		case errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil:
		case ctx.Err() != nil:
			return p.final(next, pending)
		default:
			return fmt.Errorf("processing: waiting for the journal: %w", err)
		}
		if pending > 0 && (pending >= p.opts.FlushEvery || pendingBytes >= p.opts.FlushBytes || time.Since(lastFlush) >= p.opts.FlushInterval) {
			if err := p.flush(ctx, next); err != nil {
				return p.stopped(ctx, next, pending, err)
			}
			pending, pendingBytes, lastFlush = 0, 0, time.Now()
		}
	}
}

// pausedWait waits a flush interval while processing is paused.
func (p *Processor) pausedWait(ctx context.Context) error {
	t := time.NewTimer(p.opts.FlushInterval)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// stopped ends Run after a failed flush: a flush only fails for good when
// ctx ended (then the final flush is tried) or when the journal refused
// the commit, which no retry mends.
func (p *Processor) stopped(ctx context.Context, next uint64, pending int, err error) error {
	if ctx.Err() != nil {
		return p.final(next, pending)
	}
	return err
}

// final flushes on shutdown with a bounded grace period; what it cannot
// flush is replayed from the journal at the next start.
func (p *Processor) final(next uint64, pending int) error {
	if pending == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.st.Flush(ctx, next); err != nil {
		return fmt.Errorf("processing: final flush: %w", err)
	}
	_ = p.j.Commit(next - 1)
	p.update(func(s *State) { s.Flushed = next })
	return nil
}

// batch reads, routes, writes and forwards one batch starting at from, and
// returns how many journal records it consumed and their bytes. Store failures are retried
// until they pass or ctx ends: nothing read is skipped but unreadable
// records and the messages the store refuses for good (see write).
func (p *Processor) batch(ctx context.Context, from uint64) (int, int, error) {
	entries, err := p.j.Read(from, p.opts.BatchSize)
	if err != nil {
		return 0, 0, fmt.Errorf("processing: reading the journal at %d: %w", from, err)
	}
	p.incoming.Mark(int64(len(entries)))
	if err := p.streams.Refresh(ctx); err != nil {
		// Routing goes on with the streams this node knows.
		p.opts.Logger.Warn("refreshing the streams failed", "err", err)
	}
	rt := newRouter(p.streams.All(), func(id string) (string, bool) { return p.sets.Prefix(ctx, id) })
	byPrefix := map[string][]messages.Message{}
	var prefixes []string
	msgs := make([]messages.Message, 0, len(entries))
	var out []messages.Message // what the pipelines made of one message
	var size int64
	for _, e := range entries {
		var m messages.Message
		if err := m.UnmarshalBinary(e.Data); err != nil {
			// A record this version cannot read would block the journal
			// forever; it is counted, logged by offset (never its
			// content) and passed.
			p.bad.Mark(1)
			p.opts.Logger.Warn("skipping unreadable journal record", "offset", e.Offset, "err", err)
			continue
		}
		processed := append(out[:0], m)
		if p.opts.Pipelines != nil {
			processed = p.opts.Pipelines.Process(ctx, m, out[:0])
		}
		out = processed
		for _, m := range processed {
			prefixes = rt.route(&m, prefixes, p.opts.Pipelines != nil)
			if len(prefixes) == 0 {
				// No stream's index set is known: the default index set takes
				// the message. Not knowing it either is retried, not fatal: the
				// index sets' store may be failing for a moment.
				var def string
				err := p.retry(ctx, "default index set lookup", func() (err error) {
					def, err = p.sets.DefaultPrefix(ctx)
					return err
				})
				if err != nil {
					return 0, 0, err
				}
				prefixes = append(prefixes, def)
			}
			msgs = append(msgs, m)
			indexed := forIndex(m)
			for _, pre := range prefixes {
				byPrefix[pre] = append(byPrefix[pre], indexed)
			}
		}
		size += int64(len(e.Data))
	}
	for pre, batch := range byPrefix {
		if err := p.write(ctx, pre, batch); err != nil {
			return 0, 0, err
		}
	}
	p.processed.Mark(int64(len(msgs)))
	p.written.Mark(int64(len(msgs)))
	p.decodedBytes.Inc(size)
	p.outputBytes.Inc(size)
	if p.opts.Forwarder != nil {
		for i := range msgs {
			p.opts.Forwarder.Forward(&msgs[i])
		}
	}
	return len(entries), int(size), nil
}

// write writes msgs to the index set of prefix. A failure wrapping
// messages.ErrUnavailable is the store's and is retried until it passes.
// Any other is the messages' own (a mapping conflict, a message the store
// refuses) and would fail every retry, stopping the pipeline for good: the
// batch is then written again one message at a time and the messages the
// store refuses are dropped, counted and logged, as Graylog records an
// indexing failure and goes on. Writing a message again is safe: the store
// replaces it by its id.
func (p *Processor) write(ctx context.Context, prefix string, msgs []messages.Message) error {
	err := p.retry(ctx, writeOp, func() error { return p.st.Write(ctx, prefix, msgs) })
	var refused *refusedError
	if !errors.As(err, &refused) {
		return err
	}
	for i := range msgs {
		err := p.retry(ctx, writeOp, func() error { return p.st.Write(ctx, prefix, msgs[i:i+1]) })
		if !errors.As(err, &refused) {
			if err != nil {
				return err
			}
			continue
		}
		p.update(func(s *State) { s.Dropped++ })
		p.opts.Logger.Warn("message store refused a message; dropping it",
			"id", msgs[i].ID, "index_prefix", prefix, "err", refused.err)
		if p.opts.Refused != nil {
			p.opts.Refused(ctx, msgs[i], prefix, refused.err)
		}
	}
	return nil
}

// writeOp names store writes in retry and its logs.
const writeOp = "message store write"

// refusedError is a write failure that retrying cannot mend.
type refusedError struct{ err error }

func (e *refusedError) Error() string { return e.err.Error() }
func (e *refusedError) Unwrap() error { return e.err }

// flush makes the store durable up to next and then commits the journal.
func (p *Processor) flush(ctx context.Context, next uint64) error {
	if err := p.retry(ctx, "message store flush", func() error { return p.st.Flush(ctx, next) }); err != nil {
		return err
	}
	if err := p.j.Commit(next - 1); err != nil {
		return fmt.Errorf("processing: committing the journal: %w", err)
	}
	p.update(func(s *State) { s.Flushed = next })
	return nil
}

// clearFailing resets State.Failing; it skips the update, and the wake-up
// of every waiter, when nothing failed, which is every batch but a few.
func (p *Processor) clearFailing() {
	p.mu.Lock()
	failing := p.state.Failing != ""
	p.mu.Unlock()
	if failing {
		p.update(func(s *State) { s.Failing = "" })
	}
}

// retry runs op until it succeeds, backing off exponentially, or ctx ends.
// A write failure that does not wrap messages.ErrUnavailable is not
// retried but returned as a *refusedError.
func (p *Processor) retry(ctx context.Context, what string, op func() error) error {
	delay := p.opts.RetryMin
	for {
		err := op()
		if err == nil {
			p.clearFailing()
			return nil
		}
		p.failures.Mark(1)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if what == writeOp && !errors.Is(err, messages.ErrUnavailable) {
			return &refusedError{err}
		}
		p.update(func(s *State) { s.Failing = err.Error() })
		p.opts.Logger.Warn(what+" failed; retrying", "err", err, "retry_in", delay)
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
		delay = min(2*delay, p.opts.RetryMax)
	}
}
