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
	"sync/atomic"
	"time"

	"github.com/loggate/loggate/backend/logs/journal"
	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/logs/streams"
	"github.com/loggate/loggate/backend/system/metrics"
)

// Journal is the part of *journal.Journal processing reads and commits.
type Journal interface {
	Committed() uint64
	End() uint64
	Wait(ctx context.Context, offset uint64) error
	ReadInto(dst []journal.Entry, buf []byte, from uint64, limit int) ([]journal.Entry, []byte, error)
	Commit(offset uint64) error
}

// Store is the part of messages.Store processing writes to.
type Store interface {
	Write(ctx context.Context, prefix string, msgs []messages.Message) error
	Flush(ctx context.Context, checkpoint uint64) error
	Checkpoint() uint64
}

// Sealer is a Store whose flush can start with a short step: Seal ends
// what was written so far and returns the rest of the flush, which makes
// that durable with checkpoint and may be run again after it failed.
// Writes after Seal are not part of it, so processing goes on writing
// while such a flush runs (*embedded.Store). A Store that wraps another
// answers errors.ErrUnsupported when the one it wraps cannot seal.
type Sealer interface {
	Seal(ctx context.Context, checkpoint uint64) (func(context.Context) error, error)
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

	// The message processors (see processors.go), set before Run.
	byClass   map[string]MessageProcessor
	filters   []MessageProcessor
	order     OrderFunc
	lastOrder []string

	// records reads the journal's records, and index makes their
	// indexed copies; entries and readBuf are the memory the journal reads
	// them into, reused by every batch. Only Run's goroutine uses them.
	records messages.RecordReader
	index   indexer
	entries []journal.Entry
	readBuf []byte
	// noSeal is set once the store said it cannot seal.
	noSeal bool

	incoming, processed, written, failures, bad *metrics.Meter
	decodedBytes, outputBytes                   *metrics.Counter

	// current is the batch being read, routed and written now, nil while
	// the processor waits for records (see Dump).
	current atomic.Pointer[batchAt]

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
	return p.pipeline(next).run(ctx)
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

// maxReadBuffer is the most journal read memory kept from one batch to
// the next.
const maxReadBuffer = 4 << 20

// prepared is a batch read from the journal and routed, ready for the
// store.
type prepared struct {
	// n counts the journal records it consumed, size their bytes.
	n, size int
	// writes are the messages of each index prefix, as indexed, in the
	// order the prefixes first came up.
	writes []prefixWrite
	// msgs are the messages as processed, for the outputs.
	msgs []messages.Message
}

type prefixWrite struct {
	prefix string
	msgs   []messages.Message
}

// prepare reads one batch starting at from and routes it: everything
// before the store. Unreadable records are passed (counted and logged).
func (p *Processor) prepare(ctx context.Context, from uint64) (*prepared, error) {
	entries, buf, err := p.j.ReadInto(p.entries, p.readBuf, from, p.opts.BatchSize)
	if err != nil {
		return nil, fmt.Errorf("processing: reading the journal at %d: %w", from, err)
	}
	// The records are copied out as they are read: the memory is reused
	// by the next batch, unless a huge record grew it.
	p.entries, p.readBuf = entries, buf
	if len(entries) > 0 {
		p.current.Store(&batchAt{from: from, n: len(entries)})
	}
	if cap(buf) > maxReadBuffer {
		p.readBuf = nil
	}
	p.incoming.Mark(int64(len(entries)))
	if err := p.streams.Refresh(ctx); err != nil {
		// Routing goes on with the streams this node knows.
		p.opts.Logger.Warn("refreshing the streams failed", "err", err)
	}
	rt := newRouter(p.streams.All(), func(id string) (string, bool) { return p.sets.Prefix(ctx, id) })
	p.records.Spare = p.spareFields()
	decoded := make([]messages.Message, 0, len(entries))
	// Every message starts on the default stream; their stream slices
	// are cut from one, with room for one stream more each.
	streamIDs := make([]string, 2*len(entries))
	size := 0
	for _, e := range entries {
		var m messages.Message
		if err := p.records.Read(&m, e.Data); err != nil {
			// A record this version cannot read would block the journal
			// forever; it is counted, logged by offset (never its
			// content) and passed.
			p.bad.Mark(1)
			p.opts.Logger.Warn("skipping unreadable journal record", "offset", e.Offset, "err", err)
			continue
		}
		if m.Streams == nil {
			i := 2 * len(decoded)
			m.Streams = streamIDs[i : i : i+2]
		}
		start(&m)
		decoded = append(decoded, m)
		size += len(e.Data)
	}
	batch := make([]*messages.Message, len(decoded))
	for i := range decoded {
		batch[i] = &decoded[i]
	}
	batch = p.process(ctx, batch, rt)
	b := &prepared{n: len(entries), size: size}
	if unchanged(batch, decoded) {
		// The processors kept the messages read, in order: they are the
		// batch's messages as they are, no copy needed.
		b.msgs = decoded[:0]
	} else {
		b.msgs = make([]messages.Message, 0, len(batch))
	}
	var prefixes []string
	for _, m := range batch {
		prefixes = rt.prefixesOf(m, prefixes)
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
				return nil, err
			}
			prefixes = append(prefixes, def)
		}
		indexed := p.index.forIndex(*m)
		m.Fields = shared(m.Fields)
		b.msgs = append(b.msgs, *m)
		for _, pre := range prefixes {
			b.add(pre, indexed)
		}
	}
	p.processed.Mark(int64(len(b.msgs)))
	p.decodedBytes.Inc(int64(size))
	return b, nil
}

// unchanged reports whether batch points at the messages of decoded, in
// order.
func unchanged(batch []*messages.Message, decoded []messages.Message) bool {
	if len(batch) != len(decoded) {
		return false
	}
	for i := range batch {
		if batch[i] != &decoded[i] {
			return false
		}
	}
	return true
}

// add appends m to the messages of prefix. A prefix's messages are
// allocated for the whole batch at once: most batches go to one prefix.
func (b *prepared) add(prefix string, m messages.Message) {
	for i := range b.writes {
		if b.writes[i].prefix == prefix {
			b.writes[i].msgs = append(b.writes[i].msgs, m)
			return
		}
	}
	msgs := make([]messages.Message, 1, cap(b.msgs))
	msgs[0] = m
	b.writes = append(b.writes, prefixWrite{prefix: prefix, msgs: msgs})
}

// store writes a prepared batch to the store and forwards its messages.
// Store failures are retried until they pass or ctx ends; the messages the
// store refuses for good are dropped (see write).
func (p *Processor) store(ctx context.Context, b *prepared) error {
	for _, w := range b.writes {
		if err := p.write(ctx, w.prefix, w.msgs); err != nil {
			return err
		}
	}
	p.written.Mark(int64(len(b.msgs)))
	p.outputBytes.Inc(int64(b.size))
	if p.opts.Forwarder != nil {
		for i := range b.msgs {
			p.opts.Forwarder.Forward(&b.msgs[i])
		}
	}
	return nil
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
//
// sealed, when set, is the rest of a flush Seal began: it is what is
// retried then, not a Flush of everything written meanwhile.
func (p *Processor) flush(ctx context.Context, next uint64, sealed func(context.Context) error) error {
	op := func() error { return p.st.Flush(ctx, next) }
	if sealed != nil {
		op = func() error { return sealed(ctx) }
	}
	if err := p.retry(ctx, "message store flush", op); err != nil {
		return err
	}
	if err := p.j.Commit(next - 1); err != nil {
		return fmt.Errorf("processing: committing the journal: %w", err)
	}
	p.update(func(s *State) { s.Flushed = next })
	return nil
}

// seal begins a flush of everything written so far when the store seals,
// and returns the rest of it; nil when the store cannot seal or the seal
// failed (the store is closing, or failing: a Flush then retries it all).
func (p *Processor) seal(ctx context.Context, checkpoint uint64) func(context.Context) error {
	s, ok := p.st.(Sealer)
	if !ok || p.noSeal {
		return nil
	}
	flush, err := s.Seal(ctx, checkpoint)
	if errors.Is(err, errors.ErrUnsupported) {
		p.noSeal = true
	}
	if err != nil {
		return nil
	}
	return flush
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
