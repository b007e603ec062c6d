package grok

import (
	"sync/atomic"

	"github.com/loggate/loggate/router/api"
)

// Compile compiles a grok expression against the stored patterns, with a
// capture for every reference, %{NAME} ones included (Graylog's default for
// grok extractors). Errors are 400s naming the failure. Matchers are cached
// until the patterns change.
func (s *Service) Compile(pattern string) (*Matcher, error) {
	return s.compile(pattern, false)
}

// CompileNamedOnly is Compile with captures only for named references
// (%{NAME:field}), Graylog's "named captures only" extractor option.
func (s *Service) CompileNamedOnly(pattern string) (*Matcher, error) {
	return s.compile(pattern, true)
}

func (s *Service) compile(pattern string, namedOnly bool) (*Matcher, error) {
	return s.compileIn(s.current(), pattern, namedOnly)
}

func (s *Service) compileIn(snap *snapshot, pattern string, namedOnly bool) (*Matcher, error) {
	key := cacheKey{pattern: pattern, namedOnly: namedOnly}
	if m, ok := snap.cache.get(key); ok {
		return m, nil
	}
	if err := checkSyntax(pattern); err != nil {
		return nil, api.Errorf(api.Invalid, "Invalid grok pattern: %s", err.Error())
	}
	m, err := compile(snap.lib, pattern, namedOnly)
	if err != nil {
		return nil, api.Errorf(api.Invalid, "Invalid grok pattern: %s", err.Error())
	}
	snap.cache.put(key, m)
	return m, nil
}

// CompileUnsaved compiles a pattern that is not stored as %{NAME}, its name
// shadowing a stored pattern of that name, as Graylog's pattern test does.
// The matcher's captures include the whole match under the pattern's name.
// Errors are 400s naming the failure.
func (s *Service) CompileUnsaved(p Pattern) (*Matcher, error) {
	snap := s.current()
	key := cacheKey{pattern: p.Pattern, unsaved: true, name: p.Name}
	if m, ok := snap.cache.get(key); ok {
		return m, nil
	}
	d := newDefinition(p.Pattern)
	defs := overlay{top: library{p.Name: d}, base: snap.lib}
	m, err := check(p, d, defs)
	if err != nil {
		return nil, api.Errorf(api.Invalid, "%s", invalid(p.Name, err))
	}
	snap.cache.put(key, m)
	return m, nil
}

// Tracked is a grok expression that follows the stored patterns: it is
// compiled again after they change. It is for callers that match one
// expression message after message (a pipeline rule): while the patterns
// are unchanged, Matcher is one atomic load and comparison, where Compile
// looks the expression up in the cache under a lock.
type Tracked struct {
	svc       *Service
	pattern   string
	namedOnly bool
	last      atomic.Pointer[tracked]
}

// tracked is the compilation of a Tracked against one snapshot.
type tracked struct {
	snap *snapshot
	m    *Matcher
	err  error
}

// Track returns pattern as a Tracked; see Compile and CompileNamedOnly.
func (s *Service) Track(pattern string, namedOnly bool) *Tracked {
	return &Tracked{svc: s, pattern: pattern, namedOnly: namedOnly}
}

// Matcher returns the expression compiled against the current patterns,
// or why it does not compile (a 400, as Compile's).
func (t *Tracked) Matcher() (*Matcher, error) {
	snap := t.svc.current()
	if last := t.last.Load(); last != nil && last.snap == snap {
		return last.m, last.err
	}
	m, err := t.svc.compileIn(snap, t.pattern, t.namedOnly)
	t.last.Store(&tracked{snap: snap, m: m, err: err})
	return m, err
}
