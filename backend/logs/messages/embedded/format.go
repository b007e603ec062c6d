package embedded

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/klauspost/compress/zstd"

	"github.com/loggate/loggate/backend/logs/messages"
)

// A segment file holds an immutable, time-sorted run of messages:
//
//	file   = magic blocks dict meta footer
//	blocks = zstd frame*          stored messages without _id and timestamp:
//	                              (version 3) up to blockDocs per frame by
//	                              column, see columns.go; (versions 1 and 2)
//	                              blockSize per frame, each doc
//	                              uvarint(len) + record (messages codec)
//	dict   = per field, terms sorted and front-coded in runs of up to
//	         dictRun terms (dictRunBytes, version 2; dictRunV3 and
//	         dictRunBytesV3 by column, version 3; version 4 adds ids as
//	         digits and postings of unique terms as their documents, see
//	         builder.columnRun), each run plain or (version 2) one zstd
//	         frame:
//	         shared:uvarint suffix:str postings:bytes (see postings.go)
//	meta   = zstd(n, block refs (with their document count, version 3),
//	         timestamps as deltas, ids (16 bytes for a
//	         UUID), per field: presence postings, numeric column, dict
//	         location and the first term of every run)
//	footer = metaOff:8 metaLen:8 dictOff:8 dictLen:8 metaCRC:4 dictCRC:4
//	         metaRaw:8 magic:8
//
// The decompressed size of the meta section (in the footer, under the
// meta checksum) and of every block (in the meta section) is recorded, and
// a frame must declare exactly that size before it is decompressed, so a
// damaged file cannot make the reader allocate more than the writer did.
//
// Documents are numbered in (timestamp, _id) order, so a time range is a
// contiguous run of document numbers and the newest hits are at the end.
const (
	magic      = "LGSEG\x00\x01\n"
	footerSize = 56
	// metaVersion 2 ends dictionary runs by size too and may compress
	// them (each run ref adds its raw size, 0 when stored plain), and
	// writes integer columns as varints (see appendNumbers); segments of
	// version 1 (runs of exactly 32 terms, plain; float64 columns) are
	// read. Version 3 stores blocks by column (columns.go), each block
	// with its document count. Version 4 writes hexadecimal text as
	// nibbles (hex.go), leaves a block's integers to the segment's
	// numeric columns and does not repeat a run's first term.
	metaVersion  = 4
	dictRun      = 128
	dictRunBytes = 4 << 10
	// Version 3 runs hold up to dictRunV3 terms (dictRunBytesV3): by
	// column they compress better the longer they are.
	dictRunV3      = 512
	dictRunBytesV3 = 8 << 10
	dictRunV1      = 32
	blockSize      = 256
	// Kinds of numeric column (meta version 2, see appendNumbers).
	numFloats = 0
	numInts   = 1
	// Field flags in the meta section.
	flagText = 1 << iota
	flagLower
)

var (
	// encoder compresses dictionary runs and meta sections, blockEncoder
	// stored blocks: their columns compress nearly as well at the
	// default level, for half the time of the better one, while the
	// runs of a field of unique values lose a tenth of their size.
	//
	// Their window is 1 MiB, not the default 8: a stored block is tens of
	// kilobytes and a meta section a few megabytes that compresses as well
	// (to a byte, on the corpus of make load), and the better level keeps
	// a history buffer of twice its window, 16 MiB of heap for nothing.
	encoder, _      = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBetterCompression), zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(encoderWindow))
	blockEncoder, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(encoderWindow))
	// decoder refuses frames that would need more memory than a block or
	// a meta section can plausibly take, so a corrupt file cannot make it
	// allocate without bound.
	decoder, _ = zstd.NewReader(nil, zstd.WithDecoderMaxMemory(1<<30), zstd.WithDecoderConcurrency(2))
	crcTable   = crc32.MakeTable(crc32.Castagnoli)
)

const encoderWindow = 1 << 20

// enc appends the primitive encodings of the format.
type enc []byte

func (e *enc) uvarint(v uint64) { *e = binary.AppendUvarint(*e, v) }
func (e *enc) varint(v int64)   { *e = binary.AppendVarint(*e, v) }
func (e *enc) str(s string)     { e.uvarint(uint64(len(s))); *e = append(*e, s...) }
func (e *enc) bytes(b []byte)   { e.uvarint(uint64(len(b))); *e = append(*e, b...) }

// dec reads what enc wrote; the first error sticks and later reads return
// zero values, so decoders check once. Lengths are checked against the
// bytes left, so a forged count cannot make a decoder allocate.
type dec struct {
	b   []byte
	err bool
}

func (d *dec) fail() { d.err, d.b = true, nil }

func (d *dec) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *dec) varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

// count reads a length of items of at least min bytes each.
func (d *dec) count(min int) int {
	v := d.uvarint()
	if v > uint64(len(d.b)/min) {
		d.fail()
		return 0
	}
	return int(v)
}

func (d *dec) take(n int) []byte {
	if n < 0 || n > len(d.b) {
		d.fail()
		return nil
	}
	b := d.b[:n:n]
	d.b = d.b[n:]
	return b
}

func (d *dec) bytes() []byte { return d.take(d.count(1)) }
func (d *dec) str() string   { return string(d.bytes()) }

func (d *dec) byte() byte {
	if len(d.b) == 0 {
		d.fail()
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *dec) float() float64 {
	b := d.take(8)
	if b == nil {
		return 0
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(b))
}

// parseUUID returns the 16 bytes of id when id is a UUID in canonical
// lower-case form, the only form whose byte order is its string order.
func parseUUID(id string) ([16]byte, bool) {
	if len(id) != 36 {
		return [16]byte{}, false
	}
	u, err := uuid.Parse(id)
	if err != nil || strings.ToLower(id) != id {
		return [16]byte{}, false
	}
	return u, true
}

// storedRecord encodes what a block stores of m: everything but _id and
// timestamp, which the meta section holds.
func storedRecord(b []byte, m *messages.Message) ([]byte, error) {
	c := messages.Message{Timestamp: time.UnixMilli(0), Streams: m.Streams, Fields: m.Fields}
	return c.AppendBinary(b)
}

func unixMilli(ms int64) time.Time { return time.UnixMilli(ms).UTC() }

// maxRaw bounds any decompressed section.
const maxRaw = 1 << 30

// decompress decodes one zstd frame of exactly raw bytes.
func decompress(z []byte, raw uint64) ([]byte, error) {
	var h zstd.Header
	if raw > maxRaw || h.Decode(z) != nil {
		return nil, fmt.Errorf("%w: frame header", errCorrupt)
	}
	// The encoder omits the size of tiny frames; then a single block
	// within a small window bounds the output instead.
	if h.HasFCS && h.FrameContentSize != raw ||
		!h.HasFCS && (!h.FirstBlock.Last || h.WindowSize > 1<<16 || raw > 1<<16) {
		return nil, fmt.Errorf("%w: frame size", errCorrupt)
	}
	out, err := decoder.DecodeAll(z, make([]byte, 0, raw))
	if err != nil || uint64(len(out)) != raw {
		return nil, fmt.Errorf("%w: frame: %v", errCorrupt, err)
	}
	return out, nil
}

// metaChecksum covers the compressed meta section and its raw size.
func metaChecksum(z []byte, raw uint64) uint32 {
	return crc32.Update(crc32.Checksum(z, crcTable), crcTable, binary.LittleEndian.AppendUint64(nil, raw))
}
