package embedded

import (
	"bytes"
	"slices"
	"sync"

	"github.com/loggate/loggate/backend/logs/messages"
)

// chunkSize is how many buffered messages are indexed together for
// search. Full chunks are indexed once; the partial last chunk again
// whenever a search finds it grew, so a search never indexes more than
// chunkSize messages.
const chunkSize = 4096

// buffer holds messages written since the last Flush. msgs only grows
// (under Store.mu), so a search may read a prefix of it without a lock;
// a replaced message is marked in deleted, copied on write.
type buffer struct {
	msgs         []messages.Message
	byID         map[string]int
	deleted      bitset
	minTS, maxTS int64

	mu     sync.Mutex // guards chunks and tail
	chunks []*chunk
	tail   *chunk
}

// chunk is an in-memory segment of msgs[base:base+n]; perm maps its
// documents (in time order) back to buffer positions.
type chunk struct {
	seg  *segment
	base int
	perm []int32
}

func newBuffer() *buffer { return &buffer{byID: map[string]int{}} }

// nextBuffer returns the buffer that follows b, made for as many messages
// as b took (but a bound): the next second of ingest is mostly like the
// last, and its messages then go in without growing (and copying) the
// list and rehashing the ids a doubling at a time.
func (b *buffer) nextBuffer() *buffer {
	n := min(len(b.msgs), maxBufferHint)
	return &buffer{msgs: make([]messages.Message, 0, n), byID: make(map[string]int, n)}
}

// maxBufferHint bounds what nextBuffer makes room for.
const maxBufferHint = 1 << 18

// bufferView is what a search saw of a buffer.
type bufferView struct {
	b       *buffer
	n       int
	msgs    []messages.Message // b.msgs[:n] as read under Store.mu
	deleted bitset
}

// views returns the searchable segments of the first v.n messages, with
// the deleted documents of each.
func (v bufferView) views(index string) ([]view, error) {
	b := v.b
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []view
	for base := 0; base < v.n; base += chunkSize {
		n := min(chunkSize, v.n-base)
		var c *chunk
		switch {
		case n == chunkSize && len(b.chunks) > base/chunkSize:
			c = b.chunks[base/chunkSize]
		case n < chunkSize && b.tail != nil && b.tail.base == base && b.tail.seg.n == n:
			c = b.tail
		default:
			var err error
			if c, err = buildChunk(v.msgs[base:base+n], base); err != nil {
				return nil, err
			}
			if n == chunkSize && len(b.chunks) == base/chunkSize {
				b.chunks = append(b.chunks, c)
			} else if n < chunkSize {
				b.tail = c
			}
		}
		vw := view{index: index, seg: c.seg}
		if v.deleted != nil {
			for d, pos := range c.perm {
				if v.deleted.has(base + int(pos)) {
					if vw.deleted == nil {
						vw.deleted = newBitset(c.seg.n)
					}
					vw.deleted.set(d)
				}
			}
		}
		out = append(out, vw)
	}
	return out, nil
}

func buildChunk(msgs []messages.Message, base int) (*chunk, error) {
	perm := timeOrder(msgs)
	var buf bytes.Buffer
	b := newBuilder(&buf)
	b.expect = len(msgs)
	sorted := make([]*messages.Message, len(perm))
	for k, i := range perm {
		sorted[k] = &msgs[i]
	}
	if err := b.addAll(sorted); err != nil {
		return nil, err
	}
	size, err := b.finish()
	if err != nil {
		return nil, err
	}
	seg, err := readSegment(bytes.NewReader(buf.Bytes()), size)
	if err != nil {
		return nil, err
	}
	return &chunk{seg: seg, base: base, perm: perm}, nil
}

// timeOrder returns the positions of msgs in (timestamp, _id) order.
func timeOrder(msgs []messages.Message) []int32 {
	perm := make([]int32, len(msgs))
	ts := make([]int64, len(msgs))
	for i := range perm {
		perm[i] = int32(i)
		ts[i] = msgs[i].Timestamp.UnixMilli()
	}
	slices.SortFunc(perm, func(a, b int32) int {
		if ts[a] != ts[b] {
			if ts[a] < ts[b] {
				return -1
			}
			return 1
		}
		return compareStrings(msgs[a].ID, msgs[b].ID)
	})
	return perm
}

// add appends m; the caller holds Store.mu and has checked for an earlier
// copy of m.ID.
func (b *buffer) add(m messages.Message) {
	ts := m.Timestamp.UnixMilli()
	if len(b.msgs) == 0 || ts < b.minTS {
		b.minTS = ts
	}
	if len(b.msgs) == 0 || ts > b.maxTS {
		b.maxTS = ts
	}
	b.byID[m.ID] = len(b.msgs)
	b.msgs = append(b.msgs, m)
}
