package embedded

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"

	"github.com/loggate/loggate/backend/logs/messages"
)

// flushJob is the buffers of one index being written as one segment.
type flushJob struct {
	ix   *index
	bufs []*buffer
	dels []bitset // each buffer's deleted set when the flush began
	ref  *segRef
	// where[i][pos] is the document of bufs[i].msgs[pos] in the new
	// segment, -1 if it was not written (replaced before the flush)
	where [][]int32
}

// Flush writes every buffer to a segment file and commits them with
// checkpoint. Writers are blocked only while buffers are swapped and while
// the manifest is written, not while segments are built.
func (s *Store) Flush(ctx context.Context, checkpoint uint64) error {
	return s.flush(ctx, checkpoint, nil)
}

// Seal ends the buffers written so far: later writes go to new ones, which
// the returned function does not write. That function writes the sealed
// buffers (with any an earlier failed flush left) to segment files and
// commits them with checkpoint, as Flush does; it may be called again
// after it failed. Seal is the short first step of a flush that its caller
// may run beside further writes, and only then is checkpoint exactly what
// the commit holds: what is written, and which earlier copies the commit
// records as deleted, is decided here, so that a message replaced after
// the seal keeps its old copy until its new one is flushed.
func (s *Store) Seal(ctx context.Context, checkpoint uint64) (func(context.Context) error, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, unavailable("seal", errClosed)
	}
	s.freeze()
	snap := s.snapshot()
	return func(ctx context.Context) error { return s.flush(ctx, checkpoint, snap) }, nil
}

// freeze moves every index's active buffer to the ones waiting to be
// flushed; the caller holds mu.
func (s *Store) freeze() {
	for _, ix := range s.indices {
		if len(ix.active.msgs) > 0 {
			ix.frozen = append(ix.frozen, ix.active)
			ix.active = ix.active.nextBuffer()
		}
	}
}

// flushSnapshot is what a flush writes and commits: the frozen buffers of
// each index with the deletions they had, and the deletions of every
// segment, as of one moment. A Write copies a deleted set before it
// changes it, so holding the sets is enough to keep them as they were.
type flushSnapshot struct {
	bufs    map[*index][]*buffer
	dels    map[*buffer]bitset
	durable map[*segRef]bitset
}

// snapshot takes the flushSnapshot of now; the caller holds mu.
func (s *Store) snapshot() *flushSnapshot {
	snap := &flushSnapshot{bufs: map[*index][]*buffer{}, dels: map[*buffer]bitset{}, durable: map[*segRef]bitset{}}
	for _, ix := range s.indices {
		if len(ix.frozen) > 0 {
			snap.bufs[ix] = slices.Clone(ix.frozen)
			for _, b := range ix.frozen {
				snap.dels[b] = b.deleted
			}
		}
		for _, r := range ix.segs {
			snap.durable[r] = r.deleted
		}
	}
	return snap
}

// flush writes and commits the buffers of snap with checkpoint; without
// one, it freezes the active buffers and takes its snapshot now.
func (s *Store) flush(ctx context.Context, checkpoint uint64, snap *flushSnapshot) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.flushMu.Lock()
	defer s.flushMu.Unlock()

	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return unavailable("flush", errClosed)
	}
	if err := checkFault(s.opts.Fault); err != nil {
		s.mu.Unlock()
		return unavailable("flush", err)
	}
	if snap == nil {
		s.freeze()
		snap = s.snapshot()
	}
	var jobs []*flushJob
	for _, ix := range s.indices {
		// A buffer no longer frozen was committed by another flush since
		// the snapshot.
		bufs := slices.DeleteFunc(slices.Clone(snap.bufs[ix]), func(b *buffer) bool { return !slices.Contains(ix.frozen, b) })
		if len(bufs) == 0 {
			continue
		}
		j := &flushJob{ix: ix, bufs: bufs}
		for _, b := range j.bufs {
			j.dels = append(j.dels, snap.dels[b])
		}
		jobs = append(jobs, j)
	}
	durable := snap.durable
	seq := s.nextSeq
	s.nextSeq += uint64(len(jobs))
	s.mu.Unlock()

	var err error
	for i, j := range jobs {
		if err = ctx.Err(); err == nil {
			err = s.writeJob(j, seq+uint64(i))
		}
		if err != nil {
			break
		}
	}
	if err != nil {
		for _, j := range jobs {
			j.discard()
		}
		return unavailable("flush", err)
	}
	return s.commitFlush(jobs, durable, checkpoint)
}

// writeJob builds the job's segment file, fsynced, and opens it.
func (s *Store) writeJob(j *flushJob, seq uint64) error {
	var live []*messages.Message
	j.where = make([][]int32, len(j.bufs))
	for i, b := range j.bufs {
		j.where[i] = make([]int32, len(b.msgs))
		for pos := range b.msgs {
			j.where[i][pos] = -1
			if !j.dels[i].has(pos) {
				live = append(live, &b.msgs[pos])
			}
		}
	}
	if len(live) == 0 {
		return nil
	}
	// Order the live messages by (timestamp, _id), remembering where each
	// buffer position went.
	type item struct {
		m      *messages.Message
		buf, p int32
	}
	items := make([]item, 0, len(live))
	for i, b := range j.bufs {
		for pos := range b.msgs {
			if !j.dels[i].has(pos) {
				items = append(items, item{&b.msgs[pos], int32(i), int32(pos)})
			}
		}
	}
	slices.SortFunc(items, func(a, b item) int {
		if c := a.m.Timestamp.Compare(b.m.Timestamp); c != 0 {
			return c
		}
		return compareStrings(a.m.ID, b.m.ID)
	})
	name := segmentFile(seq)
	for doc, it := range items {
		j.where[it.buf][it.p] = int32(doc)
		live[doc] = it.m
	}
	seg, err := s.writeSegment(j.ix.dir, name, func(b *builder) error {
		b.expect = len(live)
		return b.addAll(live)
	})
	if err != nil {
		return err
	}
	j.ref = &segRef{seg: seg}
	return nil
}

// writeSegment writes a segment file with fill, fsyncs it and its
// directory, and opens it. On error nothing is left behind.
func (s *Store) writeSegment(dir, name string, fill func(*builder) error) (*segment, error) {
	if err := checkFault(s.opts.Fault); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, name)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, err
	}
	b := newBuilder(f)
	err = fill(b)
	if err == nil {
		_, err = b.finish()
	}
	if err == nil {
		err = checkFault(s.opts.Fault)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = syncDir(dir)
	}
	if err != nil {
		os.Remove(path)
		return nil, err
	}
	seg, err := openSegment(path, name)
	if err != nil {
		os.Remove(path)
		return nil, err
	}
	seg.cache = s.blocks
	return seg, nil
}

func (j *flushJob) discard() {
	if j.ref != nil {
		j.ref.seg.remove.Store(true)
		j.ref.seg.release()
		j.ref = nil
	}
}

// commitFlush installs the new segments and writes the manifest; if that
// fails, the buffers stay where they were and the files are removed.
func (s *Store) commitFlush(jobs []*flushJob, durable map[*segRef]bitset, checkpoint uint64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	type saved struct {
		ix     *index
		segs   []*segRef
		frozen []*buffer
	}
	var undo []saved
	for _, j := range jobs {
		ix := j.ix
		if s.indices[ix.name] != ix {
			j.discard() // deleted while we wrote it
			continue
		}
		undo = append(undo, saved{ix, ix.segs, ix.frozen})
		ix.frozen = slices.DeleteFunc(slices.Clone(ix.frozen), func(b *buffer) bool { return slices.Contains(j.bufs, b) })
		if j.ref == nil {
			continue
		}
		// Messages replaced while the segment was written are deleted in
		// it, in memory only: their replacements are not durable yet.
		for i, b := range j.bufs {
			for pos, doc := range j.where[i] {
				if doc >= 0 && b.deleted.has(pos) && !j.dels[i].has(pos) {
					if j.ref.deleted == nil {
						j.ref.deleted = newBitset(j.ref.seg.n)
					}
					j.ref.deleted.set(int(doc))
				}
			}
		}
		ix.segs = append(slices.Clip(ix.segs), j.ref)
	}
	m := s.manifest(checkpoint, durable)
	err := writeManifest(s.dir, m, s.opts.Fault)
	if err != nil && !errors.Is(err, errUnsynced) {
		for _, u := range undo {
			u.ix.segs, u.ix.frozen = u.segs, u.frozen
		}
		for _, j := range jobs {
			j.discard()
		}
		return unavailable("flush", err)
	}
	for r, d := range durable {
		r.durable = d
	}
	s.checkpoint = checkpoint
	s.kickMerge()
	if err != nil {
		// Committed as far as this process goes; retrying the flush
		// writes the manifest again, which syncs it.
		return unavailable("flush", err)
	}
	return nil
}

// manifest describes the committed state with checkpoint; durable
// overrides the recorded deletions of some segments. The caller holds mu.
func (s *Store) manifest(checkpoint uint64, durable map[*segRef]bitset) *manifest {
	m := &manifest{Checkpoint: checkpoint, NextSeq: s.nextSeq}
	for _, ix := range s.selected(nil) {
		mi := manifestIndex{Prefix: ix.prefix, Number: ix.number, Created: ix.created.UnixMilli(), Segments: []manifestSegment{},
			Closed: ix.closed, Reopened: ix.reopened}
		for _, r := range ix.segs {
			del := r.durable
			if d, ok := durable[r]; ok {
				del = d
			}
			ms := manifestSegment{File: r.seg.name}
			for d := del.next(0); d >= 0; d = del.next(d + 1) {
				ms.Deleted = append(ms.Deleted, uint32(d))
			}
			mi.Segments = append(mi.Segments, ms)
		}
		m.Indices = append(m.Indices, mi)
	}
	return m
}

// commitLocked writes the manifest of the current state with the current
// checkpoint; the caller holds mu.
func (s *Store) commitLocked() error {
	if err := writeManifest(s.dir, s.manifest(s.checkpoint, nil), s.opts.Fault); err != nil {
		return unavailable("commit", err)
	}
	return nil
}

func (s *Store) kickMerge() {
	select {
	case s.mergeKick <- struct{}{}:
	default:
	}
}
