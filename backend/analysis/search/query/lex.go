package query

import (
	"strconv"
	"unicode/utf8"
)

// kind is a token kind of Lucene's QueryParser.jj. Tokens are scanned on
// demand from a byte offset, so the parser can switch lexical states (range,
// boost) exactly where Lucene does.
type kind uint8

const (
	kEOF     kind = iota
	kAnd          // AND, &&
	kOr           // OR, ||
	kNot          // NOT, !
	kPlus         // +
	kMinus        // -
	kBareOp       // + - or ! followed by a blank: a term of its own
	kLParen       // (
	kRParen       // )
	kColon        // :
	kCarat        // ^
	kStar         // *
	kQuoted       // "…"
	kTerm         // word
	kPrefix       // word*
	kWild         // w?rd*s
	kRegexp       // /…/
	kRangeIn      // [
	kRangeEx      // {
	kSlop         // ~…
	kOther        // a character no token starts with: ] or }
	kBad          // a lexical error; msg and exp describe it

	// Range state.
	kTo         // TO
	kRangeInEnd // ]
	kRangeExEnd // }
	kGoop       // a bound as written
	kBound      // a quoted bound

	// Boost state.
	kNumber
)

type token struct {
	kind     kind
	pos, end int
	msg, exp string // kBad only
}

// isBlank reports Lucene's whitespace; other Unicode spaces are term
// characters, as in Lucene.
func isBlank(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\u3000'
}

// isTermStart reports whether r may start a term unescaped.
func isTermStart(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\r', '\u3000', '+', '-', '!', '(', ')', ':', '^',
		'[', ']', '"', '{', '}', '~', '*', '?', '\\', '/':
		return false
	}
	return true
}

// isTermChar reports whether r may continue a term unescaped.
func isTermChar(r rune) bool { return r == '-' || r == '+' || isTermStart(r) }

func runeAt(s string, i int) (rune, int) {
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

func skipBlanks(s string, p int) int {
	for p < len(s) {
		r, n := runeAt(s, p)
		if !isBlank(r) {
			break
		}
		p += n
	}
	return p
}

func badToken(pos int, msg, exp string) token {
	return token{kind: kBad, pos: pos, end: pos, msg: msg, exp: exp}
}

// lexDefault scans the token at p in Lucene's default state.
func lexDefault(s string, p int) token {
	p = skipBlanks(s, p)
	if p >= len(s) {
		return token{kind: kEOF, pos: len(s), end: len(s)}
	}
	one := func(k kind) token { return token{kind: k, pos: p, end: p + 1} }
	switch c := s[p]; c {
	case '(':
		return one(kLParen)
	case ')':
		return one(kRParen)
	case ':':
		return one(kColon)
	case '^':
		return one(kCarat)
	case '[':
		return one(kRangeIn)
	case '{':
		return one(kRangeEx)
	case ']', '}':
		return one(kOther)
	case '"':
		end, ok := scanDelimited(s, p, '"')
		if !ok {
			return badToken(p, "Unterminated phrase", `a closing '"'`)
		}
		return token{kind: kQuoted, pos: p, end: end}
	case '/':
		end, ok := scanDelimited(s, p, '/')
		if !ok {
			return badToken(p, "Unterminated regular expression", "a closing '/'")
		}
		return token{kind: kRegexp, pos: p, end: end}
	case '~':
		end, err := scanWord(s, p+1, false, false)
		if err != nil {
			return *err
		}
		return token{kind: kSlop, pos: p, end: end.end}
	case '+', '-', '!':
		// Lucene's BAREOPER: an operator character followed by a blank is a
		// term ("a - b" searches for "-"), which wins by being longer.
		if p+1 < len(s) {
			if r, n := runeAt(s, p+1); isBlank(r) {
				return token{kind: kBareOp, pos: p, end: p + 1 + n}
			}
		}
		switch c {
		case '+':
			return one(kPlus)
		case '-':
			return one(kMinus)
		}
		return one(kNot)
	}
	w, err := scanWord(s, p, true, true)
	if err != nil {
		return *err
	}
	return lexWordToken(s, p, w)
}

// wordResult carries where a word ends and its first unescaped wildcard.
type wordResult struct {
	end, firstWild int
}

// scanWord scans term characters (and, with wild, * and ?) from p; with
// start, the first character must be one a term may start with.
func scanWord(s string, p int, wild, start bool) (wordResult, *token) {
	res := wordResult{firstWild: -1}
	i := p
	for i < len(s) {
		r, n := runeAt(s, i)
		switch {
		case r == '\\':
			if i+1 >= len(s) {
				t := badToken(i, "Escape character at end of input", "an escaped character")
				return res, &t
			}
			_, m := runeAt(s, i+1)
			i += 1 + m
			continue
		case (r == '*' || r == '?') && wild:
			if res.firstWild < 0 {
				res.firstWild = i
			}
		case !isTermChar(r) || (start && i == p && !isTermStart(r)):
			res.end = i
			return res, nil
		}
		i += n
	}
	res.end = i
	return res, nil
}

// lexWordToken classifies a word by Lucene's longest-match rules: TERM, PREFIXTERM
// (one trailing *), WILDTERM, the lone STAR, or an operator keyword.
func lexWordToken(s string, p int, w wordResult) token {
	t := token{pos: p, end: w.end}
	switch {
	case w.end == p:
		// Only reachable for a character no token starts with.
		_, n := runeAt(s, p)
		t.kind, t.end = kOther, p+n
	case w.firstWild < 0:
		t.kind = kTerm
		switch s[p:w.end] {
		case "AND", "&&":
			t.kind = kAnd
		case "OR", "||":
			t.kind = kOr
		case "NOT":
			t.kind = kNot
		}
	case w.end == p+1 && s[p] == '*':
		t.kind = kStar
	case w.firstWild == w.end-1 && s[w.firstWild] == '*' && w.firstWild > p:
		t.kind = kPrefix
	default:
		t.kind = kWild
	}
	return t
}

// scanDelimited scans a phrase or regexp opened at p by delim: a backslash
// escapes the next character, and the first unescaped delim closes it. It
// returns the offset after the closing delimiter.
func scanDelimited(s string, p int, delim byte) (int, bool) {
	for i := p + 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++ // an escaped byte; a multi-byte rune continues harmlessly
		case delim:
			return i + 1, true
		}
	}
	return 0, false
}

// lexRange scans the token at p in Lucene's range state.
func lexRange(s string, p int) token {
	p = skipBlanks(s, p)
	if p >= len(s) {
		return token{kind: kEOF, pos: len(s), end: len(s)}
	}
	switch s[p] {
	case ']':
		return token{kind: kRangeInEnd, pos: p, end: p + 1}
	case '}':
		return token{kind: kRangeExEnd, pos: p, end: p + 1}
	}
	// RANGE_GOOP runs to a blank, ] or }; RANGE_QUOTED wins when it is at
	// least as long (Lucene's longest match, quoted declared first).
	goop := p
	for goop < len(s) {
		r, n := runeAt(s, goop)
		if isBlank(r) || r == ']' || r == '}' {
			break
		}
		goop += n
	}
	if s[p] == '"' {
		if end, ok := scanDelimited(s, p, '"'); ok && end > p+2 && end >= goop {
			return token{kind: kBound, pos: p, end: end}
		}
	}
	if s[p:goop] == "TO" {
		return token{kind: kTo, pos: p, end: goop}
	}
	return token{kind: kGoop, pos: p, end: goop}
}

// lexNumber scans a boost in Lucene's boost state: digits, optionally a
// fraction.
func lexNumber(s string, p int) token {
	p = skipBlanks(s, p)
	digits := func(i int) int {
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i
	}
	end := digits(p)
	if end == p {
		return token{kind: kOther, pos: p, end: p}
	}
	if end+1 < len(s) && s[end] == '.' {
		if frac := digits(end + 1); frac > end+1 {
			end = frac
		}
	}
	return token{kind: kNumber, pos: p, end: end}
}

// describe names a token for an error message.
func describe(s string, t token) string {
	if t.pos >= len(s) {
		return "end of input"
	}
	end := t.end
	if end <= t.pos {
		_, n := runeAt(s, t.pos)
		end = t.pos + n
	}
	text := s[t.pos:end]
	if utf8.RuneCountInString(text) > 32 {
		cut := 0
		for i := 0; i < 32; i++ {
			_, n := runeAt(text, cut)
			cut += n
		}
		text = text[:cut] + "…"
	}
	return strconv.Quote(text)
}
