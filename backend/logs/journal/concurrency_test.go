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

// TestAppendsAfterHugeBatch: a batch too big to keep as the writer's spare
// buffer must not leave the spare pointing at the array appenders fill
// next; every acknowledged record reads back as it was appended.
func TestAppendsAfterHugeBatch(t *testing.T) {
	// A tiny segment size rolls on every batch: its fsyncs widen the
	// window between the writer taking a batch and writing it.
	j := open(t, t.TempDir(), Options{SegmentSize: 1, MaxRecordSize: 2 * maxPending})
	ctx := context.Background()
	// Framed, the second record is above 2*maxPending.
	for _, size := range []int{1 << 20, 2 * maxPending} {
		if _, _, err := j.Append(ctx, bytes.Repeat([]byte{'h'}, size)); err != nil {
			t.Fatal(err)
		}
	}
	type ack struct {
		off  uint64
		data []byte
	}
	var mu sync.Mutex
	var acks []ack
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				rec := fmt.Appendf(nil, "writer %d record %d %s", g, i, bytes.Repeat([]byte{byte('a' + g)}, 20+i%50))
				first, _, err := j.Append(ctx, rec)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				acks = append(acks, ack{first, rec})
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	bad := 0
	for _, a := range acks {
		es, err := j.Read(a.off, 1)
		if err != nil || len(es) != 1 || !bytes.Equal(es[0].Data, a.data) {
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d acknowledged records read back differently", bad, len(acks))
	}
}
