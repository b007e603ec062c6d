package migrate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/store"
)

// storeMigration is one run of `loggate migrate store`: the embedded
// stores of a data_dir copied to a shared document store and, optionally,
// a shared message store.
type storeMigration struct {
	o   Options
	dir string // the data_dir
	src *boltSource
	dst store.Store
	// dstName and msgDstName describe the destinations for the operator,
	// without credentials.
	dstName string
	// msgSrc and msgDst are nil when messages are not copied.
	msgSrc, msgDst messages.Store
	msgDstName     string
	batch          int
	overwrite      bool
	state          *storeState
	now            func() time.Time

	// stopAfter, when positive, interrupts a copy once that many
	// documents and messages are copied, as a crash would: the tests'
	// way to check that a run resumes.
	stopAfter int
	copied    int
}

// errInterrupted ends a run stopped by stopAfter.
var errInterrupted = errors.New("interrupted")

// interrupted counts n copies and reports whether the run must stop.
func (m *storeMigration) interrupted(n int) bool {
	m.copied += n
	return m.stopAfter > 0 && m.copied >= m.stopAfter
}

// copied is what a run wrote, for the summary.
type copyStats struct {
	docs, conflicts int
	msgs            int64
	docTime         time.Duration
	msgTime         time.Duration
}

// docWorkers is how many documents are written at once: each write waits
// for the destination's write concern, a round trip that dominates the
// copy to a remote MongoDB.
const docWorkers = 8

// copyDocuments copies the documents the plan found missing (and, with
// --overwrite, the conflicting ones), a collection at a time. A document
// whose unique field's value another document holds at the destination is
// a conflict too: it is reported, not forced.
func (m *storeMigration) copyDocuments(ctx context.Context, p *plan, total int, cs *copyStats) error {
	start := m.now()
	defer func() { cs.docTime = m.now().Sub(start) }()
	bar := newProgress(m.o.Stderr, m.o.Terminal, "copying documents", total)
	for _, c := range p.collections {
		st := m.state.collection(c.name)
		if c.toCopy > 0 || (m.overwrite && len(c.actions) > 0) {
			err := m.copyCollection(ctx, c, st, bar, cs)
			if err != nil {
				if serr := m.state.save(m.dir); serr != nil {
					return errors.Join(err, serr)
				}
				return err
			}
		}
		st.Done = true
		if err := m.state.save(m.dir); err != nil {
			return err
		}
	}
	return nil
}

// docJob is one document to write.
type docJob struct {
	id  string
	doc []byte
	a   action
}

// copyCollection writes the documents of one collection with docWorkers
// writers.
func (m *storeMigration) copyCollection(ctx context.Context, c *collectionPlan, st *collectionState, bar *progress, cs *copyStats) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	jobs := make(chan docJob)
	var mu sync.Mutex // guards st, cs, bar and the output
	var wg sync.WaitGroup
	for range docWorkers {
		wg.Go(func() {
			for j := range jobs {
				var err error
				if j.a == copyDoc {
					err = m.dst.Insert(ctx, c.name, j.id, j.doc)
				} else {
					err = m.dst.Put(ctx, c.name, j.id, j.doc)
				}
				mu.Lock()
				switch {
				case errors.Is(err, store.ErrConflict):
					fmt.Fprintf(m.o.Stdout, "  conflict: %s/%s: %v\n", c.name, j.id, err)
					cs.conflicts++
				case err != nil:
					cancel(fmt.Errorf("copy %s/%s: %w", c.name, j.id, err))
				default:
					cs.docs++
					st.Copied++
				}
				bar.Step(cs.docs + cs.conflicts)
				mu.Unlock()
			}
		})
	}
	err := m.src.each(c.name, func(id string, doc []byte) error {
		a, ok := c.actions[id]
		if !ok || (a == conflictDoc && !m.overwrite) {
			return nil
		}
		select {
		case jobs <- docJob{id: id, doc: slices.Clone(doc), a: a}:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
		if m.interrupted(1) {
			return errInterrupted
		}
		return nil
	})
	close(jobs)
	wg.Wait()
	if cause := context.Cause(ctx); cause != nil {
		return cause
	}
	return err
}

// copyMessages copies the indices of every series in order, oldest first,
// each into the index of the same name at the destination. A store writes
// only into a series' write index, so the destination is rotated up to the
// index being copied first; the indices the source no longer has (deleted
// by retention) are created on the way and deleted again.
func (m *storeMigration) copyMessages(ctx context.Context, p *plan, total int64, cs *copyStats) (failed []string, err error) {
	start := m.now()
	defer func() { cs.msgTime = m.now().Sub(start) }()
	bar := newProgress(m.o.Stderr, m.o.Terminal, "copying messages", int(total))
	for _, s := range p.series {
		for _, ip := range s.indices {
			st := m.state.index(ip.ix.Name)
			if st.Done {
				continue
			}
			placed, err := m.place(ctx, s.prefix, ip)
			if err != nil {
				return failed, err
			}
			if placed == heldAlready {
				continue
			}
			if placed == pastIt {
				// The destination's series is past this index: nothing
				// of it nor of the later ones can be written.
				for _, rest := range s.indices[slices.Index(s.indices, ip):] {
					if !m.state.index(rest.ix.Name).Done {
						failed = append(failed, rest.ix.Name)
					}
				}
				break
			}
			if err := m.copyIndex(ctx, s.prefix, ip, st, bar, cs); err != nil {
				return failed, err
			}
		}
	}
	return failed, nil
}

// copyIndex copies one index from its recorded cursor on. The progress is
// recorded after the destination has made each batch durable, so a crash
// at any point repeats at most one batch, which overwrites by _id.
func (m *storeMigration) copyIndex(ctx context.Context, prefix string, ip *indexPlan, st *indexState, bar *progress, cs *copyStats) error {
	pg := newPager(m.msgSrc, ip.ix, m.batch, st.Cursor)
	for {
		msgs, cur, ok, err := pg.next(ctx)
		if err != nil {
			return fmt.Errorf("read %s: %w", ip.ix.Name, err)
		}
		if !ok {
			break
		}
		if len(msgs) > 0 {
			if err := m.msgDst.Write(ctx, prefix, msgs); err != nil {
				return fmt.Errorf("write %s at the destination: %w", ip.ix.Name, err)
			}
			if err := m.msgDst.Flush(ctx, m.msgDst.Checkpoint()); err != nil {
				return fmt.Errorf("flush %s at the destination: %w", ip.ix.Name, err)
			}
		}
		st.Cursor, st.Copied = cur, st.Copied+int64(len(msgs))
		if err := m.state.save(m.dir); err != nil {
			return err
		}
		cs.msgs += int64(len(msgs))
		bar.Step(int(cs.msgs))
		if len(msgs) > 0 && m.interrupted(len(msgs)) {
			return errInterrupted
		}
	}
	st.Done = true
	return m.state.save(m.dir)
}

// placement is where the destination stands with an index.
type placement int

const (
	// writable: the index is the destination's write index.
	writable placement = iota
	// heldAlready: the destination's series is past the index, and holds
	// as many messages in it as the source (a run whose progress file was
	// lost): it is marked done, and the verification compares it.
	heldAlready
	// pastIt: the destination's series is past the index, which differs:
	// a store cannot write into an older index.
	pastIt
)

// place makes the destination's write index of prefix the index of ip's
// number, rotating the destination's series up to it.
func (m *storeMigration) place(ctx context.Context, prefix string, ip *indexPlan) (placement, error) {
	var created []string
	defer func() {
		// The indices rotated past that the source does not have.
		for _, name := range created {
			if name == ip.ix.Name {
				continue
			}
			if err := m.msgDst.Delete(ctx, name); err != nil {
				fmt.Fprintf(m.o.Stdout, "  could not delete the empty index %s created on the way to %s: %v\n", name, ip.ix.Name, err)
			}
		}
	}()
	for {
		list, err := m.msgDst.Indices(ctx, prefix)
		if err != nil {
			return pastIt, fmt.Errorf("indices of %s at the destination: %w", prefix, err)
		}
		if n := len(list); n > 0 {
			w := list[n-1]
			switch {
			case w.Number == ip.ix.Number:
				return writable, nil
			case w.Number > ip.ix.Number:
				i := slices.IndexFunc(list, func(x messages.Index) bool { return x.Name == ip.ix.Name })
				if i >= 0 && list[i].Count == ip.ix.Count {
					m.state.index(ip.ix.Name).Done = true
					return heldAlready, m.state.save(m.dir)
				}
				fmt.Fprintf(m.o.Stdout, "  cannot copy %s: the destination writes to %s already, and a store writes only into the newest index of a series\n",
					ip.ix.Name, w.Name)
				return pastIt, nil
			}
		}
		name, err := m.msgDst.Rotate(ctx, prefix)
		if err != nil {
			return pastIt, fmt.Errorf("create %s at the destination: %w", ip.ix.Name, err)
		}
		created = append(created, name)
	}
}

// names lists names for a message, at most a few.
func names(list []string) string {
	const shown = 8
	if len(list) > shown {
		return strings.Join(list[:shown], ", ") + fmt.Sprintf(" and %d more", len(list)-shown)
	}
	return strings.Join(list, ", ")
}
