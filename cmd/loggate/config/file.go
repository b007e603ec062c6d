package config

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// entry is one key and value read from a configuration file.
type entry struct {
	key   string
	value string
	line  int // 1-based line the entry starts on
}

// syntaxError reports a line of a configuration file that is not key = value.
// Load adds the file name.
type syntaxError struct {
	line int
	msg  string
}

func (e *syntaxError) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.msg) }

// blank is the whitespace trimmed around keys, values and lines. It is ASCII
// only, so that a value may end in a non-breaking space on purpose.
const blank = " \t\f\v\r"

func trim(s string) string { return strings.Trim(s, blank) }

// parseFile reads text in the Java-properties syntax of Graylog's server.conf:
// "key = value", "key=value", "key: value" or "key value"; blank lines and
// lines starting with # or ! are skipped; an odd number of backslashes at the
// end of a line continues the value on the next one; escapes (\t, \n, \uXXXX,
// \\, \= …) in values mean what java.util.Properties makes of them, so a value
// copied from a Graylog file means the same here. Unlike Java, a line that is
// a key alone, without a separator, is an error: it is almost always a typo.
//
// Keys are taken verbatim from the first line of an entry, never unescaped
// or continued, so a key always appears as such in data.
func parseFile(data []byte) ([]entry, error) {
	lines := strings.Split(strings.TrimPrefix(string(data), "\uFEFF"), "\n")
	var entries []entry
	for i := 0; i < len(lines); i++ {
		line := trim(lines[i])
		if line == "" || line[0] == '#' || line[0] == '!' {
			continue
		}
		start := i + 1
		key, rest, err := cutKey(line)
		if err != nil {
			return nil, &syntaxError{line: start, msg: err.Error()}
		}
		var raw strings.Builder
		for continued(rest) {
			raw.WriteString(rest[:len(rest)-1])
			if i+1 == len(lines) {
				rest = ""
				break
			}
			i++
			rest = trim(lines[i])
		}
		raw.WriteString(rest)
		value, err := unescape(raw.String())
		if err != nil {
			return nil, &syntaxError{line: start, msg: fmt.Sprintf("key %s: %v", key, err)}
		}
		entries = append(entries, entry{key: key, value: value, line: start})
	}
	return entries, nil
}

// errNoSeparator does not quote the line: it may be a secret on its own.
var errNoSeparator = errors.New("expected key = value, found no separator after the key")

// cutKey splits a trimmed line into its key and the raw value after the
// separator.
func cutKey(line string) (key, rest string, err error) {
	i := strings.IndexAny(line, "=:"+blank)
	switch {
	case i == 0:
		return "", "", fmt.Errorf("missing key before %q", line[0])
	case i < 0:
		return "", "", errNoSeparator
	}
	key, rest = line[:i], strings.TrimLeft(line[i:], blank)
	switch {
	case rest != "" && (rest[0] == '=' || rest[0] == ':'):
		rest = strings.TrimLeft(rest[1:], blank)
	case rest == "" || rest == `\`:
		// "key" followed by spaces only, or by a continuation: no separator.
		return "", "", errNoSeparator
	}
	return key, rest, nil
}

// continued reports whether s ends in an odd number of backslashes: the last
// one is not escaped, so the value goes on on the next line.
func continued(s string) bool {
	n := len(s) - len(strings.TrimRight(s, `\`))
	return n%2 == 1
}

// unescape resolves the escapes java.util.Properties resolves in values.
func unescape(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		i++
		if i == len(s) {
			break // a lone trailing backslash is dropped, as Java does
		}
		switch c = s[i]; c {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			r, n, err := unicodeEscape(s[i-1:])
			if err != nil {
				return "", err
			}
			b.WriteRune(r)
			i += n - 2
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

// unicodeEscape decodes the \uXXXX escape at the start of s, and the low
// surrogate escape after it if it starts a UTF-16 pair, returning the rune
// and the number of bytes read.
func unicodeEscape(s string) (rune, int, error) {
	r1, ok := hex4(s)
	if !ok {
		return 0, 0, fmt.Errorf(`malformed \uXXXX escape`)
	}
	if utf16.IsSurrogate(r1) {
		if r2, ok := hex4(s[6:]); ok {
			if r := utf16.DecodeRune(r1, r2); r != utf8.RuneError {
				return r, 12, nil
			}
		}
		return utf8.RuneError, 6, nil
	}
	return r1, 6, nil
}

// hex4 decodes "\uXXXX" at the start of s.
func hex4(s string) (rune, bool) {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return 0, false
	}
	var r rune
	for _, c := range []byte(s[2:6]) {
		var d byte
		switch {
		case '0' <= c && c <= '9':
			d = c - '0'
		case 'a' <= c && c <= 'f':
			d = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(d)
	}
	return r, true
}
