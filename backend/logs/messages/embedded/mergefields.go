package embedded

import (
	"cmp"
	"slices"
)

// mergeFields fills b's inverted index from the sources of a merge,
// whose live documents b holds already: maps[i][d] is the new number of
// document d of segs[i], -1 for a dropped one. Postings, presence and
// numeric columns are renumbered and the term dictionaries merged, so no
// message is read or analyzed again; the result is what indexing the
// documents one by one would have built.
func mergeFields(b *builder, segs []*segment, maps [][]int32) error {
	var names []string
	for _, s := range segs {
		names = append(names, s.names...)
	}
	slices.Sort(names)
	names = slices.Compact(names)
	for _, name := range names {
		f, err := mergeField(segs, maps, name)
		if err != nil {
			return err
		}
		if len(f.present) > 0 {
			b.fields[name] = f
		}
	}
	return nil
}

func mergeField(segs []*segment, maps [][]int32, name string) (*fieldBuild, error) {
	f := &fieldBuild{a: analysisOf(name)}
	var lists []termList
	type num struct {
		doc uint32
		v   float64
	}
	var nums []num
	sources := 0
	for i, s := range segs {
		fm := s.fields[name]
		if fm == nil {
			continue
		}
		f.a = fm.a
		n := len(f.present)
		for d := fm.present.next(0); d >= 0; d = fm.present.next(d + 1) {
			if nd := maps[i][d]; nd >= 0 {
				f.present = append(f.present, uint32(nd))
			}
		}
		if len(f.present) > n {
			sources++
		}
		for k, d := range fm.numDocs {
			if nd := maps[i][d]; nd >= 0 {
				nums = append(nums, num{uint32(nd), fm.nums[k]})
			}
		}
		if fm.nterms > 0 {
			l := termList{src: i, n: s.n}
			err := s.scanTerms(fm, "", func(t term) bool {
				l.terms = append(l.terms, t)
				return true
			})
			if err != nil {
				return nil, err
			}
			lists = append(lists, l)
		}
	}
	if sources > 1 {
		slices.Sort(f.present)
		slices.SortFunc(nums, func(a, b num) int { return cmp.Compare(a.doc, b.doc) })
	}
	for _, x := range nums {
		f.numDocs = append(f.numDocs, x.doc)
		f.nums = append(f.nums, x.v)
	}
	return f, mergeTerms(f, lists, maps)
}

// termList is one source's dictionary of a field, in term order.
type termList struct {
	terms []term
	src   int // index of the source segment
	n     int // its document count
}

// mergeTerms merges the dictionaries into f.list and f.docs: each term
// once, in order, with the renumbered documents of every source holding
// it; a term whose documents were all dropped is left out.
func mergeTerms(f *fieldBuild, lists []termList, maps [][]int32) error {
	var buf []uint32
	for {
		first := -1
		for i := range lists {
			if len(lists[i].terms) > 0 && (first < 0 || lists[i].terms[0].text < lists[first].terms[0].text) {
				first = i
			}
		}
		if first < 0 {
			return nil
		}
		text := lists[first].terms[0].text
		var docs []uint32
		sources := 0
		for i := range lists {
			l := &lists[i]
			if len(l.terms) == 0 || l.terms[0].text != text {
				continue
			}
			var err error
			if buf, err = appendDocs(buf[:0], l.terms[0].postings, l.n); err != nil {
				return err
			}
			l.terms = l.terms[1:]
			n := len(docs)
			for _, d := range buf {
				if nd := maps[l.src][d]; nd >= 0 {
					docs = append(docs, uint32(nd))
				}
			}
			if len(docs) > n {
				sources++
			}
		}
		if sources > 1 {
			slices.Sort(docs)
		}
		if len(docs) > 0 {
			f.list = append(f.list, text)
			f.docs = append(f.docs, docs)
		}
	}
}
