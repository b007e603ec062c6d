package gelf

import (
	"bufio"
	"errors"
	"io"
	"sync/atomic"
)

// framerBufferSize is the read buffer: frames that fit in it are returned
// without copying.
const framerBufferSize = 64 << 10

// Framer splits a GELF TCP stream into frames delimited by a null byte, as
// Netty's DelimiterBasedFrameDecoder does for Graylog's GELF TCP input. A
// frame longer than the maximum is dropped and counted, and the stream
// resynchronises at the next null byte. Empty frames are skipped.
//
// A Framer is used by one goroutine; Dropped may be read from any.
type Framer struct {
	r          *bufio.Reader
	max        int
	buf        []byte // a frame longer than the read buffer, being assembled
	discarding bool   // inside an oversized frame, waiting for its end
	err        error
	dropped    atomic.Uint64
	// Room, when set, is asked for the room a frame assembled outside the
	// read buffer takes (one longer than the buffer, or read across a
	// Wait), with the frame's whole size so far: a sender that stops
	// inside a frame would otherwise hold it outside any bound, once per
	// connection. Its error ends Next.
	Room func(size int) error
	// Wait, when set, lets the stream's reader return ErrWait instead of
	// waiting for bytes. The Framer then keeps what it read of the frame
	// (asking Room for it) and calls Wait with its read buffer, then
	// empty; Wait returns the buffer to read on with once the stream has
	// bytes again, so that the buffer can serve others meanwhile. Its
	// error ends Next.
	Wait func(r *bufio.Reader) (*bufio.Reader, error)
}

// ErrWait is what a Framer's reader returns instead of waiting for bytes,
// when the Framer has a Wait.
var ErrWait = errors.New("gelf: the stream has no bytes to read yet")

// NewFramer returns a Framer reading r with frames of at most maxFrame bytes
// (DefaultMaxMessageSize when ≤ 0), delimiter excluded. An r that is already
// a large enough *bufio.Reader is used directly.
func NewFramer(r io.Reader, maxFrame int) *Framer {
	if maxFrame <= 0 {
		maxFrame = DefaultMaxMessageSize
	}
	return &Framer{r: bufio.NewReaderSize(r, framerBufferSize), max: maxFrame}
}

// Dropped returns how many oversized frames were dropped.
func (f *Framer) Dropped() uint64 { return f.dropped.Load() }

// Next returns the next frame, valid until the following call. At the end
// of the stream a final frame without its null byte is returned too: many
// clients close the connection right after their last message without
// terminating it (Graylog 4.0's frame decoder discards that tail). After
// the last frame Next returns io.EOF, or the read error.
func (f *Framer) Next() ([]byte, error) {
	f.buf = f.buf[:0]
	if cap(f.buf) > framerBufferSize {
		// The last frame was long; its room is not kept while waiting.
		f.buf = nil
	}
	for f.err == nil {
		line, err := f.r.ReadSlice(0)
		switch {
		case err == nil:
			frame := line[:len(line)-1]
			if f.discarding {
				f.discarding = false
				continue
			}
			if len(f.buf) > 0 {
				if len(f.buf)+len(frame) > f.max {
					f.drop()
					continue
				}
				if err := f.room(len(f.buf) + len(frame)); err != nil {
					return nil, err
				}
				f.buf = append(f.buf, frame...)
				frame = f.buf
			}
			if len(frame) > f.max {
				f.drop()
				continue
			}
			if len(frame) == 0 {
				continue
			}
			return frame, nil
		case errors.Is(err, bufio.ErrBufferFull):
			if err := f.keep(line); err != nil {
				return nil, err
			}
		case f.Wait != nil && errors.Is(err, ErrWait):
			// line is what the read buffer held of a frame.
			if err := f.keep(line); err != nil {
				return nil, err
			}
			// The Framer keeps no hold of the buffer it gives up.
			r := f.r
			f.r = nil
			r, err := f.Wait(r)
			if err != nil {
				f.err = err
				f.buf = nil
				return nil, err
			}
			f.r = r
		default:
			f.err = err
			if err != io.EOF || f.discarding {
				return nil, f.err
			}
			if len(f.buf)+len(line) > f.max {
				f.drop()
				return nil, f.err
			}
			if len(f.buf) > 0 {
				if err := f.room(len(f.buf) + len(line)); err != nil {
					return nil, err
				}
			}
			frame := append(f.buf, line...)
			f.buf = frame
			if !blankFrame(frame) {
				return frame, nil
			}
		}
	}
	return nil, f.err
}

// keep adds the part of a frame the read buffer held to the frame being
// assembled, or drops the frame when that makes it too long.
func (f *Framer) keep(part []byte) error {
	if f.discarding || len(part) == 0 {
		return nil
	}
	if len(f.buf)+len(part) > f.max {
		f.drop()
		f.discarding = true
		return nil
	}
	if err := f.room(len(f.buf) + len(part)); err != nil {
		return err
	}
	f.buf = append(f.buf, part...)
	return nil
}

// room asks Room for size bytes of assembled frame. Its error ends the
// stream: the bytes read so far are lost, and Next returns it again.
func (f *Framer) room(size int) error {
	if f.Room == nil {
		return nil
	}
	if err := f.Room(size); err != nil {
		f.err = err
		f.buf = nil
		return err
	}
	return nil
}

func (f *Framer) drop() {
	f.buf = f.buf[:0]
	f.dropped.Add(1)
}

// blankFrame reports whether a frame holds only bytes ≤ U+0020, like the
// newline some clients write after their last null byte.
func blankFrame(b []byte) bool {
	for _, c := range b {
		if c > ' ' {
			return false
		}
	}
	return true
}
