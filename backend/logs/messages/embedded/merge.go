package embedded

import (
	"context"
	"errors"
	"math"
	"slices"
	"sort"
)

// maxMergeDocs bounds a merged segment: the builder holds a segment's
// postings in memory, so this caps the merger's memory, and a search
// over a few segments of this size is as fast as over one.
const maxMergeDocs = 1 << 19

// merger joins small segments in the background, one merge at a time,
// after each Flush.
func (s *Store) merger() {
	defer close(s.done)
	for {
		select {
		case <-s.quit:
			return
		case <-s.mergeKick:
		}
		for s.mergeLocked() {
			select {
			case <-s.quit:
				return
			default:
			}
		}
	}
}

func (s *Store) mergeLocked() bool {
	s.mergeMu.Lock()
	defer s.mergeMu.Unlock()
	return s.mergeOnce()
}

// mergePlan is one merge: sources of one index and the deletions that
// were durable when it was planned (those documents are dropped).
type mergePlan struct {
	ix      *index
	srcs    []*segRef
	durable []bitset
	seq     uint64
}

// plan picks segments to merge: factor segments of one size tier (sizes
// within a factor of MergeFactor), smallest first, as long as their sum
// stays below maxMergeDocs. The caller holds mu.
func (s *Store) plan() *mergePlan {
	f := s.opts.MergeFactor
	if f < 2 {
		return nil
	}
	for _, ix := range s.selected(nil) {
		tiers := map[int][]*segRef{}
		for _, r := range ix.segs {
			live := r.seg.n - r.durable.count()
			t := int(math.Log(float64(max(live, 1))) / math.Log(float64(f)))
			tiers[t] = append(tiers[t], r)
		}
		keys := make([]int, 0, len(tiers))
		for t := range tiers {
			keys = append(keys, t)
		}
		sort.Ints(keys)
		for _, t := range keys {
			list := tiers[t]
			if len(list) < f {
				continue
			}
			slices.SortFunc(list, func(a, b *segRef) int { return a.seg.n - b.seg.n })
			var pick []*segRef
			total := 0
			for _, r := range list[:f] {
				if total+r.seg.n > maxMergeDocs {
					break
				}
				total += r.seg.n
				pick = append(pick, r)
			}
			if len(pick) < 2 {
				continue
			}
			p := &mergePlan{ix: ix, srcs: pick, seq: s.nextSeq}
			s.nextSeq++
			for _, r := range pick {
				r.seg.refs.Add(1)
				p.durable = append(p.durable, r.durable)
			}
			return p
		}
	}
	return nil
}

// mergeOnce runs one merge if there is one to do, and reports whether it
// did.
func (s *Store) mergeOnce() bool {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return false
	}
	p := s.plan()
	s.mu.Unlock()
	if p == nil {
		return false
	}
	defer func() {
		for _, r := range p.srcs {
			r.seg.release()
		}
	}()
	maps := make([][]int32, len(p.srcs))
	seg, err := s.writeSegment(p.ix.dir, segmentFile(p.seq), func(b *builder) error {
		return s.mergeInto(b, p, maps)
	})
	if err != nil {
		return false // a failing disk: try again after the next Flush
	}
	return s.commitMerge(p, seg, maps)
}

// mergeInto adds the live documents of the sources to b in (timestamp,
// _id) order, recording in maps where each went: their stored records as
// they are, then their postings renumbered (see mergeFields).
func (s *Store) mergeInto(b *builder, p *mergePlan, maps [][]int32) error {
	type cursor struct {
		r   *docReader
		doc int
		id  string
	}
	cur := make([]*cursor, len(p.srcs))
	advance := func(i int) {
		c := cur[i]
		seg := c.r.s
		for c.doc++; c.doc < seg.n && p.durable[i].has(c.doc); c.doc++ {
		}
		if c.doc < seg.n {
			c.id = seg.ids.id(c.doc)
		}
	}
	for i, r := range p.srcs {
		maps[i] = make([]int32, r.seg.n)
		for d := range maps[i] {
			maps[i][d] = -1
		}
		cur[i] = &cursor{r: &docReader{s: r.seg}, doc: -1}
		advance(i)
	}
	for n := int32(0); ; n++ {
		best := -1
		for i, c := range cur {
			if c.doc >= c.r.s.n {
				continue
			}
			if best < 0 {
				best = i
				continue
			}
			bc := cur[best]
			if t, bt := c.r.s.ts[c.doc], bc.r.s.ts[bc.doc]; t < bt || (t == bt && c.id < bc.id) {
				best = i
			}
		}
		if best < 0 {
			segs := make([]*segment, len(p.srcs))
			for i, r := range p.srcs {
				segs[i] = r.seg
			}
			return mergeFields(b, segs, maps)
		}
		if n&1023 == 0 {
			select {
			case <-s.quit:
				return errClosed
			default:
			}
		}
		c := cur[best]
		m, err := c.r.get(c.doc)
		if err != nil {
			return err
		}
		if err := b.addStored(c.r.s.ts[c.doc], c.id, &m); err != nil {
			return err
		}
		maps[best][c.doc] = n
		advance(best)
	}
}

// commitMerge swaps the sources for the merged segment and records it in
// the manifest. Deletions made while merging carry over through maps.
func (s *Store) commitMerge(p *mergePlan, seg *segment, maps [][]int32) bool {
	s.flushMu.Lock()
	defer s.flushMu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	ix := p.ix
	discard := func() bool {
		seg.remove.Store(true)
		seg.release()
		return false
	}
	if s.closed || s.indices[ix.name] != ix {
		return discard()
	}
	pos := make([]int, len(p.srcs))
	for i, r := range p.srcs {
		if pos[i] = slices.Index(ix.segs, r); pos[i] < 0 {
			return discard()
		}
	}
	ref := &segRef{seg: seg}
	for i, r := range p.srcs {
		for d := r.deleted.next(0); d >= 0; d = r.deleted.next(d + 1) {
			nd := maps[i][d]
			if nd < 0 {
				continue
			}
			if ref.deleted == nil {
				ref.deleted = newBitset(seg.n)
			}
			ref.deleted.set(int(nd))
			if r.durable.has(d) {
				if ref.durable == nil {
					ref.durable = newBitset(seg.n)
				}
				ref.durable.set(int(nd))
			}
		}
	}
	old := ix.segs
	next := make([]*segRef, 0, len(old)-len(p.srcs)+1)
	for _, r := range old {
		if !slices.Contains(p.srcs, r) {
			next = append(next, r)
		}
	}
	ix.segs = append(next, ref)
	err := s.commitLocked()
	if err != nil && !errors.Is(err, errUnsynced) {
		ix.segs = old
		return discard()
	}
	for _, r := range p.srcs {
		// Without a synced manifest the old one may come back: its
		// segments stay on disk until Open finds them unnamed.
		r.seg.remove.Store(err == nil)
		r.seg.release()
	}
	return true
}

// WaitMerges runs merges in the caller until none is left to do, so a
// test or benchmark measures the merged layout. The background merger
// does the same work on its own after each Flush.
func (s *Store) WaitMerges(ctx context.Context) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		s.mergeMu.Lock()
		did := s.mergeOnce()
		s.mergeMu.Unlock()
		if !did {
			return nil
		}
	}
}
