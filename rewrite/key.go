package rewrite

import (
	"unicode/utf16"
	"unicode/utf8"
)

// keyEqual reports whether the member name of m decodes to want. If
// pathEscaped is set, want is a gjson path segment in which a backslash
// makes the next character literal. Neither side is decoded into a new
// buffer, so a comparison never allocates.
func keyEqual(b []byte, m member, want string, pathEscaped bool) bool {
	raw := b[m.keyStart+1 : m.keyEnd-1]
	if pathEscaped && !hasBackslash(want) {
		pathEscaped = false
	}
	if !m.escaped && !pathEscaped {
		return string(raw) == want
	}
	var enc [utf8.UTFMax]byte
	j := 0
	for i := 0; i < len(raw); {
		got := raw[i : i+1]
		if raw[i] == '\\' {
			var r rune
			r, i = decodeEscape(raw, i)
			got = enc[:utf8.EncodeRune(enc[:], r)]
		} else {
			i++
		}
		for _, g := range got {
			var w byte
			if j, w = nextWant(want, j, pathEscaped); j < 0 || w != g {
				return false
			}
		}
	}
	return j == len(want)
}

// nextWant returns the byte of want at j, unescaping path backslashes, and
// the index after it; it returns -1 when want is exhausted.
func nextWant(want string, j int, pathEscaped bool) (int, byte) {
	if j >= len(want) {
		return -1, 0
	}
	if pathEscaped && want[j] == '\\' && j+1 < len(want) {
		j++
	}
	return j + 1, want[j]
}

// decodeEscape decodes the escape sequence at raw[i] (a backslash) the way
// encoding/json does, lone surrogates becoming U+FFFD, and returns the index
// after it.
func decodeEscape(raw []byte, i int) (rune, int) {
	switch raw[i+1] {
	case 'b':
		return '\b', i + 2
	case 'f':
		return '\f', i + 2
	case 'n':
		return '\n', i + 2
	case 'r':
		return '\r', i + 2
	case 't':
		return '\t', i + 2
	case 'u':
		r := hex4(raw[i+2 : i+6])
		i += 6
		if !utf16.IsSurrogate(r) {
			return r, i
		}
		if i+6 <= len(raw) && raw[i] == '\\' && raw[i+1] == 'u' {
			if d := utf16.DecodeRune(r, hex4(raw[i+2:i+6])); d != utf8.RuneError {
				return d, i + 6
			}
		}
		return utf8.RuneError, i
	}
	return rune(raw[i+1]), i + 2
}

func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		default:
			c -= 'A' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

func hasBackslash(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' {
			return true
		}
	}
	return false
}

// appendQuoted appends s to dst as a JSON string. Bytes that JSON allows
// unescaped are copied as they are.
func appendQuoted(dst []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '\r':
			dst = append(dst, '\\', 'r')
		case c == '\t':
			dst = append(dst, '\\', 't')
		case c < 0x20:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		default:
			dst = append(dst, c)
		}
	}
	return append(dst, '"')
}
