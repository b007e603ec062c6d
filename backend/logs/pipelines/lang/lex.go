package lang

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// tokKind is the kind of a token of the rule language.
type tokKind int

const (
	tEOF tokKind = iota
	tIdent
	tKeyword // value lowercased
	tString  // value unescaped
	tInt
	tFloat
	tMessageRef // $message
	tPunct      // value is the operator or punctuation
	tBad        // a character the language has no token for
)

// token is one token with the place it starts: line from 1, column from 0,
// as ANTLR counts (the column in characters).
type token struct {
	kind tokKind
	text string // the source text, for error messages
	val  string
	line int
	col  int
	off  int // byte offset in the source
}

// keywords are case-insensitive, as in RuleLang.g4.
var keywords = map[string]bool{
	"all": true, "either": true, "and": true, "or": true, "not": true, "pipeline": true,
	"rule": true, "during": true, "stage": true, "when": true, "then": true, "end": true,
	"let": true, "match": true,
}

// lexer turns source text into tokens; errors are collected, not fatal,
// as ANTLR's lexer reports a token recognition error and goes on.
type lexer struct {
	src       string
	i         int
	line, col int
	errs      *Errors
}

func (l *lexer) all() []token {
	var out []token
	for {
		t := l.next()
		if t.kind == tBad {
			l.errs.add(Error{Type: "syntax_error", Line: t.line, Position: t.col,
				Reason: "token recognition error at: '" + t.text + "'"})
			continue
		}
		out = append(out, t)
		if t.kind == tEOF {
			return out
		}
	}
}

func (l *lexer) peekByte(off int) byte {
	if l.i+off < len(l.src) {
		return l.src[l.i+off]
	}
	return 0
}

// advance moves past n bytes, keeping line and column.
func (l *lexer) advance(n int) {
	for k := 0; k < n && l.i < len(l.src); {
		r, size := utf8.DecodeRuneInString(l.src[l.i:])
		l.i += size
		k += size
		if r == '\n' {
			l.line++
			l.col = 0
		} else {
			l.col++
		}
	}
}

func (l *lexer) skipSpace() {
	for l.i < len(l.src) {
		c := l.src[l.i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f':
			l.advance(1)
		case c == '/' && l.peekByte(1) == '/':
			for l.i < len(l.src) && l.src[l.i] != '\n' {
				l.advance(1)
			}
		case c == '/' && l.peekByte(1) == '*':
			end := strings.Index(l.src[l.i+2:], "*/")
			if end < 0 {
				return // reported as a bad token
			}
			l.advance(end + 4)
		default:
			return
		}
	}
}

func isIdentStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (l *lexer) next() token {
	l.skipSpace()
	t := token{line: l.line, col: l.col, off: l.i}
	if l.i >= len(l.src) {
		t.kind, t.text = tEOF, "<EOF>"
		return t
	}
	start := l.i
	c := l.src[l.i]
	emit := func(kind tokKind, n int, val string) token {
		l.advance(n)
		t.kind, t.text, t.val = kind, l.src[start:l.i], val
		return t
	}
	switch {
	case isIdentStart(c):
		n := 1
		for start+n < len(l.src) && (isIdentStart(l.src[start+n]) || isDigit(l.src[start+n])) {
			n++
		}
		word := l.src[start : start+n]
		if lw := strings.ToLower(word); keywords[lw] {
			return emit(tKeyword, n, lw)
		}
		return emit(tIdent, n, word)
	case c == '`':
		end := strings.IndexByte(l.src[start+1:], '`')
		if end < 0 {
			return emit(tBad, 1, "")
		}
		return emit(tIdent, end+2, l.src[start+1:start+1+end])
	case c == '$':
		if strings.HasPrefix(l.src[start:], "$message") && !(start+8 < len(l.src) && (isIdentStart(l.src[start+8]) || isDigit(l.src[start+8]))) {
			return emit(tMessageRef, 8, "$message")
		}
		return emit(tBad, 1, "")
	case c == '"':
		return l.str(t)
	case isDigit(c) || (c == '.' && isDigit(l.peekByte(1))) || (c == '-' && (isDigit(l.peekByte(1)) || (l.peekByte(1) == '.' && isDigit(l.peekByte(2))))):
		return l.number(t)
	case c == '/' && l.peekByte(1) == '*':
		return emit(tBad, len(l.src)-start, "")
	}
	for _, op := range []string{"&&", "||", "==", "!=", "<=", ">=", "(", ")", "[", "]", "{", "}", ",", ";", ":", ".", "=", "!", "<", ">", "+", "-", "*", "/", "%"} {
		if strings.HasPrefix(l.src[start:], op) {
			return emit(tPunct, len(op), op)
		}
	}
	_, size := utf8.DecodeRuneInString(l.src[start:])
	return emit(tBad, size, "")
}

// number lexes an integer or a float literal. A leading '-' belongs to the
// literal, as in RuleLang.g4: "a -1" is "a" followed by "-1".
func (l *lexer) number(t token) token {
	start := l.i
	j := start
	if l.src[j] == '-' {
		j++
	}
	digits := func() {
		for j < len(l.src) && (isDigit(l.src[j]) || l.src[j] == '_') {
			j++
		}
	}
	isFloat := false
	// Hex, octal and binary forms and the L suffix are lexed, as in
	// Graylog, and refused when the value is read.
	if l.src[j] == '0' && j+1 < len(l.src) && strings.ContainsRune("xXbB", rune(l.src[j+1])) {
		j += 2
		for j < len(l.src) && (isDigit(l.src[j]) || strings.ContainsRune("abcdefABCDEF_", rune(l.src[j]))) {
			j++
		}
	} else {
		digits()
		if j < len(l.src) && l.src[j] == '.' && j+1 < len(l.src) && isDigit(l.src[j+1]) {
			isFloat = true
			j++
			digits()
		}
		if j < len(l.src) && (l.src[j] == 'e' || l.src[j] == 'E') {
			k := j + 1
			if k < len(l.src) && (l.src[k] == '+' || l.src[k] == '-') {
				k++
			}
			if k < len(l.src) && isDigit(l.src[k]) {
				isFloat = true
				j = k
				digits()
			}
		}
	}
	kind := tInt
	if j < len(l.src) && strings.ContainsRune("dDfF", rune(l.src[j])) {
		isFloat = true
		j++
	} else if j < len(l.src) && (l.src[j] == 'l' || l.src[j] == 'L') && !isFloat {
		j++
	}
	if isFloat {
		kind = tFloat
	}
	l.advance(j - start)
	t.kind, t.text = kind, l.src[start:l.i]
	t.val = t.text
	return t
}

// str lexes a string literal with Java's escapes.
func (l *lexer) str(t token) token {
	start := l.i
	var b strings.Builder
	j := start + 1
	for j < len(l.src) {
		c := l.src[j]
		switch {
		case c == '"':
			l.advance(j + 1 - start)
			t.kind, t.text, t.val = tString, l.src[start:l.i], b.String()
			return t
		case c == '\n' || c == '\r':
			j = len(l.src)
		case c == '\\' && j+1 < len(l.src):
			n, ok := unescape(l.src[j:], &b)
			if !ok {
				l.advance(j - start)
				t.line, t.col, t.off = l.line, l.col, l.i
				l.advance(2)
				t.kind, t.text = tBad, l.src[j:l.i]
				return t
			}
			j += n
		default:
			b.WriteByte(c)
			j++
		}
	}
	// An unterminated string: ANTLR reports the opening quote.
	l.advance(1)
	t.kind, t.text = tBad, `"`
	return t
}

// unescape reads one Java escape sequence at s[0] ('\\') into b and returns
// its length.
func unescape(s string, b *strings.Builder) (int, bool) {
	switch c := s[1]; c {
	case 'n':
		b.WriteByte('\n')
	case 't':
		b.WriteByte('\t')
	case 'r':
		b.WriteByte('\r')
	case 'b':
		b.WriteByte('\b')
	case 'f':
		b.WriteByte('\f')
	case '"', '\'', '\\':
		b.WriteByte(c)
	case 'u':
		k := 1
		for k < len(s) && s[k] == 'u' {
			k++
		}
		if k+4 > len(s) {
			return 0, false
		}
		v, err := strconv.ParseUint(s[k:k+4], 16, 32)
		if err != nil {
			return 0, false
		}
		b.WriteRune(rune(v))
		return k + 4, true
	default:
		if c >= '0' && c <= '7' {
			k := 1
			v := 0
			for k < len(s) && k < 4 && s[k] >= '0' && s[k] <= '7' && v*8+int(s[k]-'0') <= 0377 {
				v = v*8 + int(s[k]-'0')
				k++
			}
			b.WriteRune(rune(v))
			return k, true
		}
		return 0, false
	}
	return 2, true
}

// quote renders a token as ANTLR names it in messages.
func (t token) quote() string {
	if t.kind == tEOF {
		return "<EOF>"
	}
	return "'" + strings.NewReplacer("\n", `\n`, "\r", `\r`, "\t", `\t`).Replace(t.text) + "'"
}

func (t token) String() string { return fmt.Sprintf("%d:%d %s", t.line, t.col, t.quote()) }
