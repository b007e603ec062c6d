package journal

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"
)

func TestErrFullAtMaxSize(t *testing.T) {
	dir := t.TempDir()
	j := open(t, dir, Options{SegmentSize: 1 << 10, MaxSize: 4 << 10})
	ctx := context.Background()
	payload := bytes.Repeat([]byte("m"), 100)

	var accepted uint64
	for {
		_, last, err := j.Append(ctx, payload)
		if errors.Is(err, ErrFull) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		accepted = last + 1
		if accepted > 1000 {
			t.Fatal("no ErrFull after 1000 records over a 4 KiB limit")
		}
	}
	if st := j.Stats(); st.JournalSize > 4<<10 {
		t.Fatalf("journal grew to %d bytes past its %d limit", st.JournalSize, 4<<10)
	}
	// Nothing accepted was dropped.
	if es := readAll(t, j, 0); uint64(len(es)) != accepted {
		t.Fatalf("read %d records, %d were accepted", len(es), accepted)
	}

	// A blocked input resumes once processing commits.
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := j.WaitNotFull(cancelled, 100); !errors.Is(err, context.Canceled) {
		t.Fatalf("WaitNotFull while full: %v, want it to block", err)
	}
	resumed := make(chan error, 1)
	go func() { resumed <- j.WaitNotFull(ctx, 100) }()
	if err := j.Commit(accepted - 1); err != nil {
		t.Fatal(err)
	}
	if err := <-resumed; err != nil {
		t.Fatalf("WaitNotFull after Commit: %v", err)
	}
	if first, _, err := j.Append(ctx, payload); err != nil || first != accepted {
		t.Fatalf("Append after Commit = %d, %v; want %d", first, err, accepted)
	}
	if err := j.Sync(); err != nil {
		t.Fatal(err)
	}
	if st := j.Stats(); st.NumberOfSegments != 1 || st.UncommittedJournalEntries != 1 {
		t.Fatalf("after commit: %d segments, %d uncommitted; want 1, 1", st.NumberOfSegments, st.UncommittedJournalEntries)
	}
}

func TestErrFullAtMaxAge(t *testing.T) {
	clk := newClock()
	j := open(t, t.TempDir(), Options{Now: clk.Now, MaxAge: time.Hour, SegmentAge: 10 * time.Minute})
	ctx := context.Background()
	appendN(t, j, 0, 2)
	clk.Advance(59 * time.Minute)
	appendN(t, j, 0, 1) // rolls: the first segment is 59 minutes old
	clk.Advance(2 * time.Minute)
	if _, _, err := j.Append(ctx, []byte("late")); !errors.Is(err, ErrFull) {
		t.Fatalf("Append with uncommitted data 61 minutes old: %v, want ErrFull", err)
	}
	// Committing the old segment clears the age limit; the younger
	// segment's data is still uncommitted but within the limit.
	if err := j.Commit(1); err != nil {
		t.Fatal(err)
	}
	if _, _, err := j.Append(ctx, []byte("late")); err != nil {
		t.Fatalf("Append after committing the old segment: %v", err)
	}
	if err := j.Commit(3); err != nil {
		t.Fatal(err)
	}
	// Committed segments never block, however old.
	clk.Advance(48 * time.Hour)
	if _, _, err := j.Append(ctx, []byte("much later")); err != nil {
		t.Fatalf("Append with only committed old data: %v", err)
	}
}

func TestWaitNotFullCancelAndClose(t *testing.T) {
	j := open(t, t.TempDir(), Options{SegmentSize: 1 << 10, MaxSize: 1 << 10})
	ctx := context.Background()
	for {
		if _, _, err := j.Append(ctx, make([]byte, 200)); errors.Is(err, ErrFull) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
	}
	if err := j.WaitNotFull(ctx, 2<<10); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("WaitNotFull for more than MaxSize: %v", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := j.WaitNotFull(cancelled, 200); !errors.Is(err, context.Canceled) {
		t.Fatalf("WaitNotFull with a cancelled context: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- j.WaitNotFull(ctx, 200) }()
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; !errors.Is(err, ErrClosed) {
		t.Fatalf("WaitNotFull across Close: %v", err)
	}
}

// TestSmallMaxSizeKeepsFlowing checks a MaxSize below the segment size does
// not leave the journal stuck full while processing keeps up.
func TestSmallMaxSizeKeepsFlowing(t *testing.T) {
	j := open(t, t.TempDir(), Options{SegmentSize: 1 << 20, MaxSize: 8 << 10})
	ctx := context.Background()
	rec := make([]byte, 500)
	for i := range 100 {
		first, _, err := j.Append(ctx, rec)
		if err != nil {
			t.Fatalf("append %d with processing keeping up: %v", i, err)
		}
		// Processing commits every fourth record, so a few stay uncommitted.
		if i%4 == 3 {
			if err := j.Commit(first); err != nil {
				t.Fatal(err)
			}
		}
	}
	if st := j.Stats(); st.JournalConfig.SegmentSize != 2<<10 {
		t.Fatalf("segment size %d, want it capped at MaxSize/4", st.JournalConfig.SegmentSize)
	}
}

// TestMaxAgeBelowSegmentAge: with a max age below the segment age (a
// message_journal_max_age of 30m beside the 1h segment age), a record
// appended a quarter of an hour ago is not refused as old because the
// segment it went to was made long before.
func TestMaxAgeBelowSegmentAge(t *testing.T) {
	clk := newClock()
	j := open(t, t.TempDir(), Options{Now: clk.Now, MaxAge: 30 * time.Minute})
	appendN(t, j, 0, 1)
	if err := j.Commit(0); err != nil {
		t.Fatal(err)
	}
	clk.Advance(20 * time.Minute)
	appendN(t, j, 0, 1) // uncommitted from here on
	clk.Advance(15 * time.Minute)
	if _, _, err := j.Append(context.Background(), []byte("x")); err != nil {
		t.Fatalf("Append with uncommitted data 15 minutes old, max age 30 minutes: %v", err)
	}
}
