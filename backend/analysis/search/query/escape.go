package query

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// unescape is Lucene's discardEscapeChar: a backslash makes the next
// character literal, and \uXXXX is a UTF-16 code unit (surrogate pairs
// combine). pos is the offset of s in the query, for errors.
func unescape(s string, pos int) (string, *SyntaxError) {
	i := strings.IndexByte(s, '\\')
	if i < 0 {
		return s, nil
	}
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:i])
	var pendingHigh rune = -1 // a high surrogate waiting for its low half
	flush := func() {
		if pendingHigh >= 0 {
			b.WriteRune(utf8.RuneError)
			pendingHigh = -1
		}
	}
	for i < len(s) {
		c := s[i]
		if c != '\\' {
			flush()
			j := strings.IndexByte(s[i:], '\\')
			if j < 0 {
				j = len(s) - i
			}
			b.WriteString(s[i : i+j])
			i += j
			continue
		}
		if i+1 >= len(s) {
			return "", &SyntaxError{Pos: pos + i, Msg: "Term can not end with escape character"}
		}
		if s[i+1] != 'u' {
			flush()
			_, n := runeAt(s, i+1)
			b.WriteString(s[i+1 : i+1+n])
			i += 1 + n
			continue
		}
		if i+6 > len(s) {
			return "", &SyntaxError{Pos: pos + i, Msg: "Truncated unicode escape sequence"}
		}
		var unit rune
		for k := i + 2; k < i+6; k++ {
			d := hexDigit(s[k])
			if d < 0 {
				r, _ := runeAt(s, k)
				return "", &SyntaxError{Pos: pos + k, Msg: "Non-hex character in Unicode escape sequence: " + string(r)}
			}
			unit = unit<<4 | d
		}
		i += 6
		switch {
		case utf16.IsSurrogate(unit) && unit < 0xDC00:
			flush()
			pendingHigh = unit
		case utf16.IsSurrogate(unit) && pendingHigh >= 0:
			b.WriteRune(utf16.DecodeRune(pendingHigh, unit))
			pendingHigh = -1
		default:
			flush()
			if utf16.IsSurrogate(unit) {
				unit = utf8.RuneError
			}
			b.WriteRune(unit)
		}
	}
	flush()
	return b.String(), nil
}

func hexDigit(c byte) rune {
	switch {
	case c >= '0' && c <= '9':
		return rune(c - '0')
	case c >= 'a' && c <= 'f':
		return rune(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return rune(c-'A') + 10
	}
	return -1
}

// normalizeWild turns a WILDTERM as written into Wildcard.Pattern: Lucene's
// WildcardQuery reads a backslash as "next character literal", so only the
// escapes of *, ? and \ carry meaning; the others are dropped.
func normalizeWild(raw string) string {
	if strings.IndexByte(raw, '\\') < 0 {
		return raw
	}
	var b strings.Builder
	b.Grow(len(raw))
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c == '\\' && i+1 < len(raw) {
			i++
			if n := raw[i]; n == '*' || n == '?' || n == '\\' {
				b.WriteByte('\\')
			}
			c = raw[i]
		}
		b.WriteByte(c)
	}
	return b.String()
}

// escapeWild makes a literal prefix safe inside a Wildcard.Pattern.
func escapeWild(s string) string {
	if !strings.ContainsAny(s, `*?\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '*' || c == '?' || c == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
