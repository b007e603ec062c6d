package grok

import (
	"regexp"
	"regexp/syntax"
	"unicode/utf8"
)

// RequiredLiteral returns a text that every match of re contains, the
// longest this finds, or "" when there is none worth looking for: a line
// without it cannot match, and strings.Contains tells that much faster than
// a regexp search, which tries the expression at every position of a line
// that does not match. It is "" where re's own literal prefix, which the
// regexp package already looks for first, is as long.
func RequiredLiteral(re *regexp.Regexp) string {
	// The expression compiled, so it parses; Perl's flags are Compile's.
	tree, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		return ""
	}
	lit := required(tree)
	if prefix, _ := re.LiteralPrefix(); len(prefix) >= len(lit) {
		return ""
	}
	return lit
}

// required is the longest literal every match of re contains: a literal
// itself, the longest of a concatenation's parts (runs of literals joined),
// a group's or a repetition's of at least once. Alternations, optional
// parts and case-folded literals have none.
func required(re *syntax.Regexp) string {
	switch re.Op {
	case syntax.OpLiteral:
		return exactLiteral(re)
	case syntax.OpCapture, syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
	case syntax.OpConcat:
		best, run := "", ""
		for _, sub := range re.Sub {
			if s := exactLiteral(sub); s != "" {
				run += s
				if len(run) > len(best) {
					best = run
				}
				continue
			}
			run = ""
			if s := required(sub); len(s) > len(best) {
				best = s
			}
		}
		return best
	}
	return ""
}

// exactLiteral is the text of a literal that matches only itself: not
// case-folded, and without U+FFFD, which also matches bytes that are not
// UTF-8 and that strings.Contains would not find.
func exactLiteral(re *syntax.Regexp) string {
	if re.Op != syntax.OpLiteral || re.Flags&syntax.FoldCase != 0 {
		return ""
	}
	for _, r := range re.Rune {
		if r == utf8.RuneError {
			return ""
		}
	}
	return string(re.Rune)
}
