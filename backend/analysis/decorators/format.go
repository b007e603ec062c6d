package decorators

import (
	"context"
	"fmt"
	"maps"
	"net"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxFormatted is the longest text, in bytes, the format string decorator
// writes into a message: a format string repeating a long field cannot
// make an answer grow without bound. Longer text is cut at a character
// boundary.
const MaxFormatted = 64 << 10

// formatString fills a template with the message's fields
// (FormatStringDecorator, whose JMTE template names fields as ${name}).
type formatString struct {
	parts      []part
	target     string
	requireAll bool
	used       []string
}

// part is literal text, or the field a ${name} stands for.
type part struct {
	text  string
	field bool
}

func buildFormat(_ context.Context, _ *Service, config map[string]any) (decorator, error) {
	format, err := requiredString(config, "format_string")
	if err != nil {
		return nil, err
	}
	target, err := requiredString(config, "target_field")
	if err != nil {
		return nil, err
	}
	v, ok := config["require_all_fields"]
	if !ok || v == nil {
		return nil, fmt.Errorf("require_all_fields cannot be null")
	}
	requireAll, ok := v.(bool)
	if !ok {
		return nil, fmt.Errorf("require_all_fields must be a boolean")
	}
	d := formatString{parts: parseTemplate(format), target: target, requireAll: requireAll}
	for _, p := range d.parts {
		if p.field && !slices.Contains(d.used, p.text) {
			d.used = append(d.used, p.text)
		}
	}
	return d, nil
}

// parseTemplate splits a format string into text and ${name} variables
// (the name trimmed); a ${ that is never closed is text.
func parseTemplate(s string) []part {
	var parts []part
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i+2:], '}')
		if j < 0 {
			break
		}
		if i > 0 {
			parts = append(parts, part{text: s[:i]})
		}
		parts = append(parts, part{text: strings.TrimSpace(s[i+2 : i+2+j]), field: true})
		s = s[i+2+j+1:]
	}
	if s != "" {
		parts = append(parts, part{text: s})
	}
	return parts
}

func (d formatString) apply(_ context.Context, m map[string]any) (map[string]any, []map[string]any) {
	if d.requireAll {
		for _, name := range d.used {
			if _, ok := m[name]; !ok {
				return m, nil
			}
		}
	}
	var b strings.Builder
	for _, p := range d.parts {
		s := p.text
		if p.field {
			// A missing field renders as nothing, as in JMTE.
			s = ""
			if v, ok := m[p.text]; ok && v != nil {
				s = javaString(v)
			}
		}
		if b.Len()+len(s) > MaxFormatted {
			s = s[:MaxFormatted-b.Len()]
			for len(s) > 0 && !utf8.ValidString(s) {
				s = s[:len(s)-1]
			}
			b.WriteString(s)
			break
		}
		b.WriteString(s)
	}
	out := rebuild(m)
	addField(out, d.target, b.String())
	return out, nil
}

// mapString is Java's AbstractMap.toString, keys in order.
func mapString(m map[string]any) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range slices.Sorted(maps.Keys(m)) {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(k + "=" + javaString(m[k]))
	}
	b.WriteByte('}')
	return b.String()
}

// URL validation as LinkFieldDecorator's commons-validator UrlValidator
// (schemes http and https, ALLOW_LOCAL_URLS, ALLOW_2_SLASHES).
var (
	urlPattern       = regexp.MustCompile(`^(([^:/?#]+):)?(//([^/?#]*))?([^?#]*)(\?([^#]*))?(#(.*))?$`)
	schemePattern    = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+\-.]*$`)
	authorityPattern = regexp.MustCompile(`^(?:\[([0-9a-fA-F:]+)\]|(?:[a-zA-Z0-9%\-._~!$&'()*+,;=]+(?::[a-zA-Z0-9%\-._~!$&'()*+,;=]*)?@)?([A-Za-z0-9\-.]*))(?::(\d*))?(.*)?$`)
	pathPattern      = regexp.MustCompile(`^(/[-\w:@&?=+,.!/~*'%$_;()]*)?$`)
	domainPattern    = regexp.MustCompile(`^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+([A-Za-z](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)\.?$`)
	hostnamePattern  = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$`)
	tldPattern       = regexp.MustCompile(`^(?:[A-Za-z]{2,63}|xn--[A-Za-z0-9-]{1,59})$`)
)

func validURL(s string) bool {
	g := urlPattern.FindStringSubmatch(s)
	if g == nil {
		return false
	}
	scheme := strings.ToLower(g[2])
	if !schemePattern.MatchString(g[2]) || (scheme != "http" && scheme != "https") {
		return false
	}
	if g[3] == "" || !validAuthority(g[4]) {
		return false
	}
	if !validPath(g[5]) {
		return false
	}
	if g[6] != "" && strings.ContainsAny(g[7], " \t\n\r\f\v") {
		return false
	}
	return true
}

func validAuthority(a string) bool {
	g := authorityPattern.FindStringSubmatch(a)
	if g == nil {
		return false
	}
	if g[1] != "" {
		if ip := net.ParseIP(g[1]); ip == nil || ip.To4() != nil {
			return false
		}
	} else {
		host := g[2]
		if !validDomain(host) && !validIPv4(host) {
			return false
		}
	}
	if g[3] != "" {
		p, err := strconv.Atoi(g[3])
		if err != nil || p > 65535 {
			return false
		}
	}
	return strings.TrimSpace(g[4]) == ""
}

func validDomain(d string) bool {
	if d == "" || len(d) > 253 {
		return false
	}
	if g := domainPattern.FindStringSubmatch(d); g != nil {
		return tldPattern.MatchString(g[1])
	}
	return hostnamePattern.MatchString(d) // a local name, as ALLOW_LOCAL_URLS permits
}

func validIPv4(s string) bool {
	parts := strings.Split(s, ".")
	if len(parts) != 4 {
		return false
	}
	for _, p := range parts {
		if p == "" || len(p) > 3 {
			return false
		}
		n, err := strconv.Atoi(p)
		if err != nil || n > 255 || (len(p) > 1 && p[0] == '0') {
			return false
		}
	}
	return true
}

func validPath(p string) bool {
	if !pathPattern.MatchString(p) {
		return false
	}
	u := url.URL{Path: p}
	norm := pathNormalize(u.Path)
	return !(norm == "/.." || strings.HasPrefix(norm, "/../"))
}

// pathNormalize is URI.normalize's path: . and name/.. removed; a .. above
// the root stays.
func pathNormalize(p string) string {
	segs := strings.Split(p, "/")
	var out []string
	for i, s := range segs {
		switch {
		case s == "." && i > 0:
			continue
		case s == ".." && len(out) > 1 && out[len(out)-1] != "..":
			out = out[:len(out)-1]
			continue
		}
		out = append(out, s)
	}
	return strings.Join(out, "/")
}
