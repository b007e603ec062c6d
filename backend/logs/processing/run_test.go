package processing_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/logs/messages/embedded"
	"github.com/loggate/loggate/backend/logs/processing"
	"github.com/loggate/loggate/backend/system/metrics"
)

// Never flush but on demand: no batch reaches FlushEvery, no test lasts
// FlushInterval.
const (
	neverEvery    = 1 << 30
	neverInterval = time.Hour
)

// wantOnce checks that the store holds exactly the messages of want, each
// once.
func wantOnce(t *testing.T, e *env, want []string) {
	t.Helper()
	got := e.copies()
	for id, n := range got {
		if n != 1 {
			t.Errorf("message %s is stored %d times", id, n)
		}
	}
	if ids := slices.Sorted(maps.Keys(got)); !slices.Equal(ids, slices.Sorted(slices.Values(want))) {
		t.Errorf("stored %v, want %v", ids, slices.Sorted(slices.Values(want)))
	}
}

func meterCount(t *testing.T, reg *metrics.Registry, name string) int64 {
	t.Helper()
	b, ok := reg.MarshalMetric(name)
	if !ok {
		t.Fatalf("no metric %s", name)
	}
	return gjson.GetBytes(b, "count").Int()
}

// TestResume checks where Run starts: after the journal's commit or the
// store's checkpoint, whichever is further, unless the checkpoint lies
// beyond the journal's end (a replaced journal), and that it commits what
// the store already holds at once.
func TestResume(t *testing.T) {
	const n = 10
	cases := []struct {
		name       string
		checkpoint uint64 // flushed into the store before Run
		committed  uint64 // first offset left uncommitted before Run
		wantFirst  int
	}{
		{name: "fresh", wantFirst: 0},
		{name: "journal committed", committed: 4, wantFirst: 4},
		{name: "store flushed past the commit", checkpoint: 6, wantFirst: 6},
		{name: "store flushed everything", checkpoint: n, committed: 2, wantFirst: n},
		{name: "commit past the checkpoint", checkpoint: 3, committed: 7, wantFirst: 7},
		{name: "checkpoint of a replaced journal", checkpoint: 100, committed: 0, wantFirst: 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			ctx := context.Background()
			msgs := numbered("m", n)
			end := e.journal(msgs...)
			if tc.checkpoint > 0 {
				if err := e.ms.Flush(ctx, tc.checkpoint); err != nil {
					t.Fatal(err)
				}
			}
			if tc.committed > 0 {
				if err := e.j.Commit(tc.committed - 1); err != nil {
					t.Fatal(err)
				}
			}
			fw := &forwarded{}
			r := e.start(processing.Options{Forwarder: fw})
			r.flushed(end)
			want := ids(msgs[tc.wantFirst:])
			if got := ids(fw.all()); !slices.Equal(got, want) {
				t.Errorf("forwarded %v, want %v", got, want)
			}
			wantOnce(t, e, want)
			if got := e.j.Committed(); got != end {
				t.Errorf("journal committed up to %d, want %d", got, end)
			}
			if st := r.p.State(); st.Next != end || st.Flushed != end {
				t.Errorf("state %+v, want next and flushed %d", st, end)
			}
			wantCP := end
			if tc.wantFirst == n {
				wantCP = tc.checkpoint // nothing was processed, nothing flushed
			}
			if got := e.ms.Checkpoint(); got != wantCP {
				t.Errorf("store checkpoint %d, want %d", got, wantCP)
			}
		})
	}
}

// TestFlushCommits checks that every flush commits the journal, that
// WaitFlushed returns once it did, and that the forwarder sees each
// message once, in journal order.
func TestFlushCommits(t *testing.T) {
	e := newEnv(t)
	fw := &forwarded{}
	r := e.start(processing.Options{Forwarder: fw, BatchSize: 4})
	var all []messages.Message
	for i, n := range []int{3, 9, 1} {
		msgs := numbered(string(rune('a'+i)), n)
		all = append(all, msgs...)
		end := e.journal(msgs...)
		r.flushed(end)
		if got := e.j.Committed(); got != end {
			t.Errorf("after flushing %d: journal committed %d", end, got)
		}
		if got := e.ms.Checkpoint(); got != end {
			t.Errorf("after flushing %d: store checkpoint %d", end, got)
		}
	}
	if got := ids(fw.all()); !slices.Equal(got, ids(all)) {
		t.Errorf("forwarded %v, want %v", got, ids(all))
	}
	wantOnce(t, e, ids(all))
}

// TestCrash closes the store under a running processor, as a crash would
// drop what it had not flushed, and checks that the next processor on the
// same directories replays exactly that, leaving every message stored
// once.
func TestCrash(t *testing.T) {
	e := newEnv(t)
	flushed := numbered("flushed", 10)
	r := e.start(processing.Options{})
	end := e.journal(flushed...)
	r.flushed(end)
	if err := r.stop(); err != nil {
		t.Fatal(err)
	}

	lost := numbered("lost", 5)
	r = e.start(processing.Options{FlushEvery: neverEvery, FlushInterval: neverInterval})
	r.processed(e.journal(lost...))
	wantOnce(t, e, ids(append(slices.Clone(flushed), lost...)))
	if st := r.p.State(); st.Flushed != end {
		t.Fatalf("state %+v before the crash, want flushed %d", st, end)
	}
	e.ms.Close() // drops the unflushed messages
	if err := r.stop(); !errors.Is(err, messages.ErrUnavailable) {
		t.Errorf("Run after the store closed: %v, want its final flush to fail with ErrUnavailable", err)
	}
	e.j.Close()

	e.openJournal()
	e.openStore()
	if cp, c := e.ms.Checkpoint(), e.j.Committed(); cp != end || c != end {
		t.Fatalf("after the crash: store checkpoint %d, journal committed %d, want %d", cp, c, end)
	}
	wantOnce(t, e, ids(flushed))
	fw := &forwarded{}
	r = e.start(processing.Options{Forwarder: fw})
	r.flushed(end + uint64(len(lost)))
	if got := ids(fw.all()); !slices.Equal(got, ids(lost)) {
		t.Errorf("replayed %v, want exactly the unflushed %v", got, ids(lost))
	}
	wantOnce(t, e, ids(append(slices.Clone(flushed), lost...)))
}

// TestStoreFailure fails the store's disk: the processor retries, reports
// the failure in its state, skips nothing, and carries on once the disk
// works again.
func TestStoreFailure(t *testing.T) {
	e := newEnv(t)
	reg := metrics.New(clock)
	r := e.start(processing.Options{Metrics: reg})
	first := numbered("before", 3)
	start := e.journal(first...)
	r.flushed(start)

	hits := e.fail(errDisk)
	msgs := numbered("during", 5)
	end := e.journal(msgs...)
	// Three failed attempts: the state of the second is published before
	// the third begins.
	for range 3 {
		receive(t, hits, "the store to fail")
	}
	st := r.p.State()
	if !strings.Contains(st.Failing, errDisk.Error()) {
		t.Errorf("Failing = %q while the store fails, want it to name %q", st.Failing, errDisk)
	}
	if st.Next != start || st.Flushed != start {
		t.Errorf("state %+v while the store fails, want next and flushed %d: nothing skipped", st, start)
	}
	if got := meterCount(t, reg, "org.graylog2.indexer.messages.Messages.failures"); got < 2 {
		t.Errorf("failures meter %d, want every failed attempt counted", got)
	}

	e.fail(nil)
	r.flushed(end)
	if st := r.p.State(); st.Failing != "" || st.Dropped != 0 {
		t.Errorf("state %+v after recovery, want no failure and nothing dropped", st)
	}
	wantOnce(t, e, ids(append(first, msgs...)))
}

// TestUnreadableRecord journals records that are no message: each is
// counted and passed, and the messages around them are stored.
func TestUnreadableRecord(t *testing.T) {
	e := newEnv(t)
	reg := metrics.New(clock)
	fw := &forwarded{}
	r := e.start(processing.Options{Metrics: reg, Forwarder: fw})
	msgs := numbered("ok", 3)
	rec := func(m messages.Message) []byte {
		b, err := m.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	truncated := rec(msg("cut", "source", "host"))
	end := e.appendRecords(rec(msgs[0]), []byte("{\"not\":\"a record\"}"), rec(msgs[1]),
		truncated[:len(truncated)-2], rec(msgs[2]))
	r.flushed(end)
	wantOnce(t, e, ids(msgs))
	if got := ids(fw.all()); !slices.Equal(got, ids(msgs)) {
		t.Errorf("forwarded %v, want %v", got, ids(msgs))
	}
	if got := meterCount(t, reg, "org.graylog2.shared.buffers.processors.ProcessBufferProcessor.decodeFailures"); got != 2 {
		t.Errorf("decode failures %d, want 2", got)
	}
	if got := e.j.Committed(); got != end {
		t.Errorf("journal committed %d, want %d: the bad records are passed", got, end)
	}
}

// TestRefusedMessage journals a message the store refuses for good (no
// _id): it is dropped and counted, and neither the messages of its batch
// nor the later ones are held up.
func TestRefusedMessage(t *testing.T) {
	e := newEnv(t)
	var mu sync.Mutex
	var refused []string
	r := e.start(processing.Options{Refused: func(_ context.Context, m messages.Message, prefix string, err error) {
		mu.Lock()
		defer mu.Unlock()
		refused = append(refused, fmt.Sprintf("%q in %s: %v", m.ID, prefix, err))
	}})
	msgs := numbered("ok", 4)
	bad := msg("", "source", "host")
	end := e.journal(msgs[0], bad, msgs[1])
	r.flushed(end)
	end = e.journal(msgs[2:]...)
	r.flushed(end)
	wantOnce(t, e, ids(msgs))
	if st := r.p.State(); st.Dropped != 1 || st.Failing != "" {
		t.Errorf("state %+v, want one message dropped and no failure", st)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(refused) != 1 || !strings.HasPrefix(refused[0], `"" in `) {
		t.Errorf("refused messages reported: %q, want the one without an id", refused)
	}
}

// TestPause checks that a paused processor reads nothing, that it flushes
// what it wrote before the pause, and that it carries on when resumed.
func TestPause(t *testing.T) {
	e := newEnv(t)
	var paused atomic.Bool
	checks := make(chan struct{}, 1)
	processing := func() bool {
		if !paused.Load() {
			return true
		}
		select {
		case checks <- struct{}{}:
		default:
		}
		return false
	}
	// FlushInterval is also how often a paused processor looks again.
	r := e.start(procOptions(processing, neverEvery, time.Millisecond))
	paused.Store(true)
	// Once a check saw the pause the processor reads nothing until it is
	// resumed; a record journaled before that could still be read.
	receive(t, checks, "a check while paused")
	end := e.journal(numbered("m", 3)...)
	// The second check began after the first was received, after the
	// records were journaled.
	receive(t, checks, "a check while paused")
	receive(t, checks, "a check while paused")
	if st := r.p.State(); st.Next != 0 {
		t.Fatalf("state %+v while paused, want nothing read", st)
	}
	if got := len(e.all()); got != 0 {
		t.Fatalf("%d messages stored while paused", got)
	}
	paused.Store(false)
	r.flushed(end)
	wantOnce(t, e, ids(numbered("m", 3)))
}

// TestPauseFlushes pauses a processor that has written but not flushed:
// the pause flushes, so the journal can drop those records while paused.
func TestPauseFlushes(t *testing.T) {
	e := newEnv(t)
	var paused atomic.Bool
	r := e.start(procOptions(func() bool { return !paused.Load() }, neverEvery, neverInterval))
	written := e.journal(numbered("a", 3)...)
	r.processed(written)
	if st := r.p.State(); st.Flushed != 0 {
		t.Fatalf("state %+v, want nothing flushed yet", st)
	}
	paused.Store(true)
	// A record wakes the processor if it waits for the journal; it may
	// also have seen the pause already. Either way what it wrote before
	// the pause is flushed and committed.
	e.journal(msg("wake", "source", "host"))
	r.flushed(written)
	if got := e.j.Committed(); got < written {
		t.Errorf("journal committed %d after the pause, want at least %d", got, written)
	}
}

func procOptions(running func() bool, every int, interval time.Duration) processing.Options {
	return processing.Options{Processing: running, FlushEvery: every, FlushInterval: interval}
}

// TestShutdownFlushes stops a processor that has written but not flushed:
// Run flushes and commits before it returns, or reports that it could not,
// and then the journal still holds the records for the next start.
func TestShutdownFlushes(t *testing.T) {
	for _, failing := range []bool{false, true} {
		name := "flush"
		if failing {
			name = "flush fails"
		}
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			r := e.start(processing.Options{FlushEvery: neverEvery, FlushInterval: neverInterval})
			msgs := numbered("m", 5)
			end := e.journal(msgs...)
			r.processed(end)
			if cp := e.ms.Checkpoint(); cp != 0 {
				t.Fatalf("store checkpoint %d before shutdown, want 0", cp)
			}
			want, wantStored := end, ids(msgs)
			if failing {
				e.fail(errDisk)
				want, wantStored = 0, nil
			}
			err := r.stop()
			if failing != (err != nil) || (failing && !errors.Is(err, errDisk)) {
				t.Errorf("Run returned %v, want an error only when the flush fails", err)
			}
			if got := e.ms.Checkpoint(); got != want {
				t.Errorf("store checkpoint %d after shutdown, want %d", got, want)
			}
			if got := e.j.Committed(); got != want {
				t.Errorf("journal committed %d after shutdown, want %d", got, want)
			}
			e.fail(nil)
			e.ms.Close()
			e.openStore()
			wantOnce(t, e, wantStored)
		})
	}
}

// TestFlushBytes: the store holds unflushed messages in memory, so large
// messages are flushed once FlushBytes of them are written, without
// waiting for the count or the interval.
func TestFlushBytes(t *testing.T) {
	e := newEnv(t)
	r := e.start(processing.Options{FlushEvery: neverEvery, FlushInterval: neverInterval, FlushBytes: 64 << 10})
	big := numbered("big", 3)
	for i := range big {
		big[i].Fields = append(big[i].Fields, messages.Field{Key: "blob", Value: strings.Repeat("x", 40<<10)})
	}
	end := e.journal(big...)
	// Two records pass 64 KiB: the flush covers them, whatever the third.
	r.flushed(end - 1)
}

// TestFlushOverlapsReading holds a flush: meanwhile the processor reads and
// routes the next records, so that the flush and the next batches share
// the cores, but it writes them only once the flush landed, so that a
// flush holds exactly the records below its checkpoint.
func TestFlushOverlapsReading(t *testing.T) {
	e := newEnv(t)
	st := &gatedStore{Store: e.ms, entered: make(chan uint64, 4), release: make(chan struct{})}
	reg := metrics.New(clock)
	r := e.startOn(st, processing.Options{Metrics: reg, FlushEvery: 3, FlushInterval: neverInterval})
	first := e.journal(numbered("a", 3)...)
	waitEntered(t, st.entered, first)
	end := e.journal(numbered("b", 3)...)
	const incoming = "org.graylog2.shared.buffers.processors.ProcessBufferProcessor.incomingMessages"
	for deadline := time.Now().Add(waitTimeout); meterCount(t, reg, incoming) < 6; {
		if time.Now().After(deadline) {
			t.Fatalf("read %d records while a flush ran, want 6", meterCount(t, reg, incoming))
		}
		time.Sleep(time.Millisecond) // polling an observable condition
	}
	if s := r.p.State(); s.Next != first {
		t.Errorf("state %+v while the flush runs, want next %d: nothing written beside a flush", s, first)
	}
	close(st.release)
	r.flushed(end)
	if got := st.stats(); got.beside != 0 || !slices.Equal(got.checkpoints, []uint64{first, end}) {
		t.Errorf("%d writes beside a flush, flush checkpoints %v; want none and [%d %d]", got.beside, got.checkpoints, first, end)
	}
	wantOnce(t, e, ids(append(numbered("a", 3), numbered("b", 3)...)))
}

// TestSealedFlushWritesBeside: with a store that seals (the embedded one),
// the records read while a flush runs are written at once, searchable
// before it lands, and the flush still commits exactly the records below
// its checkpoint.
func TestSealedFlushWritesBeside(t *testing.T) {
	e := newEnv(t)
	st := &gatedSealer{Store: e.ms, ms: e.ms, entered: make(chan uint64, 4), release: make(chan struct{})}
	r := e.startOn(st, processing.Options{FlushEvery: 3, FlushInterval: neverInterval})
	first := e.journal(numbered("a", 3)...)
	waitEntered(t, st.entered, first)
	end := e.journal(numbered("b", 3)...)
	r.processed(end) // while the first flush is held
	if s := r.p.State(); s.Flushed > first {
		t.Errorf("state %+v: flushed past the held flush", s)
	}
	if n := len(e.all()); n != 6 {
		t.Errorf("%d messages searchable while the flush is held, want 6", n)
	}
	if got := e.ms.Checkpoint(); got >= first {
		t.Errorf("store checkpoint %d before the held flush landed", got)
	}
	close(st.release)
	r.flushed(end)
	if got := st.checkpoints(); !slices.Equal(got, []uint64{first, end}) {
		t.Errorf("sealed flush checkpoints %v, want [%d %d]", got, first, end)
	}
	if err := r.stop(); err != nil {
		t.Fatal(err)
	}
	wantOnce(t, e, ids(append(numbered("a", 3), numbered("b", 3)...)))
}

// gatedSealer seals through the embedded store and holds every sealed
// flush until release is closed, telling entered its checkpoint.
type gatedSealer struct {
	processing.Store
	ms      *embedded.Store
	entered chan uint64
	release chan struct{}

	mu  sync.Mutex
	cps []uint64
}

func (g *gatedSealer) Seal(ctx context.Context, checkpoint uint64) (func(context.Context) error, error) {
	flush, err := g.ms.Seal(ctx, checkpoint)
	if err != nil {
		return nil, err
	}
	g.mu.Lock()
	g.cps = append(g.cps, checkpoint)
	g.mu.Unlock()
	return func(ctx context.Context) error {
		g.entered <- checkpoint
		<-g.release
		return flush(ctx)
	}, nil
}

func (g *gatedSealer) checkpoints() []uint64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.cps)
}

// waitEntered waits for a held flush to tell its checkpoint, want.
func waitEntered(t *testing.T, entered <-chan uint64, want uint64) {
	t.Helper()
	select {
	case cp := <-entered:
		if cp != want {
			t.Fatalf("flush checkpoint %d, want %d", cp, want)
		}
	case <-time.After(waitTimeout):
		t.Fatal("timed out waiting for the flush")
	}
}

// gatedStore holds every Flush until release is closed, telling entered
// its checkpoint, and counts the writes made while a flush runs.
type gatedStore struct {
	processing.Store
	entered chan uint64
	release chan struct{}

	mu       sync.Mutex
	flushing bool
	gated    gatedStats
}

type gatedStats struct {
	beside      int
	checkpoints []uint64
}

func (g *gatedStore) Write(ctx context.Context, prefix string, msgs []messages.Message) error {
	g.mu.Lock()
	if g.flushing {
		g.gated.beside++
	}
	g.mu.Unlock()
	return g.Store.Write(ctx, prefix, msgs)
}

func (g *gatedStore) Flush(ctx context.Context, checkpoint uint64) error {
	g.mu.Lock()
	g.flushing = true
	g.gated.checkpoints = append(g.gated.checkpoints, checkpoint)
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		g.flushing = false
		g.mu.Unlock()
	}()
	g.entered <- checkpoint
	<-g.release
	return g.Store.Flush(ctx, checkpoint)
}

func (g *gatedStore) stats() gatedStats {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.gated
}
