package journal

import (
	"bytes"
	"context"
	"errors"
	"testing"
)

func TestAppendReadCommitReopen(t *testing.T) {
	dir := t.TempDir()
	j := open(t, dir, Options{SegmentSize: 4 << 10})

	appendN(t, j, 1, 300)
	first, last, err := j.Append(context.Background(), []byte("x"), nil, bytes.Repeat([]byte("y"), 10<<10))
	if err != nil || first != 300 || last != 302 {
		t.Fatalf("batch Append = %d, %d, %v; want 300, 302", first, last, err)
	}
	if got := len(segmentFiles(t, dir)); got < 3 {
		t.Fatalf("%d segments after 300 records with 4 KiB segments; want rolls", got)
	}

	all := readAll(t, j, 0)
	if len(all) != 303 {
		t.Fatalf("read %d records, want 303", len(all))
	}
	for i := range 300 {
		if all[i].Offset != uint64(i) || !bytes.Equal(all[i].Data, record(1, i)) {
			t.Fatalf("record %d = %d %q", i, all[i].Offset, all[i].Data)
		}
	}
	if string(all[300].Data) != "x" || len(all[301].Data) != 0 || len(all[302].Data) != 10<<10 {
		t.Fatalf("batch records read back wrong: %q, %q, %d bytes", all[300].Data, all[301].Data, len(all[302].Data))
	}

	before := len(segmentFiles(t, dir))
	if err := j.Commit(199); err != nil {
		t.Fatal(err)
	}
	if err := j.Sync(); err != nil {
		t.Fatal(err)
	}
	if after := len(segmentFiles(t, dir)); after >= before {
		t.Fatalf("segments %d -> %d after commit; want committed ones deleted", before, after)
	}
	if _, err := j.Read(0, 10); !errors.Is(err, ErrOutOfRange) {
		t.Fatalf("Read of a deleted offset: %v, want ErrOutOfRange", err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}

	j = open(t, dir, Options{SegmentSize: 4 << 10})
	if c, e := j.Committed(), j.End(); c != 200 || e != 303 {
		t.Fatalf("after reopen Committed, End = %d, %d; want 200, 303", c, e)
	}
	rest := readAll(t, j, j.Committed())
	if len(rest) != 103 || rest[0].Offset != 200 || !bytes.Equal(rest[0].Data, record(1, 200)) {
		t.Fatalf("after reopen read %d records from 200, first %+v", len(rest), rest[0])
	}
	if first, _, err := j.Append(context.Background(), []byte("after")); err != nil || first != 303 {
		t.Fatalf("Append after reopen = %d, %v; want 303", first, err)
	}
}

func TestReadRandomAccess(t *testing.T) {
	j := open(t, t.TempDir(), Options{SegmentSize: 8 << 10})
	appendN(t, j, 2, 500)
	// Out of order: each read misses the cursor and scans its segment.
	for _, from := range []uint64{499, 0, 250, 251, 13, 498} {
		es, err := j.Read(from, 1)
		if err != nil {
			t.Fatalf("Read(%d): %v", from, err)
		}
		if len(es) != 1 || es[0].Offset != from || !bytes.Equal(es[0].Data, record(2, int(from))) {
			t.Fatalf("Read(%d) = %+v", from, es)
		}
	}
}

func TestReadAndCommitErrors(t *testing.T) {
	j := open(t, t.TempDir(), Options{})
	appendN(t, j, 0, 5)
	tests := []struct {
		name    string
		from    uint64
		limit   int
		wantN   int
		wantErr error
	}{
		{"at end", 5, 10, 0, nil},
		{"beyond end", 6, 10, 0, ErrOutOfRange},
		{"zero limit", 0, 0, 0, nil},
		{"limit caps", 1, 2, 2, nil},
		{"stops at end", 3, 100, 2, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			es, err := j.Read(tt.from, tt.limit)
			if !errors.Is(err, tt.wantErr) || len(es) != tt.wantN {
				t.Fatalf("Read(%d, %d) = %d entries, %v; want %d, %v", tt.from, tt.limit, len(es), err, tt.wantN, tt.wantErr)
			}
		})
	}

	if err := j.Commit(5); !errors.Is(err, ErrOutOfRange) {
		t.Fatalf("Commit beyond the end: %v", err)
	}
	if err := j.Commit(3); err != nil {
		t.Fatal(err)
	}
	if err := j.Commit(1); err != nil || j.Committed() != 4 {
		t.Fatalf("backwards Commit: %v, Committed %d; want a no-op at 4", err, j.Committed())
	}
}

func TestAppendErrors(t *testing.T) {
	j := open(t, t.TempDir(), Options{MaxRecordSize: 100})
	ctx := context.Background()
	if _, _, err := j.Append(ctx); err == nil {
		t.Fatal("Append of nothing succeeded")
	}
	if _, _, err := j.Append(ctx, make([]byte, 101)); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("oversized Append: %v", err)
	}
	if _, _, err := j.Append(ctx, make([]byte, 100)); err != nil {
		t.Fatalf("Append at the limit: %v", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := j.Wait(cancelled, 1); !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait with a cancelled context: %v", err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := j.Append(ctx, []byte("x")); !errors.Is(err, ErrClosed) {
		t.Fatalf("Append after Close: %v", err)
	}
	if _, err := j.Read(0, 1); !errors.Is(err, ErrClosed) {
		t.Fatalf("Read after Close: %v", err)
	}
	if err := j.Wait(ctx, 5); !errors.Is(err, ErrClosed) {
		t.Fatalf("Wait after Close: %v", err)
	}
	if err := j.Commit(0); !errors.Is(err, ErrClosed) {
		t.Fatalf("Commit after Close: %v", err)
	}
	if err := j.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

func TestOpenTwice(t *testing.T) {
	dir := t.TempDir()
	open(t, dir, Options{})
	if j, err := Open(dir, Options{}); err == nil {
		j.Close()
		t.Fatal("second Open of a directory in use succeeded")
	}
}

func TestWaitWakesOnAppend(t *testing.T) {
	j := open(t, t.TempDir(), Options{})
	done := make(chan error)
	go func() { done <- j.Wait(context.Background(), 0) }()
	if _, _, err := j.Append(context.Background(), []byte("wake")); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("Wait: %v", err)
	}
}

func TestSegmentRollsByAge(t *testing.T) {
	clk := newClock()
	dir := t.TempDir()
	j := open(t, dir, Options{Now: clk.Now, SegmentAge: 10 * 60e9})
	appendN(t, j, 0, 3)
	clk.Advance(5 * 60e9)
	appendN(t, j, 0, 1)
	if n := len(segmentFiles(t, dir)); n != 1 {
		t.Fatalf("%d segments before the segment age; want 1", n)
	}
	clk.Advance(5 * 60e9)
	appendN(t, j, 0, 1)
	if n := len(segmentFiles(t, dir)); n != 2 {
		t.Fatalf("%d segments after the segment age; want 2", n)
	}
}

func TestCommittedSegmentsDeletedAtOpen(t *testing.T) {
	dir := t.TempDir()
	j, err := Open(dir, Options{SegmentSize: 2 << 10})
	if err != nil {
		t.Fatal(err)
	}
	appendN(t, j, 0, 200)
	before := len(segmentFiles(t, dir))
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	// A commit persisted whose segments were not deleted yet, as when the
	// process dies between the two steps.
	if err := writeOffsets(dir, 150); err != nil {
		t.Fatal(err)
	}

	j = open(t, dir, Options{SegmentSize: 2 << 10})
	if j.Committed() != 150 {
		t.Fatalf("Committed = %d, want 150", j.Committed())
	}
	if err := j.Sync(); err != nil {
		t.Fatal(err)
	}
	if after := len(segmentFiles(t, dir)); after >= before {
		t.Fatalf("segments %d -> %d; want the committed ones deleted", before, after)
	}
	if es := readAll(t, j, 150); len(es) != 50 || !bytes.Equal(es[0].Data, record(0, 150)) {
		t.Fatalf("read %d records from 150", len(es))
	}
}

// TestCommittedNotKept: with the default 100 MiB segment size, what is
// committed is deleted once about rollSize has been written after it, not
// when a 100 MiB segment fills.
func TestCommittedNotKept(t *testing.T) {
	dir := t.TempDir()
	j := open(t, dir, Options{})
	rec := bytes.Repeat([]byte("m"), 4<<10)
	batch := make([][]byte, 256) // 1 MiB per Append
	for i := range batch {
		batch[i] = rec
	}
	var last uint64
	for range 3 * rollSize / (1 << 20) {
		_, l, err := j.Append(context.Background(), batch...)
		if err != nil {
			t.Fatal(err)
		}
		last = l
	}
	if err := j.Commit(last); err != nil {
		t.Fatal(err)
	}
	if err := j.Sync(); err != nil {
		t.Fatal(err)
	}
	if got := j.Stats().JournalSize; got > rollSize+headerSize {
		t.Fatalf("journal keeps %d bytes after committing 3×%d; want at most one %d segment", got, rollSize, rollSize)
	}
	// Nothing uncommitted went: everything appended after the commit is
	// still read back.
	_, l, err := j.Append(context.Background(), batch...)
	if err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, j, last+1); len(got) != int(l-last) {
		t.Fatalf("read %d records after the commit, want %d", len(got), l-last)
	}
}
