package embedded

import "math/bits"

// bitset is a fixed-size set of document numbers. Segments are small
// enough (at most a few million documents) that a plain bitmap beats a
// compressed one: a million documents take 125 KB and every operation is a
// tight loop over words.
type bitset []uint64

func newBitset(n int) bitset { return make(bitset, (n+63)/64) }

// fullBitset returns a set holding 0..n-1.
func fullBitset(n int) bitset {
	b := newBitset(n)
	b.setRange(0, n)
	return b
}

func (b bitset) set(i int)      { b[i>>6] |= 1 << (uint(i) & 63) }
func (b bitset) has(i int) bool { return i>>6 < len(b) && b[i>>6]&(1<<(uint(i)&63)) != 0 }
func (b bitset) clone() bitset  { return append(bitset(nil), b...) }
func (b bitset) and(o bitset) {
	for i := range b {
		b[i] &= o[i]
	}
}
func (b bitset) or(o bitset) {
	for i := range b {
		b[i] |= o[i]
	}
}
func (b bitset) andNot(o bitset) {
	for i := range b {
		b[i] &^= o[i]
	}
}

// setRange sets lo..hi-1.
func (b bitset) setRange(lo, hi int) {
	for i := lo; i < hi; {
		if i&63 == 0 && hi-i >= 64 {
			b[i>>6] = ^uint64(0)
			i += 64
			continue
		}
		b.set(i)
		i++
	}
}

// keepRange clears everything outside lo..hi-1.
func (b bitset) keepRange(lo, hi int) {
	for i := 0; i < lo>>6 && i < len(b); i++ {
		b[i] = 0
	}
	if lo>>6 < len(b) {
		b[lo>>6] &^= (1 << (uint(lo) & 63)) - 1
	}
	if hi>>6 < len(b) {
		b[hi>>6] &= (1 << (uint(hi) & 63)) - 1
		for i := hi>>6 + 1; i < len(b); i++ {
			b[i] = 0
		}
	}
}

func (b bitset) count() int {
	n := 0
	for _, w := range b {
		n += bits.OnesCount64(w)
	}
	return n
}

// next returns the first member at or after i, or -1.
func (b bitset) next(i int) int {
	if i < 0 {
		i = 0
	}
	w := i >> 6
	if w >= len(b) {
		return -1
	}
	if x := b[w] >> (uint(i) & 63); x != 0 {
		return i + bits.TrailingZeros64(x)
	}
	for w++; w < len(b); w++ {
		if b[w] != 0 {
			return w<<6 + bits.TrailingZeros64(b[w])
		}
	}
	return -1
}

// prev returns the last member at or before i, or -1.
func (b bitset) prev(i int) int {
	if i < 0 {
		return -1
	}
	w := i >> 6
	if w >= len(b) {
		w, i = len(b)-1, len(b)*64-1
	}
	if x := b[w] << (63 - uint(i)&63); x != 0 {
		return i - bits.LeadingZeros64(x)
	}
	for w--; w >= 0; w-- {
		if b[w] != 0 {
			return w<<6 + 63 - bits.LeadingZeros64(b[w])
		}
	}
	return -1
}
