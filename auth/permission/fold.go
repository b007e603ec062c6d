package permission

import (
	"strings"
	"unicode/utf8"
)

// isSpace reports whether c is ASCII whitespace, the only whitespace trimmed
// from permissions and their parts.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

func trim(s string) string {
	for s != "" && isSpace(s[0]) {
		s = s[1:]
	}
	for s != "" && isSpace(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return s
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// equalFold reports whether a and b are equal under Unicode simple case
// folding, which stands in for Shiro's lowercasing without allocating.
// Unlike strings.EqualFold, bytes that are not valid UTF-8 only match
// themselves, so two different malformed IDs never match each other.
func equalFold(a, b string) bool {
	if a == b {
		return true
	}
	for a != "" && b != "" {
		ca, cb := a[0], b[0]
		if ca < utf8.RuneSelf && cb < utf8.RuneSelf {
			if lowerASCII(ca) != lowerASCII(cb) {
				return false
			}
			a, b = a[1:], b[1:]
			continue
		}
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if (ra == utf8.RuneError && na == 1) || (rb == utf8.RuneError && nb == 1) {
			if ca != cb {
				return false
			}
			a, b = a[1:], b[1:]
			continue
		}
		if !strings.EqualFold(a[:na], b[:nb]) {
			return false
		}
		a, b = a[na:], b[nb:]
	}
	return a == "" && b == ""
}
