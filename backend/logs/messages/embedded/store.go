// Package embedded is loggate's default message store: indices on local
// disk in a format of its own, built for log messages (compressed stored
// blocks, time-sorted segments, compact postings) because general-purpose
// search libraries spent several times the disk budget.
//
// Each index <prefix>_<n> is a directory of immutable segment files (see
// format.go). Write appends to an in-memory buffer per index that is
// searchable at once; Flush turns buffers into segment files and commits
// them with the caller's checkpoint in a manifest (see manifest.go); a
// background merger joins small segments of an index into larger ones.
package embedded

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/loggate/loggate/backend/logs/messages"
)

// Options tune a Store. The zero value is usable.
type Options struct {
	// Now returns the current time, used for index creation times;
	// time.Now when nil.
	Now func() time.Time
	// Fault, when set, is consulted by Write and before every file the
	// store writes. While it returns an error, Write and Flush fail with
	// an error wrapping messages.ErrUnavailable (and that error), and the
	// last committed state stays intact; once it returns nil again they
	// work as before. It is how tests simulate a failing disk.
	Fault func() error
	// MergeFactor is how many segments of the same size tier the
	// background merger joins at once; 0 means 8, a negative value turns
	// merging off.
	MergeFactor int
	// BlockCache is how many bytes of decoded message blocks the store
	// keeps for searches to reuse; 0 means 32 MiB, a negative value turns
	// the cache off.
	BlockCache int64
}

// Store is a messages.Store on local disk. It is safe for concurrent use.
type Store struct {
	dir  string
	opts Options

	// flushMu serializes commits (Flush, and the swap at the end of a
	// merge), so the deletions each commit makes durable are consistent.
	flushMu sync.Mutex

	mu         sync.RWMutex
	closed     bool
	series     map[string][]*index // by prefix, oldest first
	indices    map[string]*index
	checkpoint uint64
	nextSeq    uint64

	blocks *blockCache // nil when off

	mergeMu   sync.Mutex // one merge at a time
	mergeKick chan struct{}
	quit      chan struct{}
	done      chan struct{}
}

var _ messages.Store = (*Store)(nil)

// index is one index: its flushed segments and its unflushed buffers.
type index struct {
	name    string
	prefix  string
	number  int
	created time.Time
	dir     string
	segs    []*segRef
	frozen  []*buffer // being or waiting to be flushed, oldest first
	active  *buffer
	// closed hides the index from searches and Get; reopened marks one a
	// person opened again. Both are recorded in the manifest.
	closed, reopened bool
}

// segRef is a segment as an index holds it, with the documents replaced
// since it was written. Both sets are copied on write, so a search can use
// the ones it saw without a lock.
type segRef struct {
	seg     *segment
	deleted bitset // nil when none
	durable bitset // the part of deleted a manifest has recorded
}

// Open opens the store in dir, creating it if needed, and restores the
// state of the last completed Flush.
func Open(dir string, opts Options) (*Store, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.MergeFactor == 0 {
		opts.MergeFactor = 8
	}
	if opts.BlockCache == 0 {
		opts.BlockCache = defaultBlockCache
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("embedded: %w", err)
	}
	m, err := readManifest(dir)
	if err != nil {
		return nil, fmt.Errorf("embedded: open %s: %w", dir, err)
	}
	s := &Store{
		dir: dir, opts: opts,
		series: map[string][]*index{}, indices: map[string]*index{},
		checkpoint: m.Checkpoint, nextSeq: max(m.NextSeq, 1),
		blocks:    newBlockCache(opts.BlockCache),
		mergeKick: make(chan struct{}, 1), quit: make(chan struct{}), done: make(chan struct{}),
	}
	for _, mi := range m.Indices {
		ix := s.newIndex(mi.Prefix, mi.Number, time.UnixMilli(mi.Created).UTC())
		ix.closed, ix.reopened = mi.Closed, mi.Reopened
		for _, ms := range mi.Segments {
			seg, err := openSegment(filepath.Join(ix.dir, ms.File), ms.File)
			if err != nil {
				s.release()
				return nil, fmt.Errorf("embedded: open %s: %w", dir, err)
			}
			seg.cache = s.blocks
			ref := &segRef{seg: seg}
			if len(ms.Deleted) > 0 {
				ref.deleted = newBitset(seg.n)
				for _, d := range ms.Deleted {
					if int(d) >= seg.n {
						seg.release()
						s.release()
						return nil, fmt.Errorf("embedded: open %s: manifest deletes document %d of %s", dir, d, ms.File)
					}
					ref.deleted.set(int(d))
				}
				ref.durable = ref.deleted
			}
			ix.segs = append(ix.segs, ref)
		}
	}
	if err := s.removeLeftovers(); err != nil {
		s.release()
		return nil, fmt.Errorf("embedded: open %s: %w", dir, err)
	}
	go s.merger()
	return s, nil
}

// newIndex registers an empty index; the caller holds mu or owns s.
func (s *Store) newIndex(prefix string, n int, created time.Time) *index {
	ix := &index{name: indexName(prefix, n), prefix: prefix, number: n, created: created,
		active: newBuffer()}
	ix.dir = filepath.Join(s.dir, ix.name)
	s.indices[ix.name] = ix
	list := append(s.series[prefix], ix)
	sort.Slice(list, func(i, j int) bool { return list[i].number < list[j].number })
	s.series[prefix] = list
	return ix
}

// removeLeftovers deletes segment files and index directories the
// manifest does not name: what an interrupted Flush, merge or Delete left.
func (s *Store) removeLeftovers() error {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !e.IsDir() {
			if e.Name() == manifestName+".tmp" {
				os.Remove(filepath.Join(s.dir, e.Name()))
			}
			continue
		}
		ix := s.indices[e.Name()]
		if ix == nil {
			if looksLikeIndex(e.Name()) {
				if err := os.RemoveAll(filepath.Join(s.dir, e.Name())); err != nil {
					return err
				}
			}
			continue
		}
		live := map[string]bool{}
		for _, r := range ix.segs {
			live[r.seg.name] = true
		}
		files, err := os.ReadDir(ix.dir)
		if err != nil {
			return err
		}
		for _, f := range files {
			if !live[f.Name()] {
				if err := os.Remove(filepath.Join(ix.dir, f.Name())); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func looksLikeIndex(name string) bool {
	prefix, n, ok := splitIndex(name)
	return ok && prefixPattern.MatchString(prefix) && n >= 0
}

// splitIndex splits <prefix>_<n>.
func splitIndex(name string) (string, int, bool) {
	i := len(name) - 1
	for i >= 0 && name[i] >= '0' && name[i] <= '9' {
		i--
	}
	if i <= 0 || i == len(name)-1 || name[i] != '_' || len(name)-i > 10 {
		return "", 0, false
	}
	n := 0
	for _, c := range name[i+1:] {
		n = n*10 + int(c-'0')
	}
	return name[:i], n, true
}

// Close stops the merger and releases the files. It does not flush: what
// was written since the last Flush is dropped, exactly as after a crash,
// so callers Flush with their checkpoint before closing.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	close(s.quit)
	<-s.done
	s.flushMu.Lock()
	defer s.flushMu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.release()
	return nil
}

// release drops the store's references to every segment.
func (s *Store) release() {
	for _, ix := range s.indices {
		for _, r := range ix.segs {
			r.seg.release()
		}
		ix.segs = nil
	}
}

// Checkpoint returns the checkpoint of the last completed Flush.
func (s *Store) Checkpoint() uint64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.checkpoint
}

// Stats are figures about the whole store.
type Stats struct {
	// Messages counts the messages held, flushed or not.
	Messages int64
	// Unflushed counts the messages written since the last Flush.
	Unflushed int64
	// Bytes is the size of the segment files.
	Bytes int64
	// Segments is the number of segment files.
	Segments int
	// Indices is the number of indices.
	Indices int
}

// Stats returns figures about the store; it is cheap.
func (s *Store) Stats() Stats {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var st Stats
	for _, ix := range s.indices {
		st.Indices++
		c := ix.count()
		st.Messages += c.live
		st.Unflushed += c.unflushed
		st.Bytes += c.bytes
		st.Segments += len(ix.segs)
	}
	return st
}

type indexCount struct {
	live, unflushed, bytes int64
	begin, end             int64
}

// count sums an index up; the caller holds mu.
func (ix *index) count() indexCount {
	c := indexCount{begin: 1<<63 - 1, end: -1 << 63}
	for _, r := range ix.segs {
		c.live += int64(r.seg.n - r.deleted.count())
		c.bytes += r.seg.size
		if r.seg.n > 0 {
			c.begin, c.end = min(c.begin, r.seg.ts[0]), max(c.end, r.seg.ts[r.seg.n-1])
		}
	}
	for _, b := range ix.buffers() {
		n := int64(len(b.msgs) - b.deleted.count())
		c.live += n
		c.unflushed += n
		if len(b.msgs) > 0 {
			c.begin, c.end = min(c.begin, b.minTS), max(c.end, b.maxTS)
		}
	}
	return c
}

func (ix *index) buffers() []*buffer {
	return append(ix.frozen[:len(ix.frozen):len(ix.frozen)], ix.active)
}

// unavailable wraps err as messages.ErrUnavailable.
func unavailable(op string, err error) error {
	if errors.Is(err, messages.ErrUnavailable) {
		return err
	}
	return fmt.Errorf("embedded: %s: %w: %w", op, messages.ErrUnavailable, err)
}

var errClosed = errors.New("store is closed")
