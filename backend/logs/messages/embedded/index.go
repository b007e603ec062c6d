package embedded

import (
	"runtime"
	"sync"

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
// than grown (and rehashed) a doubling at a time.
const sizeProbe = 1024

func (x *indexer) sizeTermMaps() {
	for _, f := range x.fields {
		if len(f.terms) > sizeProbe/2 {
			m := make(map[string]int32, x.expect*len(f.terms)/sizeProbe)
			for t, i := range f.terms {
				m[t] = i
			}
			f.terms = m
		}
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
