package embedded

import (
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/google/uuid"
	"github.com/oklog/ulid/v2"
)

// TestSizeBreakdown prints where a store's bytes go, per message: the
// blocks by column, the dictionary by field (terms and postings), the
// meta section by part. It loads LOGGATE_SIZE_BREAKDOWN messages of the
// issue 18 corpus (flushed every 40,000, merged) and is skipped without
// it. Column and meta parts are each compressed alone, so they are
// estimates; the totals are exact.
func TestSizeBreakdown(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("LOGGATE_SIZE_BREAKDOWN"))
	if n <= 0 {
		t.Skip("set LOGGATE_SIZE_BREAKDOWN to a message count to run")
	}
	s, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	msgs := corpusMessages(n)
	if os.Getenv("LOGGATE_SIZE_IDS") == "ingest" {
		// The ids the GELF input gives: time-based UUIDs and ULIDs of
		// the receiving time, here 50 messages a millisecond.
		entropy := ulid.Monotonic(rand.NewChaCha8([32]byte{18}), 0)
		for i := range msgs {
			u, err := uuid.NewUUID()
			if err != nil {
				t.Fatal(err)
			}
			msgs[i].ID = u.String()
			f := &msgs[i].Fields[len(msgs[i].Fields)-1]
			f.Value = ulid.MustNew(ulid.Timestamp(msgs[0].Timestamp)+uint64(i/50), entropy).String()
		}
	}
	for i := 0; i < n; i += 1000 {
		if err := s.Write(t.Context(), "graylog", msgs[i:min(i+1000, n)]); err != nil {
			t.Fatal(err)
		}
		if (i+1000)%40000 == 0 || i+1000 >= n {
			if err := s.Flush(t.Context(), uint64(i)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := s.WaitMerges(t.Context()); err != nil {
		t.Fatal(err)
	}
	parts := map[string]float64{}
	var total int64
	nsegs := 0
	for _, ix := range s.indices {
		for _, r := range ix.segs {
			nsegs++
			total += r.seg.size
			segmentBreakdown(t, r.seg, parts)
		}
	}
	t.Logf("%d messages, %d segments, %.1f B/msg", n, nsegs, float64(total)/float64(n))
	keys := slices.Sorted(maps.Keys(parts))
	slices.SortStableFunc(keys, func(a, b string) int { return int(parts[b] - parts[a]) })
	for _, k := range keys {
		t.Logf("%-40s %7.2f B/msg", k, parts[k]/float64(n))
	}
}

// segmentBreakdown adds the parts of s to parts.
func segmentBreakdown(t *testing.T, s *segment, parts map[string]float64) {
	t.Helper()
	z := func(b []byte) float64 { return float64(len(blockEncoder.EncodeAll(b, nil))) }
	// Blocks: exact total, shared out by each column compressed alone.
	var blockTotal float64
	est := map[string]float64{}
	for i, r := range s.blocks {
		blockTotal += float64(r.len)
		raw, err := s.readBlock(i)
		if err != nil {
			t.Fatal(err)
		}
		cb, err := decodeColBlock(raw, r.docs, &segmentNums{fields: s.fields, first: r.first})
		if err != nil {
			t.Fatal(err)
		}
		est["block shapes+keys"] += z(raw[:8*len(cb.keys)+len(cb.docShape)])
		est["block streams"] += z([]byte(cb.streams.data))
		for k, c := range cb.cols {
			var sc strColumn
			for i := range c.strs.count {
				sc.add(c.strs.get(i))
			}
			e := sc.encode(nil, s.version)
			if s.version < 4 || !exactFloats(c.ints) {
				e = appendInts(e, c.ints)
			}
			e = append(e, c.bools...)
			est["block col "+cb.keys[k]] += z(e)
		}
	}
	var sum float64
	for _, v := range est {
		sum += v
	}
	for k, v := range est {
		parts[k] += v * blockTotal / sum
	}
	// Dictionary: exact per field, split into terms and postings by
	// their raw shares.
	for _, name := range s.names {
		f := s.fields[name]
		var size, terms, postings float64
		for _, r := range f.runs {
			size += float64(r.len)
		}
		err := s.scanTerms(f, "", func(e term) bool {
			terms += float64(len(e.text))
			postings += float64(len(e.postings))
			return true
		})
		if err != nil {
			t.Fatal(err)
		}
		if terms+postings > 0 {
			parts["dict "+name+" terms"] += size * terms / (terms + postings)
			parts["dict "+name+" postings"] += size * postings / (terms + postings)
		}
	}
	// Meta: each part compressed alone.
	var ts, ids enc
	for i, v := range s.ts {
		if i == 0 {
			ts.varint(v)
		} else {
			ts.uvarint(uint64(v - s.ts[i-1]))
		}
	}
	ids = append(ids, s.ids.uuids...)
	parts["meta timestamps"] += z(ts)
	parts["meta ids"] += z(ids)
	var refs enc
	for _, r := range s.blocks {
		refs.uvarint(uint64(r.off))
		refs.uvarint(uint64(r.len))
		refs.uvarint(r.raw)
		refs.uvarint(uint64(r.docs))
	}
	for _, name := range s.names {
		f := s.fields[name]
		var docs []uint32
		for d := f.present.next(0); d >= 0; d = f.present.next(d + 1) {
			docs = append(docs, uint32(d))
		}
		parts["meta presence"] += z(appendPostings(nil, docs, s.n))
		if len(f.nums) > 0 {
			parts["meta numbers "+name] += z(appendNumbers(nil, f.numDocs, f.nums))
		}
		for _, r := range f.runs {
			refs.str(r.first)
			refs.uvarint(uint64(r.off))
			refs.uvarint(uint64(r.len))
			refs.uvarint(r.raw)
		}
	}
	parts["meta refs"] += z(refs)
	parts["footer+magic"] += float64(footerSize + len(magic))
	parts["(meta section, exact)"] += float64(s.size - footerSize - s.dictOff - s.dictLen)
	parts["(blocks, exact)"] += blockTotal
	parts["(dictionary, exact)"] += float64(s.dictLen)
}
