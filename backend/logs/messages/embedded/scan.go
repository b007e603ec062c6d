package embedded

import (
	"cmp"
	"context"
	"fmt"

	"github.com/loggate/loggate/backend/logs/messages"
)

// Scan evaluates q once on a snapshot and walks the matches: in time order
// by merging the views, whose documents are numbered in (timestamp, _id)
// order; in another order by sorting the sort keys once. Only the message
// under the cursor is read, so a scan holds the match sets and one block
// per view, never a page of messages.
func (s *Store) Scan(ctx context.Context, q messages.Query) (messages.Cursor, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if q.Offset < 0 || q.Limit < 0 {
		return nil, fmt.Errorf("embedded: negative offset or limit")
	}
	sn, err := s.take(q.Prefixes)
	if err != nil {
		return nil, err
	}
	c := &cursor{ctx: ctx, sn: sn, asc: q.Sort.Asc, skip: q.Offset, left: q.Limit, limited: q.Limit > 0,
		readers: make([]*docReader, len(sn.views))}
	timeOrder := byTime(q.Sort)
	c.res, err = sn.match(ctx, q, func(vi int, seg *segment, set bitset) error {
		if timeOrder {
			h := &head{vi: vi, seg: seg, set: set, doc: -1}
			if c.advance(h) {
				c.heads = append(c.heads, h)
			}
			return nil
		}
		var err error
		keep := 0
		if q.Limit > 0 {
			keep = q.Offset + q.Limit
		}
		c.cands, err = bySortField(c.cands, set, vi, seg, q.Sort.Field, q.Sort.Asc, keep)
		return err
	})
	if err != nil {
		sn.release()
		return nil, err
	}
	if !timeOrder {
		sortCandidates(c.cands, false, q.Sort.Asc)
	}
	return c, nil
}

// head is a view's next match in a time-ordered scan.
type head struct {
	vi  int
	seg *segment
	set bitset
	doc int // -1 before the first
	ts  int64
	id  string
}

type cursor struct {
	ctx     context.Context
	sn      *snapshot
	res     messages.Result
	asc     bool
	skip    int // hits still to pass over (the offset)
	left    int // hits still to return; 0 with limited false is no limit
	limited bool
	heads   []*head     // time order
	cands   []candidate // any other order
	readers []*docReader
	n       int
	err     error
	closed  bool
}

// advance moves h to its view's next match in the scan's direction.
func (c *cursor) advance(h *head) bool {
	if c.asc {
		h.doc = h.set.next(h.doc + 1)
	} else if h.doc < 0 {
		h.doc = h.set.prev(h.seg.n - 1)
	} else {
		h.doc = h.set.prev(h.doc - 1)
	}
	if h.doc < 0 {
		return false
	}
	h.ts, h.id = h.seg.ts[h.doc], h.seg.ids.id(h.doc)
	return true
}

func (c *cursor) Result() messages.Result { return c.res }

func (c *cursor) Err() error { return c.err }

func (c *cursor) Close() error {
	if !c.closed {
		c.closed = true
		c.sn.release()
	}
	return nil
}

func (c *cursor) Next() (messages.Hit, bool) {
	for {
		if c.closed || c.err != nil || (c.limited && c.left == 0) {
			return messages.Hit{}, false
		}
		if c.n++; c.n%256 == 0 {
			if c.err = c.ctx.Err(); c.err != nil {
				return messages.Hit{}, false
			}
		}
		vi, doc, ok := c.step()
		if !ok {
			return messages.Hit{}, false
		}
		if c.skip > 0 {
			c.skip--
			continue
		}
		if c.limited {
			c.left--
		}
		r := c.readers[vi]
		if r == nil {
			r = &docReader{s: c.sn.views[vi].seg}
			c.readers[vi] = r
		}
		m, err := r.get(doc)
		if err != nil {
			c.err = err
			return messages.Hit{}, false
		}
		return messages.Hit{Index: c.sn.views[vi].index, Message: m}, true
	}
}

// step takes the next match off the merge or the sorted keys.
func (c *cursor) step() (vi, doc int, ok bool) {
	if c.cands != nil || len(c.heads) == 0 {
		if len(c.cands) == 0 {
			return 0, 0, false
		}
		x := c.cands[0]
		c.cands = c.cands[1:]
		return x.v, x.doc, true
	}
	best := 0
	for i, h := range c.heads[1:] {
		if c.before(h, c.heads[best]) {
			best = i + 1
		}
	}
	h := c.heads[best]
	vi, doc = h.vi, h.doc
	if !c.advance(h) {
		c.heads = append(c.heads[:best], c.heads[best+1:]...)
	}
	return vi, doc, true
}

// before orders heads as sortCandidates orders candidates by time.
func (c *cursor) before(a, b *head) bool {
	o := cmp.Or(cmp.Compare(a.ts, b.ts), cmp.Compare(a.id, b.id))
	if !c.asc {
		o = -o
	}
	if o == 0 {
		o = cmp.Compare(a.vi, b.vi)
	}
	return o < 0
}
