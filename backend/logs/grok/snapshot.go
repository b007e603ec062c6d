package grok

import (
	"cmp"
	"slices"
	"strings"
	"sync"
)

// snapshot is the stored patterns as of the last write, kept in memory
// because every save, test and compile resolves references against all of
// them. A snapshot is never changed once published; writers build a new
// one. Only its matcher cache changes, under its own lock.
type snapshot struct {
	sorted []Pattern // by name case-insensitively, then name, then id: the listings' default order
	byID   map[string]int
	byName map[string]int
	lib    library
	cache  matcherCache
	// gen counts the snapshots this service published, so that what was
	// compiled against one can tell that the patterns changed since.
	gen uint64
}

// newSnapshot indexes ps. Definitions whose text is unchanged since prev
// are reused rather than parsed again.
func newSnapshot(ps []Pattern, prev *snapshot) *snapshot {
	sorted := slices.Clone(ps)
	slices.SortFunc(sorted, func(a, b Pattern) int {
		return cmp.Or(strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)),
			strings.Compare(a.Name, b.Name), strings.Compare(a.ID, b.ID))
	})
	s := &snapshot{
		sorted: sorted,
		byID:   make(map[string]int, len(sorted)),
		byName: make(map[string]int, len(sorted)),
		lib:    make(library, len(sorted)),
	}
	if prev != nil {
		s.gen = prev.gen + 1
	}
	for i, p := range sorted {
		s.byID[p.ID] = i
		s.byName[p.Name] = i
		if prev != nil {
			if d, ok := prev.lib[p.Name]; ok && d.pattern == p.Pattern {
				s.lib[p.Name] = d
				continue
			}
		}
		s.lib[p.Name] = newDefinition(p.Pattern)
	}
	return s
}

// byIDOf returns the pattern with that id.
func (s *snapshot) byIDOf(id string) (Pattern, bool) {
	i, ok := s.byID[id]
	if !ok {
		return Pattern{}, false
	}
	return s.sorted[i], true
}

// nameTaken reports whether a pattern other than the one with id holds name.
func (s *snapshot) nameTaken(name, id string) bool {
	i, ok := s.byName[name]
	return ok && s.sorted[i].ID != id
}

// with returns the patterns with p added or, when its id is known, replaced.
func (s *snapshot) with(p Pattern) []Pattern {
	out := slices.Clone(s.sorted)
	if i, ok := s.byID[p.ID]; ok {
		out[i] = p
		return out
	}
	return append(out, p)
}

// without returns the patterns without the one with id.
func (s *snapshot) without(id string) []Pattern {
	return slices.DeleteFunc(slices.Clone(s.sorted), func(p Pattern) bool { return p.ID == id })
}

// matcherCache keeps compiled matchers of one snapshot: the test endpoint is
// called again and again with the same pattern and new sample data, and an
// extractor compiles the same pattern on every node.
type matcherCache struct {
	mu sync.Mutex
	m  map[cacheKey]*Matcher
}

type cacheKey struct {
	pattern   string
	unsaved   bool   // pattern is compiled as %{name}, shadowing a stored name
	name      string // only for unsaved patterns
	namedOnly bool
}

// cacheSize bounds the cache; a full cache is emptied rather than managed,
// as a snapshot rarely lives long enough to fill it.
const cacheSize = 256

func (c *matcherCache) get(k cacheKey) (*Matcher, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	m, ok := c.m[k]
	return m, ok
}

func (c *matcherCache) put(k cacheKey, m *Matcher) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= cacheSize {
		c.m = make(map[cacheKey]*Matcher)
	}
	c.m[k] = m
}
