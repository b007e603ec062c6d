package embedded

import (
	"fmt"
	"math"
	"math/big"
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/loggate/loggate/backend/analysis/search/query"
	"github.com/loggate/loggate/backend/logs/messages"
)

// evaluator evaluates a query tree over one segment into the set of
// matching documents. The first error sticks; the sets returned after it
// are empty.
type evaluator struct {
	s   *segment
	now time.Time // of the search, for date math: one instant in every segment
	err error
	re  map[string]*regexp.Regexp // compiled once per search, shared by segments
}

func (e *evaluator) fail(err error) {
	if e.err == nil {
		e.err = err
	}
}

func (e *evaluator) eval(n query.Node) bitset {
	switch n := n.(type) {
	case nil, *query.MatchAll:
		return fullBitset(e.s.n)
	case *query.Bool:
		return e.evalBool(n)
	case *query.Term:
		return e.each(n.Field, func(set bitset, f string) { e.term(set, f, n) })
	case *query.Wildcard:
		return e.each(n.Field, func(set bitset, f string) { e.wildcard(set, f, n.Pattern) })
	case *query.Regexp:
		return e.each(n.Field, func(set bitset, f string) { e.regexp(set, f, n.Pattern) })
	case *query.Range:
		return e.each(n.Field, func(set bitset, f string) { e.rangeQ(set, f, n) })
	case *query.Exists:
		return e.each(n.Field, func(set bitset, f string) { e.exists(set, f) })
	}
	e.fail(fmt.Errorf("embedded: unsupported query node %T", n))
	return newBitset(e.s.n)
}

// evalBool applies Lucene's BooleanQuery rules, as query.Bool documents.
func (e *evaluator) evalBool(b *query.Bool) bitset {
	var out bitset
	switch {
	case len(b.Must) > 0:
		out = e.eval(b.Must[0])
		for _, c := range b.Must[1:] {
			out.and(e.eval(c))
		}
	case len(b.Should) > 0:
		out = newBitset(e.s.n)
		for _, c := range b.Should {
			out.or(e.eval(c))
		}
	case len(b.MustNot) > 0:
		out = fullBitset(e.s.n)
	default:
		return newBitset(e.s.n)
	}
	for _, c := range b.MustNot {
		out.andNot(e.eval(c))
	}
	return out
}

// each ORs fn over the concrete fields a query field names: the field
// itself, every field when "" or "*" (Graylog's default_field), or the
// fields matching a pattern such as http_*.
func (e *evaluator) each(field string, fn func(set bitset, f string)) bitset {
	set := newBitset(e.s.n)
	switch {
	case field == "" || field == "*":
		for _, f := range e.s.names {
			fn(set, f)
		}
		// The timestamp is a field too for Elasticsearch's default_field
		// "*", read leniently.
		fn(set, messages.FieldTimestamp)
	case strings.ContainsAny(field, "*?"):
		for _, f := range e.s.names {
			if ok, _ := path.Match(field, f); ok {
				fn(set, f)
			}
		}
	default:
		fn(set, field)
	}
	return set
}

func (e *evaluator) orPostings(set bitset, p []byte) {
	if p == nil {
		return
	}
	if err := orPostings(set, p, e.s.n); err != nil {
		e.fail(err)
	}
}

func (e *evaluator) term(set bitset, field string, t *query.Term) {
	switch field {
	case messages.FieldID:
		e.s.ids.lookup(t.Value, set.set)
		return
	case messages.FieldTimestamp:
		// A date is the range it names, as Elasticsearch's date term
		// query: 2024-01-02 is the whole day.
		if ms, span, ok := parseTime(t.Value, e.now); ok {
			lo, hi := e.s.timeRange(ms, ms+span)
			set.setRange(lo, hi)
		}
		return
	}
	f := e.s.fields[field]
	if f == nil {
		return
	}
	if v, err := strconv.ParseFloat(t.Value, 64); err == nil {
		exact := exactBound(v, t.Value)
		var r docReader
		r.s = e.s
		for i, d := range f.numDocs {
			if f.nums[i] != v {
				continue
			}
			if exact != nil {
				c, ok, err := exactCmp(&r, int(d), field, exact)
				if err != nil {
					e.fail(err)
					return
				}
				if !ok || c != 0 {
					continue
				}
			}
			set.set(int(d))
		}
	}
	if f.nterms == 0 {
		return
	}
	// A fuzzy word is only normalized, as Elasticsearch's query_string
	// does (getFuzzyQuery): "index.htm~" finds "index.html".
	words := []string{normalize(f.a, t.Value)}
	if f.a == text && (t.Fuzzy == "" || t.Phrase) {
		words = tokens(t.Value)
	}
	if t.Phrase && len(words) > 1 {
		e.phrase(set, f, words, phraseSlop(t))
		return
	}
	for _, w := range words {
		if d := fuzziness(t, w); d > 0 && !t.Phrase {
			e.fuzzy(set, f, w, d)
			continue
		}
		p, err := e.s.lookupTerm(f, w)
		if err != nil {
			e.fail(err)
			return
		}
		e.orPostings(set, p)
	}
}

// fuzziness is the edit distance a fuzzy term asks for: "~" is
// Elasticsearch's AUTO (0 up to 2 characters, 1 up to 5, else 2).
func fuzziness(t *query.Term, w string) int {
	switch t.Fuzzy {
	case "":
		return 0
	case "~":
		switch n := len([]rune(w)); {
		case n <= 2:
			return 0
		case n <= 5:
			return 1
		}
		return 2
	}
	d, err := strconv.ParseFloat(strings.TrimPrefix(t.Fuzzy, "~"), 64)
	if err != nil {
		return 0
	}
	return min(int(d), 2) // Lucene's maximum edit distance
}

func (e *evaluator) fuzzy(set bitset, f *fieldMeta, w string, dist int) {
	e.scan(f, "", func(t term) bool {
		if levenshtein(t.text, w, dist) {
			e.orPostings(set, t.postings)
		}
		return true
	})
}

// phraseSlop is the slop of a phrase, "a b"~2, read as Lucene's query
// parser reads it: a number, its fraction dropped; "~" alone is 0.
func phraseSlop(t *query.Term) int {
	d, err := strconv.ParseFloat(strings.TrimPrefix(t.Fuzzy, "~"), 64)
	if err != nil || d < 0 || math.IsNaN(d) {
		return 0
	}
	return int(min(d, math.MaxInt32))
}

// phrase matches documents whose field holds the words consecutively, or
// with slop as near as Lucene's sloppy phrases. Positions are not indexed,
// so candidates (documents with every word) are checked against their
// stored text: only that field's value is read of each, and its tokens are
// matched as they come, without a copy.
func (e *evaluator) phrase(set bitset, f *fieldMeta, words []string, slop int) {
	cand := fullBitset(e.s.n)
	for _, w := range words {
		p, err := e.s.lookupTerm(f, w)
		if err != nil || p == nil {
			e.fail(err)
			return
		}
		one := newBitset(e.s.n)
		e.orPostings(one, p)
		cand.and(one)
	}
	r := &docReader{s: e.s}
	var t tokenizer
	for d := cand.next(0); d >= 0; d = cand.next(d + 1) {
		s, ok, err := r.str(d, f.name)
		if err != nil {
			e.fail(err)
			return
		}
		if !ok {
			continue
		}
		if slop == 0 && t.containsRun(s, words) || slop > 0 && t.containsNear(s, words, slop) {
			set.set(d)
		}
	}
}

// containsRun reports whether the tokens of s hold words consecutively. It
// follows every partial match at once (bit i of at: words[:i+1] ends at
// the last token), so that a phrase repeating its own start ("a a b" in
// "a a a b") is found in one pass; phrases longer than 64 words, which a
// query hardly holds, are matched on a copy of the tokens.
func (t *tokenizer) containsRun(s string, words []string) bool {
	n := len(words)
	if n == 0 {
		return true
	}
	if n > 64 {
		toks := tokens(s)
		for i := 0; i+n <= len(toks); i++ {
			if slices.Equal(toks[i:i+n], words) {
				return true
			}
		}
		return false
	}
	var at uint64
	found := false
	t.each(s, func(tok string) {
		if found {
			return
		}
		// Extend each partial match by this token, and start one.
		next := uint64(0)
		for i := range n {
			if (i == 0 || at&(1<<(i-1)) != 0) && words[i] == tok {
				next |= 1 << i
			}
		}
		at = next
		found = at&(1<<(n-1)) != 0
	})
	return found
}

// containsNear reports whether the tokens of s hold words within slop, as
// Lucene's sloppy phrase query: word i at position p[i], every word at its
// own position, with max(p[i]-i) - min(p[i]-i) <= slop. "b a"~2 finds
// "a b", a swap costing two moves.
//
// A window of offsets [lo, lo+slop] fits when each word i takes the first
// free position at or after lo+i not past lo+slop+i; a repeated word takes
// its positions in order. When word i's first such position p is past
// that, no window below p-i-slop fits either (positions taken only move
// right as lo grows), so lo leaps there: each leap passes a position.
func (t *tokenizer) containsNear(s string, words []string, slop int) bool {
	// ids numbers the distinct words; the tokens each gives are not
	// kept (they share the tokenizer's buffer), not even as map keys.
	ids := make(map[string]int, len(words))
	word := make([]int, len(words)) // words[i]'s id
	for i, w := range words {
		id, ok := ids[w]
		if !ok {
			id = len(ids)
			ids[w] = id
		}
		word[i] = id
	}
	pos := make([][]int, len(ids))
	n := 0
	t.each(s, func(tok string) {
		if id, ok := ids[tok]; ok {
			pos[id] = append(pos[id], n)
		}
		n++
	})
	lo := math.MaxInt
	for i, id := range word {
		if len(pos[id]) == 0 {
			return false
		}
		lo = min(lo, pos[id][0]-i)
	}
	taken := make([]int, len(ids)) // a word's last position taken, -1: none
	for {
		for id := range taken {
			taken[id] = -1
		}
		fits := true
		for i, id := range word {
			from := max(lo+i, taken[id]+1)
			ps := pos[id]
			k := sort.SearchInts(ps, from)
			if k == len(ps) {
				return false
			}
			if p := ps[k]; p-i-slop > lo {
				lo, fits = p-i-slop, false
				break
			}
			taken[id] = ps[k]
		}
		if fits {
			return true
		}
	}
}

func (e *evaluator) scan(f *fieldMeta, from string, fn func(term) bool) {
	if err := e.s.scanTerms(f, from, fn); err != nil {
		e.fail(err)
	}
}

func (e *evaluator) wildcard(set bitset, field, pattern string) {
	if field == messages.FieldID || field == messages.FieldTimestamp {
		if field == messages.FieldID {
			m := compileWildcard(pattern)
			for d := range e.s.n {
				if m.match(e.s.ids.id(d)) {
					set.set(d)
				}
			}
		}
		return
	}
	f := e.s.fields[field]
	if f == nil || f.nterms == 0 {
		return
	}
	m := compileWildcard(normalize(f.a, pattern))
	e.scan(f, m.prefix, func(t term) bool {
		if !strings.HasPrefix(t.text, m.prefix) {
			return t.text < m.prefix
		}
		if m.match(t.text) {
			e.orPostings(set, t.postings)
		}
		return true
	})
}

func (e *evaluator) regexp(set bitset, field, pattern string) {
	re, ok := e.re[pattern]
	if !ok {
		var err error
		if re, err = query.CompileRegexp(pattern); err != nil {
			e.fail(fmt.Errorf("embedded: invalid regular expression /%s/: %w", pattern, err))
			return
		}
		if e.re == nil {
			e.re = map[string]*regexp.Regexp{}
		}
		e.re[pattern] = re
	}
	if field == messages.FieldID {
		for d := range e.s.n {
			if re.MatchString(e.s.ids.id(d)) {
				set.set(d)
			}
		}
		return
	}
	f := e.s.fields[field]
	if f == nil || f.nterms == 0 {
		return
	}
	prefix, _ := re.LiteralPrefix()
	e.scan(f, prefix, func(t term) bool {
		if !strings.HasPrefix(t.text, prefix) {
			return t.text < prefix
		}
		if re.MatchString(t.text) {
			e.orPostings(set, t.postings)
		}
		return true
	})
}

func (e *evaluator) rangeQ(set bitset, field string, r *query.Range) {
	switch field {
	case messages.FieldTimestamp:
		lo, hi, ok := timeBounds(r, e.now)
		if ok {
			a, b := e.s.timeRange(lo, hi)
			set.setRange(a, b)
		}
		return
	case messages.FieldID:
		return
	}
	f := e.s.fields[field]
	if f == nil {
		return
	}
	if lo, hi, ok := numBounds(r); ok {
		exLo, exHi := exactBound(lo, r.Lower), exactBound(hi, r.Upper)
		var dr docReader
		dr.s = e.s
		// in tells whether doc's value is on the inner side of a bound it
		// ties with in float64.
		in := func(doc int, bound *big.Rat, sign int, inclusive bool) bool {
			if bound == nil {
				return inclusive
			}
			c, ok, err := exactCmp(&dr, doc, field, bound)
			if err != nil {
				e.fail(err)
			}
			return ok && (c == sign || c == 0 && inclusive)
		}
		for i, d := range f.numDocs {
			v := f.nums[i]
			if (v > lo || v == lo && in(int(d), exLo, 1, r.IncludeLower)) &&
				(v < hi || v == hi && in(int(d), exHi, -1, r.IncludeUpper)) {
				set.set(int(d))
			}
		}
		if len(f.numDocs) > 0 {
			return
		}
	}
	lower, upper := normalize(f.a, r.Lower), normalize(f.a, r.Upper)
	e.scan(f, lower, func(t term) bool {
		if r.Lower != "" && (t.text < lower || (t.text == lower && !r.IncludeLower)) {
			return true
		}
		if r.Upper != "" && (t.text > upper || (t.text == upper && !r.IncludeUpper)) {
			return false
		}
		e.orPostings(set, t.postings)
		return true
	})
}

// numBounds parses the bounds of a numeric range, open bounds as
// infinities.
func numBounds(r *query.Range) (lo, hi float64, ok bool) {
	lo, hi = math.Inf(-1), math.Inf(1)
	var err error
	if r.Lower != "" {
		if lo, err = strconv.ParseFloat(r.Lower, 64); err != nil {
			return 0, 0, false
		}
	}
	if r.Upper != "" {
		if hi, err = strconv.ParseFloat(r.Upper, 64); err != nil {
			return 0, 0, false
		}
	}
	return lo, hi, true
}

// timeBounds turns a range on timestamp into inclusive milliseconds. As
// Elasticsearch's date ranges, the bounds that take a date's end are
// rounded up to it (2024-01-02 ends at 23:59:59.999): an inclusive upper
// one and an exclusive lower one.
func timeBounds(r *query.Range, now time.Time) (lo, hi int64, ok bool) {
	lo, hi = math.MinInt64, math.MaxInt64
	if r.Lower != "" {
		var span int64
		if lo, span, ok = parseTime(r.Lower, now); !ok {
			return 0, 0, false
		}
		if !r.IncludeLower {
			lo += span + 1
		}
	}
	if r.Upper != "" {
		var span int64
		if hi, span, ok = parseTime(r.Upper, now); !ok {
			return 0, 0, false
		}
		if r.IncludeUpper {
			hi += span
		} else {
			hi--
		}
	}
	return lo, hi, true
}

func (e *evaluator) exists(set bitset, field string) {
	switch field {
	case messages.FieldID, messages.FieldTimestamp:
		set.setRange(0, e.s.n)
		return
	}
	if f := e.s.fields[field]; f != nil {
		set.or(f.present)
	}
}

// timeRange returns the documents with lo <= timestamp <= hi as lo..hi-1.
func (s *segment) timeRange(lo, hi int64) (int, int) {
	a := sort.Search(s.n, func(i int) bool { return s.ts[i] >= lo })
	b := sort.Search(s.n, func(i int) bool { return s.ts[i] > hi })
	return a, max(a, b)
}
