package grok

import (
	"fmt"
	"strings"

	"regexp"

	"github.com/loggate/loggate/backend/logs/javaregex"
)

// Limits on what a pattern may expand to, checked before the expansion is
// built, so that a cycle (A → B → A) or a doubling chain (A = %{B}%{B},
// B = %{C}%{C}, …) is a validation error instead of a hang or an exhausted
// heap. The largest default pattern,
// HTTPD_ERRORLOG, expands to about 4 KiB through 5 levels and 60 references.
const (
	maxDepth      = 64
	maxExpanded   = 256 << 10 // characters
	maxReferences = 4096      // occurrences in the whole expansion
)

// definition is a pattern as the compiler needs it, with its references
// parsed once.
type definition struct {
	pattern string
	refs    []reference
	err     error // the references cannot be read
}

func newDefinition(pattern string) *definition {
	d := &definition{pattern: pattern}
	d.refs, d.err = parseReferences(pattern)
	return d
}

// library maps pattern names to definitions. A library is never changed
// once built; snapshots share it.
type library map[string]*definition

// definitions resolves a name; overlay lets a few new definitions shadow a
// library, as a pattern being saved or tested shadows a stored one, and
// hides the old name of a pattern being renamed.
type definitions interface {
	lookup(name string) (*definition, bool)
}

func (l library) lookup(name string) (*definition, bool) {
	d, ok := l[name]
	return d, ok
}

type overlay struct {
	top, base library
	hide      string
}

func (o overlay) lookup(name string) (*definition, bool) {
	if d, ok := o.top[name]; ok {
		return d, true
	}
	if name == o.hide {
		return nil, false
	}
	return o.base.lookup(name)
}

// resolver walks the references of a pattern depth first: it finds unknown
// names and cycles and bounds the expanded size before anything is built.
type resolver struct {
	defs  definitions
	state map[string]uint8 // visiting or done
	size  map[string]int   // expanded length of done names
	count map[string]int   // references in the expansion of done names
	stack []string
}

const (
	visiting uint8 = iota + 1
	done
)

func newResolver(defs definitions) *resolver {
	return &resolver{defs: defs, state: map[string]uint8{}, size: map[string]int{}, count: map[string]int{}}
}

// expand returns the length of pattern once refs are expanded, an upper
// bound that assumes every reference becomes a named group, and the number
// of references replaced on the way.
func (r *resolver) expand(pattern string, refs []reference) (size, count int, err error) {
	size, count = len(pattern), len(refs)
	for _, ref := range refs {
		n, c, err := r.visit(ref.name)
		if err != nil {
			return 0, 0, err
		}
		target := ref.field
		if target == "" {
			target = ref.name
		}
		// write writes (?P<target>…), with dots in target as "___".
		size += n + len("(?P<>)") + len(target) + 2*strings.Count(target, ".") - len(ref.token)
		count += c
		switch {
		case size > maxExpanded:
			return 0, 0, fmt.Errorf("it expands to more than %d characters", maxExpanded)
		case count > maxReferences:
			return 0, 0, fmt.Errorf("it expands to more than %d references", maxReferences)
		}
	}
	return size, count, nil
}

func (r *resolver) visit(name string) (size, count int, err error) {
	switch r.state[name] {
	case done:
		return r.size[name], r.count[name], nil
	case visiting:
		i := len(r.stack) - 1
		for i > 0 && r.stack[i] != name {
			i--
		}
		return 0, 0, fmt.Errorf("circular reference %s -> %s", strings.Join(r.stack[i:], " -> "), name)
	}
	if len(r.stack) >= maxDepth {
		return 0, 0, fmt.Errorf("references are nested more than %d deep", maxDepth)
	}
	d, ok := r.defs.lookup(name)
	if !ok {
		// java-grok's words, which Graylog shows.
		return 0, 0, fmt.Errorf("no definition for key '%s' found, aborting", name)
	}
	if d.err != nil {
		return 0, 0, fmt.Errorf("pattern %s: %w", name, d.err)
	}
	r.state[name] = visiting
	r.stack = append(r.stack, name)
	size, count, err = r.expand(d.pattern, d.refs)
	r.stack = r.stack[:len(r.stack)-1]
	if err != nil {
		return 0, 0, err
	}
	r.state[name], r.size[name], r.count[name] = done, size, count
	return size, count, nil
}

// compile compiles pattern against defs into one regular expression, the
// one go-grok would build, so that matching a message is one regexp search
// and a walk over capture groups resolved here. namedOnly leaves %{NAME}
// references without a capture, as Graylog's "named captures only"
// extractor option does.
func compile(defs definitions, pattern string, namedOnly bool) (*Matcher, error) {
	refs, err := parseReferences(pattern)
	if err != nil {
		return nil, err
	}
	r := newResolver(defs)
	size, _, err := r.expand(pattern, refs)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	b.Grow(size)
	r.write(&b, pattern, refs, namedOnly)
	if err := javaregex.CheckSize(b.String()); err != nil {
		return nil, err
	}
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, fmt.Errorf("invalid regular expression: %s", clip(err.Error(), 300))
	}
	return newMatcher(re, r.hints(refs)), nil
}

// write appends the expansion of pattern to b as go-grok expands it: each
// reference becomes a group named for its field (dots written "___", which
// Go's group names allow), or for the pattern when it names no field; with
// namedOnly, a reference without a field is a group without a name. The
// references were resolved by expand.
func (r *resolver) write(b *strings.Builder, pattern string, refs []reference, namedOnly bool) {
	for _, ref := range refs {
		// The first occurrence of the token is this reference: refs are
		// the regexp's leftmost matches, in order.
		i := strings.Index(pattern, ref.token)
		b.WriteString(pattern[:i])
		pattern = pattern[i+len(ref.token):]
		switch {
		case ref.field != "":
			b.WriteString("(?P<" + strings.ReplaceAll(ref.field, ".", dotSep) + ">")
		case namedOnly:
			b.WriteByte('(')
		default:
			b.WriteString("(?P<" + ref.name + ">")
		}
		d, _ := r.defs.lookup(ref.name)
		r.write(b, d.pattern, d.refs, namedOnly)
		b.WriteByte(')')
	}
	b.WriteString(pattern)
}

// dotSep stands for a dot in a group name, as in go-grok.
const dotSep = "___"

// hints returns the conversions of %{NAME:field:type} references by group
// name. When one field has several types, the one go-grok meets last
// counts: it expands level by level, top level first.
func (r *resolver) hints(refs []reference) map[string]string {
	hints := map[string]string{}
	for level := refs; len(level) > 0; {
		var next []reference
		for _, ref := range level {
			if ref.typ != "" {
				hints[strings.ReplaceAll(ref.field, ".", dotSep)] = ref.typ
			}
			d, _ := r.defs.lookup(ref.name)
			next = append(next, d.refs...)
		}
		level = next
	}
	return hints
}

// clip shortens a message that may quote a whole expanded expression.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}
