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

	"github.com/loggate/loggate/backend/alerts/template"
)

// MaxFormatted is the longest text, in bytes, the format string decorator
// writes into a message: a format string repeating a long field cannot
// make an answer grow without bound. Longer text is cut at a character
// boundary.
const MaxFormatted = 64 << 10

// formatString fills a JMTE template with the message's fields
// (FormatStringDecorator): ${name}, ${name!default}, ${if name}…${else}…${end},
// ${foreach name item}…${end}, as the notifications' templates.
type formatString struct {
	tpl        *template.Template
	target     string
	requireAll bool
	used       []string
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
	tpl, err := template.Parse(format)
	if err != nil {
		return nil, fmt.Errorf("format_string: %w", err)
	}
	return formatString{tpl: tpl, target: target, requireAll: requireAll, used: tpl.Variables()}, nil
}

// formatSteps bounds the work of one message's rendering: a template
// looping over list fields renders a page of messages in bounded time.
const formatSteps = 100_000

func (d formatString) apply(_ context.Context, m map[string]any) (map[string]any, []map[string]any) {
	if d.requireAll {
		for _, name := range d.used {
			if _, ok := m[name]; !ok {
				return m, nil
			}
		}
	}
	// Past its bounds the text is cut: what was rendered is kept.
	s, _ := d.tpl.Render(m, template.RenderOptions{Format: formatValue, MaxSteps: formatSteps, MaxOutput: MaxFormatted})
	out := rebuild(m)
	addField(out, d.target, s)
	return out, nil
}

// formatValue prints a field as JMTE prints the Java value: nothing for
// null.
func formatValue(v any) string {
	if v == nil {
		return ""
	}
	return javaString(v)
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
