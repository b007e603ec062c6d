package embedded

import (
	"testing"

	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/logs/messages/messagestest"
)

// TestBlockCacheBound reads every block of a segment through a cache
// smaller than the segment: the cache never holds more bytes than its
// bound, a block read again comes from it, and a block larger than the
// whole bound is not kept.
func TestBlockCacheBound(t *testing.T) {
	msgs := messagestest.Generate(4, 5000, messagestest.BenchStart)
	s, _ := buildVersion(t, msgs, 3)
	if len(s.blocks) < 4 {
		t.Fatalf("%d blocks, want several", len(s.blocks))
	}
	first, err := decodeColBlock(mustReadBlock(t, s, 0), s.blocks[0].docs, &segmentNums{fields: s.fields})
	if err != nil {
		t.Fatal(err)
	}
	bound := 2*first.size + first.size/2 // two blocks of that size, not three
	s.cache = newBlockCache(bound)
	for range 2 {
		for b := range s.blocks {
			r := &docReader{s: s}
			m, err := r.get(s.blocks[b].first)
			if err != nil {
				t.Fatal(err)
			}
			if m.ID != msgs[timeOrder(msgs)[s.blocks[b].first]].ID {
				t.Fatalf("block %d: read %s", b, m.ID)
			}
			if size, n := s.cache.bytes(); size > bound || n == 0 || n > 2 {
				t.Fatalf("after block %d: cache holds %d bytes in %d blocks, bound %d", b, size, n, bound)
			}
		}
	}
	last := len(s.blocks) - 1
	cb, err := s.decodedBlock(last)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := s.decodedBlock(last); again != cb {
		t.Error("the block read last was decoded again")
	}

	s.cache = newBlockCache(first.size / 2)
	if _, err := s.decodedBlock(0); err != nil {
		t.Fatal(err)
	}
	if size, n := s.cache.bytes(); size != 0 || n != 0 {
		t.Errorf("a block larger than the bound was kept: %d bytes in %d blocks", size, n)
	}
}

func mustReadBlock(t *testing.T, s *segment, b int) []byte {
	t.Helper()
	raw, err := s.readBlock(b)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// TestBlockCacheDropped checks that the blocks of a segment leave the
// cache once a merge replaced the segment or its index was deleted, so
// that the cache holds no closed segment's memory.
func TestBlockCacheDropped(t *testing.T) {
	ctx := t.Context()
	s, err := Open(t.TempDir(), Options{MergeFactor: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	msgs := messagestest.Generate(2, 400, messagestest.BenchStart)
	search := func(want int) {
		t.Helper()
		r, err := s.Search(ctx, messages.Query{Limit: 400})
		if err != nil || len(r.Hits) != want {
			t.Fatalf("Search: %d hits, %v", len(r.Hits), err)
		}
	}
	cached := func() map[*segment]bool {
		s.blocks.mu.Lock()
		defer s.blocks.mu.Unlock()
		out := map[*segment]bool{}
		for seg := range s.blocks.byKey {
			out[seg] = true
		}
		return out
	}

	if err := s.Write(ctx, "cache", msgs[:200]); err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(ctx, 1); err != nil {
		t.Fatal(err)
	}
	search(200)
	before := cached()
	if len(before) != 1 {
		t.Fatalf("cache holds blocks of %d segments, want the flushed one", len(before))
	}

	if err := s.Write(ctx, "cache", msgs[200:]); err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(ctx, 2); err != nil {
		t.Fatal(err)
	}
	if err := s.WaitMerges(ctx); err != nil {
		t.Fatal(err)
	}
	if st := s.Stats(); st.Segments != 1 {
		t.Fatalf("%d segments, want the two flushed merged", st.Segments)
	}
	for seg := range before {
		if cached()[seg] {
			t.Error("blocks of a merged-away segment are still cached")
		}
	}
	search(400)
	if len(cached()) != 1 {
		t.Errorf("the search after the merge cached blocks of %d segments, want 1", len(cached()))
	}

	if _, err := s.Rotate(ctx, "cache"); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, "cache_0"); err != nil {
		t.Fatal(err)
	}
	if size, n := s.blocks.bytes(); n != 0 || size != 0 {
		t.Errorf("after deleting the index the cache holds %d bytes in %d blocks", size, n)
	}
}
