package embedded

import (
	"cmp"
	"encoding/binary"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"github.com/loggate/loggate/backend/logs/messages"
)

// indexer fills the inverted index of the fields it owns: their terms,
// postings, presence and numbers. A builder has one that owns every
// field; addAll runs two side by side, one on the analyzed text fields
// and one on the others, each with fields of its own.
type indexer struct {
	fields map[string]*fieldBuild
	tok    tokenizer
	// slots remembers the field of each position of the last message:
	// messages of one source list the same fields in the same order, so
	// a comparison of names mostly replaces a map lookup.
	slots   []fieldSlot
	streams fieldSlot
	// owns tells whether a field is this indexer's; nil owns all.
	owns func(analysis) bool
	// expect is the builder's: how many documents the segment will hold.
	expect int
}

// fieldSlot caches the field of a name; f is nil for a field that is not
// the indexer's.
type fieldSlot struct {
	key string
	f   *fieldBuild
	ok  bool
}

// field returns the field name, created on first use, nil if the
// indexer does not own it.
func (x *indexer) field(name string) *fieldBuild {
	a := analysisOf(name)
	if x.owns != nil && !x.owns(a) {
		return nil
	}
	f := x.fields[name]
	if f == nil {
		f = &fieldBuild{a: a, terms: map[string]int32{}}
		x.fields[name] = f
	}
	return f
}

// slot returns the field of sl's name, looking it up only when the name
// differs from the last one there.
func (x *indexer) slot(sl *fieldSlot, name string) *fieldBuild {
	if !sl.ok || sl.key != name {
		*sl = fieldSlot{name, x.field(name), true}
	}
	return sl.f
}

// index adds the fields of m, document doc, to the index; documents come
// in increasing order.
func (x *indexer) index(m *messages.Message, doc uint32) {
	if len(m.Streams) > 0 {
		if f := x.slot(&x.streams, messages.FieldStreams); f != nil {
			for _, s := range m.Streams {
				f.addTerm(s, doc)
			}
			f.present = append(f.present, doc)
		}
	}
	if len(x.slots) < len(m.Fields) {
		x.slots = append(x.slots, make([]fieldSlot, len(m.Fields)-len(x.slots))...)
	}
	for i, kv := range m.Fields {
		f := x.slot(&x.slots[i], kv.Key)
		if f == nil {
			continue
		}
		f.present = appendDoc(f.present, doc)
		switch v := kv.Value.(type) {
		case string:
			x.tok.terms(f.a, v, func(t string) { f.addTerm(t, doc) })
		case bool:
			f.addTerm(messages.FormatValue(v), doc)
		case int64:
			f.numDocs = append(f.numDocs, doc)
			f.nums = append(f.nums, float64(v))
		case float64:
			f.numDocs = append(f.numDocs, doc)
			f.nums = append(f.nums, v)
		}
	}
	if doc == sizeProbe && x.expect > 2*sizeProbe {
		x.sizeTermMaps()
	}
}

// sizeProbe documents into a segment, the term maps of fields whose
// values are mostly unique are made for the documents expected, rather
// than grown (and rehashed) a doubling at a time, and so are the lists
// that grow with the documents.
const sizeProbe = 1024

func (x *indexer) sizeTermMaps() {
	grow := func(n int) int { return n * x.expect / sizeProbe * 9 / 8 }
	for _, f := range x.fields {
		if f.a != text && len(f.terms) > sizeProbe*3/4 {
			// Ids and the like: a term is looked up only to be added.
			f.terms, f.unique = nil, true
			f.list = slices.Grow(f.list, grow(len(f.list)))
			f.seen = slices.Grow(f.seen, grow(len(f.seen)))
		} else if len(f.terms) > sizeProbe/2 {
			m := make(map[string]int32, x.expect*len(f.terms)/sizeProbe)
			for t, i := range f.terms {
				m[t] = i
			}
			f.terms = m
			f.list = slices.Grow(f.list, grow(len(f.list)))
			f.seen = slices.Grow(f.seen, grow(len(f.seen)))
		}
		f.occ = slices.Grow(f.occ, grow(len(f.occ)))
		f.present = slices.Grow(f.present, grow(len(f.present)))
		f.numDocs = slices.Grow(f.numDocs, grow(len(f.numDocs)))
		f.nums = slices.Grow(f.nums, grow(len(f.nums)))
	}
}

// parallelDocs is the fewest documents addAll indexes beside storing
// them: below it, starting goroutines costs more than it saves.
const parallelDocs = 2048

// addAll appends msgs, in (timestamp, _id) order, as the next documents.
// The inverted index of the text fields, that of the other fields and the
// stored blocks are three independent passes over msgs, each with state
// of its own, so they run at once: a flush is not one serial stage of
// the ingest.
func (b *builder) addAll(msgs []*messages.Message) error {
	if len(msgs) < parallelDocs || runtime.GOMAXPROCS(0) < 2 || len(b.fields) > 0 {
		for _, m := range msgs {
			if err := b.add(m); err != nil {
				return err
			}
		}
		return nil
	}
	base := uint32(b.n)
	parts := [2]indexer{
		{fields: map[string]*fieldBuild{}, owns: func(a analysis) bool { return a == text }, expect: b.expect},
		{fields: map[string]*fieldBuild{}, owns: func(a analysis) bool { return a != text }, expect: b.expect},
	}
	var wg sync.WaitGroup
	for i := range parts {
		x := &parts[i]
		wg.Go(func() {
			for d, m := range msgs {
				x.index(m, base+uint32(d))
			}
			// Sorting the terms is the workers' too.
			for _, f := range x.fields {
				f.seal()
			}
		})
	}
	var err error
	for _, m := range msgs {
		if err = b.addStored(m.Timestamp.UnixMilli(), m.ID, m); err != nil {
			break
		}
	}
	wg.Wait()
	for _, x := range parts {
		for name, f := range x.fields {
			b.fields[name] = f
		}
	}
	return err
}

// occurrence is a posting as addTerm records it: document doc holds the
// term numbered term.
type occurrence struct {
	term int32
	doc  uint32
}

// termSeen is what addTerm knows of a term: the last document it was
// added to, plus one, and in how many documents it is.
type termSeen struct {
	last, n uint32
}

// seal sorts the terms of every field and lays their postings out, in
// document order, for finish to write.
func (b *builder) seal() {
	for _, f := range b.fields {
		if f != nil {
			f.seal()
		}
	}
}

// seal sorts list and lays out docs from the recorded occurrences, and
// leaves terms nil: finish takes list as sorted then, as it does after a
// merge. Terms that are in list twice (see unique) become one.
func (f *fieldBuild) seal() {
	if f.terms == nil && !f.unique {
		return // a merge's, or sealed
	}
	order := sortTerms(f.list)
	// A counting sort: each term gets a range of one array, in term
	// order, and the occurrences, in document order, fill the ranges.
	list := make([]string, 0, len(order))
	starts := make([]uint32, 0, len(order)+1)
	off := uint32(0)
	for _, k := range order {
		if n := len(list); n == 0 || list[n-1] != f.list[k] {
			list = append(list, f.list[k])
			starts = append(starts, off)
		}
		s := &f.seen[k]
		s.last = uint32(len(list) - 1) // now the term's place in list
		off += s.n
	}
	flat := make([]uint32, off)
	ends := slices.Clone(starts)
	for _, o := range f.occ {
		t := f.seen[o.term].last
		// The copies of a term hold distinct documents but for a
		// message that repeats a field.
		if e := ends[t]; e == starts[t] || flat[e-1] != o.doc {
			flat[e] = o.doc
			ends[t] = e + 1
		}
	}
	docs := make([][]uint32, len(list))
	for t := range list {
		docs[t] = flat[starts[t]:ends[t]:ends[t]]
	}
	f.list, f.docs = list, docs
	f.terms, f.occ, f.seen, f.unique = nil, nil, nil, false
}

// sortTerms returns the indices of list in term order, the copies of a
// term in the order they came. Terms are compared by their first eight
// bytes first, as one number: ids differ there, words mostly do.
func sortTerms(list []string) []int32 {
	if slices.IsSorted(list) {
		// Ids that grow with time (ULIDs, sequence numbers) come in
		// order, and a check stops at the first term out of order.
		order := make([]int32, len(list))
		for i := range order {
			order[i] = int32(i)
		}
		return order
	}
	type key struct {
		prefix uint64
		i      int32
	}
	keys := make([]key, len(list))
	for i, t := range list {
		var p [8]byte
		copy(p[:], t)
		keys[i] = key{binary.BigEndian.Uint64(p[:]), int32(i)}
	}
	slices.SortFunc(keys, func(a, b key) int {
		if a.prefix != b.prefix {
			return cmp.Compare(a.prefix, b.prefix)
		}
		if c := strings.Compare(list[a.i], list[b.i]); c != 0 {
			return c
		}
		return cmp.Compare(a.i, b.i)
	})
	order := make([]int32, len(keys))
	for k, x := range keys {
		order[k] = x.i
	}
	return order
}

// keep returns a copy of t that stays valid, from an arena of the field:
// most terms are a few bytes, and one allocation holds many of them.
func (f *fieldBuild) keep(t string) string {
	if len(t) == 0 || len(t) > maxArenaTerm {
		return strings.Clone(t)
	}
	if cap(f.arena)-len(f.arena) < len(t) {
		f.arena = make([]byte, 0, min(max(2*cap(f.arena), 256), maxArena))
	}
	start := len(f.arena)
	f.arena = append(f.arena, t...)
	return unsafe.String(&f.arena[start], len(t))
}

// The chunks of a field's arena double up to maxArena; longer terms than
// maxArenaTerm are copied each on its own.
const (
	maxArena     = 64 << 10
	maxArenaTerm = 1 << 10
)
