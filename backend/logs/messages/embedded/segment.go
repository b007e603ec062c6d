package embedded

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"sort"
	"sync/atomic"
	"unsafe"

	"github.com/klauspost/compress/zstd"

	"github.com/loggate/loggate/backend/logs/messages"
)

// segment is an open segment: the meta section decoded in memory
// (timestamps, ids, presence and numeric columns, the sparse term index),
// blocks and dictionary runs read from the file on demand.
type segment struct {
	r       io.ReaderAt
	f       *os.File // nil for a segment built in memory
	name    string   // file name within the index directory
	size    int64
	n       int
	blocks  []blockRef
	ts      []int64
	ids     idColumn
	fields  map[string]*fieldMeta
	names   []string // sorted
	dictOff int64
	dictLen int64
	version uint64      // of the meta section
	cache   *blockCache // of the store, nil for none

	refs   atomic.Int64
	remove atomic.Bool // delete the file when the last reference goes
}

type fieldMeta struct {
	name    string
	a       analysis
	present bitset
	numDocs []uint32
	nums    []float64
	nterms  int
	runs    []dictRunRef
}

type dictRunRef struct {
	first string
	off   int64 // from dictOff
	len   int
	raw   uint64 // decompressed size of a compressed run, 0 for a plain one
}

// openSegment opens a segment file.
func openSegment(path, name string) (*segment, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	s, err := readSegment(f, st.Size())
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	s.f, s.name = f, name
	return s, nil
}

// readSegment decodes the meta section of a segment of the given size. It
// checks the checksums and every offset, so that later reads of blocks and
// runs stay within the file.
func readSegment(r io.ReaderAt, size int64) (*segment, error) {
	if size < int64(len(magic)+footerSize) {
		return nil, fmt.Errorf("%w: too short", errCorrupt)
	}
	var foot [footerSize]byte
	if _, err := r.ReadAt(foot[:], size-footerSize); err != nil {
		return nil, err
	}
	if string(foot[48:]) != magic {
		return nil, fmt.Errorf("%w: bad magic", errCorrupt)
	}
	metaOff := binary.LittleEndian.Uint64(foot[0:])
	metaLen := binary.LittleEndian.Uint64(foot[8:])
	dictOff := binary.LittleEndian.Uint64(foot[16:])
	dictLen := binary.LittleEndian.Uint64(foot[24:])
	body := uint64(size - footerSize)
	if dictOff < uint64(len(magic)) || dictOff > body || dictLen > body-dictOff ||
		metaOff != dictOff+dictLen || metaLen != body-metaOff {
		return nil, fmt.Errorf("%w: bad footer", errCorrupt)
	}
	z := make([]byte, metaLen)
	if _, err := r.ReadAt(z, int64(metaOff)); err != nil {
		return nil, err
	}
	metaRaw := binary.LittleEndian.Uint64(foot[40:])
	if metaChecksum(z, metaRaw) != binary.LittleEndian.Uint32(foot[32:]) {
		return nil, fmt.Errorf("%w: meta checksum", errCorrupt)
	}
	if err := checkDict(r, int64(dictOff), int64(dictLen), binary.LittleEndian.Uint32(foot[36:])); err != nil {
		return nil, err
	}
	meta, err := decompress(z, metaRaw)
	if err != nil {
		return nil, err
	}
	s := &segment{r: r, size: size, dictOff: int64(dictOff), dictLen: int64(dictLen)}
	if err := s.decodeMeta(meta); err != nil {
		return nil, err
	}
	s.refs.Store(1)
	return s, nil
}

func checkDict(r io.ReaderAt, off, n int64, want uint32) error {
	crc := uint32(0)
	buf := make([]byte, min(n, 1<<20))
	for n > 0 {
		k := min(n, int64(len(buf)))
		if _, err := r.ReadAt(buf[:k], off); err != nil {
			return err
		}
		crc = crc32.Update(crc, crcTable, buf[:k])
		off, n = off+k, n-k
	}
	if crc != want {
		return fmt.Errorf("%w: dictionary checksum", errCorrupt)
	}
	return nil
}

func (s *segment) decodeMeta(meta []byte) error {
	d := &dec{b: meta}
	bad := func(what string) error { return fmt.Errorf("%w: %s", errCorrupt, what) }
	if s.version = d.uvarint(); s.version < 1 || s.version > metaVersion {
		return bad("meta version")
	}
	// Every document takes at least three bytes of meta (a timestamp
	// delta and an id), which bounds n by the section's size.
	s.n = d.count(3)
	maxDocs := blockSize
	switch n := d.uvarint(); {
	case s.version >= 3 && n >= 1 && n <= maxBlockDocs:
		maxDocs = int(n)
	case n != uint64(maxDocs):
		return bad("block size")
	}
	nb := d.count(2)
	if d.err || (s.version < 3 && nb != (s.n+blockSize-1)/blockSize) || nb > s.n || (s.n > 0 && nb == 0) {
		return bad("block count")
	}
	s.blocks = make([]blockRef, nb)
	next, first := int64(len(magic)), 0
	for i := range s.blocks {
		off, l, raw := int64(d.uvarint()), int64(d.uvarint()), d.uvarint()
		docs := min(blockSize, s.n-first)
		if s.version >= 3 {
			docs = int(min(d.uvarint(), uint64(maxDocs+1)))
		}
		if off != next || l <= 0 || l > s.dictOff-off || raw > maxRaw || docs < 1 || docs > maxDocs || docs > s.n-first {
			return bad("block ref")
		}
		s.blocks[i] = blockRef{off: off, len: int(l), raw: raw, first: first, docs: docs}
		next, first = off+l, first+docs
	}
	if next != s.dictOff || first != s.n {
		return bad("blocks end")
	}
	s.ts = make([]int64, s.n)
	for i := range s.ts {
		if i == 0 {
			s.ts[i] = d.varint()
			continue
		}
		delta := d.uvarint()
		if delta > 1<<62 {
			return bad("timestamp")
		}
		s.ts[i] = s.ts[i-1] + int64(delta)
	}
	s.ids.uuids = make([]byte, 16*s.n)
	for i := range s.n {
		switch d.byte() {
		case 0:
			copy(s.ids.uuids[16*i:], d.take(16))
		case 1:
			if s.ids.other == nil {
				s.ids.other = map[uint32]string{}
			}
			s.ids.other[uint32(i)] = d.str()
		default:
			return bad("id kind")
		}
	}
	s.ids.order = make([]uint32, s.n)
	for i := range s.ids.order {
		s.ids.order[i] = uint32(i)
	}
	sort.Slice(s.ids.order, func(a, b int) bool { return s.ids.less(int(s.ids.order[a]), int(s.ids.order[b])) })
	s.ids.buildFilter()

	nf := d.count(4)
	s.fields = make(map[string]*fieldMeta, nf)
	for range nf {
		f, err := s.decodeField(d)
		if err != nil {
			return err
		}
		if _, dup := s.fields[f.name]; dup || (len(s.names) > 0 && f.name <= s.names[len(s.names)-1]) {
			return bad("field order")
		}
		s.fields[f.name] = f
		s.names = append(s.names, f.name)
	}
	if d.err || len(d.b) != 0 {
		return bad("meta")
	}
	return nil
}

func (s *segment) decodeField(d *dec) (*fieldMeta, error) {
	bad := func(what string) error { return fmt.Errorf("%w: field %s", errCorrupt, what) }
	f := &fieldMeta{name: d.str()}
	switch flags := d.uvarint(); flags {
	case 0:
		f.a = keyword
	case flagText:
		f.a = text
	case flagLower:
		f.a = lowerKeyword
	default:
		return nil, bad("flags")
	}
	f.present = newBitset(s.n)
	if err := orPostings(f.present, d.bytes(), s.n); err != nil {
		return nil, bad("presence")
	}
	minEntry := 2 // a delta and a varint
	if s.version == 1 {
		minEntry = 9 // a delta and a float64
	}
	nn := d.count(minEntry)
	if nn > s.n {
		return nil, bad("numeric count")
	}
	f.numDocs, f.nums = make([]uint32, nn), make([]float64, nn)
	kind := byte(numFloats)
	if s.version != 1 {
		if kind = d.byte(); kind != numFloats && kind != numInts {
			return nil, bad("numeric kind")
		}
	}
	prev := int64(-1)
	for i := range nn {
		delta := d.uvarint()
		if delta == 0 || delta > uint64(s.n) || prev+int64(delta) >= int64(s.n) {
			return nil, bad("numeric docs")
		}
		prev += int64(delta)
		f.numDocs[i] = uint32(prev)
		if s.version == 1 {
			f.nums[i] = d.float()
		}
	}
	if s.version != 1 {
		for i := range f.nums {
			if kind == numInts {
				f.nums[i] = float64(d.varint())
			} else {
				f.nums[i] = d.float()
			}
		}
	}
	nterms := d.uvarint()
	nr := d.count(3)
	switch {
	case s.version == 1 && (nterms > uint64(nr)*dictRunV1 || nr != (int(nterms)+dictRunV1-1)/dictRunV1),
		s.version == 2 && (nterms > uint64(nr)*dictRun || uint64(nr) > nterms),
		s.version >= 3 && (nterms > uint64(nr)*dictRunV3 || uint64(nr) > nterms):
		return nil, bad("run count")
	}
	f.nterms = int(nterms)
	f.runs = make([]dictRunRef, nr)
	for i := range f.runs {
		r := dictRunRef{first: d.str(), off: int64(d.uvarint()), len: int(d.uvarint())}
		if s.version != 1 {
			r.raw = d.uvarint()
		}
		if r.off < 0 || r.len <= 0 || r.off > s.dictLen || int64(r.len) > s.dictLen-r.off || r.raw > maxRaw ||
			(i > 0 && (r.first <= f.runs[i-1].first || r.off < f.runs[i-1].off+int64(f.runs[i-1].len))) {
			return nil, bad("run")
		}
		f.runs[i] = r
	}
	if d.err {
		return nil, bad("truncated")
	}
	return f, nil
}

// release drops a reference; the last one closes the file.
func (s *segment) release() {
	if s.refs.Add(-1) != 0 {
		return
	}
	s.cache.drop(s)
	if s.f == nil {
		return
	}
	name := s.f.Name()
	s.f.Close()
	if s.remove.Load() {
		os.Remove(name)
	}
}

// term is one dictionary entry.
type term struct {
	text     string
	postings []byte
}

// readRun reads and decodes one dictionary run.
func (s *segment) readRun(r dictRunRef, fn func(term) bool) (bool, error) {
	buf := make([]byte, r.len)
	if _, err := s.r.ReadAt(buf, s.dictOff+r.off); err != nil {
		return false, err
	}
	if r.raw > 0 {
		var err error
		if buf, err = decompress(buf, r.raw); err != nil {
			return false, err
		}
	}
	if s.version >= 3 {
		return readColumnRun(buf, r.first, s.version, fn)
	}
	d := &dec{b: buf}
	prev := ""
	for first := true; len(d.b) > 0; first = false {
		shared := int(d.uvarint())
		if shared > len(prev) {
			return false, fmt.Errorf("%w: run prefix", errCorrupt)
		}
		t := prev[:shared] + string(d.bytes())
		p := d.bytes()
		if d.err || (first && t != r.first) || (!first && t <= prev) {
			return false, fmt.Errorf("%w: run", errCorrupt)
		}
		prev = t
		if !fn(term{t, p}) {
			return false, nil
		}
	}
	return true, nil
}

// readColumnRun decodes a run of version 3 or 4 (see builder.columnRun).
func readColumnRun(buf []byte, first string, version uint64, fn func(term) bool) (bool, error) {
	bad := fmt.Errorf("%w: run", errCorrupt)
	d := &dec{b: buf}
	n := d.count(3) // a shared length, a length, a document at least
	if n == 0 {
		return false, bad
	}
	shared := make([]int, n)
	for i := range shared {
		// Checked against the term before below; the first is not in buf.
		shared[i] = int(min(d.uvarint(), math.MaxInt32))
	}
	suffixes := make([]int, n)
	total := 0
	for i := range suffixes {
		l := d.uvarint()
		if version >= 4 { // the whole length
			if l < uint64(shared[i]) {
				return false, bad
			}
			l -= uint64(shared[i])
		}
		suffixes[i] = int(min(l, uint64(2*len(buf))))
		total += suffixes[i]
	}
	hc, stored := byte(hexNone), total
	if version >= 4 {
		if hc = d.byte(); hc >= alphabets {
			return false, bad
		}
		if hc != hexNone {
			stored = int(nibbleBytes(uint64(total), hc))
		}
	}
	text := d.take(min(stored, len(buf)+1))
	mode := byte(postingsPlain)
	if version >= 4 {
		mode = d.byte()
	}
	plens := make([]int, n)
	var singles []byte
	switch mode {
	case postingsPlain:
		for i := range plens {
			plens[i] = int(min(d.uvarint(), uint64(len(buf))))
		}
	case postingsSingles, postingsSinglesDelta:
		// The postings are rebuilt as appendPostings writes them.
		singles = make([]byte, 0, 4*n)
		doc := int64(0)
		for i := range plens {
			if mode == postingsSingles {
				doc = int64(min(d.uvarint(), math.MaxUint32))
			} else {
				doc += d.varint()
			}
			if doc < 0 || doc >= math.MaxUint32 {
				return false, bad
			}
			l := len(singles)
			singles = binary.AppendUvarint(append(singles, postingsList, 1), uint64(doc+1))
			plens[i] = len(singles) - l
		}
		if len(d.b) != 0 {
			return false, bad
		}
		d.b = singles
	default:
		return false, bad
	}
	if d.err {
		return false, bad
	}
	prev := ""
	if version >= 4 {
		prev = first
	}
	nr := nibbleReader{b: text, a: hc}
	var tb []byte
	for i := range n {
		if shared[i] > len(prev) || (hc == hexNone && suffixes[i] > len(text)) {
			return false, bad
		}
		tb = append(tb[:0], prev[:shared[i]]...)
		if hc == hexNone {
			tb = append(tb, text[:suffixes[i]]...)
			text = text[suffixes[i]:]
		} else {
			tb = nr.appendDigits(tb, unsafe.Slice(unsafe.StringData(prev), len(prev)), shared[i], suffixes[i])
		}
		t := string(tb)
		p := d.take(plens[i])
		if d.err || (i == 0 && t != first) || (i > 0 && t <= prev) {
			return false, bad
		}
		prev = t
		if !fn(term{t, p}) {
			return false, nil
		}
	}
	if len(d.b) != 0 {
		return false, bad
	}
	return true, nil
}

// lookupTerm returns the postings of t in field f, nil if absent.
func (s *segment) lookupTerm(f *fieldMeta, t string) ([]byte, error) {
	i := sort.Search(len(f.runs), func(i int) bool { return f.runs[i].first > t }) - 1
	if i < 0 {
		return nil, nil
	}
	var out []byte
	_, err := s.readRun(f.runs[i], func(e term) bool {
		if e.text == t {
			out = e.postings
		}
		return e.text < t
	})
	return out, err
}

// scanTerms calls fn for the terms of f from the run holding from (all
// when ""), in order, until fn returns false.
func (s *segment) scanTerms(f *fieldMeta, from string, fn func(term) bool) error {
	i := max(sort.Search(len(f.runs), func(i int) bool { return f.runs[i].first > from })-1, 0)
	for ; i < len(f.runs); i++ {
		more, err := s.readRun(f.runs[i], fn)
		if err != nil || !more {
			return err
		}
	}
	return nil
}

// readBlock reads and decompresses block b.
func (s *segment) readBlock(b int) ([]byte, error) {
	r := s.blocks[b]
	z := make([]byte, r.len)
	if _, err := s.r.ReadAt(z, r.off); err != nil {
		return nil, err
	}
	return decompress(z, r.raw)
}

// block reads block b of a version 1 or 2 segment and returns its
// documents' records.
func (s *segment) block(b int) ([][]byte, error) {
	raw, err := s.readBlock(b)
	if err != nil {
		return nil, err
	}
	want := s.blocks[b].docs
	out := make([][]byte, 0, want)
	d := &dec{b: raw}
	for len(d.b) > 0 && !d.err {
		out = append(out, d.bytes())
	}
	if d.err || len(out) != want {
		return nil, fmt.Errorf("%w: block records", errCorrupt)
	}
	return out, nil
}

// largeBlock is the decompressed size above which a block is not kept
// whole. A block holds 256 messages; of very large ones (tens of megabytes
// together) a reader would hold them all to return one. Such a block is
// streamed instead and only the wanted record kept, at the price of a
// decompression per record read, so the bound is high: blocks of up to
// 128 MiB are read whole, as the common case is fastest that way.
var largeBlock uint64 = 128 << 20 // a variable for tests

// blockRecord returns record i of block b without holding the block.
func (s *segment) blockRecord(b, i int) ([]byte, error) {
	ref := s.blocks[b]
	zr, err := zstd.NewReader(io.NewSectionReader(s.r, ref.off, int64(ref.len)),
		zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true), zstd.WithDecoderMaxMemory(maxRaw))
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	br := bufio.NewReader(io.LimitReader(zr, int64(ref.raw)))
	for k := 0; ; k++ {
		n, err := binary.ReadUvarint(br)
		if err != nil || n > ref.raw {
			return nil, fmt.Errorf("%w: block record %d: %v", errCorrupt, k, err)
		}
		if k == i {
			rec := make([]byte, n)
			if _, err := io.ReadFull(br, rec); err != nil {
				return nil, fmt.Errorf("%w: block record %d: %v", errCorrupt, k, err)
			}
			return rec, nil
		}
		if _, err := br.Discard(int(n)); err != nil {
			return nil, fmt.Errorf("%w: block record %d: %v", errCorrupt, k, err)
		}
	}
}

// message decodes a stored record of document doc.
func (s *segment) message(doc int, rec []byte) (messages.Message, error) {
	var m messages.Message
	if err := m.UnmarshalBinary(rec); err != nil {
		return m, fmt.Errorf("%w: %v", errCorrupt, err)
	}
	m.ID = s.ids.id(doc)
	m.Timestamp = unixMilli(s.ts[doc])
	return m, nil
}

// blockOf returns the block holding doc.
func (s *segment) blockOf(doc int) int {
	if s.version < 3 {
		return doc / blockSize
	}
	return sort.Search(len(s.blocks), func(i int) bool { return s.blocks[i].first+s.blocks[i].docs > doc })
}

// decodedBlock returns block b of a version 3 segment decoded, from the
// store's cache when it holds it.
func (s *segment) decodedBlock(b int) (*colBlock, error) {
	if cb := s.cache.get(s, b); cb != nil {
		return cb, nil
	}
	raw, err := s.readBlock(b)
	if err != nil {
		return nil, err
	}
	var nums *segmentNums
	if s.version >= 4 {
		nums = &segmentNums{fields: s.fields, first: s.blocks[b].first}
	}
	cb, err := decodeColBlock(raw, s.blocks[b].docs, nums)
	if err != nil {
		return nil, err
	}
	s.cache.put(s, b, cb)
	return cb, nil
}

// docReader fetches stored documents, keeping the last block read.
type docReader struct {
	s     *segment
	b     int
	recs  [][]byte
	cols  *colBlock
	valid bool
}

func (r *docReader) get(doc int) (messages.Message, error) {
	if r.s.version >= 3 {
		b := r.s.blockOf(doc)
		if !r.valid || r.b != b {
			cols, err := r.s.decodedBlock(b)
			if err != nil {
				return messages.Message{}, err
			}
			r.cols, r.b, r.valid = cols, b, true
		}
		m := r.cols.message(doc - r.s.blocks[b].first)
		m.ID = r.s.ids.id(doc)
		m.Timestamp = unixMilli(r.s.ts[doc])
		return m, nil
	}
	rec, err := r.record(doc)
	if err != nil {
		return messages.Message{}, err
	}
	return r.s.message(doc, rec)
}

// str returns the string value of one field of doc, reading only that
// field of a version 3 block; ok is false when doc has no string there.
func (r *docReader) str(doc int, field string) (v string, ok bool, err error) {
	if r.s.version < 3 {
		m, err := r.get(doc)
		if err != nil {
			return "", false, err
		}
		val, _ := m.Get(field)
		v, ok = val.(string)
		return v, ok, nil
	}
	b := r.s.blockOf(doc)
	if !r.valid || r.b != b {
		cols, err := r.s.decodedBlock(b)
		if err != nil {
			return "", false, err
		}
		r.cols, r.b, r.valid = cols, b, true
	}
	v, ok = r.cols.str(doc-r.s.blocks[b].first, field)
	return v, ok, nil
}

// record returns the stored record of doc in a version 1 or 2 segment,
// valid until the reader moves to another block.
func (r *docReader) record(doc int) ([]byte, error) {
	b := doc / blockSize
	if r.s.blocks[b].raw > largeBlock {
		return r.s.blockRecord(b, doc%blockSize)
	}
	if !r.valid || r.b != b {
		recs, err := r.s.block(b)
		if err != nil {
			return nil, err
		}
		r.b, r.recs, r.valid = b, recs, true
	}
	return r.recs[doc%blockSize], nil
}
