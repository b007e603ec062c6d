package rewrite

// Pretty appends src to dst indented the way Jackson's DefaultPrettyPrinter
// writes it, which is how Graylog answers ?pretty=true: object members one
// per line, indented two spaces per level of object nesting, with " : "
// after the name; arrays on one line, "[ 1, 2 ]", and not adding a level, so
// an object inside an array is indented from its enclosing object; empty
// containers as "{ }" and "[ ]". Strings and numbers are copied verbatim.
//
// If src is not valid JSON (or nests deeper than encoding/json accepts),
// Pretty appends src unchanged, so the caller can send it as it is.
func Pretty(dst, src []byte) []byte {
	p := printer{src: src, dst: dst}
	i, ok := p.value(skipWS(src, 0), 0, 0)
	if !ok || skipWS(src, i) != len(src) {
		return append(dst, src...)
	}
	return p.dst
}

// printer writes the indented form of src while validating it, so that a
// document is read once.
type printer struct {
	src, dst []byte
}

// indent is sliced for indentation; deeper levels are written in chunks.
const indent = "\n                                                                "

func (p *printer) newline(level int) {
	n := 2 * level
	p.dst = append(p.dst, indent[:1+min(n, len(indent)-1)]...)
	for n -= len(indent) - 1; n > 0; n -= len(indent) - 1 {
		p.dst = append(p.dst, indent[1:1+min(n, len(indent)-1)]...)
	}
}

// value prints the value at src[i]. level counts the enclosing objects,
// which decide indentation; depth counts all enclosing containers, which
// the nesting limit applies to.
func (p *printer) value(i, level, depth int) (int, bool) {
	b := p.src
	if i >= len(b) {
		return i, false
	}
	switch b[i] {
	case '{':
		if depth >= maxDepth {
			return i, false
		}
		p.dst = append(p.dst, '{')
		i = skipWS(b, i+1)
		if i < len(b) && b[i] == '}' {
			p.dst = append(p.dst, ' ', '}')
			return i + 1, true
		}
		for {
			p.newline(level + 1)
			if i >= len(b) || b[i] != '"' {
				return i, false
			}
			end, ok := validString(b, i)
			if !ok {
				return end, false
			}
			p.dst = append(p.dst, b[i:end]...)
			if i = skipWS(b, end); i >= len(b) || b[i] != ':' {
				return i, false
			}
			p.dst = append(p.dst, " : "...)
			if i, ok = p.value(skipWS(b, i+1), level+1, depth+1); !ok {
				return i, false
			}
			if i = skipWS(b, i); i >= len(b) {
				return i, false
			}
			switch b[i] {
			case ',':
				p.dst = append(p.dst, ',')
				i = skipWS(b, i+1)
			case '}':
				p.newline(level)
				p.dst = append(p.dst, '}')
				return i + 1, true
			default:
				return i, false
			}
		}
	case '[':
		if depth >= maxDepth {
			return i, false
		}
		p.dst = append(p.dst, '[', ' ')
		i = skipWS(b, i+1)
		if i < len(b) && b[i] == ']' {
			p.dst = append(p.dst, ']')
			return i + 1, true
		}
		for {
			var ok bool
			if i, ok = p.value(i, level, depth+1); !ok {
				return i, false
			}
			if i = skipWS(b, i); i >= len(b) {
				return i, false
			}
			switch b[i] {
			case ',':
				p.dst = append(p.dst, ',', ' ')
				i = skipWS(b, i+1)
			case ']':
				p.dst = append(p.dst, ' ', ']')
				return i + 1, true
			default:
				return i, false
			}
		}
	}
	end, ok := validScalar(b, i)
	if ok {
		p.dst = append(p.dst, b[i:end]...)
	}
	return end, ok
}
