// Package journal is loggate's crash-safe message journal: a segmented,
// append-only log on disk in the spirit of Graylog's KafkaJournal.
//
// Inputs append every accepted message and acknowledge it only once Append
// returns, which is after an fsync. Concurrent appenders share one fsync
// (group commit). The processing loop reads records in offset order and
// commits an offset once the records up to it are stored; segments wholly
// below the committed offset are then deleted. Unlike Graylog, which deletes
// the oldest unprocessed segments when the journal exceeds its limits, this
// journal refuses new records with ErrFull, so an acknowledged message is
// never lost.
package journal

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// Defaults mirror Graylog 4.0's message_journal_* settings.
const (
	DefaultSegmentSize   = 100 << 20 // message_journal_segment_size = 100mb
	DefaultSegmentAge    = time.Hour // message_journal_segment_age = 1h
	DefaultMaxSize       = 5 << 30   // message_journal_max_size = 5gb
	DefaultMaxAge        = 12 * time.Hour
	DefaultMaxRecordSize = 32 << 20
)

// maxPending bounds the bytes waiting for the writer; appenders beyond it wait
// for the running fsync so a stalled disk cannot grow memory without bound.
const maxPending = 16 << 20

var (
	// ErrFull is returned by Append when uncommitted data has reached
	// Options.MaxSize or is older than Options.MaxAge. Inputs answer 503 or
	// stop reading; nothing already in the journal is dropped.
	ErrFull = errors.New("journal: full")
	// ErrClosed is returned by operations on a closed journal.
	ErrClosed = errors.New("journal: closed")
	// ErrOutOfRange is returned for offsets that were never written or whose
	// segment has been deleted after commit.
	ErrOutOfRange = errors.New("journal: offset out of range")
	// ErrCorrupt is returned when a sealed segment fails its checksums.
	ErrCorrupt = errors.New("journal: corrupt segment")
	// ErrTooLarge is returned by Append for a record above Options.MaxRecordSize.
	ErrTooLarge = errors.New("journal: record too large")
)

// Options configures a Journal. Zero fields take the defaults above.
type Options struct {
	// SegmentSize is the size at which the active segment is rolled; it is
	// capped at MaxSize/4.
	SegmentSize int64
	// SegmentAge is the age at which a non-empty active segment is rolled,
	// so committed data can be deleted even when traffic is low.
	SegmentAge time.Duration
	// MaxSize is the limit of uncommitted bytes on disk.
	MaxSize int64
	// MaxAge is the limit of the age of the oldest uncommitted segment.
	MaxAge time.Duration
	// MaxRecordSize is the largest record Append accepts.
	MaxRecordSize int
	// Now is the clock for segment ages and rates; time.Now if nil.
	Now func() time.Time
	// Logger reports recovery actions; discarded if nil.
	Logger *slog.Logger
}

func (o Options) withDefaults() Options {
	if o.SegmentSize <= 0 {
		o.SegmentSize = DefaultSegmentSize
	}
	if o.SegmentAge <= 0 {
		o.SegmentAge = DefaultSegmentAge
	}
	if o.MaxSize <= 0 {
		o.MaxSize = DefaultMaxSize
	}
	if o.MaxAge <= 0 {
		o.MaxAge = DefaultMaxAge
	}
	// The age limit is the active segment's too: one older than MaxAge
	// holding a record appended a moment ago would refuse appends as if
	// that record were old. Rolling by half of it keeps the active segment
	// young enough whenever it is written to.
	o.SegmentAge = min(o.SegmentAge, o.MaxAge/2)
	// Limits count uncommitted segments whole, so a segment may hold at
	// most a quarter of MaxSize; otherwise one partly committed segment
	// could keep the journal full.
	o.SegmentSize = max(min(o.SegmentSize, o.MaxSize/4), headerSize+frameHeaderSize)
	if o.MaxRecordSize <= 0 || o.MaxRecordSize > maxFrameLen {
		o.MaxRecordSize = min(DefaultMaxRecordSize, maxFrameLen)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// Journal is an open journal directory. Its methods are safe for concurrent
// use; Read is meant for one processing loop at a time.
type Journal struct {
	dir  string
	opts Options
	lock *os.File // flock'd so two processes never share a directory

	// readMu serialises reads with segment deletion and guards cur.
	readMu sync.Mutex
	cur    cursor

	mu        sync.Mutex
	work      *sync.Cond // signals the writer that pending has data
	segs      []*segment // oldest first; act is the last
	act       *segment   // changed only by the writer
	pending   []byte     // encoded frames waiting for the writer
	pendingN  int        // records in pending
	gen       *batch     // batch that pending will become
	room      chan struct{}
	inflight  int64         // bytes the writer is writing
	durable   uint64        // one past the last fsync'd record
	committed uint64        // first uncommitted offset
	persisted uint64        // committed offset as stored on disk
	notify    chan struct{} // closed when durable advances or on close
	freed     chan struct{} // closed when committed advances or on close
	closed    bool
	broken    error  // sticky writer failure (failed fsync)
	batches   uint64 // fsync'd batches, to observe group commit
	appends   meter
	reads     meter

	persistMu  sync.Mutex
	commitSig  chan struct{}
	stop       chan struct{}
	writerDone chan struct{}
	commitDone chan struct{}
	closeOnce  sync.Once
	closeErr   error
}

// batch is one group commit: every Append whose records were in pending when
// the writer took it waits on done and reads first and err afterwards.
type batch struct {
	done  chan struct{}
	first uint64
	err   error
}

func newBatch() *batch { return &batch{done: make(chan struct{})} }

// Open opens or creates the journal in dir, truncating a torn tail left by a
// crash, and starts its writer and committer goroutines. Close releases it.
func Open(dir string, opts Options) (*Journal, error) {
	opts = opts.withDefaults()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("journal: create directory: %w", err)
	}
	lock, err := os.OpenFile(filepath.Join(dir, lockName), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("journal: open lock file: %w", err)
	}
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		lock.Close()
		return nil, fmt.Errorf("journal: %s is in use by another process: %w", dir, err)
	}
	j := &Journal{
		dir:        dir,
		opts:       opts,
		lock:       lock,
		gen:        newBatch(),
		room:       make(chan struct{}),
		notify:     make(chan struct{}),
		freed:      make(chan struct{}),
		commitSig:  make(chan struct{}, 1),
		stop:       make(chan struct{}),
		writerDone: make(chan struct{}),
		commitDone: make(chan struct{}),
	}
	j.work = sync.NewCond(&j.mu)
	if err := j.recover(); err != nil {
		j.closeFiles()
		lock.Close()
		return nil, err
	}
	now := opts.Now()
	j.appends.start(now)
	j.reads.start(now)
	go j.writer()
	go j.committer()
	j.commitSig <- struct{}{} // delete segments committed before a crash
	return j, nil
}

// Close persists the committed offset, waits for pending appends to become
// durable and releases the directory. It is safe to call more than once.
func (j *Journal) Close() error {
	j.closeOnce.Do(func() {
		j.mu.Lock()
		j.closed = true
		j.work.Broadcast()
		j.mu.Unlock()
		// The writer drains pending before it exits, and only it replaces
		// notify, so notify is closed after it is done.
		<-j.writerDone
		j.mu.Lock()
		close(j.notify)
		close(j.freed)
		j.mu.Unlock()
		close(j.stop)
		<-j.commitDone
		j.closeErr = j.sync()
		j.readMu.Lock()
		j.closeFiles()
		j.readMu.Unlock()
		// Unlocked before closing: a child process forked by another
		// goroutine (and not yet exec'd) shares the lock's open file
		// description, and closing our descriptor alone would leave the
		// journal locked until that child execs.
		_ = unix.Flock(int(j.lock.Fd()), unix.LOCK_UN)
		if err := j.lock.Close(); err != nil && j.closeErr == nil {
			j.closeErr = fmt.Errorf("journal: release lock: %w", err)
		}
	})
	return j.closeErr
}

func (j *Journal) closeFiles() {
	for _, s := range j.segs {
		s.f.Close()
	}
}

// Committed returns the first uncommitted offset: where processing resumes.
func (j *Journal) Committed() uint64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.committed
}

// End returns one past the last durable offset: the offset the next
// appended record receives.
func (j *Journal) End() uint64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.durable
}

// syncDir makes renames, creations and removals in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
