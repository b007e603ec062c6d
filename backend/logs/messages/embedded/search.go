package embedded

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/loggate/loggate/backend/logs/messages"
)

// view is one searchable segment as a search saw it.
type view struct {
	index   string
	seg     *segment
	deleted bitset
}

// snapshot is what a search works on: taken under the read lock, used
// without it. It holds a reference on every file segment.
type snapshot struct {
	indices []messages.Index
	views   []view
}

func (sn *snapshot) release() {
	for _, v := range sn.views {
		v.seg.release()
	}
}

// take collects the views of the named indices (all when names is nil);
// buffers are indexed after the lock is released.
func (s *Store) take(prefixes []string) (*snapshot, error) {
	s.mu.RLock()
	if s.closed {
		s.mu.RUnlock()
		return nil, unavailable("search", errClosed)
	}
	sn := &snapshot{}
	var bufs []bufferView
	var bufIndex []string
	for _, ix := range s.selected(prefixes) {
		if ix.closed {
			continue
		}
		sn.indices = append(sn.indices, s.describe(ix))
		for _, r := range ix.segs {
			r.seg.refs.Add(1)
			sn.views = append(sn.views, view{index: ix.name, seg: r.seg, deleted: r.deleted})
		}
		for _, b := range ix.buffers() {
			if len(b.msgs) > 0 {
				bufs = append(bufs, bufferView{b: b, n: len(b.msgs), msgs: b.msgs, deleted: b.deleted})
				bufIndex = append(bufIndex, ix.name)
			}
		}
	}
	s.mu.RUnlock()
	for i, bv := range bufs {
		vs, err := bv.views(bufIndex[i])
		if err != nil {
			sn.release()
			return nil, fmt.Errorf("embedded: index buffer: %w", err)
		}
		for _, v := range vs {
			v.seg.refs.Add(1)
			sn.views = append(sn.views, v)
		}
	}
	return sn, nil
}

// selected returns the indices of the given series, all when empty, in
// name order; the caller holds mu.
func (s *Store) selected(prefixes []string) []*index {
	var out []*index
	if len(prefixes) == 0 {
		for _, list := range s.series {
			out = append(out, list...)
		}
	} else {
		seen := map[string]bool{}
		for _, p := range prefixes {
			if !seen[p] {
				seen[p] = true
				out = append(out, s.series[p]...)
			}
		}
	}
	slices.SortFunc(out, func(a, b *index) int {
		return cmp.Or(cmp.Compare(a.prefix, b.prefix), cmp.Compare(a.number, b.number))
	})
	return out
}

// describe returns the messages.Index of ix; the caller holds mu.
func (s *Store) describe(ix *index) messages.Index {
	out := messages.Index{Name: ix.name, Prefix: ix.prefix, Number: ix.number,
		Created: ix.created, Closed: ix.closed, Reopened: ix.reopened}
	if !ix.closed {
		c := ix.count()
		out.Count, out.Size = c.live, c.bytes
		if c.end >= c.begin {
			out.Begin, out.End = unixMilli(c.begin), unixMilli(c.end)
		}
	}
	list := s.series[ix.prefix]
	out.Write = list[len(list)-1] == ix
	return out
}

// candidate is a matching document with its sort key.
type candidate struct {
	v    int // view
	doc  int
	ts   int64
	id   string
	kind int // 0 number, 1 string, 2 missing
	num  float64
	str  string
	// exact is the stored integer of a number whose float64 num may
	// stand for several (big).
	exact int64
	big   bool
}

// Search runs q.
func (s *Store) Search(ctx context.Context, q messages.Query) (messages.Result, error) {
	if err := ctx.Err(); err != nil {
		return messages.Result{}, err
	}
	window := q.Window
	if window <= 0 {
		window = messages.DefaultResultWindow
	}
	if q.Offset < 0 || q.Limit < 0 {
		return messages.Result{}, fmt.Errorf("embedded: negative offset or limit")
	}
	if q.Offset+q.Limit > window {
		return messages.Result{}, fmt.Errorf("embedded: from %d + size %d > %d: %w", q.Offset, q.Limit, window, messages.ErrResultWindow)
	}
	sn, err := s.take(q.Prefixes)
	if err != nil {
		return messages.Result{}, err
	}
	defer sn.release()

	byTime := byTime(q.Sort)
	k := q.Offset + q.Limit
	var cands []candidate
	res, err := sn.match(ctx, q, func(vi int, seg *segment, set bitset) error {
		if k == 0 {
			return nil
		}
		if byTime {
			cands = topByTime(cands, set, vi, seg, k, q.Sort.Asc)
			return nil
		}
		var err error
		cands, err = bySortField(cands, set, vi, seg, q.Sort.Field, q.Sort.Asc, k)
		return err
	})
	if err != nil {
		return messages.Result{}, err
	}
	sortCandidates(cands, byTime, q.Sort.Asc)
	if q.Offset < len(cands) {
		cands = cands[q.Offset:min(len(cands), k)]
	} else {
		cands = nil
	}
	if res.Hits, err = fetch(sn.views, cands); err != nil {
		return messages.Result{}, err
	}
	return res, nil
}

func byTime(s messages.Sort) bool { return s.Field == "" || s.Field == messages.FieldTimestamp }

// match evaluates q on every view of the snapshot that its time range
// touches and calls fn with the matching documents of each; it returns the
// total and the indices the search looked at.
func (sn *snapshot) match(ctx context.Context, q messages.Query, fn func(vi int, seg *segment, set bitset) error) (messages.Result, error) {
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	if !q.From.IsZero() {
		lo = q.From.UnixMilli()
	}
	if !q.To.IsZero() {
		hi = q.To.UnixMilli()
	}
	var res messages.Result
	ev := &evaluator{now: time.Now()}
	for vi, v := range sn.views {
		if err := ctx.Err(); err != nil {
			return messages.Result{}, err
		}
		seg := v.seg
		if seg.n == 0 || seg.ts[0] > hi || seg.ts[seg.n-1] < lo {
			continue
		}
		a, b := seg.timeRange(lo, hi)
		if a == b {
			continue
		}
		ev.s = seg
		set := ev.eval(q.Query)
		if ev.err != nil {
			return messages.Result{}, ev.err
		}
		set.keepRange(a, b)
		if v.deleted != nil {
			set.andNot(v.deleted)
		}
		if len(q.Streams) > 0 {
			set.and(ev.streams(q.Streams))
			if ev.err != nil {
				return messages.Result{}, ev.err
			}
		}
		res.Total += int64(set.count())
		if err := fn(vi, seg, set); err != nil {
			return messages.Result{}, err
		}
	}
	for _, ix := range sn.indices {
		if ix.Write || (ix.Count > 0 && ix.Begin.UnixMilli() <= hi && ix.End.UnixMilli() >= lo) {
			res.Indices = append(res.Indices, ix)
		}
	}
	return res, nil
}

func (e *evaluator) streams(ids []string) bitset {
	set := newBitset(e.s.n)
	f := e.s.fields[messages.FieldStreams]
	if f == nil {
		return set
	}
	for _, id := range ids {
		p, err := e.s.lookupTerm(f, id)
		if err != nil {
			e.fail(err)
			return set
		}
		e.orPostings(set, p)
	}
	return set
}

// topByTime adds the k first documents of set in time order: documents
// are numbered in (timestamp, _id) order, so they are the last k (or the
// first k ascending).
func topByTime(cands []candidate, set bitset, vi int, seg *segment, k int, asc bool) []candidate {
	d := set.prev(seg.n - 1)
	if asc {
		d = set.next(0)
	}
	for got := 0; d >= 0 && got < k; got++ {
		cands = append(cands, candidate{v: vi, doc: d, ts: seg.ts[d], id: seg.ids.id(d)})
		if asc {
			d = set.next(d + 1)
		} else {
			d = set.prev(d - 1)
		}
	}
	return cands
}

// bySortField adds every document of set with its value of field as the
// key: a number, the (smallest, or largest descending) term, or missing.
// With keep > 0 only the first keep candidates in sort order are wanted:
// whenever twice that many are held, they are sorted and cut to keep, so a
// search for one page holds about a page, not every match.
func bySortField(cands []candidate, set bitset, vi int, seg *segment, field string, asc bool, keep int) ([]candidate, error) {
	f := seg.fields[field]
	var ord []int32
	var termText []string
	if f != nil && f.nterms > 0 {
		ord = make([]int32, seg.n)
		for i := range ord {
			ord[i] = -1
		}
		err := seg.scanTerms(f, "", func(t term) bool {
			one := newBitset(seg.n)
			if orPostings(one, t.postings, seg.n) != nil {
				return false
			}
			termText = append(termText, t.text)
			for d := one.next(0); d >= 0; d = one.next(d + 1) {
				if ord[d] < 0 || !asc {
					ord[d] = int32(len(termText) - 1)
				}
			}
			return true
		})
		if err != nil {
			return nil, err
		}
	}
	r := &docReader{s: seg}
	for d := set.next(0); d >= 0; d = set.next(d + 1) {
		c := candidate{v: vi, doc: d, ts: seg.ts[d], id: seg.ids.id(d), kind: 2}
		switch {
		case field == messages.FieldID:
			c.kind, c.str = 1, c.id
		case f != nil:
			if i, ok := slices.BinarySearch(f.numDocs, uint32(d)); ok {
				c.kind, c.num = 0, f.nums[i]
				if err := exactKey(&c, r, field); err != nil {
					return nil, err
				}
			} else if ord != nil && ord[d] >= 0 {
				c.kind, c.str = 1, termText[ord[d]]
			}
		}
		cands = append(cands, c)
		if keep > 0 && len(cands) >= 2*keep {
			sortCandidates(cands, false, asc)
			cands = cands[:keep]
		}
	}
	return cands, nil
}

// sortCandidates orders candidates by their key (the timestamp, or the
// field's value), then _id, in the requested direction; missing values go
// last either way, as in Elasticsearch.
func sortCandidates(cands []candidate, byTime, asc bool) {
	dir := 1
	if !asc {
		dir = -1
	}
	slices.SortFunc(cands, func(a, b candidate) int {
		if !byTime {
			if a.kind != b.kind {
				if a.kind == 2 || b.kind == 2 {
					return cmp.Compare(a.kind, b.kind)
				}
				return dir * cmp.Compare(a.kind, b.kind)
			}
			switch a.kind {
			case 0:
				if c := cmpNums(a, b); c != 0 {
					return dir * c
				}
			case 1:
				if c := cmp.Compare(a.str, b.str); c != 0 {
					return dir * c
				}
			}
		}
		if byTime {
			if c := cmp.Compare(a.ts, b.ts); c != 0 {
				return dir * c
			}
		}
		if c := cmp.Compare(a.id, b.id); c != 0 {
			return dir * c
		}
		return cmp.Or(cmp.Compare(a.v, b.v), cmp.Compare(a.doc, b.doc))
	})
}

// fetch reads the stored messages of the page, each block once.
func fetch(views []view, page []candidate) ([]messages.Hit, error) {
	hits := make([]messages.Hit, len(page))
	order := make([]int, len(page))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(i, j int) bool {
		a, b := page[order[i]], page[order[j]]
		return a.v < b.v || (a.v == b.v && a.doc < b.doc)
	})
	var r *docReader
	for _, i := range order {
		c := page[i]
		if r == nil || r.s != views[c.v].seg {
			r = &docReader{s: views[c.v].seg}
		}
		m, err := r.get(c.doc)
		if err != nil {
			return nil, err
		}
		hits[i] = messages.Hit{Index: views[c.v].index, Message: m}
	}
	return hits, nil
}

// Get returns the message with the given _id from index.
func (s *Store) Get(ctx context.Context, index, id string) (messages.Hit, error) {
	if err := ctx.Err(); err != nil {
		return messages.Hit{}, err
	}
	s.mu.RLock()
	if s.closed {
		s.mu.RUnlock()
		return messages.Hit{}, unavailable("get", errClosed)
	}
	ix := s.indices[index]
	if ix == nil || ix.closed {
		s.mu.RUnlock()
		return messages.Hit{}, fmt.Errorf("embedded: index %s: %w", index, messages.ErrNotFound)
	}
	bufs := ix.buffers()
	for i := len(bufs) - 1; i >= 0; i-- {
		if pos, ok := bufs[i].byID[id]; ok {
			m := bufs[i].msgs[pos]
			s.mu.RUnlock()
			return messages.Hit{Index: index, Message: cloneMessage(m)}, nil
		}
	}
	var seg *segment
	doc := -1
	k := newIDKey(id)
	for _, r := range ix.segs {
		r.seg.ids.lookupKey(&k, func(d int) {
			if !r.deleted.has(d) {
				seg, doc = r.seg, d
			}
		})
		if seg != nil {
			break
		}
	}
	if seg == nil {
		s.mu.RUnlock()
		return messages.Hit{}, fmt.Errorf("embedded: message %s in %s: %w", id, index, messages.ErrNotFound)
	}
	seg.refs.Add(1)
	s.mu.RUnlock()
	defer seg.release()
	m, err := (&docReader{s: seg}).get(doc)
	if err != nil {
		return messages.Hit{}, fmt.Errorf("embedded: get %s: %w", id, err)
	}
	return messages.Hit{Index: index, Message: m}, nil
}

func cloneMessage(m messages.Message) messages.Message {
	m.Streams = slices.Clone(m.Streams)
	m.Fields = slices.Clone(m.Fields)
	return m
}
