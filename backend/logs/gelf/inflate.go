package gelf

import (
	"bytes"
	"io"
	"math"
	"math/bits"
	"sync"
	"unsafe"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zlib"

	"github.com/loggate/loggate/backend/logs/buffers"
)

// compression is the payload encoding GELFMessage detects by magic bytes.
type compression uint8

const (
	plain compression = iota
	zlibbed
	gzipped
	chunked
	deflated // raw DEFLATE: only from an HTTP Content-Encoding, never detected
)

// detect mirrors GELFMessage.getGELFType: zlib is 0x78 followed by a byte
// that makes the 16-bit header a multiple of 31 (RFC 1950's FCHECK).
func detect(p []byte) compression {
	if len(p) < 2 {
		return plain
	}
	switch {
	case p[0] == 0x1f && p[1] == 0x8b:
		return gzipped
	case p[0] == 0x1e && p[1] == 0x0f:
		return chunked
	case p[0] == 0x78 && (uint(p[0])<<8|uint(p[1]))%31 == 0:
		return zlibbed
	}
	return plain
}

// Compressed reports whether a payload is zlib or gzip compressed, which
// Decode detects by its first bytes.
func Compressed(p []byte) bool {
	c := detect(p)
	return c == zlibbed || c == gzipped
}

// inflater holds the reusable decompression state; pooled because a flate
// reader costs tens of kilobytes to set up.
type inflater struct {
	src bytes.Reader
	zr  io.ReadCloser
	fr  io.ReadCloser
	gz  *gzip.Reader
	// dst is the current decoding's output buffer, whole, from outputs.
	dst []byte
}

var inflaters = sync.Pool{New: func() any { return new(inflater) }}

// maxPooledBuffer keeps one unusually large payload from pinning its buffer
// in the pool: a bigger buffer is dropped when the decoding ends.
const maxPooledBuffer = 256 << 10

// outputs keeps output buffers: a decoding takes buffers of the sizes its
// payload needs, and is charged for those, whatever the decodings before it
// left behind.
var outputs = buffers.New(maxPooledBuffer)

// release returns f and its buffer to their pools; a nil f is ignored.
func (f *inflater) release() {
	if f == nil {
		return
	}
	f.src.Reset(nil)
	f.putBuffer()
	inflaters.Put(f)
}

// putBuffer gives f's output buffer back to outputs.
func (f *inflater) putBuffer() {
	outputs.Put(f.dst)
	f.dst = nil
}

// text returns the JSON text of data, which is f's output or, for a nil f,
// the caller's, and releases f. The text is one copy of data, which every
// field without escapes shares; a decompression buffer too large to go back
// to the pool becomes the text itself, so a large message is not held
// twice. The copy is charged to budget.
func (f *inflater) text(data []byte, budget Budget) (string, error) {
	defer f.release()
	if f != nil && cap(f.dst) > maxPooledBuffer && len(data) > 0 {
		// The buffer is never written again: f forgets it.
		f.dst = nil
		return unsafe.String(unsafe.SliceData(data), len(data)), nil
	}
	if budget != nil {
		if err := budget.Grow(len(data)); err != nil {
			return "", err
		}
	}
	return string(data), nil
}

// inflate decompresses p into a buffer of outputs (f.dst), refusing more
// than limit bytes. The buffer grows by doubling as bytes actually arrive,
// from a few times the input's size, and never beyond limit+1 bytes:
// neither a size the stream claims (gzip's ISIZE) nor the limit itself is
// allocated up front. Every growth is first charged to budget, when there
// is one.
func (f *inflater) inflate(c compression, p []byte, limit int64, budget Budget) ([]byte, error) {
	f.src.Reset(p)
	var r io.Reader
	switch c {
	case zlibbed:
		if f.zr == nil {
			zr, err := zlib.NewReader(&f.src)
			if err != nil {
				return nil, invalidf("zlib: %w", err)
			}
			f.zr = zr
		} else if err := f.zr.(zlib.Resetter).Reset(&f.src, nil); err != nil {
			return nil, invalidf("zlib: %w", err)
		}
		r = f.zr
	case gzipped:
		if f.gz == nil {
			f.gz = new(gzip.Reader)
		}
		if err := f.gz.Reset(&f.src); err != nil {
			return nil, invalidf("gzip: %w", err)
		}
		// Only the first member: trailing bytes are ignored, as Java's
		// GZIPInputStream ignores what it cannot read as another member.
		f.gz.Multistream(false)
		r = f.gz
	case deflated:
		if f.fr == nil {
			f.fr = flate.NewReader(&f.src)
		} else if err := f.fr.(flate.Resetter).Reset(&f.src, nil); err != nil {
			return nil, invalidf("deflate: %w", err)
		}
		r = f.fr
	}
	// One byte more than the limit tells a stream that goes on from one
	// that ends exactly at it.
	most := int(min(limit, math.MaxInt32)) + 1
	var dst []byte
	charged := 0
	for {
		if len(dst) == cap(dst) {
			// A power of two, so that the buffer can be pooled: the size
			// is a guess of the output's anyway. Past half of most, most
			// itself: a buffer of a power of two just under it would be
			// followed by one of most to tell whether the output goes on.
			n := 1 << bits.Len(uint(max(2*cap(dst), 4*len(p), minInflateBuffer)-1))
			if n > most/2 {
				n = most
			}
			if n == len(dst) {
				return nil, ErrTooLarge
			}
			if err := charge(budget, &charged, n); err != nil {
				return nil, err
			}
			grown := outputs.Get(n)
			dst = append(grown, dst...)
			f.putBuffer()
			f.dst = grown
		}
		k, err := r.Read(dst[len(dst):cap(dst)])
		dst = dst[:len(dst)+k]
		if len(dst) == most {
			return nil, ErrTooLarge
		}
		if err == io.EOF {
			return dst, nil
		}
		if err != nil {
			return nil, invalidf("decompress: %w", err)
		}
	}
}

// minInflateBuffer is the smallest output buffer allocated.
const minInflateBuffer = 4 << 10

// charge asks budget for the bytes of a buffer of size n beyond those
// already charged.
func charge(budget Budget, charged *int, n int) error {
	if n <= *charged {
		return nil
	}
	if budget != nil {
		if err := budget.Grow(n - *charged); err != nil {
			return err
		}
	}
	*charged = n
	return nil
}
