package rewrite

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// ErrInvalidTemplate is wrapped by every error ParseTemplate returns.
var ErrInvalidTemplate = errors.New("rewrite: invalid path template")

// Template is a parsed path pattern such as "/users/{username}/tokens/{token}".
// Each segment is either a literal or a {name} placeholder that matches
// exactly one non-empty segment. Build one with ParseTemplate or
// MustTemplate; the zero Template matches only the root path.
type Template struct {
	pattern string
	segs    []segment
	names   []string
}

// segment is one element of a Template; lit is stored with its leading slash
// so that matching a literal is a single prefix comparison.
type segment struct {
	lit     string
	isParam bool
}

// ParseTemplate parses pattern. The pattern starts with "/", its segments are
// non-empty, and a placeholder fills its whole segment and has a unique name.
func ParseTemplate(pattern string) (Template, error) {
	if !strings.HasPrefix(pattern, "/") {
		return Template{}, fmt.Errorf("%w %q: must start with /", ErrInvalidTemplate, pattern)
	}
	t := Template{pattern: pattern}
	if pattern == "/" {
		return t, nil
	}
	for _, s := range strings.Split(pattern[1:], "/") {
		switch {
		case s == "":
			return Template{}, fmt.Errorf("%w %q: empty segment", ErrInvalidTemplate, pattern)
		case strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}"):
			name := s[1 : len(s)-1]
			if name == "" || strings.ContainsAny(name, "{}") {
				return Template{}, fmt.Errorf("%w %q: bad placeholder %q", ErrInvalidTemplate, pattern, s)
			}
			for _, n := range t.names {
				if n == name {
					return Template{}, fmt.Errorf("%w %q: duplicate placeholder %q", ErrInvalidTemplate, pattern, name)
				}
			}
			t.names = append(t.names, name)
			t.segs = append(t.segs, segment{isParam: true})
		case strings.ContainsAny(s, "{}"):
			return Template{}, fmt.Errorf("%w %q: placeholder must fill segment %q", ErrInvalidTemplate, pattern, s)
		default:
			t.segs = append(t.segs, segment{lit: "/" + s})
		}
	}
	return t, nil
}

// MustTemplate is like ParseTemplate but panics on error. It is meant for
// package-level variables built from constant patterns.
func MustTemplate(pattern string) Template {
	t, err := ParseTemplate(pattern)
	if err != nil {
		panic(err)
	}
	return t
}

// String returns the pattern the Template was parsed from.
func (t Template) String() string { return t.pattern }

// Names returns a copy of the placeholder names in the order they appear.
func (t Template) Names() []string {
	return append([]string(nil), t.names...)
}

// Match reports whether path matches t and appends the captured placeholder
// values to dst. path is the escaped path (r.URL.EscapedPath()), and the
// values are returned still escaped: "/users/a%2Fb" captures "a%2Fb". One
// trailing slash on path is tolerated because old Graylog documentation
// writes "/users/GM/tokens/". On a miss dst is returned with its original
// length. Match does not allocate unless dst lacks capacity for the values.
func (t Template) Match(path string, dst []string) ([]string, bool) {
	n := len(dst)
	rest := path
	for _, s := range t.segs {
		if !s.isParam {
			if !strings.HasPrefix(rest, s.lit) {
				return dst[:n], false
			}
			rest = rest[len(s.lit):]
			if rest != "" && rest[0] != '/' {
				return dst[:n], false
			}
			continue
		}
		if len(rest) < 2 || rest[0] != '/' {
			return dst[:n], false
		}
		end := strings.IndexByte(rest[1:], '/') + 1
		if end == 0 {
			end = len(rest)
		}
		if end == 1 {
			return dst[:n], false
		}
		dst = append(dst, rest[1:end])
		rest = rest[end:]
	}
	if rest == "" || rest == "/" {
		return dst, true
	}
	return dst[:n], false
}

// Expand builds a path from t, escaping each value with url.PathEscape. It
// takes one value per placeholder, in the order of Names, and panics
// otherwise: a wrong count is a programming error in a version change.
// Values captured by Match are escaped already; unescape them with
// url.PathUnescape before passing them back here.
func (t Template) Expand(vals ...string) string {
	if len(vals) != len(t.names) {
		panic(fmt.Sprintf("rewrite: template %q takes %d values, got %d", t.pattern, len(t.names), len(vals)))
	}
	if len(t.segs) == 0 {
		return "/"
	}
	var b strings.Builder
	b.Grow(len(t.pattern) + 16)
	i := 0
	for _, s := range t.segs {
		if !s.isParam {
			b.WriteString(s.lit)
			continue
		}
		b.WriteByte('/')
		b.WriteString(url.PathEscape(vals[i]))
		i++
	}
	return b.String()
}
