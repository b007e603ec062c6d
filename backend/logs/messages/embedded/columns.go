package embedded

import (
	"encoding/binary"
	"fmt"
	"math"
	"sort"
	"unsafe"

	"github.com/loggate/loggate/backend/logs/messages"
)

// Version 3 stores a block's messages by column rather than by row, so
// that what zstd sees side by side is alike (all hosts, then all levels,
// then all request ids) and what repeats within a block is written once:
//
//	block   = count:uvarint
//	          nkeys:uvarint key:str*          field names, first seen first
//	          nshapes:uvarint shape*
//	          docshape:uvarint*count          each document's shape
//	          streams:strings                 every document's streams
//	          (strings ints floats bools)*nkeys   the values of each key
//	shape   = nstreams:uvarint nfields:uvarint (key:uvarint type:byte)*
//	strings = n:uvarint mode:byte
//	          (mode 0, dictionary) ndistinct:uvarint len:uvarint* bytes
//	                               index:uvarint*n
//	          (mode 1, plain)      len:uvarint*n bytes
//	          (mode 2, prefixed)   shared:uvarint*n len:uvarint*n bytes,
//	                               each value sharing a prefix with the one
//	                               before (ids that grow with time)
//	          (version 4, modes 1 and 2 plus 16*alphabet) the bytes are
//	                               digits of that alphabet, see hex.go (of
//	                               a prefixed column, all but the first
//	                               value's)
//	ints    = n:uvarint mode:byte zigzag:varint*n  (mode 1: deltas)
//	          | n:uvarint 2        (version 4) the segment's numeric column
//	                               of the key holds them (see appendNumbers)
//	floats  = n:uvarint uint64le*n
//	bools   = n:uvarint byte*n
//
// A shape is the message's layout: how many streams and which fields of
// which type in which order, so a message reads back exactly as written.
// Every value takes at least one byte, but integers left to the segment,
// which a column of the segment's must hold: that bounds what a block can
// make the reader allocate by its size and its segment's.
const (
	colString = iota
	colInt
	colFloat
	colBool
	colTypes

	strDict     = 0
	strPlain    = 1
	strPrefixed = 2
	intPlain    = 0
	intDelta    = 1
	intMeta     = 2

	// blockDocs and blockBytes end a version 3 block, whichever comes
	// first: enough messages that a block's columns compress well, few
	// enough bytes that very large messages do not make a reader hold
	// hundreds of megabytes to return one.
	//
	// A search fetching hits spread over the store decompresses and
	// decodes a block per hit, so blocks are kept small: 256 messages
	// take about a tenth more bytes than 1,024 but a quarter of the
	// time per hit read. The count is written into each segment, which
	// readers follow up to maxBlockDocs.
	blockDocs    = 256
	maxBlockDocs = 1 << 16
	blockBytes   = 4 << 20
	// dictProbe values into a block, a string column whose values are
	// mostly distinct stops looking for repeats.
	dictProbe = 64
)

// strColumn collects a block's values of one string column.
type strColumn struct {
	vals []string
	// seen numbers the distinct values while they repeat enough to be
	// worth a dictionary; nil once they do not.
	seen     map[string]uint32
	distinct []string
	ids      []uint32
	noDict   bool
}

func (c *strColumn) add(v string) {
	c.vals = append(c.vals, v)
	if c.noDict {
		return
	}
	if c.seen == nil {
		c.seen = map[string]uint32{}
	}
	id, ok := c.seen[v]
	if !ok {
		id = uint32(len(c.distinct))
		c.seen[v] = id
		c.distinct = append(c.distinct, v)
	}
	c.ids = append(c.ids, id)
	if len(c.vals) == dictProbe && len(c.distinct) > dictProbe/2 {
		c.noDict, c.seen, c.distinct, c.ids = true, nil, c.distinct[:0], c.ids[:0]
	}
}

func (c *strColumn) reset() {
	c.vals = c.vals[:0]
	c.distinct, c.ids = c.distinct[:0], c.ids[:0]
	c.noDict = false
	clear(c.seen)
}

func (c *strColumn) encode(e enc, version uint64) enc {
	e.uvarint(uint64(len(c.vals)))
	if !c.noDict && len(c.distinct) <= len(c.vals)/2 {
		e = append(e, strDict)
		e.uvarint(uint64(len(c.distinct)))
		e = appendStrings(e, c.distinct)
		for _, id := range c.ids {
			e.uvarint(uint64(id))
		}
		return e
	}
	shared, total := 0, 0
	all, suffixes := newHexCase, newHexCase
	if version < 4 {
		all, suffixes = 0, 0
	}
	for i, v := range c.vals {
		s := 0
		if i > 0 {
			s = commonPrefix(c.vals[i-1], v)
		}
		shared += s
		total += len(v)
		all.add(v)
		if i > 0 {
			suffixes.add(v[s:])
		}
	}
	// Prefixes are worth it when they are a quarter of the bytes; the
	// reader rebuilds at most blockBytes of prefixed or hexadecimal
	// values.
	if total > blockBytes {
		all, suffixes = 0, 0
	}
	if shared*4 < total || total > blockBytes {
		hc := all.get()
		e = append(e, strPlain|hc<<4)
		if hc == hexNone {
			return appendStrings(e, c.vals)
		}
		for _, v := range c.vals {
			e.uvarint(uint64(len(v)))
		}
		// Plain values are not like the one before: no differences.
		w := nibbles{e: e, a: hc}
		for _, v := range c.vals {
			w.digits("", v, 0)
		}
		return w.done()
	}
	hc := suffixes.get()
	e = append(e, strPrefixed|hc<<4)
	prev := ""
	for _, v := range c.vals {
		e.uvarint(uint64(commonPrefix(prev, v)))
		prev = v
	}
	prev = ""
	for _, v := range c.vals {
		e.uvarint(uint64(len(v) - commonPrefix(prev, v)))
		prev = v
	}
	prev = ""
	w := nibbles{e: e, a: hc}
	for i, v := range c.vals {
		if hc == hexNone || i == 0 {
			w.e = append(w.e, v[commonPrefix(prev, v):]...)
		} else {
			w.digits(prev, v, commonPrefix(prev, v))
		}
		prev = v
	}
	return w.done()
}

// appendStrings writes the lengths, then the bytes.
func appendStrings(e enc, vals []string) enc {
	for _, v := range vals {
		e.uvarint(uint64(len(v)))
	}
	for _, v := range vals {
		e = append(e, v...)
	}
	return e
}

// keyColumn is the values of one field name, by type.
type keyColumn struct {
	strs   strColumn
	ints   []int64
	floats []float64
	bools  []byte
}

// blockWriter collects the stored part of a block's messages (all but
// _id and timestamp) in columns.
type blockWriter struct {
	n        int
	bytes    int // about what the messages take, for blockBytes
	keys     map[string]uint32
	keyList  []string
	cols     []*keyColumn
	shapes   map[string]uint32
	nshapes  int
	shapeEnc enc // the shapes, encoded
	docShape []uint32
	streams  strColumn
	shape    enc // scratch
	// slots and lastShape remember the last message's key ids and shape,
	// which the next one mostly repeats (see builder.slots).
	slots     []keySlot
	lastShape []byte
	lastID    uint32
}

type keySlot struct {
	key string
	id  uint32
	ok  bool
}

func (w *blockWriter) add(m *messages.Message) {
	w.shape = w.shape[:0]
	w.shape.uvarint(uint64(len(m.Streams)))
	w.shape.uvarint(uint64(len(m.Fields)))
	for _, s := range m.Streams {
		w.streams.add(s)
		w.bytes += len(s) + 1
	}
	if len(w.slots) < len(m.Fields) {
		w.slots = append(w.slots, make([]keySlot, len(m.Fields)-len(w.slots))...)
	}
	for i, f := range m.Fields {
		sl := &w.slots[i]
		k, ok := sl.id, sl.ok && sl.key == f.Key
		if !ok {
			k, ok = w.keys[f.Key]
		}
		if !ok {
			if w.keys == nil {
				w.keys = map[string]uint32{}
			}
			k = uint32(len(w.keyList))
			w.keys[f.Key] = k
			w.keyList = append(w.keyList, f.Key)
			if int(k) == len(w.cols) {
				w.cols = append(w.cols, &keyColumn{})
			}
		}
		*sl = keySlot{f.Key, k, true}
		c := w.cols[k]
		var typ byte
		switch v := f.Value.(type) {
		case string:
			typ = colString
			c.strs.add(v)
			w.bytes += len(v) + 1
		case int64:
			typ = colInt
			c.ints = append(c.ints, v)
			w.bytes += 8
		case float64:
			typ = colFloat
			c.floats = append(c.floats, v)
			w.bytes += 8
		case bool:
			typ = colBool
			b := byte(0)
			if v {
				b = 1
			}
			c.bools = append(c.bools, b)
			w.bytes++
		}
		w.shape.uvarint(uint64(k))
		w.shape = append(w.shape, typ)
	}
	id, ok := w.lastID, w.n > 0 && string(w.shape) == string(w.lastShape)
	if !ok {
		id, ok = w.shapes[string(w.shape)]
	}
	if !ok {
		if w.shapes == nil {
			w.shapes = map[string]uint32{}
		}
		id = uint32(w.nshapes)
		w.nshapes++
		w.shapes[string(w.shape)] = id
		w.shapeEnc = append(w.shapeEnc, w.shape...)
	}
	w.lastShape, w.lastID = append(w.lastShape[:0], w.shape...), id
	w.docShape = append(w.docShape, id)
	w.n++
}

// full reports whether the block should be written.
func (w *blockWriter) full(docs int) bool { return w.n >= docs || w.bytes >= blockBytes }

// encode appends the block in the layout of version and empties the
// writer.
func (w *blockWriter) encode(e enc, version uint64) enc {
	e.uvarint(uint64(w.n))
	e.uvarint(uint64(len(w.keyList)))
	for _, k := range w.keyList {
		e.str(k)
	}
	e.uvarint(uint64(w.nshapes))
	e = append(e, w.shapeEnc...)
	for _, s := range w.docShape {
		e.uvarint(uint64(s))
	}
	e = w.streams.encode(e, version)
	for _, c := range w.cols[:len(w.keyList)] {
		e = c.strs.encode(e, version)
		if version >= 4 && len(c.ints) > 0 && exactFloats(c.ints) {
			// The segment's numeric column of the field holds them.
			e.uvarint(uint64(len(c.ints)))
			e = append(e, intMeta)
		} else {
			e = appendInts(e, c.ints)
		}
		e.uvarint(uint64(len(c.floats)))
		for _, f := range c.floats {
			e = binary.LittleEndian.AppendUint64(e, math.Float64bits(f))
		}
		e.uvarint(uint64(len(c.bools)))
		e = append(e, c.bools...)
		c.strs.reset()
		c.ints, c.floats, c.bools = c.ints[:0], c.floats[:0], c.bools[:0]
	}
	w.streams.reset()
	w.n, w.bytes = 0, 0
	clear(w.keys)
	clear(w.slots)
	w.keyList = w.keyList[:0]
	clear(w.shapes)
	w.nshapes, w.shapeEnc, w.docShape = 0, w.shapeEnc[:0], w.docShape[:0]
	return e
}

// appendInts writes ints as zigzag varints, or their deltas when that is
// smaller (values that grow, such as counters or times).
func appendInts(e enc, v []int64) enc {
	e.uvarint(uint64(len(v)))
	plain, delta := 0, 0
	for i, x := range v {
		plain += varintLen(x)
		if i > 0 {
			delta += varintLen(x - v[i-1])
		} else {
			delta += varintLen(x)
		}
	}
	if delta < plain {
		e = append(e, intDelta)
		prev := int64(0)
		for _, x := range v {
			e.varint(x - prev)
			prev = x
		}
		return e
	}
	e = append(e, intPlain)
	for _, x := range v {
		e.varint(x)
	}
	return e
}

// exactFloats reports whether float64 holds every value of v exactly, so
// that the numeric column of a segment (see appendNumbers) gives them
// back.
func exactFloats(v []int64) bool {
	for _, x := range v {
		if x > 1<<53 || x < -(1<<53) {
			return false
		}
	}
	return true
}

func varintLen(x int64) int {
	u := uint64(x<<1) ^ uint64(x>>63)
	n := 1
	for u >= 0x80 {
		u >>= 7
		n++
	}
	return n
}

// colBlock is a decoded version 3 block: its columns, and where each
// document's values are in them, so one message is built only when read.
type colBlock struct {
	keys     []string
	shapes   []colShape
	docShape []uint32
	streams  strValues
	cols     []colValues
	// ord[start[doc]:][i] is the position of doc's i-th value (its
	// streams first) in its column.
	ord   []uint32
	start []uint32
	// size is the memory the block holds: the decompressed bytes its
	// strings point into and the decoded arrays.
	size int64
}

type colShape struct {
	streams int
	fields  []shapeField
}

type shapeField struct {
	key uint32
	typ byte
}

type colValues struct {
	strs   strValues
	ints   []int64
	floats []float64
	bools  []byte
}

// strValues is a decoded string column: values point into one string of
// the column's bytes, which is the decompressed block's memory.
type strValues struct {
	data  string
	ends  []uint32 // of each distinct value (dictionary) or value
	ids   []uint32 // dictionary mode: each value's entry
	dict  bool
	count int
	// alphabet is that of plain values stored as digits (hex.go): data
	// holds the digits, ends counts them, and a value is spelled out
	// when read, as a search reads few of a block's.
	alphabet byte
}

func (v *strValues) get(i int) string {
	if v.dict {
		i = int(v.ids[i])
	}
	start := uint32(0)
	if i > 0 {
		start = v.ends[i-1]
	}
	if v.alphabet != hexNone {
		return v.digits(int(start), int(v.ends[i]))
	}
	return v.data[start:v.ends[i]]
}

// digits spells out the digits from start to end of a column of
// digits, which decodeLengths checked data holds.
func (v *strValues) digits(start, end int) string {
	bit := start * int(digitBits[v.alphabet])
	r := nibbleReader{b: unsafe.Slice(unsafe.StringData(v.data[bit/8:]), len(v.data)-bit/8), a: v.alphabet}
	if k := uint(bit % 8); k != 0 {
		r.acc, r.bits, r.b = uint64(r.b[0]), 8-k, r.b[1:]
	}
	out := r.appendDigits(nil, nil, 0, end-start)
	return unsafe.String(unsafe.SliceData(out), len(out))
}

// bytes is the memory the column holds beside the block: its offsets, and
// its values when they were rebuilt (prefixed) rather than pointing into
// the block (counted at most twice, which is an upper bound).
func (v *strValues) bytes() int {
	return 4*(len(v.ends)+len(v.ids)) + len(v.data)
}

// decodeStrings reads a strings column.
func decodeStrings(d *dec) (strValues, bool) {
	var v strValues
	v.count = d.count(1)
	mode := d.byte()
	hc := mode >> 4
	if hc >= alphabets || (hc != hexNone && mode&15 == strDict) {
		return v, false
	}
	switch mode & 15 {
	case strDict:
		v.dict = true
		nd := d.count(1)
		var ok bool
		if v.data, v.ends, ok = decodeLengths(d, nd, nil, hexNone); !ok {
			return v, false
		}
		v.ids = make([]uint32, v.count)
		for i := range v.ids {
			id := d.uvarint()
			if id >= uint64(nd) {
				return v, false
			}
			v.ids[i] = uint32(id)
		}
	case strPlain:
		var ok bool
		if v.data, v.ends, ok = decodeLengths(d, v.count, nil, hc); !ok {
			return v, false
		}
		v.alphabet = hc
	case strPrefixed:
		shared := make([]uint32, v.count)
		for i := range shared {
			shared[i] = uint32(min(d.uvarint(), math.MaxUint32))
		}
		var ok bool
		if v.data, v.ends, ok = decodeLengths(d, v.count, shared, hc); !ok {
			return v, false
		}
	default:
		return v, false
	}
	return v, !d.err
}

// decodeLengths reads n lengths and the bytes they measure, rebuilding
// shared prefixes when given and hexadecimal digits from nibbles (hc, see
// hex.go), and returns the values' bytes as one string with the end of
// each value.
func decodeLengths(d *dec, n int, shared []uint32, hc byte) (string, []uint32, bool) {
	lens := make([]uint32, n)
	total := uint64(0)
	for i := range lens {
		l := d.uvarint()
		if l > 2*uint64(len(d.b)) || (hc == hexNone && l > uint64(len(d.b))) {
			d.fail()
			return "", nil, false
		}
		lens[i] = uint32(l)
		total += l
	}
	stored := total
	if hc != hexNone {
		// Prefixed, the first value is stored as it is.
		first := uint64(0)
		if shared != nil && n > 0 {
			first = uint64(lens[0]) // stored as it is
		}
		stored = first + nibbleBytes(total-first, hc)
	}
	raw := d.take(int(min(stored, uint64(len(d.b))+1)))
	if d.err {
		return "", nil, false
	}
	ends := lens // reused: lens[i] is read before ends[i] is written
	if shared == nil {
		// Plain digits too are kept as they are (strValues.digits).
		end := uint32(0)
		for i, l := range lens {
			end += l
			ends[i] = end
		}
		// The values point into the decompressed block, which nothing
		// writes to once it is decoded.
		return unsafe.String(unsafe.SliceData(raw), len(raw)), ends, true
	}
	// Prefixed values are rebuilt whole; a forged file could ask for
	// long prefixes again and again, so their total is bounded as the
	// writer bounds it.
	out := make([]byte, 0, min(total, blockBytes))
	nr := nibbleReader{b: raw, a: hc}
	prevStart, pos := 0, 0
	for i, l := range lens {
		s := int(shared[i])
		if s > len(out)-prevStart || len(out)+s+int(l) > blockBytes {
			return "", nil, false
		}
		start := len(out)
		prev := out[prevStart:start]
		out = append(out, prev[:s]...)
		if hc == hexNone || i == 0 {
			out = append(out, raw[pos:pos+int(l)]...)
			pos += int(l)
			nr.b = raw[pos:]
		} else {
			out = nr.appendDigits(out, prev, s, int(l))
		}
		prevStart = start
		ends[i] = uint32(len(out))
	}
	return unsafe.String(unsafe.SliceData(out), len(out)), ends, true
}

// segmentNums is where a block of version 4 takes the integers it does
// not store: the numeric columns of its segment, whose documents it holds
// from first on.
type segmentNums struct {
	fields map[string]*fieldMeta
	first  int
}

// decodeColBlock decodes a version 3 or 4 block holding want documents;
// nums, nil for none, has the integers the block left to its segment.
func decodeColBlock(raw []byte, want int, nums *segmentNums) (*colBlock, error) {
	bad := func(what string) error { return fmt.Errorf("%w: block %s", errCorrupt, what) }
	d := &dec{b: raw}
	b := &colBlock{}
	if n := d.uvarint(); n != uint64(want) || d.err {
		return nil, bad("count")
	}
	b.keys = make([]string, d.count(1))
	for i := range b.keys {
		b.keys[i] = d.str()
	}
	b.shapes = make([]colShape, d.count(2))
	for i := range b.shapes {
		sh := colShape{streams: int(min(d.uvarint(), uint64(len(raw))))}
		sh.fields = make([]shapeField, d.count(2))
		for k := range sh.fields {
			key, typ := d.uvarint(), d.byte()
			if key >= uint64(len(b.keys)) || typ >= colTypes {
				return nil, bad("shape")
			}
			sh.fields[k] = shapeField{uint32(key), typ}
		}
		b.shapes[i] = sh
	}
	if d.err || (want > 0 && len(b.shapes) == 0) {
		return nil, bad("shapes")
	}
	// How many values each column must hold, from how many documents
	// take each shape.
	uses := make([]int, len(b.shapes))
	b.docShape = make([]uint32, want)
	for i := range b.docShape {
		s := d.uvarint()
		if s >= uint64(len(b.shapes)) {
			return nil, bad("document shape")
		}
		b.docShape[i] = uint32(s)
		uses[s]++
	}
	need := make([]int, len(b.keys)*colTypes)
	needStreams, total, ints := 0, 0, 0
	for i, sh := range b.shapes {
		needStreams += uses[i] * sh.streams
		for _, f := range sh.fields {
			need[int(f.key)*colTypes+int(f.typ)] += uses[i]
			if f.typ == colInt {
				ints += uses[i]
			}
		}
		total += uses[i] * (sh.streams + len(sh.fields))
		// Every value takes a byte at least, but integers the segment
		// holds (see below).
		if total-ints > len(raw) {
			return nil, bad("shapes")
		}
	}
	var ok bool
	if b.streams, ok = decodeStrings(d); !ok || b.streams.count != needStreams {
		return nil, bad("streams")
	}
	b.cols = make([]colValues, len(b.keys))
	// The documents and values of the columns of the segment that
	// hold a column's integers, by key.
	var metaDocs [][]uint32
	var metaInts [][]float64
	var metaNames map[string]bool
	for k := range b.cols {
		c := &b.cols[k]
		if c.strs, ok = decodeStrings(d); !ok {
			return nil, bad("strings")
		}
		n, mode := d.uvarint(), d.byte()
		switch {
		case n != uint64(need[k*colTypes+colInt]):
			return nil, bad("ints")
		case mode == intMeta:
			// A column of the segment's, each of the block's
			// documents once at most: it bounds what is allocated.
			if metaInts == nil {
				metaInts = make([][]float64, len(b.keys))
				metaDocs = make([][]uint32, len(b.keys))
			}
			if metaDocs[k], metaInts[k] = nums.column(b.keys[k], want); uint64(len(metaDocs[k])) < n || metaNames[b.keys[k]] {
				return nil, bad("ints from the segment")
			}
			if metaNames == nil {
				metaNames = map[string]bool{}
			}
			metaNames[b.keys[k]] = true
		case mode != intPlain && mode != intDelta || n > uint64(len(d.b)):
			return nil, bad("ints")
		}
		c.ints = make([]int64, n)
		prev := int64(0)
		for i := 0; mode != intMeta && i < len(c.ints); i++ {
			c.ints[i] = d.varint()
			if mode == intDelta {
				c.ints[i] += prev
				prev = c.ints[i]
			}
		}
		c.floats = make([]float64, d.count(8))
		for i := range c.floats {
			c.floats[i] = d.float()
		}
		c.bools = d.take(d.count(1))
		if d.err || c.strs.count != need[k*colTypes+colString] || len(c.ints) != need[k*colTypes+colInt] ||
			len(c.floats) != need[k*colTypes+colFloat] || len(c.bools) != need[k*colTypes+colBool] {
			return nil, bad("column")
		}
	}
	if d.err || len(d.b) != 0 {
		return nil, bad("end")
	}
	next := make([]uint32, len(b.keys)*colTypes)
	b.ord = make([]uint32, 0, total)
	b.start = make([]uint32, want)
	streamPos := uint32(0)
	for doc, s := range b.docShape {
		sh := &b.shapes[s]
		b.start[doc] = uint32(len(b.ord))
		b.ord = append(b.ord, streamPos)
		streamPos += uint32(sh.streams)
		for _, f := range sh.fields {
			i := int(f.key)*colTypes + int(f.typ)
			if f.typ == colInt && metaDocs != nil && metaDocs[f.key] != nil {
				// The segment's column holds doc next, or the block is
				// corrupt.
				docs, vals := metaDocs[f.key], metaInts[f.key]
				for len(docs) > 0 && int(docs[0]) < nums.first+doc {
					docs, vals = docs[1:], vals[1:]
				}
				if len(docs) == 0 || int(docs[0]) != nums.first+doc || vals[0] != math.Trunc(vals[0]) || math.Abs(vals[0]) > 1<<53 {
					return nil, bad("ints from the segment")
				}
				b.cols[f.key].ints[next[i]] = int64(vals[0])
				metaDocs[f.key], metaInts[f.key] = docs[1:], vals[1:]
			}
			b.ord = append(b.ord, next[i])
			next[i]++
		}
	}
	b.size = int64(len(raw)) + int64(b.streams.bytes()) + 4*int64(len(b.docShape)+len(b.ord)+len(b.start))
	for k := range b.cols {
		c := &b.cols[k]
		b.size += int64(c.strs.bytes()) + 8*int64(len(c.ints)+len(c.floats)) + int64(len(b.keys[k]))
	}
	return b, nil
}

// column returns the documents and values of the numeric column of field
// key within the block's documents, none when there is none.
func (s *segmentNums) column(key string, docs int) ([]uint32, []float64) {
	if s == nil || s.fields[key] == nil {
		return nil, nil
	}
	f := s.fields[key]
	i := sort.Search(len(f.numDocs), func(i int) bool { return int(f.numDocs[i]) >= s.first })
	j := i + sort.Search(len(f.numDocs)-i, func(k int) bool { return int(f.numDocs[i+k]) >= s.first+docs })
	return f.numDocs[i:j:j], f.nums[i:j:j]
}

// message builds the stored part of document i of the block.
// str returns the string value of document i's field key, as message(i)
// would hold it, without building the message.
func (b *colBlock) str(i int, key string) (string, bool) {
	sh := &b.shapes[b.docShape[i]]
	for k, f := range sh.fields {
		if b.keys[f.key] == key {
			if f.typ != colString {
				return "", false
			}
			return b.cols[f.key].strs.get(int(b.ord[b.start[i]+1+uint32(k)])), true
		}
	}
	return "", false
}

func (b *colBlock) message(i int) messages.Message {
	sh := &b.shapes[b.docShape[i]]
	ord := b.ord[b.start[i]:]
	var m messages.Message
	if sh.streams > 0 {
		m.Streams = make([]string, sh.streams)
		for k := range m.Streams {
			m.Streams[k] = b.streams.get(int(ord[0]) + k)
		}
	}
	m.Fields = make([]messages.Field, len(sh.fields))
	for k, f := range sh.fields {
		c, o := &b.cols[f.key], int(ord[1+k])
		var v any
		switch f.typ {
		case colString:
			v = c.strs.get(o)
		case colInt:
			v = c.ints[o]
		case colFloat:
			v = c.floats[o]
		case colBool:
			v = c.bools[o] != 0
		}
		m.Fields[k] = messages.Field{Key: b.keys[f.key], Value: v}
	}
	return m
}
