package processing_test

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/logs/indexsets"
	"github.com/loggate/loggate/backend/logs/journal"
	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/logs/messages/embedded"
	"github.com/loggate/loggate/backend/logs/processing"
	"github.com/loggate/loggate/backend/logs/streams"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/backend/store/bolt"
)

// epoch is the fake clock's time.
var epoch = time.Date(2021, 3, 4, 5, 6, 7, 0, time.UTC)

func clock() time.Time { return epoch }

// waitTimeout bounds every wait of a test, so that a processor that
// never gets there fails the test rather than hanging it.
const waitTimeout = 10 * time.Second

// env is the pipeline of one node on real parts: index sets and streams
// on a bolt store, a journal and an embedded message store, each in its
// own directory of a test directory, so that a test can "crash" and
// reopen them.
type env struct {
	t       testing.TB
	dir     string
	db      store.Store
	sets    *indexsets.Service
	streams *streams.Service
	j       *journal.Journal
	ms      *embedded.Store
	// fault fails the message store while it holds one.
	fault atomic.Pointer[fault]
	// defaultPrefix is the default index set's prefix.
	defaultPrefix string
}

func newEnv(t testing.TB) *env {
	t.Helper()
	e := &env{t: t, dir: t.TempDir()}
	db, err := bolt.Open(filepath.Join(e.dir, "db"), indexsets.Indexes)
	if err != nil {
		t.Fatal(err)
	}
	e.db = db
	t.Cleanup(func() { db.Close() })
	ctx := context.Background()
	if e.sets, err = indexsets.NewService(ctx, db, nil, nil, clock); err != nil {
		t.Fatal(err)
	}
	// No outputs: routing does not look at them.
	if e.streams, err = streams.NewService(ctx, db, e.sets, nil, clock); err != nil {
		t.Fatal(err)
	}
	def, err := e.sets.DefaultID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	is, err := e.sets.Get(ctx, def)
	if err != nil {
		t.Fatal(err)
	}
	e.defaultPrefix = is.IndexPrefix
	e.openJournal()
	e.openStore()
	return e
}

// openJournal opens the journal; the test's cleanup closes it.
func (e *env) openJournal() {
	e.t.Helper()
	j, err := journal.Open(filepath.Join(e.dir, "journal"), journal.Options{})
	if err != nil {
		e.t.Fatal(err)
	}
	e.j = j
	e.t.Cleanup(func() { j.Close() })
}

// openStore opens the message store; the test's cleanup closes it.
func (e *env) openStore() {
	e.t.Helper()
	ms, err := embedded.Open(filepath.Join(e.dir, "messages"), embedded.Options{Now: clock, Fault: func() error {
		f := e.fault.Load()
		if f == nil {
			return nil
		}
		select {
		case f.hits <- struct{}{}:
		default:
		}
		return f.err
	}})
	if err != nil {
		e.t.Fatal(err)
	}
	e.ms = ms
	e.t.Cleanup(func() { ms.Close() })
}

// fault is a failure of the message store's disk.
type fault struct {
	err error
	// hits receives when the store meets the failure, if it is free.
	hits chan struct{}
}

// fail makes the message store fail with err, or work again with nil. The
// channel receives as the store meets the failure.
func (e *env) fail(err error) <-chan struct{} {
	if err == nil {
		e.fault.Store(nil)
		return nil
	}
	f := &fault{err: err, hits: make(chan struct{}, 1)}
	e.fault.Store(f)
	return f.hits
}

// receive waits for ch, failing the test after waitTimeout.
func receive(t testing.TB, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(waitTimeout):
		t.Fatalf("timed out waiting for %s", what)
	}
}

// indexSet creates a writable index set and returns its id.
func (e *env) indexSet(prefix string) string {
	e.t.Helper()
	is, err := e.sets.Create(context.Background(), indexsets.IndexSet{
		Title: "set " + prefix, IndexPrefix: prefix, Writable: true, Shards: 1,
		RotationStrategyClass:  indexsets.MessageCountRotation,
		RotationStrategy:       indexsets.RotationConfig{Type: indexsets.MessageCountRotation + "Config", MaxDocsPerIndex: 1000},
		RetentionStrategyClass: indexsets.DeletionRetention,
		RetentionStrategy:      indexsets.RetentionConfig{Type: indexsets.DeletionRetention + "Config", MaxNumberOfIndices: 5},
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return is.ID
}

// stream creates st (on the default index set when it names none) and
// pauses it if it is Disabled; it returns its id.
func (e *env) stream(st streams.Stream) string {
	e.t.Helper()
	ctx := context.Background()
	if st.IndexSetID == "" {
		def, err := e.sets.DefaultID(ctx)
		if err != nil {
			e.t.Fatal(err)
		}
		st.IndexSetID = def
	}
	disabled := st.Disabled
	st.Disabled = false
	if err := e.streams.Create(ctx, &st); err != nil {
		e.t.Fatalf("creating stream %q: %v", st.Title, err)
	}
	if disabled {
		if err := e.streams.SetDisabled(ctx, st.ID, true); err != nil {
			e.t.Fatal(err)
		}
	}
	return st.ID
}

// journal appends msgs as records and returns one past the last offset.
func (e *env) journal(msgs ...messages.Message) uint64 {
	e.t.Helper()
	recs := make([][]byte, len(msgs))
	for i := range msgs {
		b, err := msgs[i].MarshalBinary()
		if err != nil {
			e.t.Fatal(err)
		}
		recs[i] = b
	}
	return e.appendRecords(recs...)
}

func (e *env) appendRecords(recs ...[]byte) uint64 {
	e.t.Helper()
	_, last, err := e.j.Append(context.Background(), recs...)
	if err != nil {
		e.t.Fatal(err)
	}
	return last + 1
}

// cache returns an index set cache over the env's index sets.
func (e *env) cache() *processing.IndexSetCache {
	return processing.NewIndexSetCache(e.sets, time.Minute, clock)
}

// runner is a processor running in the background.
type runner struct {
	t      testing.TB
	p      *processing.Processor
	cancel context.CancelFunc
	done   chan error
}

// start runs a processor over the env's parts until the test ends or
// stop is called. Unless opts says otherwise it flushes after every batch,
// so that WaitFlushed returns as soon as the records are processed.
// setup, when given, configures the processor (its message processors)
// before it runs.
func (e *env) start(opts processing.Options, setup ...func(*processing.Processor)) *runner {
	e.t.Helper()
	return e.startOn(e.ms, opts, setup...)
}

// startOn is start writing to st, which wraps the env's store.
func (e *env) startOn(st processing.Store, opts processing.Options, setup ...func(*processing.Processor)) *runner {
	e.t.Helper()
	if opts.FlushEvery == 0 {
		opts.FlushEvery = 1
	}
	if opts.RetryMin == 0 {
		opts.RetryMin, opts.RetryMax = time.Millisecond, 2*time.Millisecond
	}
	opts.Now = clock
	p := processing.New(e.j, st, e.streams, e.cache(), opts)
	for _, f := range setup {
		f(p)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &runner{t: e.t, p: p, cancel: cancel, done: make(chan error, 1)}
	go func() { r.done <- p.Run(ctx) }()
	e.t.Cleanup(func() { r.stop() })
	return r
}

// stop cancels the processor and returns what Run returned.
func (r *runner) stop() error {
	r.cancel()
	select {
	case err, ok := <-r.done:
		if ok {
			close(r.done)
		}
		return err
	case <-time.After(waitTimeout):
		r.t.Error("the processor did not stop")
		return nil
	}
}

// flushed waits until every offset below next is flushed.
func (r *runner) flushed(next uint64) {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	if err := r.p.WaitFlushed(ctx, next); err != nil {
		r.t.Fatalf("WaitFlushed(%d): %v; state %+v", next, err, r.p.State())
	}
}

// processed waits until every offset below next is written.
func (r *runner) processed(next uint64) {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	if err := r.p.WaitProcessed(ctx, next); err != nil {
		r.t.Fatalf("WaitProcessed(%d): %v; state %+v", next, err, r.p.State())
	}
}

// all returns every stored message, with the index that holds it.
func (e *env) all() []messages.Hit {
	e.t.Helper()
	res, err := e.ms.Search(context.Background(), messages.Query{Limit: messages.DefaultResultWindow})
	if err != nil {
		e.t.Fatal(err)
	}
	if res.Total != int64(len(res.Hits)) {
		e.t.Fatalf("search found %d messages but returned %d", res.Total, len(res.Hits))
	}
	return res.Hits
}

// copies counts the stored copies of every message by id.
func (e *env) copies() map[string]int {
	e.t.Helper()
	n := map[string]int{}
	for _, h := range e.all() {
		n[h.Message.ID]++
	}
	return n
}

// msg is a message with the given id and fields (key, value pairs).
func msg(id string, kv ...any) messages.Message {
	m := messages.Message{ID: id, Timestamp: epoch}
	for i := 0; i < len(kv); i += 2 {
		m.Fields = append(m.Fields, messages.Field{Key: kv[i].(string), Value: kv[i+1]})
	}
	return m
}

// numbered returns n messages with ids prefix-0, prefix-1, ...
func numbered(prefix string, n int) []messages.Message {
	out := make([]messages.Message, n)
	for i := range out {
		out[i] = msg(prefix+"-"+string(rune('a'+i/26))+string(rune('a'+i%26)), "source", "host", "n", int64(i))
	}
	return out
}

func ids(msgs []messages.Message) []string {
	out := make([]string, len(msgs))
	for i := range msgs {
		out[i] = msgs[i].ID
	}
	return out
}

// forwarded is a Forwarder that records what it is handed.
type forwarded struct {
	mu   sync.Mutex
	msgs []messages.Message
}

func (f *forwarded) Forward(m *messages.Message) {
	f.mu.Lock()
	defer f.mu.Unlock()
	// The processor may reuse its messages: keep a copy.
	c := *m
	c.Streams = slices.Clone(m.Streams)
	f.msgs = append(f.msgs, c)
}

func (f *forwarded) all() []messages.Message {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.msgs)
}

var errDisk = errors.New("disk on fire")
