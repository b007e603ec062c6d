package embedded

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/logs/messages/messagestest"
)

// buildSegment builds an in-memory segment of msgs, sorted as a flush
// would.
func buildSegment(t *testing.T, msgs []messages.Message) *segment {
	t.Helper()
	seg, _ := buildVersion(t, msgs, 0)
	return seg
}

// TestMergeMatchesReindex checks that a merge, which copies records and
// renumbers postings, writes the very bytes that indexing the surviving
// messages again would.
func TestMergeMatchesReindex(t *testing.T) {
	all := messagestest.Generate(7, 1200, messagestest.BenchStart)
	// Overlapping time ranges, a field only some sources have, a message
	// without fields, non-UUID ids and one id in two sources.
	all[5].Fields = append(all[5].Fields, messages.Field{Key: "rare", Value: "Only Here"})
	all[500].Fields = nil
	all[1000].ID = "custom-id"
	all[1050].ID = all[10].ID
	parts := [][]messages.Message{all[:400], all[400:800], all[800:1100], all[1100:]}
	for i := range parts[1] {
		parts[1][i].Timestamp = parts[1][i].Timestamp.Add(-700 * time.Millisecond)
	}
	var srcs []*segRef
	for i, p := range parts {
		ref := &segRef{seg: buildSegment(t, p)}
		ref.durable = newBitset(ref.seg.n)
		for d := i; d < ref.seg.n; d += 7 { // dropped documents
			ref.durable.set(d)
		}
		if i == 0 { // keep the one message with field rare
			ref.seg.ids.lookup(all[5].ID, func(d int) { ref.durable[d>>6] &^= 1 << (d & 63) })
		}
		if i == 3 { // every document of the last source dropped
			ref.durable = fullBitset(ref.seg.n)
		}
		srcs = append(srcs, ref)
	}
	plan := &mergePlan{srcs: srcs}
	for _, r := range srcs {
		plan.durable = append(plan.durable, r.durable)
	}
	s := &Store{quit: make(chan struct{})}
	maps := make([][]int32, len(srcs))
	var merged bytes.Buffer
	b := newBuilder(&merged)
	if err := s.mergeInto(b, plan, maps); err != nil {
		t.Fatal(err)
	}
	if _, err := b.finish(); err != nil {
		t.Fatal(err)
	}

	// The reference: the live documents in their new order, indexed.
	type pos struct{ src, doc int }
	var order []pos
	for i, m := range maps {
		for d, nd := range m {
			if nd >= 0 {
				for len(order) <= int(nd) {
					order = append(order, pos{-1, -1})
				}
				order[nd] = pos{i, d}
			}
		}
	}
	var want bytes.Buffer
	rb := newBuilder(&want)
	readers := make([]*docReader, len(srcs))
	for i, r := range srcs {
		readers[i] = &docReader{s: r.seg}
	}
	live := 0
	for nd, p := range order {
		if p.src < 0 {
			t.Fatalf("new document %d comes from nowhere", nd)
		}
		if srcs[p.src].durable.has(p.doc) {
			t.Fatalf("dropped document %d of source %d was kept", p.doc, p.src)
		}
		m, err := readers[p.src].get(p.doc)
		if err != nil {
			t.Fatal(err)
		}
		if err := rb.add(&m); err != nil {
			t.Fatal(err)
		}
		live++
	}
	if _, err := rb.finish(); err != nil {
		t.Fatal(err)
	}
	wantLive := 0
	for _, r := range srcs {
		wantLive += r.seg.n - r.durable.count()
	}
	if live != wantLive {
		t.Fatalf("merged %d documents, want %d", live, wantLive)
	}
	if !bytes.Equal(merged.Bytes(), want.Bytes()) {
		t.Fatalf("merged segment (%d bytes) differs from the reindexed one (%d bytes)", merged.Len(), want.Len())
	}
	seg, err := readSegment(bytes.NewReader(merged.Bytes()), int64(merged.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if seg.fields["rare"] == nil {
		t.Errorf("field rare lost: %s", fmt.Sprint(seg.names))
	}
}

// BenchmarkMerge merges 8 segments of 5,000 messages: Direct is the
// merge as the store runs it, Reindex what it would cost to read and
// index every message again.
func BenchmarkMerge(b *testing.B) {
	t := &testing.T{}
	all := messagestest.Generate(3, 40000, messagestest.BenchStart)
	var srcs []*segRef
	plan := &mergePlan{}
	for i := range 8 {
		ref := &segRef{seg: buildSegment(t, all[i*5000:(i+1)*5000])}
		srcs = append(srcs, ref)
		plan.durable = append(plan.durable, nil)
	}
	plan.srcs = srcs
	s := &Store{quit: make(chan struct{})}
	b.Run("Direct", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			maps := make([][]int32, len(srcs))
			bl := newBuilder(&bytes.Buffer{})
			if err := s.mergeInto(bl, plan, maps); err != nil {
				b.Fatal(err)
			}
			if _, err := bl.finish(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/40000, "ns/msg")
	})
	b.Run("Reindex", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			bl := newBuilder(&bytes.Buffer{})
			for _, r := range srcs { // sources in time order already
				dr := &docReader{s: r.seg}
				for d := range r.seg.n {
					m, err := dr.get(d)
					if err != nil {
						b.Fatal(err)
					}
					if err := bl.add(&m); err != nil {
						b.Fatal(err)
					}
				}
			}
			if _, err := bl.finish(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/40000, "ns/msg")
	})
}
