package query

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// RegexpError is a pattern Lucene's RegExp does not read (or that RE2
// cannot run), with the byte offset of the fault in the pattern.
type RegexpError struct {
	Pos int
	Msg string
}

func (e *RegexpError) Error() string { return e.Msg + " at position " + strconv.Itoa(e.Pos) }

// luceneToRE2 translates a pattern in the syntax of Lucene's RegExp, with
// every optional feature Elasticsearch's query_string enables (flags ALL),
// into RE2's, which Go's regexp runs. Lucene's syntax is not Perl's:
//
//   - every character is literal but . ? + * | { } [ ] ( ) " \ and the
//     optional operators # @ & ~ <; so ^ and $ are plain characters, and
//     \d is the letter d (Lucene 8, Elasticsearch 7's);
//   - . is any character, newlines included;
//   - "…" is a literal string, () the empty string;
//   - @ is any string, # the empty language (matches nothing);
//   - <n-m> is a decimal number between n and m: with leading zeros to the
//     bounds' width when both are written with as many digits, any number
//     of them otherwise;
//   - & (intersection), ~ (complement) and <name> (a named automaton) have
//     no RE2 counterpart and are refused.
//
// The grammar and its precedence follow RegExp.java: union | of
// intersections & of concatenations of repetitions (? * + {n} {n,} {n,m})
// of complements (~) of character classes [...] [^...] or simple
// expressions.
func luceneToRE2(pattern string) (string, error) {
	if pattern == "" {
		return "", nil
	}
	p := &lucene{s: pattern}
	var b strings.Builder
	if err := p.union(&b); err != nil {
		return "", err
	}
	if p.pos < len(p.s) {
		return "", p.fail("end of pattern expected")
	}
	return b.String(), nil
}

type lucene struct {
	s   string
	pos int
}

func (p *lucene) fail(format string, args ...any) *RegexpError {
	return &RegexpError{Pos: p.pos, Msg: fmt.Sprintf(format, args...)}
}

func (p *lucene) more() bool { return p.pos < len(p.s) }

func (p *lucene) peek(chars string) bool {
	return p.more() && strings.IndexByte(chars, p.s[p.pos]) >= 0
}

func (p *lucene) match(c byte) bool {
	if p.more() && p.s[p.pos] == c {
		p.pos++
		return true
	}
	return false
}

func (p *lucene) next() (rune, error) {
	if !p.more() {
		return 0, p.fail("unexpected end of pattern")
	}
	r, n := utf8.DecodeRuneInString(p.s[p.pos:])
	p.pos += n
	return r, nil
}

func (p *lucene) union(b *strings.Builder) error {
	b.WriteString("(?:")
	if err := p.inter(b); err != nil {
		return err
	}
	for p.match('|') {
		b.WriteByte('|')
		if err := p.inter(b); err != nil {
			return err
		}
	}
	b.WriteByte(')')
	return nil
}

func (p *lucene) inter(b *strings.Builder) error {
	if err := p.concat(b); err != nil {
		return err
	}
	if p.peek("&") {
		return p.fail("intersection (&) is not supported")
	}
	return nil
}

// concat reads one repetition or more: as in Lucene, an empty branch (a|,
// (|a)) is an error; () is the empty string.
func (p *lucene) concat(b *strings.Builder) error {
	if err := p.repeat(b); err != nil {
		return err
	}
	for p.more() && !p.peek(")|&") {
		if err := p.repeat(b); err != nil {
			return err
		}
	}
	return nil
}

func (p *lucene) repeat(b *strings.Builder) error {
	var e strings.Builder
	if err := p.compl(&e); err != nil {
		return err
	}
	expr := e.String()
	for p.peek("?*+{") {
		switch c := p.s[p.pos]; c {
		case '?', '*', '+':
			p.pos++
			expr = "(?:" + expr + ")" + string(c)
		case '{':
			p.pos++
			lo, err := p.number()
			if err != nil {
				return err
			}
			hi := lo
			if p.match(',') {
				hi = -1
				if p.more() && isASCIIDigit(p.s[p.pos]) {
					if hi, err = p.number(); err != nil {
						return err
					}
				}
			}
			if !p.match('}') {
				return p.fail("expected '}'")
			}
			switch {
			case hi == lo:
				expr = fmt.Sprintf("(?:%s){%d}", expr, lo)
			case hi < 0:
				expr = fmt.Sprintf("(?:%s){%d,}", expr, lo)
			default:
				expr = fmt.Sprintf("(?:%s){%d,%d}", expr, lo, hi)
			}
		}
	}
	b.WriteString(expr)
	return nil
}

func (p *lucene) number() (int, error) {
	start := p.pos
	for p.more() && isASCIIDigit(p.s[p.pos]) {
		p.pos++
	}
	n, err := strconv.Atoi(p.s[start:p.pos])
	if err != nil {
		p.pos = start
		return 0, p.fail("integer expected")
	}
	return n, nil
}

func (p *lucene) compl(b *strings.Builder) error {
	if p.peek("~") {
		return p.fail("complement (~) is not supported")
	}
	if p.match('[') {
		return p.class(b)
	}
	return p.simple(b)
}

// class reads a character class after its '['.
func (p *lucene) class(b *strings.Builder) error {
	b.WriteByte('[')
	if p.match('^') {
		b.WriteByte('^')
	}
	for {
		lo, err := p.char()
		if err != nil {
			return err
		}
		writeClassRune(b, lo)
		if p.match('-') {
			hi, err := p.char()
			if err != nil {
				return err
			}
			if hi < lo {
				return p.fail("invalid range %q-%q", lo, hi)
			}
			b.WriteByte('-')
			writeClassRune(b, hi)
		}
		if p.match(']') {
			break
		}
	}
	b.WriteByte(']')
	return nil
}

// char reads a character, a backslash making any character itself.
func (p *lucene) char() (rune, error) {
	if p.match('\\') {
		return p.next()
	}
	return p.next()
}

func (p *lucene) simple(b *strings.Builder) error {
	switch {
	case p.match('.'):
		b.WriteString(`(?s:.)`)
	case p.match('#'):
		b.WriteString(`[^\x00-\x{10FFFF}]`) // the empty language
	case p.match('@'):
		b.WriteString(`(?s:.*)`)
	case p.match('"'):
		end := strings.IndexByte(p.s[p.pos:], '"')
		if end < 0 {
			return p.fail("expected '\"'")
		}
		writeLiteral(b, p.s[p.pos:p.pos+end])
		p.pos += end + 1
	case p.match('('):
		if p.match(')') {
			b.WriteString(`(?:)`)
			return nil
		}
		if err := p.union(b); err != nil {
			return err
		}
		if !p.match(')') {
			return p.fail("expected ')'")
		}
	case p.match('<'):
		start := p.pos
		end := strings.IndexByte(p.s[p.pos:], '>')
		if end < 0 {
			return p.fail("expected '>'")
		}
		p.pos += end + 1
		re, ok := interval(p.s[start : start+end])
		if !ok {
			p.pos = start
			return p.fail("named automata (<name>) are not supported")
		}
		b.WriteString(re)
	default:
		r, err := p.char()
		if err != nil {
			return err
		}
		writeLiteral(b, string(r))
	}
	return nil
}

// interval is the RE2 form of Lucene's numerical interval <lo-hi>: false
// when s is not two numbers.
func interval(s string) (string, bool) {
	i := strings.IndexByte(s, '-')
	if i <= 0 || i == len(s)-1 {
		return "", false
	}
	los, his := s[:i], s[i+1:]
	lo, err1 := strconv.ParseUint(los, 10, 31) // Lucene's Integer.parseInt
	hi, err2 := strconv.ParseUint(his, 10, 31)
	if err1 != nil || err2 != nil {
		return "", false
	}
	if lo > hi {
		lo, hi = hi, lo
	}
	if len(los) == len(his) {
		// As many digits as the bounds: zeros in front to that width.
		w := len(los)
		return "(?:" + fixedRange(pad(lo, w), pad(hi, w)) + ")", true
	}
	// Any number of leading zeros.
	var parts []string
	for w := len(strconv.FormatUint(lo, 10)); w <= len(strconv.FormatUint(hi, 10)); w++ {
		first, last := pow10(w-1), pow10(w)-1
		if w == 1 {
			first = 0
		}
		parts = append(parts, fixedRange(pad(max(lo, first), w), pad(min(hi, last), w)))
	}
	return "0*(?:" + strings.Join(parts, "|") + ")", true
}

func pad(n uint64, w int) string {
	s := strconv.FormatUint(n, 10)
	return strings.Repeat("0", max(w-len(s), 0)) + s
}

func pow10(n int) uint64 {
	v := uint64(1)
	for range n {
		v *= 10
	}
	return v
}

// fixedRange is a pattern for the digit strings of lo's length from lo to
// hi (lo <= hi, both as long).
func fixedRange(lo, hi string) string {
	if lo == hi {
		return lo
	}
	if len(lo) == 1 {
		return "[" + lo + "-" + hi + "]"
	}
	if lo[0] == hi[0] {
		return lo[:1] + "(?:" + fixedRange(lo[1:], hi[1:]) + ")"
	}
	rest := len(lo) - 1
	nines, zeros := strings.Repeat("9", rest), strings.Repeat("0", rest)
	var parts []string
	from, to := lo[0], hi[0]
	if lo[1:] != zeros {
		parts = append(parts, lo[:1]+"(?:"+fixedRange(lo[1:], nines)+")")
		from++
	}
	tail := ""
	if hi[1:] != nines {
		tail = hi[:1] + "(?:" + fixedRange(zeros, hi[1:]) + ")"
		to--
	}
	if from <= to {
		parts = append(parts, "["+string(from)+"-"+string(to)+"][0-9]{"+strconv.Itoa(rest)+"}")
	}
	if tail != "" {
		parts = append(parts, tail)
	}
	return strings.Join(parts, "|")
}

func isASCIIDigit(c byte) bool { return '0' <= c && c <= '9' }

// writeLiteral writes s to match itself.
func writeLiteral(b *strings.Builder, s string) {
	for _, r := range s {
		if r < 0x80 && strings.ContainsRune(`\.+*?()|[]{}^$`, r) {
			b.WriteByte('\\')
			b.WriteRune(r)
			continue
		}
		if r < ' ' || r == utf8.RuneError || r == 0x7f {
			fmt.Fprintf(b, `\x{%x}`, r)
			continue
		}
		b.WriteRune(r)
	}
}

// writeClassRune writes r to stand for itself inside a character class.
func writeClassRune(b *strings.Builder, r rune) {
	fmt.Fprintf(b, `\x{%x}`, r)
}
