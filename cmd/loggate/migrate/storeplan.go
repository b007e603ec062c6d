package migrate

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"path/filepath"
	"sort"

	"github.com/loggate/loggate/backend/logs/messages"
)

// collectionPlan is what a run does with one collection.
type collectionPlan struct {
	name         string
	source, dest int
	identical    int
	// actions holds the documents that are not identical at the
	// destination: missing ones to copy, differing ones in conflict.
	actions map[string]action
	toCopy  int
}

type action int

const (
	copyDoc action = iota
	conflictDoc
)

// conflicts returns the ids of the differing documents, sorted.
func (p *collectionPlan) conflicts() []string {
	var out []string
	for id, a := range p.actions {
		if a == conflictDoc {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}

// indexPlan is what a run does with one message index.
type indexPlan struct {
	ix   messages.Index // at the source
	dest int64          // messages at the destination, -1 when it has no such index
	todo int64
	// pending is true until the index is done: an empty one too must be
	// created, so that the destination writes where the source would.
	pending bool
}

// seriesPlan is the indices of one index set, oldest first.
type seriesPlan struct {
	prefix  string
	indices []*indexPlan
}

// plan is the whole of what a run does.
type plan struct {
	collections []*collectionPlan
	series      []*seriesPlan
}

// work counts what is left to write: documents to copy (and to overwrite
// with --overwrite), messages to copy and indices not done.
func (p *plan) work(overwrite bool) (docs int, msgs int64, indices, conflicts int) {
	for _, c := range p.collections {
		docs += c.toCopy
		conflicts += len(c.actions) - c.toCopy
	}
	if overwrite {
		docs += conflicts
	}
	for _, s := range p.series {
		for _, ix := range s.indices {
			msgs += ix.todo
			if ix.pending {
				indices++
			}
		}
	}
	return docs, msgs, indices, conflicts
}

// makePlan compares the source with the destination and the progress
// recorded.
func (m *storeMigration) makePlan(ctx context.Context) (*plan, error) {
	p := &plan{}
	colls, err := m.src.collections()
	if err != nil {
		return nil, fmt.Errorf("list collections: %w", err)
	}
	for _, coll := range colls {
		cp, err := m.planCollection(ctx, coll)
		if err != nil {
			return nil, err
		}
		p.collections = append(p.collections, cp)
	}
	if m.msgDst == nil {
		return p, nil
	}
	prefixes, err := seriesOf(ctx, m.msgSrc)
	if err != nil {
		return nil, err
	}
	for _, prefix := range prefixes {
		sp, err := m.planSeries(ctx, prefix)
		if err != nil {
			return nil, err
		}
		p.series = append(p.series, sp)
	}
	return p, nil
}

// planCollection compares one collection document by document. The
// destination is read once, as checksums: collections hold configuration,
// not bulk data, so they fit in memory.
func (m *storeMigration) planCollection(ctx context.Context, coll string) (*collectionPlan, error) {
	cp := &collectionPlan{name: coll, actions: map[string]action{}}
	have := map[string][sha256.Size]byte{}
	err := m.dst.List(ctx, coll, func(id string, doc []byte) error {
		have[id] = sha256.Sum256(doc)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read %s at the destination: %w", coll, err)
	}
	cp.dest = len(have)
	err = m.src.each(coll, func(id string, doc []byte) error {
		cp.source++
		sum, ok := have[id]
		switch {
		case !ok:
			cp.actions[id] = copyDoc
			cp.toCopy++
		case sum == sha256.Sum256(doc):
			cp.identical++
		default:
			cp.actions[id] = conflictDoc
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", coll, err)
	}
	return cp, nil
}

// seriesOf returns the index prefixes of a message store, sorted: a search
// of every index set lists the indices it looked at.
func seriesOf(ctx context.Context, st messages.Store) ([]string, error) {
	res, err := st.Search(ctx, messages.Query{})
	if err != nil {
		return nil, fmt.Errorf("list message indices: %w", err)
	}
	seen := map[string]bool{}
	var out []string
	for _, ix := range res.Indices {
		if !seen[ix.Prefix] {
			seen[ix.Prefix] = true
			out = append(out, ix.Prefix)
		}
	}
	sort.Strings(out)
	return out, nil
}

// planSeries compares the indices of one series with the destination's and
// the progress recorded. An index whose source changed since its copy
// began is copied again from its start: writes by _id make that safe.
func (m *storeMigration) planSeries(ctx context.Context, prefix string) (*seriesPlan, error) {
	src, err := m.msgSrc.Indices(ctx, prefix)
	if err != nil {
		return nil, fmt.Errorf("indices of %s: %w", prefix, err)
	}
	dst, err := m.msgDst.Indices(ctx, prefix)
	if err != nil {
		return nil, fmt.Errorf("indices of %s at the destination: %w", prefix, err)
	}
	at := map[string]int64{}
	for _, ix := range dst {
		at[ix.Name] = ix.Count
	}
	sp := &seriesPlan{prefix: prefix}
	for _, ix := range src {
		if ix.Closed {
			// Its messages cannot be read: copying would leave it empty.
			return nil, fmt.Errorf("index %s is closed: reopen it (POST /system/indexer/indices/%s/reopen) or delete it first", ix.Name, ix.Name)
		}
		st := m.state.index(ix.Name)
		if st.Source != ix.Count {
			*st = indexState{Source: ix.Count}
		}
		ip := &indexPlan{ix: ix, dest: -1}
		if n, ok := at[ix.Name]; ok {
			ip.dest = n
		}
		if !st.Done {
			ip.todo, ip.pending = max(0, ix.Count-st.Copied), true
		}
		sp.indices = append(sp.indices, ip)
	}
	return sp, nil
}

// printPlan shows the plan: per collection and per index what the source
// holds, what the destination holds, and what is left to copy.
func (m *storeMigration) printPlan(w io.Writer, p *plan) {
	fmt.Fprintf(w, "Documents: %s -> %s\n", filepath.Join(m.dir, "loggate.db"), m.dstName)
	fmt.Fprintf(w, "  %-28s %8s %12s %8s %10s %10s\n", "collection", "source", "destination", "to copy", "identical", "conflicts")
	var source, dest, toCopy, identical, conflicts int
	for _, c := range p.collections {
		n := len(c.actions) - c.toCopy
		fmt.Fprintf(w, "  %-28s %8d %12d %8d %10d %10d\n", c.name, c.source, c.dest, c.toCopy, c.identical, n)
		source, dest, toCopy, identical, conflicts = source+c.source, dest+c.dest, toCopy+c.toCopy, identical+c.identical, conflicts+n
	}
	fmt.Fprintf(w, "  %-28s %8d %12d %8d %10d %10d\n", "total", source, dest, toCopy, identical, conflicts)
	shown := 0
	for _, c := range p.collections {
		for _, id := range c.conflicts() {
			if shown == maxConflictsShown {
				fmt.Fprintf(w, "  … and %d more conflicts\n", conflicts-shown)
				break
			}
			fmt.Fprintf(w, "  conflict: %s/%s differs at the destination\n", c.name, id)
			shown++
		}
	}
	if conflicts > 0 {
		if m.overwrite {
			fmt.Fprintln(w, "  --overwrite: conflicting documents are replaced with the source's.")
		} else {
			fmt.Fprintln(w, "  Conflicting documents are left as they are; --overwrite replaces them with the source's.")
		}
	}
	if m.msgDst == nil {
		return
	}
	fmt.Fprintf(w, "\nMessages: %s -> %s\n", filepath.Join(m.dir, "messages"), m.msgDstName)
	fmt.Fprintf(w, "  %-28s %8s %12s %8s\n", "index", "source", "destination", "to copy")
	var src, dst, todo int64
	for _, s := range p.series {
		for _, ix := range s.indices {
			d := "-"
			if ix.dest >= 0 {
				d = fmt.Sprint(ix.dest)
				dst += ix.dest
			}
			fmt.Fprintf(w, "  %-28s %8d %12s %8d\n", ix.ix.Name, ix.ix.Count, d, ix.todo)
			src, todo = src+ix.ix.Count, todo+ix.todo
		}
	}
	fmt.Fprintf(w, "  %-28s %8d %12d %8d\n", "total", src, dst, todo)
}

// maxConflictsShown bounds the conflicts listed by id.
const maxConflictsShown = 10
