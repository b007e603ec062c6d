package processing

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// pipeline is one Run of a processor. A store flush (building and syncing
// segment files) costs several times what reading and routing a batch
// does, so it runs in a goroutine of its own while the next batches are
// read and routed: the two halves keep two cores busy.
//
// A store that seals (Sealer) takes a flush's contents at once, when it
// is launched, and the batches read meanwhile are written at once, so
// they are searchable without waiting for the flush. With another store
// they are only written once the flush landed: Store.Flush makes durable
// "everything written so far", so a Write beside it would make the flushed
// contents, and what a crash replays, depend on timing. Either way a flush
// holds exactly the records below its checkpoint, and the journal is
// committed only once it landed.
type pipeline struct {
	p *Processor
	// read is the first journal offset not yet read, written the first not
	// yet written to the store (State.Next), flushed the checkpoint of the
	// last flush that landed.
	read, written, flushed uint64
	// pending and pendingBytes count the records written since the last
	// flush began; lastFlush is when the last flush landed.
	pending, pendingBytes int
	lastFlush             time.Time
	// queue holds the batches read while a flush of a store that does not
	// seal runs, queued and queuedBytes their records and bytes.
	queue               []*prepared
	queued, queuedBytes int
	// fl is the flush running, nil when none is.
	fl *flight
}

// flight is a flush running in its own goroutine.
type flight struct {
	checkpoint uint64
	// sealed is set when the store sealed the flight's contents: writes
	// go on beside it.
	sealed bool
	// landed is done once the flush returned; err is then its error.
	landed context.Context
	err    error
}

func (p *Processor) pipeline(next uint64) *pipeline {
	// Flush timing runs on the monotonic clock, not on Options.Now: it is
	// about disk work, and a test's frozen clock must not stop flushes.
	return &pipeline{p: p, read: next, written: next, flushed: next, lastFlush: time.Now()}
}

// run processes until ctx ends, then flushes what it wrote.
func (r *pipeline) run(ctx context.Context) error {
	p := r.p
	defer p.current.Store(nil)
	for {
		if ctx.Err() != nil {
			return r.final()
		}
		if r.fl != nil && r.fl.landed.Err() != nil {
			if err := r.land(ctx); err != nil {
				return r.stopped(ctx, err)
			}
		}
		if !p.opts.Processing() {
			// What was written before the pause is flushed now, not when
			// processing resumes: a pause may last, and until the flush
			// the journal cannot drop those records.
			if err := r.drain(ctx); err != nil {
				return r.stopped(ctx, err)
			}
			if err := p.pausedWait(ctx); err != nil {
				return r.final()
			}
			continue
		}
		if r.fl == nil && r.due() {
			r.launch(ctx)
		}
		if r.fl != nil && r.ahead() {
			// A flush's worth is read ahead: the store holds what it has
			// not flushed in memory, so reading waits for the flush.
			select {
			case <-r.fl.landed.Done():
			case <-ctx.Done():
			}
			continue
		}
		wait := p.opts.FlushInterval
		if r.pending > 0 {
			wait = max(0, p.opts.FlushInterval-time.Since(r.lastFlush))
		}
		wctx, cancel := context.WithTimeout(ctx, wait)
		stop := func() bool { return false }
		if r.fl != nil {
			// A flush landing ends the wait: the queued batches are
			// written then, not when the next record comes.
			stop = context.AfterFunc(r.fl.landed, cancel)
		}
		err := p.j.Wait(wctx, r.read)
		stop()
		cancel()
		switch {
		case err == nil:
			b, err := p.prepare(ctx, r.read)
			if err != nil {
				if ctx.Err() != nil {
					return r.final()
				}
				return err
			}
			r.read += uint64(b.n)
			if r.fl != nil && !r.fl.sealed {
				r.queue = append(r.queue, b)
				r.queued += b.n
				r.queuedBytes += b.size
				p.current.Store(nil)
				break
			}
			if err := r.store(ctx, b); err != nil {
				if ctx.Err() != nil {
					return r.final()
				}
				return err
			}
			p.current.Store(nil)
		case ctx.Err() != nil:
			return r.final()
		case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
			// The interval passed or a flush landed.
		default:
			return fmt.Errorf("processing: waiting for the journal: %w", err)
		}
	}
}

// store writes b and advances the state past it.
func (r *pipeline) store(ctx context.Context, b *prepared) error {
	if err := r.p.store(ctx, b); err != nil {
		return err
	}
	r.written += uint64(b.n)
	r.pending += b.n
	r.pendingBytes += b.size
	next := r.written
	r.p.update(func(s *State) { s.Next = next })
	return nil
}

// due reports whether what was written since the last flush is to be
// flushed now.
func (r *pipeline) due() bool {
	o := r.p.opts
	return r.pending > 0 && (r.pending >= o.FlushEvery || r.pendingBytes >= o.FlushBytes || time.Since(r.lastFlush) >= o.FlushInterval)
}

// ahead reports whether a flush's worth was read while the flight runs:
// the store holds what it has not flushed in memory, so reading waits.
func (r *pipeline) ahead() bool {
	o := r.p.opts
	if r.fl.sealed {
		return r.pending >= o.FlushEvery || r.pendingBytes >= o.FlushBytes
	}
	return r.queued >= o.FlushEvery || r.queuedBytes >= o.FlushBytes
}

// launch starts flushing everything written so far. A store that seals
// takes it here, before the next write; with one that cannot (or a seal
// that failed, which the flush then retries as a whole), writes wait.
func (r *pipeline) launch(ctx context.Context) {
	landed, done := context.WithCancel(context.Background())
	fl := &flight{checkpoint: r.written, landed: landed}
	sealed := r.p.seal(ctx, fl.checkpoint)
	fl.sealed = sealed != nil
	r.fl = fl
	r.pending, r.pendingBytes = 0, 0
	go func() {
		defer done()
		fl.err = r.p.flush(ctx, fl.checkpoint, sealed)
	}()
}

// land takes the result of the flush that landed and writes the batches
// read meanwhile.
func (r *pipeline) land(ctx context.Context) error {
	fl := r.fl
	<-fl.landed.Done()
	r.fl = nil
	if fl.err != nil {
		return fl.err
	}
	r.flushed, r.lastFlush = fl.checkpoint, time.Now()
	queue := r.queue
	r.queue, r.queued, r.queuedBytes = nil, 0, 0
	defer r.p.current.Store(nil)
	for _, b := range queue {
		r.p.current.Store(&batchAt{from: r.written, n: b.n})
		if err := r.store(ctx, b); err != nil {
			// What was not written is read again.
			r.read = r.written
			return err
		}
	}
	return nil
}

// drain writes and flushes everything read, and waits for the flush.
func (r *pipeline) drain(ctx context.Context) error {
	for r.fl != nil || r.written > r.flushed {
		if r.fl == nil {
			r.launch(ctx)
		}
		if err := r.land(ctx); err != nil {
			return err
		}
	}
	return nil
}

// stopped ends Run after a failed flush: a flush only fails for good when
// ctx ended (then the final flush is tried) or when the journal refused
// the commit, which no retry mends.
func (r *pipeline) stopped(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return r.final()
	}
	return err
}

// final flushes on shutdown with a bounded grace period; what it cannot
// flush, and what was read but not written, is replayed from the journal
// at the next start.
func (r *pipeline) final() error {
	if r.fl != nil {
		fl := r.fl
		<-fl.landed.Done()
		r.fl = nil
		if fl.err == nil {
			r.flushed = fl.checkpoint
		}
	}
	if r.written == r.flushed {
		return nil
	}
	p := r.p
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.st.Flush(ctx, r.written); err != nil {
		return fmt.Errorf("processing: final flush: %w", err)
	}
	_ = p.j.Commit(r.written - 1)
	next := r.written
	p.update(func(s *State) { s.Flushed = next })
	return nil
}
