package gelf

import (
	"bytes"
	"io"
	"sync"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zlib"
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

// inflater holds the reusable decompression state; pooled because a flate
// reader costs tens of kilobytes to set up.
type inflater struct {
	src  bytes.Reader
	zr   io.ReadCloser
	fr   io.ReadCloser
	gz   *gzip.Reader
	dst  bytes.Buffer
	stop [1]byte
}

var inflaters = sync.Pool{New: func() any { return new(inflater) }}

// maxPooledBuffer keeps one unusually large payload from pinning its buffer
// in the pool forever.
const maxPooledBuffer = 1 << 20

func (f *inflater) release() {
	f.src.Reset(nil)
	if f.dst.Cap() > maxPooledBuffer {
		f.dst = bytes.Buffer{}
	}
	f.dst.Reset()
	inflaters.Put(f)
}

// inflate decompresses p into f.dst, refusing more than limit bytes.
func (f *inflater) inflate(c compression, p []byte, limit int64) ([]byte, error) {
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
	if grow := int64(len(p)) * 4; grow < limit {
		f.dst.Grow(int(grow))
	}
	if _, err := f.dst.ReadFrom(io.LimitReader(r, limit)); err != nil {
		return nil, invalidf("decompress: %w", err)
	}
	// Reaching the limit is an error only if the stream goes on.
	if int64(f.dst.Len()) == limit {
		if n, _ := io.ReadFull(r, f.stop[:]); n > 0 {
			return nil, ErrTooLarge
		}
	}
	return f.dst.Bytes(), nil
}
