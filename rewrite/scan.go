package rewrite

// maxDepth bounds container nesting, as encoding/json does. Without it a
// request body of a few megabytes of "[" would recurse until the goroutine
// stack limit kills the process (gjson.Valid has no such bound, which is why
// this package validates on its own).
const maxDepth = 10000

// valid reports whether b holds exactly one JSON value, optionally surrounded
// by whitespace. Like encoding/json it does not insist on valid UTF-8 inside
// strings.
func valid(b []byte) bool {
	i, ok := validValue(b, skipWS(b, 0), 0)
	return ok && skipWS(b, i) == len(b)
}

// validValue checks the value starting at b[i] and returns the index after
// it. depth is the number of containers enclosing the value.
func validValue(b []byte, i, depth int) (int, bool) {
	if i >= len(b) {
		return i, false
	}
	switch b[i] {
	case '{':
		if depth >= maxDepth {
			return i, false
		}
		i = skipWS(b, i+1)
		if i < len(b) && b[i] == '}' {
			return i + 1, true
		}
		for {
			var ok bool
			if i >= len(b) || b[i] != '"' {
				return i, false
			}
			if i, ok = validString(b, i); !ok {
				return i, false
			}
			if i = skipWS(b, i); i >= len(b) || b[i] != ':' {
				return i, false
			}
			if i, ok = validValue(b, skipWS(b, i+1), depth+1); !ok {
				return i, false
			}
			if i = skipWS(b, i); i >= len(b) {
				return i, false
			}
			switch b[i] {
			case ',':
				i = skipWS(b, i+1)
			case '}':
				return i + 1, true
			default:
				return i, false
			}
		}
	case '[':
		if depth >= maxDepth {
			return i, false
		}
		i = skipWS(b, i+1)
		if i < len(b) && b[i] == ']' {
			return i + 1, true
		}
		for {
			var ok bool
			if i, ok = validValue(b, i, depth+1); !ok {
				return i, false
			}
			if i = skipWS(b, i); i >= len(b) {
				return i, false
			}
			switch b[i] {
			case ',':
				i = skipWS(b, i+1)
			case ']':
				return i + 1, true
			default:
				return i, false
			}
		}
	}
	return validScalar(b, i)
}

// validScalar checks the string, number or literal starting at b[i].
func validScalar(b []byte, i int) (int, bool) {
	switch c := b[i]; {
	case c == '"':
		return validString(b, i)
	case c == '-' || (c >= '0' && c <= '9'):
		return validNumber(b, i)
	case c == 't':
		return validLiteral(b, i, "true")
	case c == 'f':
		return validLiteral(b, i, "false")
	case c == 'n':
		return validLiteral(b, i, "null")
	}
	return i, false
}

func validLiteral(b []byte, i int, lit string) (int, bool) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return i, false
	}
	return i + len(lit), true
}

// stringStop marks the bytes that end a plain run inside a JSON string: the
// quote, the backslash and the control characters that must be escaped.
var stringStop = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

// validString checks the string whose opening quote is at b[i] and returns
// the index after its closing quote.
func validString(b []byte, i int) (int, bool) {
	for i++; i < len(b); i++ {
		for i < len(b) && !stringStop[b[i]] {
			i++
		}
		if i == len(b) {
			break
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1, true
		case c < 0x20:
			return i, false
		case c == '\\':
			if i++; i >= len(b) {
				return i, false
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if len(b)-i < 5 || !isHex(b[i+1]) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) {
					return i, false
				}
				i += 4
			default:
				return i, false
			}
		}
	}
	return i, false
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// validNumber checks the number starting at b[i] against the JSON grammar:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func validNumber(b []byte, i int) (int, bool) {
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = skipDigits(b, i+1)
	default:
		return i, false
	}
	if i < len(b) && b[i] == '.' {
		j := skipDigits(b, i+1)
		if j == i+1 {
			return j, false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := skipDigits(b, i)
		if j == i {
			return j, false
		}
		i = j
	}
	return i, true
}

func skipDigits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

func skipWS(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// The skip functions below walk a document valid has accepted, so they look
// only for the bytes that end a token.

// skipString returns the index after the string whose opening quote is at
// b[i], and whether the string holds an escape sequence.
func skipString(b []byte, i int) (end int, escaped bool) {
	for i++; i < len(b); i++ {
		for i < len(b) && !stringStop[b[i]] {
			i++
		}
		if i == len(b) {
			break
		}
		switch b[i] {
		case '"':
			return i + 1, escaped
		case '\\':
			escaped = true
			i++
		}
	}
	return i, escaped
}

// skipValue returns the index after the value starting at b[i].
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		end, _ := skipString(b, i)
		return end
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i, _ = skipString(b, i)
				i--
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return i
	}
	for ; i < len(b); i++ {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
	}
	return i
}

// member locates the start of one name/value pair of an object:
// b[keyStart:keyEnd] is the quoted name, escaped tells whether it holds an
// escape sequence, and the value starts at valStart.
// The value's end is left to the caller, which may skip it or walk into it;
// finding it here would read every nested value twice.
type member struct {
	keyStart, keyEnd, valStart int
	escaped                    bool
}

// nextMember returns the member after index i of an object (i is just past
// the "{" or past the previous member's value). At the closing brace ok is
// false and end is the index after it.
func nextMember(b []byte, i int) (m member, end int, ok bool) {
	i = skipWS(b, i)
	if b[i] == '}' {
		return m, i + 1, false
	}
	if b[i] == ',' {
		i = skipWS(b, i+1)
	}
	m.keyStart = i
	m.keyEnd, m.escaped = skipString(b, i)
	m.valStart = skipWS(b, skipWS(b, m.keyEnd)+1)
	return m, 0, true
}

// nextElement is nextMember for arrays: it returns the start of the element
// after index i or, at the closing bracket, the index after it.
func nextElement(b []byte, i int) (start int, ok bool) {
	i = skipWS(b, i)
	if b[i] == ']' {
		return i + 1, false
	}
	if b[i] == ',' {
		i = skipWS(b, i+1)
	}
	return i, true
}
