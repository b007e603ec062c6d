// Package buffers keeps byte buffers for decoding outside input under a
// memory budget. A decoding is charged for the capacity of the buffers it
// takes, so a buffer's capacity must depend on the size asked for alone,
// never on what earlier decodings left in a pool: otherwise one large
// message would make every small one after it look large. Only sizes that
// are powers of two are pooled, where a pooled buffer's capacity is exactly
// the size asked for; other sizes are made to measure.
package buffers

import pool "github.com/libp2p/go-buffer-pool"

// Pool hands out buffers of exactly the capacity asked for, reusing those
// of power-of-two sizes up to a maximum. The zero value is not usable: see
// New.
type Pool struct {
	p   pool.BufferPool
	max int
}

// New returns a Pool that keeps buffers of up to max bytes: a larger one
// is dropped when it is given back, so that one large payload does not pin
// its memory.
func New(max int) *Pool { return &Pool{max: max} }

// Get returns an empty buffer of capacity n.
func (p *Pool) Get(n int) []byte {
	if p.pooled(n) {
		if b := p.p.Get(n); cap(b) == n {
			return b[:0]
		}
		// Not the pool's promise; a buffer made to measure keeps the
		// capacity exact.
	}
	return make([]byte, 0, n)
}

// Put gives b back for reuse; b must not be used afterwards.
func (p *Pool) Put(b []byte) {
	if c := cap(b); p.pooled(c) {
		p.p.Put(b[:c])
	}
}

func (p *Pool) pooled(n int) bool { return n > 0 && n&(n-1) == 0 && n <= p.max }
