package journal

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"time"
)

// On-disk layout. A segment is a header followed by frames; a frame is
//
//	length uint32 LE | crc uint32 LE | payload
//
// where crc is CRC32C over the length bytes and the payload. Covering the
// length means a zero-filled tail (what some filesystems leave after a crash)
// never parses as a valid empty record. Offsets are implicit: the n-th frame
// of the segment whose name is base has offset base+n.
const (
	frameHeaderSize = 8
	maxFrameLen     = 1<<31 - 1
	headerSize      = 32
	segmentMagic    = "LGJOURN1"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// frameLimit is the longest payload a segment of size bytes can hold. A
// frame already written is read against it, not against
// Options.MaxRecordSize: that limit is for new records, and lowering it
// must not turn records acknowledged before into a torn tail. The file's
// size still bounds what a corrupt length can make a reader allocate.
func frameLimit(size int64) int {
	return int(max(0, min(size-headerSize-frameHeaderSize, maxFrameLen)))
}

var errBadHeader = errors.New("bad segment header")

// frameSize is the encoded size of a payload of n bytes.
func frameSize(n int) int { return frameHeaderSize + n }

// appendFrame appends the frame of payload to dst.
func appendFrame(dst, payload []byte) []byte {
	var h [frameHeaderSize]byte
	binary.LittleEndian.PutUint32(h[0:4], uint32(len(payload)))
	crc := crc32.Update(crc32.Checksum(h[0:4], castagnoli), castagnoli, payload)
	binary.LittleEndian.PutUint32(h[4:8], crc)
	dst = append(dst, h[:]...)
	return append(dst, payload...)
}

// frameStatus tells how decodeFrame ended.
type frameStatus int

const (
	frameOK      frameStatus = iota
	frameShort               // b ends inside the frame; need more bytes
	frameInvalid             // length above the limit or checksum mismatch
)

// decodeFrame parses the frame at the start of b. On frameOK it returns the
// payload (aliasing b) and the frame's size; on frameShort the size is the
// frame's full size when the header was complete, else 0.
func decodeFrame(b []byte, maxLen int) ([]byte, int, frameStatus) {
	if len(b) < frameHeaderSize {
		return nil, 0, frameShort
	}
	n := binary.LittleEndian.Uint32(b[0:4])
	if uint64(n) > uint64(maxLen) {
		return nil, 0, frameInvalid
	}
	size := frameHeaderSize + int(n)
	if len(b) < size {
		return nil, size, frameShort
	}
	payload := b[frameHeaderSize:size]
	crc := crc32.Update(crc32.Checksum(b[0:4], castagnoli), castagnoli, payload)
	if crc != binary.LittleEndian.Uint32(b[4:8]) {
		return nil, 0, frameInvalid
	}
	return payload, size, frameOK
}

// scanFrames reads frames from r until EOF, the first invalid or incomplete
// frame, or limit frames (limit < 0: no limit). It returns the number of valid
// frames and the bytes they span; err is only for I/O failures, so a torn or
// corrupt tail shows as valid < bytes available.
func scanFrames(r io.Reader, maxLen, limit int) (n int, valid int64, err error) {
	br := bufio.NewReaderSize(r, 256<<10)
	var payload []byte
	var h [frameHeaderSize]byte
	for limit < 0 || n < limit {
		if _, err := io.ReadFull(br, h[:]); err != nil {
			return n, valid, ioErr(err)
		}
		l := binary.LittleEndian.Uint32(h[0:4])
		if uint64(l) > uint64(maxLen) {
			return n, valid, nil
		}
		if cap(payload) < int(l) {
			payload = make([]byte, l)
		}
		payload = payload[:l]
		if _, err := io.ReadFull(br, payload); err != nil {
			return n, valid, ioErr(err)
		}
		crc := crc32.Update(crc32.Checksum(h[0:4], castagnoli), castagnoli, payload)
		if crc != binary.LittleEndian.Uint32(h[4:8]) {
			return n, valid, nil
		}
		n++
		valid += int64(frameSize(int(l)))
	}
	return n, valid, nil
}

// ioErr hides the end-of-data errors that mark a torn tail.
func ioErr(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return nil
	}
	return err
}

// segmentHeader is the fixed header of a segment file:
//
//	magic [8] | base uint64 | created unix nanos int64 | crc32c of the 24 bytes before | reserved [4]
type segmentHeader struct {
	base    uint64
	created time.Time
}

func (h segmentHeader) encode() []byte {
	b := make([]byte, headerSize)
	copy(b, segmentMagic)
	binary.LittleEndian.PutUint64(b[8:16], h.base)
	binary.LittleEndian.PutUint64(b[16:24], uint64(h.created.UnixNano()))
	binary.LittleEndian.PutUint32(b[24:28], crc32.Checksum(b[:24], castagnoli))
	return b
}

func decodeHeader(b []byte) (segmentHeader, error) {
	if len(b) < headerSize || string(b[:8]) != segmentMagic {
		return segmentHeader{}, errBadHeader
	}
	if crc32.Checksum(b[:24], castagnoli) != binary.LittleEndian.Uint32(b[24:28]) {
		return segmentHeader{}, fmt.Errorf("%w: checksum mismatch", errBadHeader)
	}
	return segmentHeader{
		base:    binary.LittleEndian.Uint64(b[8:16]),
		created: time.Unix(0, int64(binary.LittleEndian.Uint64(b[16:24]))).UTC(),
	}, nil
}
