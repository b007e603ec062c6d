package journal

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
)

const offsetsName = "committed.offset"

// Commit marks every record up to and including offset as processed. It
// returns at once; the committer goroutine persists the offset (temp file,
// fsync, rename, directory fsync) and then deletes the segments wholly below
// it, batching the commits that arrive while it works. After a crash,
// processing resumes from the last persisted commit, so records committed
// just before the crash are read again (at-least-once) with the same offsets.
// Commit never moves backwards; a lower offset is a no-op.
func (j *Journal) Commit(offset uint64) error {
	j.mu.Lock()
	if j.closed {
		j.mu.Unlock()
		return ErrClosed
	}
	if offset >= j.durable {
		durable := j.durable
		j.mu.Unlock()
		return fmt.Errorf("%w: commit of %d, the end is %d", ErrOutOfRange, offset, durable)
	}
	if offset+1 <= j.committed {
		j.mu.Unlock()
		return nil
	}
	j.committed = offset + 1
	close(j.freed)
	j.freed = make(chan struct{})
	j.mu.Unlock()
	select {
	case j.commitSig <- struct{}{}:
	default:
	}
	return nil
}

// Sync persists the committed offset and deletes the segments wholly below
// it, now.
func (j *Journal) Sync() error {
	j.mu.Lock()
	closed := j.closed
	j.mu.Unlock()
	if closed {
		return ErrClosed
	}
	return j.sync()
}

// committer persists commits in the background until Close.
func (j *Journal) committer() {
	defer close(j.commitDone)
	for {
		select {
		case <-j.commitSig:
			if err := j.sync(); err != nil {
				j.opts.Logger.Error("journal: persist committed offset", "err", err)
			}
		case <-j.stop:
			return
		}
	}
}

func (j *Journal) sync() error {
	j.persistMu.Lock()
	defer j.persistMu.Unlock()
	j.mu.Lock()
	c, p := j.committed, j.persisted
	j.mu.Unlock()
	if c != p {
		if err := writeOffsets(j.dir, c); err != nil {
			return err
		}
		j.mu.Lock()
		j.persisted = c
		j.mu.Unlock()
	}
	return j.deleteCommitted()
}

// deleteCommitted removes the sealed segments whose records are all below
// the persisted commit; it never deletes before the commit is on disk, so a
// crash cannot leave the commit pointing at missing records.
func (j *Journal) deleteCommitted() error {
	j.readMu.Lock()
	defer j.readMu.Unlock()
	j.mu.Lock()
	n := 0
	for n < len(j.segs) && j.segs[n] != j.act && j.segs[n].end <= j.persisted {
		n++
	}
	gone := append([]*segment(nil), j.segs[:n]...)
	j.segs = append(j.segs[:0:0], j.segs[n:]...)
	j.mu.Unlock()

	var errs []error
	for _, s := range gone {
		if j.cur.seg == s {
			j.cur = cursor{}
		}
		s.f.Close()
		if err := os.Remove(s.path); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, fmt.Errorf("journal: delete committed segment: %w", err))
		}
	}
	return errors.Join(errs...)
}

// writeOffsets atomically replaces the offsets file with off and its CRC32C.
func writeOffsets(dir string, off uint64) error {
	var b [12]byte
	binary.LittleEndian.PutUint64(b[:8], off)
	binary.LittleEndian.PutUint32(b[8:], crc32.Checksum(b[:8], castagnoli))
	tmp := filepath.Join(dir, offsetsName+".tmp")
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("journal: write committed offset: %w", err)
	}
	_, err = f.Write(b[:])
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(dir, offsetsName))
	}
	if err == nil {
		err = syncDir(dir)
	}
	if err != nil {
		return fmt.Errorf("journal: write committed offset: %w", err)
	}
	return nil
}

// readOffsets reads the persisted commit; a missing file means nothing was
// committed yet.
func readOffsets(dir string) (uint64, error) {
	b, err := os.ReadFile(filepath.Join(dir, offsetsName))
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("journal: read committed offset: %w", err)
	}
	if len(b) != 12 || crc32.Checksum(b[:8], castagnoli) != binary.LittleEndian.Uint32(b[8:]) {
		return 0, fmt.Errorf("%w: %s", ErrCorrupt, offsetsName)
	}
	return binary.LittleEndian.Uint64(b[:8]), nil
}
