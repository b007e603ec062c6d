package gelf

import (
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// maxDepth bounds the nesting of objects and arrays inside a message, as
// Jackson's StreamReadConstraints do in later versions; nothing legitimate
// comes close and it keeps hostile input from growing the stack.
const maxDepth = 1000

// kind is the type of a top-level JSON member value.
type kind uint8

const (
	kindString kind = iota + 1
	kindInt         // an integer literal that fits int64
	kindFloat       // any other number
	kindTrue
	kindFalse
	kindNull
	kindContainer // an object or an array, kept as source text
)

// value is a parsed top-level member value. Strings without escapes and
// containers are substrings of the payload, so parsing allocates only for
// strings with escapes.
type value struct {
	kind kind
	// raw is the source text of a number or a container.
	raw string
	// str is the decoded text of a string.
	str string
	i   int64
	f   float64
	// dirty marks a container whose text is not compact: it holds
	// whitespace, trailing commas or raw control characters.
	dirty bool
}

// member is one key/value pair of the top-level object.
type member struct {
	key string
	val value
}

// scanner parses the JSON Graylog's GelfCodec accepts: RFC 8259 plus
// Jackson's ALLOW_TRAILING_COMMA and ALLOW_UNQUOTED_CONTROL_CHARS. It is a
// hand-written single pass because the generic decoders cost several times
// the per-message budget of a GELF input.
type scanner struct {
	s     string
	i     int
	buf   []byte // scratch for unescaping
	stack []byte // open containers while skipping
	// keep makes unescaped strings alias buf, which then only grows until
	// the scanner is reset, instead of each being a copy of their own.
	keep bool
}

func (p *scanner) fail(what string) error {
	return invalidf("invalid JSON at offset %d: %s", p.i, what)
}

// ws skips JSON whitespace and reports whether there was any.
func (p *scanner) ws() bool {
	start := p.i
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return p.i > start
		}
	}
	return p.i > start
}

// object parses the top-level object into members, appending to dst. Keys
// are not deduplicated here.
func (p *scanner) object(dst []member, add func([]member, member) []member) ([]member, error) {
	p.ws()
	if p.i >= len(p.s) {
		return dst, p.fail("empty payload")
	}
	if p.s[p.i] != '{' {
		return dst, p.fail("payload is not a JSON object")
	}
	p.i++
	p.ws()
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		return dst, p.end()
	}
	for {
		if p.i >= len(p.s) || p.s[p.i] != '"' {
			return dst, p.fail("expected a member name")
		}
		key, err := p.str()
		if err != nil {
			return dst, err
		}
		p.ws()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return dst, p.fail("expected ':'")
		}
		p.i++
		p.ws()
		v, err := p.value()
		if err != nil {
			return dst, err
		}
		dst = add(dst, member{key: key, val: v})
		p.ws()
		if p.i >= len(p.s) {
			return dst, p.fail("unexpected end of object")
		}
		switch p.s[p.i] {
		case ',':
			p.i++
			p.ws()
			if p.i < len(p.s) && p.s[p.i] == '}' { // trailing comma
				p.i++
				return dst, p.end()
			}
		case '}':
			p.i++
			return dst, p.end()
		default:
			return dst, p.fail("expected ',' or '}'")
		}
	}
}

// end accepts whitespace and NUL bytes after the object: clients that
// null-terminate UDP or HTTP payloads as they would on TCP are common.
func (p *scanner) end() error {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r', 0:
			p.i++
		default:
			return p.fail("data after the JSON object")
		}
	}
	return nil
}

func (p *scanner) value() (value, error) {
	if p.i >= len(p.s) {
		return value{}, p.fail("expected a value")
	}
	switch c := p.s[p.i]; c {
	case '"':
		s, err := p.str()
		return value{kind: kindString, str: s}, err
	case '{', '[':
		start := p.i
		dirty, err := p.container()
		return value{kind: kindContainer, raw: p.s[start:p.i], dirty: dirty}, err
	case 't':
		return value{kind: kindTrue}, p.literal("true")
	case 'f':
		return value{kind: kindFalse}, p.literal("false")
	case 'n':
		return value{kind: kindNull}, p.literal("null")
	default:
		return p.number()
	}
}

func (p *scanner) literal(lit string) error {
	if !strings.HasPrefix(p.s[p.i:], lit) {
		return p.fail("invalid literal")
	}
	p.i += len(lit)
	return nil
}

// number parses a JSON number. Integers that do not fit int64 become
// float64.
func (p *scanner) number() (value, error) {
	start := p.i
	j := p.i
	if j < len(p.s) && p.s[j] == '-' {
		j++
	}
	switch {
	case j < len(p.s) && p.s[j] == '0':
		j++
	case j < len(p.s) && p.s[j] >= '1' && p.s[j] <= '9':
		j = digits(p.s, j)
	default:
		return value{}, p.fail("invalid value")
	}
	integral := true
	if j < len(p.s) && p.s[j] == '.' {
		k := digits(p.s, j+1)
		if k == j+1 {
			p.i = k
			return value{}, p.fail("invalid number")
		}
		j, integral = k, false
	}
	if j < len(p.s) && (p.s[j] == 'e' || p.s[j] == 'E') {
		j++
		if j < len(p.s) && (p.s[j] == '+' || p.s[j] == '-') {
			j++
		}
		k := digits(p.s, j)
		if k == j {
			p.i = k
			return value{}, p.fail("invalid number")
		}
		j, integral = k, false
	}
	raw := p.s[start:j]
	p.i = j
	if integral {
		if n, err := strconv.ParseInt(raw, 10, 64); err == nil {
			return value{kind: kindInt, raw: raw, i: n}, nil
		}
	}
	// Out of range yields ±Inf; the mapping drops non-finite values.
	f, _ := strconv.ParseFloat(raw, 64)
	return value{kind: kindFloat, raw: raw, f: f}, nil
}

func digits(s string, j int) int {
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	return j
}

// str parses the string at p.i (an opening quote). Without escapes the
// result is a substring of the payload.
func (p *scanner) str() (string, error) {
	start := p.i + 1
	q := strings.IndexByte(p.s[start:], '"')
	if q < 0 {
		p.i = len(p.s)
		return "", p.fail("unterminated string")
	}
	if strings.IndexByte(p.s[start:start+q], '\\') < 0 {
		p.i = start + q + 1
		return p.s[start : start+q], nil
	}
	return p.unescape(start)
}

func (p *scanner) unescape(start int) (string, error) {
	from := 0
	if p.keep {
		from = len(p.buf)
	}
	b := p.buf[:from]
	j := start
	for j < len(p.s) {
		c := p.s[j]
		switch {
		case c == '"':
			p.i = j + 1
			p.buf = b
			if p.keep {
				// A grown buf leaves the strings cut before in the old one.
				return unsafe.String(unsafe.SliceData(b[from:]), len(b)-from), nil
			}
			return string(b), nil
		case c != '\\':
			k := j + 1
			for k < len(p.s) && p.s[k] != '"' && p.s[k] != '\\' {
				k++
			}
			b = append(b, p.s[j:k]...)
			j = k
			continue
		}
		j++
		if j >= len(p.s) {
			break
		}
		switch e := p.s[j]; e {
		case '"', '\\', '/':
			b = append(b, e)
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r, n := p.unicodeEscape(j - 1)
			if n == 0 {
				p.i = j
				return "", p.fail("invalid \\u escape")
			}
			b = utf8.AppendRune(b, r)
			j += n - 1
			continue
		default:
			p.i = j
			return "", p.fail("invalid escape")
		}
		j++
	}
	p.i = len(p.s)
	return "", p.fail("unterminated string")
}

// unicodeEscape decodes the \uXXXX escape (or surrogate pair) at j and
// returns the rune and the bytes consumed; 0 bytes means invalid. A lone
// surrogate becomes U+FFFD: the text must stay valid UTF-8.
func (p *scanner) unicodeEscape(j int) (rune, int) {
	r1, ok := hex4(p.s, j+2)
	if !ok {
		return 0, 0
	}
	if !utf16.IsSurrogate(r1) {
		return r1, 6
	}
	if r1 < 0xDC00 && j+12 <= len(p.s) && p.s[j+6] == '\\' && p.s[j+7] == 'u' {
		if r2, ok := hex4(p.s, j+8); ok {
			if r := utf16.DecodeRune(r1, r2); r != utf8.RuneError {
				return r, 12
			}
		}
	}
	return utf8.RuneError, 6
}

func hex4(s string, j int) (rune, bool) {
	if j+4 > len(s) {
		return 0, false
	}
	var r rune
	for _, c := range []byte(s[j : j+4]) {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// skipString moves past the string at p.i, validating its escapes, and
// reports whether it holds raw control characters.
func (p *scanner) skipString() (ctrl bool, err error) {
	j := p.i + 1
	for j < len(p.s) {
		c := p.s[j]
		switch {
		case c == '"':
			p.i = j + 1
			return ctrl, nil
		case c == '\\':
			if j+1 >= len(p.s) {
				j++
				continue
			}
			switch p.s[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j += 2
			case 'u':
				if _, ok := hex4(p.s, j+2); !ok {
					p.i = j
					return ctrl, p.fail("invalid \\u escape")
				}
				j += 6
			default:
				p.i = j
				return ctrl, p.fail("invalid escape")
			}
		default:
			ctrl = ctrl || c < 0x20
			j++
		}
	}
	p.i = len(p.s)
	return ctrl, p.fail("unterminated string")
}

// container validates the object or array at p.i without recursion and
// moves past it. It reports whether the text needs compacting.
func (p *scanner) container() (dirty bool, err error) {
	const (
		stValue = iota
		stOpened
		stAfter
	)
	stack := p.stack[:0]
	defer func() { p.stack = stack }()
	state := stValue
	for {
		switch state {
		case stValue:
			dirty = p.ws() || dirty
			if p.i >= len(p.s) {
				return dirty, p.fail("expected a value")
			}
			switch c := p.s[p.i]; c {
			case '{', '[':
				if len(stack) >= maxDepth {
					return dirty, p.fail("nesting too deep")
				}
				stack = append(stack, c)
				p.i++
				state = stOpened
				continue
			case '"':
				ctrl, err := p.skipString()
				if err != nil {
					return dirty, err
				}
				dirty = dirty || ctrl
			default:
				if _, err := p.value(); err != nil {
					return dirty, err
				}
			}
			state = stAfter
		case stOpened:
			dirty = p.ws() || dirty
			if p.i >= len(p.s) {
				return dirty, p.fail("unexpected end of input")
			}
			if p.s[p.i] == closer(stack[len(stack)-1]) {
				stack = stack[:len(stack)-1]
				p.i++
				state = stAfter
				continue
			}
			if err := p.memberName(stack, &dirty); err != nil {
				return dirty, err
			}
			state = stValue
		case stAfter:
			if len(stack) == 0 {
				return dirty, nil
			}
			dirty = p.ws() || dirty
			if p.i >= len(p.s) {
				return dirty, p.fail("unexpected end of input")
			}
			top := stack[len(stack)-1]
			switch p.s[p.i] {
			case ',':
				p.i++
				dirty = p.ws() || dirty
				if p.i < len(p.s) && p.s[p.i] == closer(top) { // trailing comma
					dirty = true
					stack = stack[:len(stack)-1]
					p.i++
					continue
				}
				if err := p.memberName(stack, &dirty); err != nil {
					return dirty, err
				}
				state = stValue
			case closer(top):
				stack = stack[:len(stack)-1]
				p.i++
			default:
				return dirty, p.fail("expected ',' or a closing bracket")
			}
		}
	}
}

// memberName consumes `"name":` when the innermost container is an object.
func (p *scanner) memberName(stack []byte, dirty *bool) error {
	if stack[len(stack)-1] != '{' {
		return nil
	}
	if p.i >= len(p.s) || p.s[p.i] != '"' {
		return p.fail("expected a member name")
	}
	ctrl, err := p.skipString()
	if err != nil {
		return err
	}
	*dirty = p.ws() || *dirty || ctrl
	if p.i >= len(p.s) || p.s[p.i] != ':' {
		return p.fail("expected ':'")
	}
	p.i++
	return nil
}

func closer(open byte) byte {
	if open == '{' {
		return '}'
	}
	return ']'
}

// compact returns the container text the way Jackson's JsonNode.toString
// prints it: no whitespace between tokens, no trailing commas, control
// characters escaped. Escapes already present are kept as sent. Escaping
// can make it six times the size of raw: that memory is asked of budget
// first, and the text is built in one allocation of its exact size.
func compact(raw string, budget Budget) (string, error) {
	var count compactOut
	count.from(raw)
	if budget != nil {
		if err := budget.Grow(count.n); err != nil {
			return "", err
		}
	}
	out := compactOut{sb: new(strings.Builder)}
	out.sb.Grow(count.n)
	out.from(raw)
	return out.sb.String(), nil
}

// compactOut receives compact's text: it counts the bytes, and writes them
// to sb when set.
type compactOut struct {
	n  int
	sb *strings.Builder
}

func (o *compactOut) byte(c byte) {
	o.n++
	if o.sb != nil {
		o.sb.WriteByte(c)
	}
}

func (o *compactOut) bytes(b []byte) {
	o.n += len(b)
	if o.sb != nil {
		o.sb.Write(b)
	}
}

// from writes compact's text of raw.
func (o *compactOut) from(raw string) {
	var esc [6]byte
	inString := false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if inString {
			switch {
			case c == '\\':
				o.byte(c)
				o.byte(raw[i+1])
				i++
			case c == '"':
				inString = false
				o.byte(c)
			case c < 0x20:
				o.bytes(appendControl(esc[:0], c))
			default:
				o.byte(c)
			}
			continue
		}
		switch c {
		case ' ', '\t', '\n', '\r':
		case '"':
			inString = true
			o.byte(c)
		case ',':
			j := i + 1
			for j < len(raw) && (raw[j] == ' ' || raw[j] == '\t' || raw[j] == '\n' || raw[j] == '\r') {
				j++
			}
			if j < len(raw) && (raw[j] == '}' || raw[j] == ']') {
				continue
			}
			o.byte(c)
		default:
			o.byte(c)
		}
	}
}

func appendControl(b []byte, c byte) []byte {
	switch c {
	case '\b':
		return append(b, '\\', 'b')
	case '\f':
		return append(b, '\\', 'f')
	case '\n':
		return append(b, '\\', 'n')
	case '\r':
		return append(b, '\\', 'r')
	case '\t':
		return append(b, '\\', 't')
	}
	const hexDigits = "0123456789abcdef"
	return append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
}
