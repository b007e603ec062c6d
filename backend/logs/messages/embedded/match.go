package embedded

import "strings"

// wildcardMatcher matches Lucene wildcard patterns: * any run, ? one
// character, backslash escaping the next character.
type wildcardMatcher struct {
	parts  []wildPart
	prefix string // the literal text every match starts with
}

type wildPart struct {
	lit  string
	star bool // * before lit
	any  int  // number of ? before lit (after the star, if any)
}

func compileWildcard(p string) *wildcardMatcher {
	m := &wildcardMatcher{}
	var cur wildPart
	var lit strings.Builder
	flush := func() {
		cur.lit = lit.String()
		lit.Reset()
		m.parts = append(m.parts, cur)
		cur = wildPart{}
	}
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '\\' && i+1 < len(p):
			i++
			lit.WriteByte(p[i])
		case c == '*' || c == '?':
			if lit.Len() > 0 || cur.star || cur.any > 0 {
				if lit.Len() > 0 {
					flush()
				}
			}
			if c == '*' {
				cur.star = true
			} else {
				cur.any++
			}
		default:
			lit.WriteByte(c)
		}
	}
	flush()
	if len(m.parts) > 0 && !m.parts[0].star && m.parts[0].any == 0 {
		m.prefix = m.parts[0].lit
	}
	return m
}

func (m *wildcardMatcher) match(s string) bool { return matchParts(m.parts, s) }

// matchParts matches by backtracking over the star positions; patterns
// are short, so the worst case stays small.
func matchParts(parts []wildPart, s string) bool {
	if len(parts) == 0 {
		return s == ""
	}
	p := parts[0]
	rest := parts[1:]
	// skip n characters (runes) for the ? wildcards
	skip := func(s string, n int) (string, bool) {
		for ; n > 0; n-- {
			if s == "" {
				return "", false
			}
			_, size := decodeRune(s)
			s = s[size:]
		}
		return s, true
	}
	if !p.star {
		s, ok := skip(s, p.any)
		if !ok || !strings.HasPrefix(s, p.lit) {
			return false
		}
		return matchParts(rest, s[len(p.lit):])
	}
	for i := 0; i <= len(s); i++ {
		if i > 0 && i < len(s) && !isRuneStart(s[i]) {
			continue
		}
		t, ok := skip(s[i:], p.any)
		if !ok {
			return false
		}
		if strings.HasPrefix(t, p.lit) && matchParts(rest, t[len(p.lit):]) {
			return true
		}
		if p.lit == "" && len(rest) == 0 {
			return true
		}
	}
	return false
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

func decodeRune(s string) (rune, int) {
	for i, r := range s {
		if i == 0 {
			n := 1
			for n < len(s) && !isRuneStart(s[n]) {
				n++
			}
			return r, n
		}
	}
	return 0, 0
}

// levenshtein reports whether a and b are within max edits, an adjacent
// transposition counting as one, as in Elasticsearch's fuzzy queries
// (fuzzy_transpositions defaults to true).
func levenshtein(a, b string, max int) bool {
	ra, rb := []rune(a), []rune(b)
	if d := len(ra) - len(rb); d > max || -d > max {
		return false
	}
	// Three rows of the optimal string alignment distance: the one
	// before prev is needed for transpositions.
	pprev := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		best := cur[0]
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], pprev[j-2]+1)
			}
			best = min(best, cur[j])
		}
		if best > max {
			return false
		}
		pprev, prev, cur = prev, cur, pprev
	}
	return prev[len(rb)] <= max
}
