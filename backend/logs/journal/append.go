package journal

import (
	"context"
	"errors"
	"fmt"
	"runtime"

	"golang.org/x/sys/unix"
)

// Append writes records to the journal and returns once they are durable
// (fsync'd), with the offsets of the first and last of them. Records of one
// call get consecutive offsets. Appends that arrive while an fsync runs are
// written together by the next one (group commit).
//
// Append returns ErrFull, without writing anything, while the uncommitted
// data is at Options.MaxSize or older than Options.MaxAge. If ctx ends first,
// Append returns ctx.Err() and the records may or may not be journaled: the
// caller must not acknowledge them.
func (j *Journal) Append(ctx context.Context, records ...[]byte) (first, last uint64, err error) {
	if len(records) == 0 {
		return 0, 0, errors.New("journal: append of no records")
	}
	size := 0
	for _, r := range records {
		if len(r) > j.opts.MaxRecordSize {
			return 0, 0, fmt.Errorf("%w: %d bytes, limit %d", ErrTooLarge, len(r), j.opts.MaxRecordSize)
		}
		size += frameSize(len(r))
	}

	j.mu.Lock()
	for len(j.pending) > 0 && len(j.pending)+size > maxPending && !j.closed && j.broken == nil {
		room := j.room
		j.mu.Unlock()
		select {
		case <-room:
		case <-ctx.Done():
			return 0, 0, ctx.Err()
		}
		j.mu.Lock()
	}
	if err := j.acceptLocked(int64(size)); err != nil {
		j.mu.Unlock()
		return 0, 0, err
	}
	for _, r := range records {
		j.pending = appendFrame(j.pending, r)
	}
	b, rel := j.gen, uint64(j.pendingN)
	j.pendingN += len(records)
	j.work.Signal()
	j.mu.Unlock()

	select {
	case <-b.done:
	case <-ctx.Done():
		return 0, 0, ctx.Err()
	}
	if b.err != nil {
		return 0, 0, b.err
	}
	first = b.first + rel
	return first, first + uint64(len(records)) - 1, nil
}

// acceptLocked decides whether size more bytes may be appended.
func (j *Journal) acceptLocked(size int64) error {
	switch {
	case j.closed:
		return ErrClosed
	case j.broken != nil:
		return j.broken
	}
	used := j.uncommittedBytesLocked() + int64(len(j.pending)) + j.inflight
	if used+size > j.opts.MaxSize {
		return fmt.Errorf("%w: %d uncommitted bytes, max size %d", ErrFull, used, j.opts.MaxSize)
	}
	if s := j.oldestUncommittedLocked(); s != nil {
		if age := j.opts.Now().Sub(s.created); age > j.opts.MaxAge {
			return fmt.Errorf("%w: oldest uncommitted segment is %s old, max age %s", ErrFull, age.Round(1e9), j.opts.MaxAge)
		}
	}
	return nil
}

// uncommittedBytesLocked counts the segments holding uncommitted records,
// whole, as Kafka's retention does: committed segments no longer count even
// before the committer has deleted them.
func (j *Journal) uncommittedBytesLocked() int64 {
	var n int64
	for _, s := range j.segs {
		if s.end > j.committed {
			n += s.size
		}
	}
	return n
}

func (j *Journal) oldestUncommittedLocked() *segment {
	for _, s := range j.segs {
		if s.end > j.committed {
			return s
		}
	}
	return nil
}

// WaitNotFull blocks until a record of size bytes would be accepted by
// Append as far as the limits go: it returns nil after enough is committed,
// ctx.Err(), or ErrClosed. A TCP input that got ErrFull calls it to stop
// reading (back-pressure) instead of polling.
func (j *Journal) WaitNotFull(ctx context.Context, size int) error {
	need := int64(frameSize(size))
	if need > j.opts.MaxSize {
		return fmt.Errorf("%w: %d bytes never fit in a journal of %d", ErrTooLarge, size, j.opts.MaxSize)
	}
	for {
		j.mu.Lock()
		if j.closed {
			j.mu.Unlock()
			return ErrClosed
		}
		if !errors.Is(j.acceptLocked(need), ErrFull) {
			j.mu.Unlock()
			return nil
		}
		freed := j.freed
		j.mu.Unlock()
		select {
		case <-freed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// writer is the single goroutine that writes and fsyncs pending frames. It
// takes everything that accumulated while the previous fsync ran, so the
// batch size adapts to the load with no timer.
func (j *Journal) writer() {
	defer close(j.writerDone)
	var spare []byte
	for {
		j.mu.Lock()
		for len(j.pending) == 0 && !j.closed {
			j.work.Wait()
		}
		if len(j.pending) == 0 {
			j.mu.Unlock()
			return
		}
		buf, n, b := j.pending, j.pendingN, j.gen
		j.pending, j.pendingN, j.gen = spare[:0], 0, newBatch()
		j.inflight = int64(len(buf))
		close(j.room)
		j.room = make(chan struct{})
		first, err := j.durable, j.broken
		j.mu.Unlock()

		if err == nil {
			err = j.write(buf, first)
		}

		j.mu.Lock()
		j.inflight = 0
		if err == nil {
			j.act.end += uint64(n)
			j.act.size += int64(len(buf))
			j.durable = j.act.end
			j.batches++
			j.appends.mark(j.opts.Now(), int64(n))
			close(j.notify)
			j.notify = make(chan struct{})
		}
		j.mu.Unlock()
		b.first, b.err = first, err
		close(b.done)
		// Let the appenders just released queue their next records before
		// taking the next batch; otherwise batches alternate big and small.
		runtime.Gosched()
		// The spare is buf, or none: the old spare is pending's array now,
		// and keeping it would give the next batch's appenders the very
		// buffer that batch is written from.
		spare = nil
		if cap(buf) <= maxPending*2 {
			spare = buf
		}
	}
}

// rollSize is the size at which the active segment is rolled even below
// Options.SegmentSize: only sealed segments are deleted once committed, so
// a 100 MiB active segment would keep up to 100 MiB of records the store
// already holds. Rolling at 4 MiB bounds what is kept after commit to about
// that, for two more fsyncs per 4 MiB written.
const rollSize = 4 << 20

// write appends buf, whose first frame gets offset first, to the active
// segment, rolling it first when it is full or old.
func (j *Journal) write(buf []byte, first uint64) error {
	act := j.act
	if act == nil || act.end > act.base &&
		(act.size+int64(len(buf)) > min(j.opts.SegmentSize, rollSize) || j.opts.Now().Sub(act.created) >= j.opts.SegmentAge) {
		s, err := createSegment(j.dir, first, j.opts.Now())
		if err != nil {
			return err
		}
		j.mu.Lock()
		j.segs = append(j.segs, s)
		j.act = s
		j.mu.Unlock()
		act = s
	}
	if _, err := act.f.WriteAt(buf, act.size); err != nil {
		// Cut the partial write so the next batch starts on a frame boundary.
		if terr := act.f.Truncate(act.size); terr != nil {
			j.setBroken(fmt.Errorf("journal: write failed (%w) and truncate failed: %w", err, terr))
		}
		return fmt.Errorf("journal: write: %w", err)
	}
	// fdatasync also flushes the file size; after a failed one the page
	// cache state is unknown, so the journal stops accepting (fsyncgate).
	if err := unix.Fdatasync(int(act.f.Fd())); err != nil {
		err = fmt.Errorf("journal: fsync: %w", err)
		j.setBroken(err)
		return err
	}
	return nil
}

func (j *Journal) setBroken(err error) {
	j.mu.Lock()
	j.broken = err
	j.mu.Unlock()
}
