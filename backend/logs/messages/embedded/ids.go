package embedded

import (
	"bytes"
	"hash/maphash"
	"math/bits"
	"sort"
)

// idColumn holds every document's _id: 16 bytes for a UUID, the string
// otherwise, and the documents in _id order for lookups.
type idColumn struct {
	uuids []byte
	other map[uint32]string
	order []uint32
	// filter is a Bloom filter of the ids. Every write looks its ids up
	// in every segment of the index, to replace an earlier copy, and
	// almost every id is new: the filter answers most of those look-ups
	// without a binary search.
	filter []uint64
}

func (c *idColumn) id(doc int) string {
	if s, ok := c.other[uint32(doc)]; ok {
		return s
	}
	var u [16]byte
	copy(u[:], c.uuids[16*doc:])
	return uuidString(u)
}

func uuidString(u [16]byte) string {
	const hex = "0123456789abcdef"
	var b [36]byte
	j := 0
	for i, c := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b[j] = '-'
			j++
		}
		b[j], b[j+1] = hex[c>>4], hex[c&15]
		j += 2
	}
	return string(b[:])
}

// idKey is an _id to look up, parsed once for all segments.
type idKey struct {
	id     string
	u      [16]byte // the UUID's bytes, when isUUID
	isUUID bool
	hash   uint64
}

func newIDKey(id string) idKey {
	k := idKey{id: id}
	k.u, k.isUUID = parseUUID(id)
	if k.isUUID {
		k.hash = maphash.Bytes(idSeed, k.u[:])
	} else {
		k.hash = maphash.String(idSeed, id)
	}
	return k
}

// idSeed seeds the filters' hash; they live in memory only.
var idSeed = maphash.MakeSeed()

// compareID orders doc's _id against k as strings.
func (c *idColumn) compareID(doc int, k *idKey) int {
	if k.isUUID {
		if _, other := c.other[uint32(doc)]; !other {
			return bytes.Compare(c.uuids[16*doc:16*doc+16], k.u[:])
		}
	}
	return compareStrings(c.id(doc), k.id)
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// lookup returns the documents whose _id is id.
func (c *idColumn) lookup(id string, fn func(doc int)) {
	k := newIDKey(id)
	c.lookupKey(&k, fn)
}

// lookupKey returns the documents whose _id is k's.
func (c *idColumn) lookupKey(k *idKey, fn func(doc int)) {
	if !c.mayHold(k.hash) {
		return
	}
	i := sort.Search(len(c.order), func(i int) bool { return c.compareID(int(c.order[i]), k) >= 0 })
	for ; i < len(c.order) && c.compareID(int(c.order[i]), k) == 0; i++ {
		fn(int(c.order[i]))
	}
}

// Filter size: 8 bits and 3 probes per id leave about 3% false
// positives, for 1 byte of memory per stored message.
const (
	filterBitsPerID = 8
	filterProbes    = 3
)

// buildFilter makes the Bloom filter of the column's ids.
func (c *idColumn) buildFilter() {
	n := len(c.uuids) / 16
	words := max(1, 1<<bits.Len(uint(n*filterBitsPerID/64)))
	c.filter = make([]uint64, words)
	for doc := range n {
		var h uint64
		if s, ok := c.other[uint32(doc)]; ok {
			h = maphash.String(idSeed, s)
		} else {
			h = maphash.Bytes(idSeed, c.uuids[16*doc:16*doc+16])
		}
		for _, b := range c.probes(h) {
			c.filter[b>>6] |= 1 << (b & 63)
		}
	}
}

// mayHold reports whether an id of the given hash may be in the column:
// false only when it is not. A column without a filter may hold any.
func (c *idColumn) mayHold(h uint64) bool {
	if c.filter == nil {
		return true
	}
	for _, b := range c.probes(h) {
		if c.filter[b>>6]&(1<<(b&63)) == 0 {
			return false
		}
	}
	return true
}

// probes returns the filter bits of a hash: h1 + i·h2 (double hashing).
func (c *idColumn) probes(h uint64) [filterProbes]uint64 {
	mask := uint64(len(c.filter)*64 - 1)
	h1, h2 := h, h>>32|1
	var p [filterProbes]uint64
	for i := range p {
		p[i] = (h1 + uint64(i)*h2) & mask
	}
	return p
}

func (c *idColumn) less(a, b int) bool {
	_, ao := c.other[uint32(a)]
	_, bo := c.other[uint32(b)]
	if !ao && !bo {
		return bytes.Compare(c.uuids[16*a:16*a+16], c.uuids[16*b:16*b+16]) < 0
	}
	return c.id(a) < c.id(b)
}
