package journal

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"
)

// TestConcurrentAppendReadCommit runs appenders against a processing loop
// and checks offsets are dense, each appender's records keep their order
// and every record is read exactly once with the bytes appended.
func TestConcurrentAppendReadCommit(t *testing.T) {
	const writers, perWriter = 16, 150
	j := open(t, t.TempDir(), Options{SegmentSize: 16 << 10})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	type ack struct{ g, i int }
	acks := make([]map[uint64]ack, writers)
	var wg sync.WaitGroup
	for g := range writers {
		acks[g] = map[uint64]ack{}
		wg.Go(func() {
			for i := 0; i < perWriter; {
				// Alternate single and batched appends.
				recs := [][]byte{record(g, i)}
				if i%3 == 0 && i+1 < perWriter {
					recs = append(recs, record(g, i+1))
				}
				first, last, err := j.Append(ctx, recs...)
				if err != nil {
					t.Errorf("writer %d: %v", g, err)
					return
				}
				if int(last-first)+1 != len(recs) {
					t.Errorf("writer %d: %d records got offsets %d..%d", g, len(recs), first, last)
					return
				}
				for k := range recs {
					acks[g][first+uint64(k)] = ack{g, i + k}
				}
				i += len(recs)
			}
		})
	}

	read := make(chan []Entry)
	go func() {
		defer close(read)
		var got []Entry
		for off := j.Committed(); off < writers*perWriter; {
			if err := j.Wait(ctx, off); err != nil {
				t.Errorf("Wait: %v", err)
				return
			}
			es, err := j.Read(off, 64)
			if err != nil {
				t.Errorf("Read(%d): %v", off, err)
				return
			}
			got = append(got, es...)
			off = es[len(es)-1].Offset + 1
			if err := j.Commit(off - 1); err != nil {
				t.Errorf("Commit: %v", err)
				return
			}
			_ = j.Stats() // concurrent reader of the state, for -race
		}
		read <- got
	}()
	wg.Wait()
	got := <-read
	if t.Failed() {
		return
	}

	if len(got) != writers*perWriter {
		t.Fatalf("read %d records, want %d", len(got), writers*perWriter)
	}
	next := make([]int, writers)
	for k, e := range got {
		if e.Offset != uint64(k) {
			t.Fatalf("entry %d has offset %d", k, e.Offset)
		}
		var g, i int
		if _, err := fmt.Sscanf(string(e.Data), "g=%d i=%d ", &g, &i); err != nil {
			t.Fatalf("offset %d: %q: %v", e.Offset, e.Data, err)
		}
		if want := acks[g][e.Offset]; want != (ack{g, i}) || !bytes.Equal(e.Data, record(g, i)) {
			t.Fatalf("offset %d holds writer %d record %d, acknowledged as %+v", e.Offset, g, i, want)
		}
		if i != next[g] {
			t.Fatalf("writer %d: record %d read before %d", g, i, next[g])
		}
		next[g]++
	}
	if err := j.Sync(); err != nil {
		t.Fatal(err)
	}
	if st := j.Stats(); st.UncommittedJournalEntries != 0 {
		t.Fatalf("%d uncommitted after committing everything", st.UncommittedJournalEntries)
	}
}

// TestGroupCommit checks concurrent appenders share fsyncs: with 64 of them
// there must be far fewer batches than appends.
func TestGroupCommit(t *testing.T) {
	const appenders, each = 64, 20
	j := open(t, t.TempDir(), Options{})
	start := make(chan struct{})
	var wg sync.WaitGroup
	for g := range appenders {
		wg.Go(func() {
			<-start
			for i := range each {
				if _, _, err := j.Append(context.Background(), record(g, i)); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	close(start)
	wg.Wait()
	j.mu.Lock()
	batches := j.batches
	j.mu.Unlock()
	if batches >= appenders*each/2 {
		t.Fatalf("%d fsync batches for %d appends; group commit is not batching", batches, appenders*each)
	}
	t.Logf("%d appends in %d fsync batches", appenders*each, batches)
}
