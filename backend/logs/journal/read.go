package journal

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
)

// Entry is one journaled record.
type Entry struct {
	// Offset is the record's position in the journal; it never changes, so
	// a replay after a crash yields the same offset for the same bytes.
	Offset uint64
	// Data is the record as appended. It does not alias journal memory.
	Data []byte
}

// cursor remembers where the last Read ended so the usual sequential read
// needs no scan.
type cursor struct {
	seg *segment
	off uint64
	pos int64
}

// Read chunk bounds: big enough to amortise the syscall, small enough not
// to allocate a megabyte for a single record.
const (
	minReadChunk = 64 << 10
	maxReadChunk = 1 << 20
)

// Read returns up to limit durable records starting at offset from, in offset
// order, from a single segment (so possibly fewer than limit even when more
// exist). It returns no entries and no error when from is the journal's End,
// and ErrOutOfRange for offsets beyond it or already deleted.
func (j *Journal) Read(from uint64, limit int) ([]Entry, error) {
	entries, _, err := j.ReadInto(nil, nil, from, limit)
	return entries, err
}

// ReadInto is Read into memory the caller gives again to every call:
// entries are appended to dst[:0] and the records' bytes are read into buf
// (both grown as needed, and returned for the next call). Data then
// aliases buf: it is valid until buf is given to another call. A reader
// that copies what it keeps out of the records, as processing does,
// allocates nothing per read this way.
func (j *Journal) ReadInto(dst []Entry, buf []byte, from uint64, limit int) ([]Entry, []byte, error) {
	entries := dst[:0]
	if limit <= 0 {
		return nil, buf, nil
	}
	j.readMu.Lock()
	defer j.readMu.Unlock()

	j.mu.Lock()
	if j.closed {
		j.mu.Unlock()
		return nil, buf, ErrClosed
	}
	if from >= j.durable {
		durable := j.durable
		j.mu.Unlock()
		if from == durable {
			return nil, buf, nil
		}
		return nil, buf, fmt.Errorf("%w: %d is beyond the end %d", ErrOutOfRange, from, durable)
	}
	i := sort.Search(len(j.segs), func(i int) bool { return j.segs[i].end > from })
	if i == len(j.segs) || j.segs[i].base > from {
		j.mu.Unlock()
		return nil, buf, fmt.Errorf("%w: %d was deleted after commit", ErrOutOfRange, from)
	}
	s := j.segs[i]
	end, size := s.end, s.size
	j.mu.Unlock()

	pos := int64(headerSize)
	if j.cur.seg == s && j.cur.off == from {
		pos = j.cur.pos
	} else if skip := int(from - s.base); skip > 0 {
		n, valid, err := scanFrames(io.NewSectionReader(s.f, headerSize, size-headerSize), frameLimit(size), skip)
		if err != nil {
			return nil, buf, fmt.Errorf("journal: read %s: %w", filepath.Base(s.path), err)
		}
		if n < skip {
			return nil, buf, j.corrupt(s, s.base+uint64(n), end, "is unreadable")
		}
		pos += valid
	}

	want := int(min(uint64(limit), end-from))
	chunk := min(size-pos, max(minReadChunk, min(int64(want)*512, maxReadChunk)))
	buf = sized(buf, int(chunk))
	if err := j.readAt(s, buf, pos, from, end); err != nil {
		return nil, buf, err
	}
	if entries == nil {
		entries = make([]Entry, 0, min(want, 4096))
	}
	p := 0
	for len(entries) < want {
		payload, n, st := decodeFrame(buf[p:], frameLimit(size))
		if st == frameShort && len(entries) == 0 && n > len(buf) && int64(n) <= size-pos {
			// A single record larger than the chunk.
			buf = sized(buf, n)
			if err := j.readAt(s, buf, pos, from, end); err != nil {
				return nil, buf, err
			}
			continue
		}
		if st == frameShort {
			break
		}
		if st == frameInvalid {
			if len(entries) > 0 {
				break
			}
			return nil, buf, j.corrupt(s, from, end, "fails its checksum")
		}
		entries = append(entries, Entry{Offset: from + uint64(len(entries)), Data: payload})
		p += n
	}
	if len(entries) == 0 && want > 0 {
		// from is below the end, so its record is in the segment's
		// durable bytes: finding none, or only part of one, means the file
		// lost them. Returning nothing would have the reader ask again for
		// ever.
		return nil, buf, j.corrupt(s, from, end, "is cut short")
	}
	j.cur = cursor{seg: s, off: from + uint64(len(entries)), pos: pos + int64(p)}

	j.mu.Lock()
	j.reads.mark(j.opts.Now(), int64(len(entries)))
	j.mu.Unlock()
	return entries, buf, nil
}

// sized returns buf with length n, reallocated when it is too small.
func sized(buf []byte, n int) []byte {
	if cap(buf) < n {
		return make([]byte, n)
	}
	return buf[:n]
}

func (j *Journal) corrupt(s *segment, off, end uint64, why string) error {
	return fmt.Errorf("%w: %s: record at offset %d %s; the segment ends at offset %d",
		ErrCorrupt, filepath.Base(s.path), off, why, end)
}

// readAt fills buf from the segment at pos. The segment's durable bytes
// reach past buf, so a file that ends sooner lost them.
func (j *Journal) readAt(s *segment, buf []byte, pos int64, from, end uint64) error {
	_, err := s.f.ReadAt(buf, pos)
	switch {
	case errors.Is(err, io.EOF):
		return j.corrupt(s, from, end, "is cut short")
	case err != nil:
		return fmt.Errorf("journal: read %s: %w", filepath.Base(s.path), err)
	}
	return nil
}

// Wait blocks until the record at offset is durable and can be read, ctx
// ends, or the journal is closed (ErrClosed).
func (j *Journal) Wait(ctx context.Context, offset uint64) error {
	for {
		j.mu.Lock()
		if offset < j.durable {
			j.mu.Unlock()
			return nil
		}
		if j.closed {
			j.mu.Unlock()
			return ErrClosed
		}
		notify := j.notify
		j.mu.Unlock()
		select {
		case <-notify:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
