package streams

import (
	"cmp"
	"slices"
)

// snapshot is an immutable view of every stream. Readers load it without a
// lock; a write builds a new one (copy on write: two slices of pointers,
// cheap next to the store write before it) and swaps it in.
type snapshot struct {
	// byTitle is the listing order: lower-cased title, then id. It is the
	// default order of /streams/paginated, which then needs no sorting.
	byTitle []*Stream
	// byID is sorted by id, for lookups by binary search.
	byID []*Stream
}

func byTitle(a, b *Stream) int {
	if c := cmp.Compare(a.lowerTitle, b.lowerTitle); c != 0 {
		return c
	}
	return cmp.Compare(a.ID, b.ID)
}

func byID(a, b *Stream) int { return cmp.Compare(a.ID, b.ID) }

// newSnapshot builds a snapshot of streams whose derived fields are set.
func newSnapshot(streams []*Stream) *snapshot {
	sn := &snapshot{byTitle: slices.Clone(streams), byID: slices.Clone(streams)}
	slices.SortFunc(sn.byTitle, byTitle)
	slices.SortFunc(sn.byID, byID)
	return sn
}

// get returns the stream with that id.
func (sn *snapshot) get(id string) (*Stream, bool) {
	i, ok := slices.BinarySearchFunc(sn.byID, id, func(s *Stream, id string) int { return cmp.Compare(s.ID, id) })
	if !ok {
		return nil, false
	}
	return sn.byID[i], true
}

// with returns a snapshot in which s replaces the stream of its id, or is
// added.
func (sn *snapshot) with(s *Stream) *snapshot {
	next := sn.without(s.ID)
	i, _ := slices.BinarySearchFunc(next.byTitle, s, byTitle)
	next.byTitle = slices.Insert(next.byTitle, i, s)
	i, _ = slices.BinarySearchFunc(next.byID, s, byID)
	next.byID = slices.Insert(next.byID, i, s)
	return next
}

// without returns a snapshot lacking the stream of that id. The result's
// slices are always fresh copies, so that with may insert into them.
func (sn *snapshot) without(id string) *snapshot {
	old, ok := sn.get(id)
	if !ok {
		return &snapshot{byTitle: slices.Clip(slices.Clone(sn.byTitle)), byID: slices.Clip(slices.Clone(sn.byID))}
	}
	drop := func(list []*Stream, cmpFn func(a, b *Stream) int) []*Stream {
		i, _ := slices.BinarySearchFunc(list, old, cmpFn)
		out := make([]*Stream, 0, len(list))
		out = append(out, list[:i]...)
		return append(out, list[i+1:]...)
	}
	return &snapshot{byTitle: drop(sn.byTitle, byTitle), byID: drop(sn.byID, byID)}
}
