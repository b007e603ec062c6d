package journal

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

const (
	segmentExt = ".log"
	lockName   = "journal.lock"
)

// segment is one file of the journal. base and created never change; end
// and size change only for the active segment, by the writer under mu, and
// cover only fsync'd frames, so readers never see a torn record.
type segment struct {
	base    uint64
	created time.Time
	path    string
	f       *os.File
	end     uint64 // one past the last durable offset
	size    int64  // durable bytes, header included
}

func segmentPath(dir string, base uint64) string {
	return filepath.Join(dir, fmt.Sprintf("%020d%s", base, segmentExt))
}

// createSegment creates and fsyncs an empty segment starting at base, then
// fsyncs the directory so the file survives a crash.
func createSegment(dir string, base uint64, created time.Time) (*segment, error) {
	path := segmentPath(dir, base)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("journal: create segment: %w", err)
	}
	fail := func(err error) (*segment, error) {
		f.Close()
		os.Remove(path)
		return nil, fmt.Errorf("journal: create segment %s: %w", filepath.Base(path), err)
	}
	if _, err := f.WriteAt(segmentHeader{base: base, created: created}.encode(), 0); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := syncDir(dir); err != nil {
		return fail(err)
	}
	return &segment{base: base, created: created.UTC(), path: path, f: f, end: base, size: headerSize}, nil
}

// listSegments returns the bases of the segment files in dir, ascending.
func listSegments(dir string) ([]uint64, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("journal: list segments: %w", err)
	}
	var bases []uint64
	for _, e := range ents {
		name, ok := strings.CutSuffix(e.Name(), segmentExt)
		if !ok || e.IsDir() {
			continue
		}
		base, err := strconv.ParseUint(name, 10, 64)
		if err != nil {
			continue
		}
		bases = append(bases, base)
	}
	sort.Slice(bases, func(a, b int) bool { return bases[a] < bases[b] })
	return bases, nil
}

// openSegment opens an existing segment file and checks its header.
func openSegment(dir string, base uint64) (*segment, error) {
	path := segmentPath(dir, base)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, fmt.Errorf("journal: open segment: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("journal: stat segment: %w", err)
	}
	b := make([]byte, headerSize)
	if _, err := io.ReadFull(io.NewSectionReader(f, 0, headerSize), b); err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		f.Close()
		return nil, fmt.Errorf("journal: read segment header: %w", err)
	}
	h, err := decodeHeader(b)
	if err == nil && h.base != base {
		err = fmt.Errorf("%w: base %d in file named %d", errBadHeader, h.base, base)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%w: %s: %w", ErrCorrupt, filepath.Base(path), err)
	}
	return &segment{base: base, created: h.created, path: path, f: f, end: base, size: fi.Size()}, nil
}

// recover rebuilds the in-memory state from dir. Sealed segments are
// trusted (each was fsync'd before the next was created, so the next name is
// its end); only the last one is scanned and its torn tail truncated.
func (j *Journal) recover() error {
	log := j.opts.Logger
	committed, err := readOffsets(j.dir)
	if err != nil {
		log.Warn("journal: unreadable committed offset, replaying from the oldest segment", "err", err)
		committed = 0
	}
	bases, err := listSegments(j.dir)
	if err != nil {
		return err
	}
	// A crash while rolling can leave a last segment without a durable
	// header; it holds no acknowledged record, so it goes. Such a file is
	// no longer than a header: createSegment syncs the header before any
	// record is written. A longer one with a bad header is damaged, not
	// torn, and its records are not deleted on a guess.
	for len(bases) > 0 {
		last := bases[len(bases)-1]
		s, err := openSegment(j.dir, last)
		if err == nil {
			j.segs = append(j.segs, s)
			break
		}
		if !errors.Is(err, ErrCorrupt) {
			return err
		}
		if fi, serr := os.Stat(segmentPath(j.dir, last)); serr != nil || fi.Size() > headerSize {
			return err
		}
		log.Warn("journal: removing last segment with a torn header", "segment", segmentPath(j.dir, last), "err", err)
		if err := os.Remove(segmentPath(j.dir, last)); err != nil {
			return fmt.Errorf("journal: remove torn segment: %w", err)
		}
		bases = bases[:len(bases)-1]
	}
	if len(bases) > 0 {
		sealed := make([]*segment, 0, len(bases))
		for _, base := range bases[:len(bases)-1] {
			s, err := openSegment(j.dir, base)
			if err != nil {
				for _, s := range sealed {
					s.f.Close()
				}
				return err
			}
			sealed = append(sealed, s)
		}
		j.segs = append(sealed, j.segs...)
		for i := 0; i+1 < len(j.segs); i++ {
			j.segs[i].end = j.segs[i+1].base
		}
		if err := j.recoverTail(j.segs[len(j.segs)-1]); err != nil {
			return err
		}
		j.act = j.segs[len(j.segs)-1]
	}

	end := committed
	first := committed
	if len(j.segs) > 0 {
		end = j.act.end
		first = j.segs[0].base
	}
	switch {
	case committed > end:
		log.Warn("journal: committed offset beyond the journal's end, resetting", "committed", committed, "end", end)
		committed = end
	case committed < first:
		// Segments below first were deleted only after their commit.
		committed = first
	}
	j.committed, j.persisted, j.durable = committed, committed, end
	return nil
}

// recoverTail counts the valid frames of the last segment and truncates
// whatever follows them: the torn tail of a write cut by a crash.
func (j *Journal) recoverTail(s *segment) error {
	r := io.NewSectionReader(s.f, headerSize, s.size-headerSize)
	n, valid, err := scanFrames(r, frameLimit(s.size), -1)
	if err != nil {
		return fmt.Errorf("journal: scan %s: %w", filepath.Base(s.path), err)
	}
	s.end = s.base + uint64(n)
	if headerSize+valid < s.size {
		j.opts.Logger.Warn("journal: truncating torn tail", "segment", s.path,
			"records", n, "kept_bytes", headerSize+valid, "dropped_bytes", s.size-headerSize-valid)
		if err := s.f.Truncate(headerSize + valid); err != nil {
			return fmt.Errorf("journal: truncate torn tail: %w", err)
		}
		if err := s.f.Sync(); err != nil {
			return fmt.Errorf("journal: sync truncated segment: %w", err)
		}
		s.size = headerSize + valid
	}
	return nil
}
