package gelf

import (
	"encoding/binary"
	"net/netip"
	"sync"
	"time"
)

// chunkHeaderLen is the size of a chunk header: magic 0x1e 0x0f, an 8-byte
// message id, a sequence number and a sequence count.
const chunkHeaderLen = 12

// IsChunked reports whether a datagram starts with the chunk magic bytes.
func IsChunked(datagram []byte) bool {
	return len(datagram) >= 2 && datagram[0] == 0x1e && datagram[1] == 0x0f
}

// ChunkerStats are the Chunker's counters, named after the metrics of
// Graylog's GelfChunkAggregator where it has one.
type ChunkerStats struct {
	TotalChunks      uint64 // total-chunks: valid chunks received
	CompleteMessages uint64 // complete-messages: chunked messages reassembled
	DuplicateChunks  uint64 // duplicate-chunks: chunks whose sequence number was already held
	ExpiredMessages  uint64 // expired-messages: incomplete messages dropped after the timeout
	ExpiredChunks    uint64 // expired-chunks: the chunks those messages held
	InvalidChunks    uint64 // chunks refused: short header, bad sequence, inconsistent count
	EvictedMessages  uint64 // incomplete messages dropped early to stay within the memory bounds
	WaitingMessages  int    // waiting-messages: messages being reassembled now
	WaitingBytes     int64  // chunk payload bytes held now
}

// chunkKey identifies a message being reassembled. The sender's address is
// part of it, unlike in Graylog (message id only), so one client cannot
// complete or spoil another's message by reusing its id. The port is left
// out: some clients send the chunks of one message from several sockets.
type chunkKey struct {
	from netip.Addr
	id   uint64
}

type pending struct {
	key    chunkKey
	first  time.Time
	chunks [][]byte
	got    int
	size   int64
	done   bool // completed, expired or evicted; still in the queue
}

// Chunker reassembles chunked GELF UDP messages. It is safe for concurrent
// use by several reader goroutines. Call Expire from a ticker (about once
// per second) so abandoned messages are freed even when traffic stops; Add
// also evicts lazily.
type Chunker struct {
	now      func() time.Time
	timeout  time.Duration
	maxMsgs  int
	maxBytes int64

	mu      sync.Mutex
	pending map[chunkKey]*pending
	queue   []*pending // by arrival of the first chunk, so by expiry
	head    int
	bytes   int64
	stats   ChunkerStats
}

// NewChunker returns a Chunker using opts.ChunkTimeout, MaxChunkedMessages,
// MaxChunkedBytes and Now.
func NewChunker(opts Options) *Chunker {
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	return &Chunker{
		now:      now,
		timeout:  opts.chunkTimeout(),
		maxMsgs:  opts.maxChunkedMessages(),
		maxBytes: opts.maxChunkedBytes(),
		pending:  make(map[chunkKey]*pending),
	}
}

// Add takes one datagram. A datagram that is not chunked is returned as is,
// complete. A chunk is held until its message is complete; the chunk that
// completes it returns the reassembled payload, which the caller owns. A
// single-chunk message returns a subslice of datagram. Duplicate chunks
// return neither payload nor error and are counted. Errors wrap ErrInvalid.
// Add copies what it keeps, so the caller may reuse datagram.
func (c *Chunker) Add(datagram []byte, from netip.AddrPort) (payload []byte, complete bool, err error) {
	if !IsChunked(datagram) {
		return datagram, true, nil
	}
	if len(datagram) < chunkHeaderLen {
		c.count(func(s *ChunkerStats) { s.InvalidChunks++ })
		return nil, false, invalidf("chunk of %d bytes is shorter than its header", len(datagram))
	}
	id := binary.BigEndian.Uint64(datagram[2:10])
	seq, total := int(datagram[10]), int(datagram[11])
	if total == 0 || total > MaxChunks || seq >= total {
		c.count(func(s *ChunkerStats) { s.InvalidChunks++ })
		return nil, false, invalidf("chunk %d of %d: sequence count must be 1..%d and above the sequence number", seq, total, MaxChunks)
	}
	data := datagram[chunkHeaderLen:]
	if total == 1 {
		c.count(func(s *ChunkerStats) { s.TotalChunks++; s.CompleteMessages++ })
		return data, true, nil
	}
	return c.add(chunkKey{from: from.Addr().Unmap(), id: id}, seq, total, data)
}

func (c *Chunker) count(f func(*ChunkerStats)) {
	c.mu.Lock()
	f(&c.stats)
	c.mu.Unlock()
}

func (c *Chunker) add(key chunkKey, seq, total int, data []byte) ([]byte, bool, error) {
	now := c.now()
	size := int64(len(data))

	c.mu.Lock()
	defer c.mu.Unlock()
	c.expire(now)
	p := c.pending[key]
	if p == nil {
		if size > c.maxBytes {
			c.stats.InvalidChunks++
			return nil, false, invalidf("chunk of %d bytes exceeds the reassembly buffer", size)
		}
		for len(c.pending) >= c.maxMsgs {
			c.evictOldest()
		}
		p = &pending{key: key, first: now, chunks: make([][]byte, total)}
		c.pending[key] = p
		c.queue = append(c.queue, p)
	}
	switch {
	case len(p.chunks) != total:
		c.stats.InvalidChunks++
		return nil, false, invalidf("chunk %d says %d chunks, the message has %d", seq, total, len(p.chunks))
	case p.chunks[seq] != nil:
		c.stats.DuplicateChunks++
		return nil, false, nil
	}
	for c.bytes+size > c.maxBytes {
		if !c.evictOldestExcept(p) {
			break
		}
	}
	if c.bytes+size > c.maxBytes {
		c.stats.InvalidChunks++
		return nil, false, invalidf("message exceeds the reassembly buffer")
	}
	c.stats.TotalChunks++
	// A non-nil empty slice marks an empty chunk as received.
	p.chunks[seq] = append(make([]byte, 0, len(data)), data...)
	p.got++
	p.size += size
	c.bytes += size
	if p.got < total {
		return nil, false, nil
	}
	out := make([]byte, 0, p.size)
	for _, ch := range p.chunks {
		out = append(out, ch...)
	}
	c.drop(p)
	c.stats.CompleteMessages++
	return out, true, nil
}

// Expire drops the messages whose first chunk arrived more than the timeout
// before now, and returns how many it dropped.
func (c *Chunker) Expire(now time.Time) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.expire(now)
}

func (c *Chunker) expire(now time.Time) int {
	n := 0
	for c.head < len(c.queue) {
		p := c.queue[c.head]
		if p.done {
			c.pop()
			continue
		}
		if now.Sub(p.first) <= c.timeout {
			break
		}
		c.stats.ExpiredMessages++
		c.stats.ExpiredChunks += uint64(p.got)
		c.drop(p) // pops p
		n++
	}
	return n
}

// Clear drops every incomplete message, for an input that stops: nothing
// would complete or expire them, and whatever keeps the Chunker reachable
// (its metrics) would keep their chunks in memory.
func (c *Chunker) Clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.pending)
	clear(c.queue)
	c.queue, c.head, c.bytes = nil, 0, 0
}

// evictOldest drops the oldest incomplete message to make room.
func (c *Chunker) evictOldest() {
	c.evictOldestExcept(nil)
}

// evictOldestExcept drops the oldest incomplete message other than keep and
// reports whether there was one.
func (c *Chunker) evictOldestExcept(keep *pending) bool {
	for i := c.head; i < len(c.queue); i++ {
		if p := c.queue[i]; !p.done && p != keep {
			c.stats.EvictedMessages++
			c.drop(p)
			return true
		}
	}
	return false
}

func (c *Chunker) drop(p *pending) {
	p.done = true
	p.chunks = nil
	c.bytes -= p.size
	delete(c.pending, p.key)
	for c.head < len(c.queue) && c.queue[c.head].done {
		c.pop()
	}
	// Messages completed behind an older incomplete one stay in the queue
	// until it ends; a sender keeping one incomplete message at the head
	// while completing others would grow the queue without bound. Once
	// the dead outnumber the waiting, they are dropped, keeping the order.
	if live := len(c.pending); len(c.queue)-c.head > 2*live+64 {
		q := c.queue[:0]
		for _, e := range c.queue[c.head:] {
			if !e.done {
				q = append(q, e)
			}
		}
		clear(c.queue[len(q):])
		c.queue, c.head = q, 0
	}
}

// pop removes the queue head, compacting once half the slice is dead.
func (c *Chunker) pop() {
	c.queue[c.head] = nil
	c.head++
	if c.head == len(c.queue) {
		c.queue, c.head = c.queue[:0], 0
	} else if c.head > 64 && c.head > len(c.queue)/2 {
		n := copy(c.queue, c.queue[c.head:])
		clear(c.queue[n:])
		c.queue, c.head = c.queue[:n], 0
	}
}

// Stats returns a snapshot of the counters.
func (c *Chunker) Stats() ChunkerStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stats
	s.WaitingMessages = len(c.pending)
	s.WaitingBytes = c.bytes
	return s
}
