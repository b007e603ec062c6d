package embedded_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/logs/messages/embedded"
	"github.com/loggate/loggate/backend/logs/messages/messagestest"
)

var errDiskFull = errors.New("disk full")

// faulty is a store in dir whose fault hook fails with errDiskFull while
// failing is set, holding the first 10 of msgs in index set "f".
type faulty struct {
	dir     string
	opts    embedded.Options
	failing *atomic.Bool
	s       *embedded.Store
	msgs    []messages.Message
}

func newFaulty(t *testing.T) *faulty {
	f := &faulty{dir: t.TempDir(), failing: new(atomic.Bool), msgs: messagestest.Generate(1, 30, messagestest.BenchStart)}
	f.opts = embedded.Options{Fault: func() error {
		if f.failing.Load() {
			return errDiskFull
		}
		return nil
	}}
	f.s = mustOpen(t, f.dir, f.opts)
	if err := f.s.Write(t.Context(), "f", f.msgs[:10]); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestFault checks the fault hook: while it fails, Write and Flush return
// ErrUnavailable and the committed state stays; afterwards all works.
func TestFault(t *testing.T) {
	f := newFaulty(t)
	dir, opts, failing, s, msgs := f.dir, f.opts, f.failing, f.s, f.msgs
	ctx := t.Context()
	if err := s.Flush(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if err := s.Write(ctx, "f", msgs[10:20]); err != nil {
		t.Fatal(err)
	}
	failing.Store(true)
	for _, err := range []error{s.Write(ctx, "f", msgs[20:]), s.Flush(ctx, 2)} {
		if !errors.Is(err, messages.ErrUnavailable) || !errors.Is(err, errDiskFull) {
			t.Errorf("error %v, want ErrUnavailable wrapping the fault", err)
		}
	}
	if cp := s.Checkpoint(); cp != 1 {
		t.Errorf("Checkpoint after failed Flush = %d, want 1", cp)
	}
	if _, err := s.Rotate(ctx, "f"); !errors.Is(err, messages.ErrUnavailable) {
		t.Errorf("Rotate while failing: %v, want ErrUnavailable", err)
	}
	wantTotal(t, s, 20) // the failed Flush kept its buffers searchable
	failing.Store(false)
	if err := s.Write(ctx, "f", msgs[20:]); err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(ctx, 3); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = mustOpen(t, dir, opts)
	if cp := s.Checkpoint(); cp != 3 {
		t.Errorf("Checkpoint after reopen = %d, want 3", cp)
	}
	wantTotal(t, s, 30)
	if list, _ := s.Indices(ctx, "f"); len(list) != 1 {
		t.Errorf("Indices = %+v, want f_0 only (the failed Rotate left nothing)", list)
	}
}

// TestFaultMidFlush fails a Flush at each of its disk writes in turn:
// every failure keeps the last commit, and the Flush that finally gets
// through commits everything. A segment left by a crash mid-Flush and an
// index directory the manifest does not know are removed by Open.
func TestFaultMidFlush(t *testing.T) {
	dir := t.TempDir()
	var calls, failAt atomic.Int64
	opts := embedded.Options{Fault: func() error {
		if n := calls.Add(1); failAt.Load() > 0 && n >= failAt.Load() {
			return errDiskFull
		}
		return nil
	}}
	s := mustOpen(t, dir, opts)
	ctx := t.Context()
	msgs := messagestest.Generate(2, 20, messagestest.BenchStart)
	if err := s.Write(ctx, "m", msgs[:10]); err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if err := s.Write(ctx, "m", msgs[10:]); err != nil {
		t.Fatal(err)
	}
	committed := false
	for at := int64(2); at < 20 && !committed; at++ {
		calls.Store(0)
		failAt.Store(at)
		err := s.Flush(ctx, 2)
		if err == nil {
			committed = true // the fault point is past the last write
			continue
		}
		if !errors.Is(err, messages.ErrUnavailable) {
			t.Fatalf("Flush: %v", err)
		}
		if cp := s.Checkpoint(); cp != 1 {
			t.Fatalf("Checkpoint after failed Flush (fault %d: %v) = %d", at, err, cp)
		}
	}
	failAt.Store(0)
	if !committed {
		t.Fatal("Flush never got past the fault")
	}
	// A stray segment, as a crash in the middle of a Flush leaves.
	stray := filepath.Join(dir, "m_0", "0000000000000099.seg")
	if err := os.WriteFile(stray, []byte("partial"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "gone_3"), 0o755); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = mustOpen(t, dir, opts)
	if cp := s.Checkpoint(); cp != 2 {
		t.Errorf("Checkpoint = %d, want 2", cp)
	}
	wantTotal(t, s, 20)
	for _, p := range []string{stray, filepath.Join(dir, "gone_3")} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s left behind: %v", p, err)
		}
	}
}

func wantTotal(t *testing.T, s messages.Store, want int64) {
	t.Helper()
	r, err := s.Search(t.Context(), messages.Query{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Total != want {
		t.Errorf("Total = %d, want %d", r.Total, want)
	}
}

// TestMerge flushes many small segments, merges them and checks that the
// data, including replacements made during and before the merge, stays.
func TestMerge(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, dir, embedded.Options{MergeFactor: 3})
	ctx := t.Context()
	msgs := messagestest.Generate(3, 900, messagestest.BenchStart)
	for i := 0; i < len(msgs); i += 100 {
		if err := s.Write(ctx, "mg", msgs[i:i+100]); err != nil {
			t.Fatal(err)
		}
		if err := s.Flush(ctx, uint64(i)); err != nil {
			t.Fatal(err)
		}
	}
	replaced := msgs[5]
	replaced.Fields = []messages.Field{{Key: "source", Value: "replaced"}}
	if err := s.Write(ctx, "mg", []messages.Message{replaced}); err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(ctx, 1000); err != nil {
		t.Fatal(err)
	}
	if err := s.WaitMerges(ctx); err != nil {
		t.Fatal(err)
	}
	if st := s.Stats(); st.Segments > 4 || st.Messages != 900 {
		t.Errorf("Stats = %+v, want at most 4 segments and 900 messages", st)
	}
	check := func(s messages.Store) {
		t.Helper()
		wantTotal(t, s, 900)
		hit, err := s.Get(ctx, "mg_0", replaced.ID)
		if err != nil {
			t.Fatal(err)
		}
		if v, _ := hit.Message.String("source"); v != "replaced" {
			t.Errorf("replaced message has source %q", v)
		}
		r, _ := s.Search(ctx, messages.Query{Query: nil, Sort: messages.Sort{Asc: true}, Limit: 900})
		for i, h := range r.Hits {
			if i > 0 && h.Message.Timestamp.Before(r.Hits[i-1].Message.Timestamp) {
				t.Fatalf("hit %d out of order", i)
			}
		}
	}
	check(s)
	s.Close()
	check(mustOpen(t, dir, embedded.Options{MergeFactor: -1}))
}

// TestCorruptSegment checks that a damaged segment file makes Open fail
// with an error rather than serve wrong data or panic.
func TestCorruptSegment(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, dir, embedded.Options{})
	if err := s.Write(t.Context(), "c", messagestest.Generate(4, 50, messagestest.BenchStart)); err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	s.Close()
	files, _ := filepath.Glob(filepath.Join(dir, "c_0", "*.seg"))
	if len(files) != 1 {
		t.Fatalf("segment files %v", files)
	}
	b, _ := os.ReadFile(files[0])
	b[len(b)-100] ^= 0xff
	if err := os.WriteFile(files[0], b, 0o644); err != nil {
		t.Fatal(err)
	}
	if s, err := embedded.Open(dir, embedded.Options{}); err == nil {
		s.Close()
		t.Fatal("Open accepted a corrupt segment")
	}
}

// TestSeal: a sealed flush commits what was written before Seal, and only
// that, with its checkpoint, while writes go on beside it; it can be run
// again after it failed. Closing without a flush is a crash here.
func TestSeal(t *testing.T) {
	f := newFaulty(t)
	dir, opts, failing, s, msgs := f.dir, f.opts, f.failing, f.s, f.msgs
	ctx := t.Context()
	flush, err := s.Seal(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Write(ctx, "f", msgs[10:20]); err != nil {
		t.Fatal(err)
	}
	wantTotal(t, s, 20) // sealed and later messages are searchable alike
	failing.Store(true)
	if err := flush(ctx); !errors.Is(err, errDiskFull) {
		t.Fatalf("sealed flush while failing: %v", err)
	}
	failing.Store(false)
	if err := flush(ctx); err != nil {
		t.Fatal(err)
	}
	if cp := s.Checkpoint(); cp != 10 {
		t.Errorf("Checkpoint = %d, want 10", cp)
	}
	wantTotal(t, s, 20)
	s.Close()
	s = mustOpen(t, dir, opts)
	if cp := s.Checkpoint(); cp != 10 {
		t.Errorf("Checkpoint after reopen = %d, want 10", cp)
	}
	wantTotal(t, s, 10) // what was written after Seal was not committed
	if _, err := s.Seal(ctx, 11); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := s.Seal(ctx, 12); !errors.Is(err, messages.ErrUnavailable) {
		t.Errorf("Seal after Close: %v, want ErrUnavailable", err)
	}
}

// TestSealThenReplace: a message replaced after a Seal keeps its old copy
// in what the sealed flush commits, whether that copy is in a sealed
// buffer or in a segment committed before; the new copy, written after the
// seal, is not committed. A crash then finds the old copy.
func TestSealThenReplace(t *testing.T) {
	at := messagestest.BenchStart
	msg := func(id, v string) messages.Message {
		return messages.Message{ID: id, Timestamp: at, Fields: []messages.Field{{Key: "source", Value: v}}}
	}
	for _, c := range []struct {
		name  string
		flush bool // the old copy is in a committed segment
	}{{"sealed buffer", false}, {"committed segment", true}} {
		t.Run(c.name, func(t *testing.T) {
			dir, ctx := t.TempDir(), t.Context()
			opts := embedded.Options{MergeFactor: -1}
			s := mustOpen(t, dir, opts)
			if err := s.Write(ctx, "r", []messages.Message{msg("x", "old")}); err != nil {
				t.Fatal(err)
			}
			if c.flush {
				if err := s.Flush(ctx, 1); err != nil {
					t.Fatal(err)
				}
				if err := s.Write(ctx, "r", []messages.Message{msg("y", "y")}); err != nil {
					t.Fatal(err)
				}
			}
			flush, err := s.Seal(ctx, 2)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Write(ctx, "r", []messages.Message{msg("x", "new")}); err != nil {
				t.Fatal(err)
			}
			if err := flush(ctx); err != nil {
				t.Fatal(err)
			}
			if m, err := s.Get(ctx, "r_0", "x"); err != nil || m.Message.Fields[0].Value != "new" {
				t.Fatalf("before the crash: %+v, %v; want the new copy", m, err)
			}
			s.Close() // unflushed writes are lost, as in a crash
			s = mustOpen(t, dir, opts)
			if m, err := s.Get(ctx, "r_0", "x"); err != nil || m.Message.Fields[0].Value != "old" {
				t.Fatalf("after the crash: %+v, %v; want the committed copy", m, err)
			}
		})
	}
}

// TestSameMillisecondPaging: timestamps are kept to the millisecond, as
// segments keep them, so messages of one millisecond page in the same
// order before and after a flush: no hit twice, none skipped.
func TestSameMillisecondPaging(t *testing.T) {
	ctx := t.Context()
	s := mustOpen(t, t.TempDir(), embedded.Options{MergeFactor: -1})
	at := messagestest.BenchStart
	if err := s.Write(ctx, "p", []messages.Message{
		{ID: "b", Timestamp: at.Add(100 * time.Nanosecond), Fields: []messages.Field{{Key: "source", Value: "b"}}},
		{ID: "a", Timestamp: at.Add(200 * time.Nanosecond), Fields: []messages.Field{{Key: "source", Value: "a"}}},
	}); err != nil {
		t.Fatal(err)
	}
	pages := func() []string {
		var ids []string
		for off := range 2 {
			r, err := s.Search(ctx, messages.Query{Offset: off, Limit: 1})
			if err != nil || len(r.Hits) != 1 {
				t.Fatalf("page %d: %+v, %v", off, r, err)
			}
			ids = append(ids, r.Hits[0].Message.ID)
			if ts := r.Hits[0].Message.Timestamp; !ts.Equal(at) {
				t.Errorf("timestamp %s, want %s", ts, at)
			}
		}
		return ids
	}
	before := pages()
	if err := s.Flush(ctx, 1); err != nil {
		t.Fatal(err)
	}
	after := pages()
	if before[0] == before[1] || !slices.Equal(before, after) {
		t.Errorf("pages %v before the flush, %v after", before, after)
	}
}
