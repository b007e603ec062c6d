package embedded

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/loggate/loggate/backend/logs/messages"
)

// builder writes one segment from messages added in (timestamp, _id)
// order. Stored blocks are compressed and written as they fill; the
// inverted index is kept in memory until finish.
type builder struct {
	w      *bufio.Writer
	off    int64
	err    error
	n      int
	block  []byte
	zblock []byte // block, compressed
	rec    []byte
	inBlk  int
	blocks []blockRef
	// blockDocs ends a version 3 block (blockDocs, but for tests of
	// segments written with another).
	blockDocs int
	meta      enc // timestamps and ids, appended as docs arrive
	ids       enc
	prevTS    int64
	minTS     int64
	maxTS     int64
	fields    map[string]*fieldBuild
	cols      blockWriter
	scratch   []byte // dictionary runs
	plens     []int
	// expect is how many documents the segment will hold, 0 if unknown;
	// the term maps of fields of unique values are sized for it.
	expect int
	// version is the layout written: metaVersion, or an older one for
	// the tests that show such segments are still read.
	version uint64
	// ix indexes the fields of the messages add is given, into fields.
	ix indexer
}

type blockRef struct {
	off int64
	len int
	raw uint64 // decompressed size
	// first is the block's first document, docs how many it holds
	// (blockSize in versions 1 and 2 but the last).
	first, docs int
}

type fieldBuild struct {
	a       analysis
	present []uint32
	// terms maps a term to its index in list and docs, its postings. It
	// is only written when a term is new: assigning to an existing string
	// key replaces the key, and the terms the tokenizer hands out are
	// transient. A merge fills list in term order and leaves terms nil.
	terms   map[string]int32
	list    []string
	docs    [][]uint32
	numDocs []uint32
	nums    []float64
	// While documents are indexed, addTerm records the postings in the
	// order they come, and seal lays them out in docs: one allocation
	// rather than a growing slice per term.
	occ   []occurrence
	seen  []termSeen
	arena []byte // the bytes of the terms in list
	// unique is set, and terms dropped, when a field's values are all
	// but unique: every value is appended to list, and seal makes one
	// of the copies of a term.
	unique bool
}

// writeVersion is the layout new segments are written in; tests set an
// older one to exercise the reading of such segments through the store.
var writeVersion uint64 = metaVersion

func newBuilder(w io.Writer) *builder {
	b := &builder{w: bufio.NewWriterSize(w, 1<<16), fields: map[string]*fieldBuild{}, version: writeVersion, blockDocs: blockDocs}
	b.ix.fields = b.fields
	b.write([]byte(magic))
	return b
}

func (b *builder) write(p []byte) {
	if b.err != nil {
		return
	}
	_, b.err = b.w.Write(p)
	b.off += int64(len(p))
}

// errOrder is returned when documents are not added in (timestamp, _id)
// order.
var errOrder = fmt.Errorf("embedded: segment documents out of order")

// add appends m as the next document.
func (b *builder) add(m *messages.Message) error {
	ts := m.Timestamp.UnixMilli()
	if b.n > 0 && ts < b.prevTS {
		return errOrder
	}
	b.ix.expect = b.expect
	b.ix.index(m, uint32(b.n))
	return b.addStored(ts, m.ID, m)
}

// addStored appends the next document's timestamp, _id and stored part
// of m, and nothing to the inverted index: add indexes the fields of a
// message, a merge copies the postings of its sources.
func (b *builder) addStored(ts int64, id string, m *messages.Message) error {
	if b.n == 0 {
		b.minTS, b.prevTS = ts, ts
		b.meta.varint(ts)
	} else {
		if ts < b.prevTS {
			return errOrder
		}
		b.meta.uvarint(uint64(ts - b.prevTS))
		b.prevTS = ts
	}
	b.maxTS = ts
	if u, ok := parseUUID(id); ok {
		b.ids = append(b.ids, 0)
		b.ids = append(b.ids, u[:]...)
	} else {
		b.ids = append(b.ids, 1)
		b.ids.str(id)
	}
	b.n++
	b.inBlk++
	if b.version >= 3 {
		b.cols.add(m)
		if b.cols.full(b.blockDocs) {
			b.flushBlock()
		}
		return b.err
	}
	var err error
	if b.rec, err = storedRecord(b.rec[:0], m); err != nil {
		return err
	}
	b.block = binary.AppendUvarint(b.block, uint64(len(b.rec)))
	b.block = append(b.block, b.rec...)
	if b.inBlk == blockSize {
		b.flushBlock()
	}
	return b.err
}

func appendDoc(docs []uint32, doc uint32) []uint32 {
	if len(docs) > 0 && docs[len(docs)-1] == doc {
		return docs
	}
	return append(docs, doc)
}

// addTerm adds doc to the postings of t, which may be transient.
func (f *fieldBuild) addTerm(t string, doc uint32) {
	if f.unique {
		f.occ = append(f.occ, occurrence{int32(len(f.list)), doc})
		f.list = append(f.list, f.keep(t))
		f.seen = append(f.seen, termSeen{doc + 1, 1})
		return
	}
	i, ok := f.terms[t]
	if !ok {
		// A copy also keeps the map from holding every message alive.
		t = f.keep(t)
		i = int32(len(f.list))
		f.terms[t] = i
		f.list = append(f.list, t)
		f.seen = append(f.seen, termSeen{})
	}
	s := &f.seen[i]
	if s.last == doc+1 {
		return
	}
	s.last = doc + 1
	s.n++
	f.occ = append(f.occ, occurrence{i, doc})
}

func (b *builder) flushBlock() {
	if b.inBlk == 0 {
		return
	}
	if b.version >= 3 {
		b.block = b.cols.encode(b.block[:0], b.version)
	}
	// The compressed block is written (copied) at once: its memory serves
	// the next block.
	z := blockEncoder.EncodeAll(b.block, b.zblock[:0])
	b.zblock = z
	b.blocks = append(b.blocks, blockRef{off: b.off, len: len(z), raw: uint64(len(b.block)), first: b.n - b.inBlk, docs: b.inBlk})
	b.write(z)
	b.block, b.inBlk = b.block[:0], 0
}

// finish writes the dictionary, meta section and footer, and returns the
// file size.
func (b *builder) finish() (int64, error) {
	b.seal()
	b.flushBlock()
	names := make([]string, 0, len(b.fields))
	for name := range b.fields {
		names = append(names, name)
	}
	slices.Sort(names)

	var meta enc
	v1 := b.version == 1
	runTerms, runBytes, maxDocs := dictRun, dictRunBytes, blockSize
	if v1 {
		runTerms, runBytes = dictRunV1, math.MaxInt
	}
	if b.version >= 3 {
		maxDocs = b.blockDocs
	}
	meta.uvarint(b.version)
	meta.uvarint(uint64(b.n))
	meta.uvarint(uint64(maxDocs))
	meta.uvarint(uint64(len(b.blocks)))
	for _, r := range b.blocks {
		meta.uvarint(uint64(r.off))
		meta.uvarint(uint64(r.len))
		meta.uvarint(r.raw)
		if b.version >= 3 {
			meta.uvarint(uint64(r.docs))
		}
	}
	meta = append(meta, b.meta...)
	meta = append(meta, b.ids...)
	meta.uvarint(uint64(len(names)))

	dictOff := b.off
	dictCRC := uint32(0)
	var run enc
	var z []byte
	for _, name := range names {
		f := b.fields[name]
		meta.str(name)
		flags := uint64(0)
		switch f.a {
		case text:
			flags |= flagText
		case lowerKeyword:
			flags |= flagLower
		}
		meta.uvarint(flags)
		meta.bytes(appendPostings(nil, f.present, b.n))
		meta.uvarint(uint64(len(f.numDocs)))
		if v1 {
			prev := int64(-1)
			for i, d := range f.numDocs {
				meta.uvarint(uint64(int64(d) - prev))
				prev = int64(d)
				meta = binary.LittleEndian.AppendUint64(meta, math.Float64bits(f.nums[i]))
			}
		} else {
			meta = appendNumbers(meta, f.numDocs, f.nums)
		}
		order := make([]int32, len(f.list))
		for i := range order {
			order[i] = int32(i)
		}
		if f.terms != nil {
			slices.SortFunc(order, func(a, b int32) int { return strings.Compare(f.list[a], f.list[b]) })
		}
		// Runs end at dictRun terms or dictRunBytes, whichever comes
		// first: a lookup reads one run. A run is stored compressed when
		// that saves an eighth: the terms of a field of unique values
		// (request ids, message ids) are most of the dictionary and
		// compress by a third.
		meta.uvarint(uint64(len(order)))
		var refs enc
		nr := 0
		var postings []byte
		for i := 0; i < len(order); {
			run = run[:0]
			prev, first := "", f.list[order[i]]
			if b.version >= 3 {
				i, run = b.columnRun(run, f, order, i)
			}
			for n := 0; b.version < 3 && i < len(order) && n < runTerms && len(run) < runBytes; i, n = i+1, n+1 {
				t := f.list[order[i]]
				shared := commonPrefix(prev, t)
				run.uvarint(uint64(shared))
				run.str(t[shared:])
				postings = appendPostings(postings[:0], f.docs[order[i]], b.n)
				run.bytes(postings)
				prev = t
			}
			data, raw := []byte(run), 0
			if len(run) >= 64 && !v1 {
				if z = encoder.EncodeAll(run, z[:0]); len(z) < len(run)-len(run)/8 {
					data, raw = z, len(run)
				}
			}
			refs.str(first)
			refs.uvarint(uint64(b.off - dictOff))
			refs.uvarint(uint64(len(data)))
			if !v1 {
				refs.uvarint(uint64(raw))
			}
			dictCRC = crc32.Update(dictCRC, crcTable, data)
			b.write(data)
			nr++
		}
		meta.uvarint(uint64(nr))
		meta = append(meta, refs...)
		b.fields[name] = nil // let the postings go
	}
	dictLen := b.off - dictOff
	z = encoder.EncodeAll(meta, nil)
	metaOff := b.off
	b.write(z)
	var foot [footerSize]byte
	binary.LittleEndian.PutUint64(foot[0:], uint64(metaOff))
	binary.LittleEndian.PutUint64(foot[8:], uint64(len(z)))
	binary.LittleEndian.PutUint64(foot[16:], uint64(dictOff))
	binary.LittleEndian.PutUint64(foot[24:], uint64(dictLen))
	binary.LittleEndian.PutUint32(foot[32:], metaChecksum(z, uint64(len(meta))))
	binary.LittleEndian.PutUint32(foot[36:], dictCRC)
	binary.LittleEndian.PutUint64(foot[40:], uint64(len(meta)))
	copy(foot[48:], magic)
	b.write(foot[:])
	if b.err == nil {
		b.err = b.w.Flush()
	}
	return b.off, b.err
}

// columnRun writes a dictionary run of version 3 or 4 from the terms of f
// from order[i], and returns where the next run starts. Like a block, a
// run is written by column, so that zstd sees the shared lengths, the
// suffixes and the postings each side by side:
//
//	run  = count:uvarint shared:uvarint*count len:uvarint*count
//	       (version 4) hex:byte
//	       text plen:uvarint*count postings
//	text = the suffixes, or (hex 1 or 2) their digits as nibbles (hex.go)
//
// In version 4 the first term is the one before the first (the meta
// section has it): the run does not repeat it.
func (b *builder) columnRun(run enc, f *fieldBuild, order []int32, i int) (int, enc) {
	start, size := i, 0
	for prev := ""; i < len(order) && i-start < dictRunV3 && size < dictRunBytesV3; i++ {
		t := f.list[order[i]]
		size += len(t) - commonPrefix(prev, t) + 2 + 2*len(f.docs[order[i]])
		prev = t
	}
	terms := order[start:i]
	first := ""
	if b.version >= 4 {
		first = f.list[terms[0]]
	}
	run.uvarint(uint64(len(terms)))
	prev := first
	for _, k := range terms {
		run.uvarint(uint64(commonPrefix(prev, f.list[k])))
		prev = f.list[k]
	}
	prev = first
	hc := newHexCase
	for _, k := range terms {
		s := commonPrefix(prev, f.list[k])
		if b.version >= 4 {
			// Whole lengths: ids are all of one.
			run.uvarint(uint64(len(f.list[k])))
		} else {
			run.uvarint(uint64(len(f.list[k]) - s))
		}
		hc.add(f.list[k][s:])
		prev = f.list[k]
	}
	prev = first
	if b.version >= 4 {
		run = append(run, hc.get())
	}
	w := nibbles{e: run, a: hc.get()}
	for _, k := range terms {
		s := commonPrefix(prev, f.list[k])
		if b.version >= 4 && hc.get() != hexNone {
			w.digits(prev, f.list[k], s)
		} else {
			w.e = append(w.e, f.list[k][s:]...)
		}
		prev = f.list[k]
	}
	run = w.done()
	if b.version >= 4 {
		mode := singlesMode(terms, f.docs, b.n)
		run = append(run, mode)
		if mode != postingsPlain {
			prev := int64(0)
			for _, k := range terms {
				d := int64(f.docs[k][0])
				if mode == postingsSingles {
					run.uvarint(uint64(d))
				} else {
					run.varint(d - prev)
				}
				prev = d
			}
			return i, run
		}
	}
	// The postings' lengths go before them: the postings are moved
	// into place once those are known.
	mark := len(run)
	lens := b.plens[:0]
	for _, k := range terms {
		l := len(run)
		run = appendPostings(run, f.docs[k], b.n)
		lens = append(lens, len(run)-l)
	}
	b.scratch = append(b.scratch[:0], run[mark:]...)
	run = run[:mark]
	for _, l := range lens {
		run.uvarint(uint64(l))
	}
	b.plens = lens
	return i, append(run, b.scratch...)
}

// Postings of a version 4 run: as they are with their lengths, or when
// every term has one document (the terms of a field of unique values),
// only those documents, or their differences from the term before's (ids
// that grow with time, whose order is nearly the documents').
const (
	postingsPlain        = 0
	postingsSingles      = 1
	postingsSinglesDelta = 2
)

// singlesMode picks the postings mode of a run of terms in a segment of n
// documents.
func singlesMode(terms []int32, docs [][]uint32, n int) byte {
	// Below 12 documents one is a bitmap (see appendPostings).
	if n < 12 {
		return postingsPlain
	}
	plain, delta := 0, 0
	prev := int64(0)
	for _, k := range terms {
		if len(docs[k]) != 1 {
			return postingsPlain
		}
		d := int64(docs[k][0])
		plain += varintLen(d)
		delta += varintLen(d - prev)
		prev = d
	}
	if delta < plain*3/4 {
		return postingsSinglesDelta
	}
	return postingsSingles
}

func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// appendNumbers writes a numeric column (meta version 2): its documents as
// deltas, then its values, as zigzag varints when all are integers (levels,
// ports, durations, sizes: a byte or two instead of eight) or as float64
// bits otherwise.
//
//	numbers = kind:byte delta:uvarint* (value:varint* | value:uint64le*)
func appendNumbers(meta enc, docs []uint32, nums []float64) enc {
	kind := byte(numInts)
	for _, v := range nums {
		if v != math.Trunc(v) || math.Abs(v) > 1<<53 {
			kind = numFloats
			break
		}
	}
	meta = append(meta, kind)
	prev := int64(-1)
	for _, d := range docs {
		meta.uvarint(uint64(int64(d) - prev))
		prev = int64(d)
	}
	for _, v := range nums {
		if kind == numInts {
			meta.varint(int64(v))
		} else {
			meta = binary.LittleEndian.AppendUint64(meta, math.Float64bits(v))
		}
	}
	return meta
}
