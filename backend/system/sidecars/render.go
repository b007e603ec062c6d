package sidecars

import (
	"fmt"
	"regexp"
	"strings"
)

// Graylog renders configuration templates with FreeMarker. loggate renders
// the part of FreeMarker that Graylog documents for Sidecar templates:
// ${...} interpolations of the Sidecar's variables (${sidecar.nodeId},
// ${sidecar.nodeName}, ${sidecar.operatingSystem}, ${sidecar.sidecarVersion})
// and of the configuration variables (${user.<name>}). Everything else is
// text, copied as it is; FreeMarker directives (<#…>, <@…>) and
// expressions other than a variable's name are refused as syntax errors
// rather than rendered differently from Graylog.

// renderError is a template that does not render: its message is
// FreeMarker's, as Graylog reports it.
type renderError struct{ msg string }

func (e *renderError) Error() string { return e.msg }

// expression is what loggate reads inside ${…}: a name and, optionally, a
// key of it, with the blanks FreeMarker allows around them.
var expression = regexp.MustCompile(`^\s*([A-Za-z_][A-Za-z0-9_]*)(?:\s*\.\s*([A-Za-z_][A-Za-z0-9_]*))?\s*$`)

// MaxRendered bounds a rendered template: a template naming a long
// variable many times would otherwise render to far more than any request
// or stored template holds (each ${user.x} is 10 bytes, its content up to
// a request body).
const MaxRendered = 8 << 20

// scope is the data model of a rendering: top-level name → key → value.
type scope map[string]map[string]string

// render renders template, named name in messages, with the data model.
// The result ends with a newline, as Graylog's does.
func render(name, template string, data scope) (string, error) {
	var b strings.Builder
	b.Grow(len(template) + 1)
	rest := template
	line, col := 1, 1
	advance := func(s string) {
		for _, r := range s {
			if r == '\n' {
				line, col = line+1, 1
			} else {
				col++
			}
		}
	}
	for {
		i := nextSpecial(rest)
		if text := i; (text < 0 && b.Len()+len(rest) > MaxRendered) || b.Len()+text > MaxRendered {
			return "", &renderError{fmt.Sprintf("The rendered template %q is larger than %d bytes", name, MaxRendered)}
		}
		if i < 0 {
			b.WriteString(rest)
			break
		}
		b.WriteString(rest[:i])
		advance(rest[:i])
		rest = rest[i:]
		if !strings.HasPrefix(rest, "${") {
			return "", syntaxError(name, line, col, "FreeMarker directives are not supported in Sidecar templates; only ${sidecar.<name>} and ${user.<name>} are")
		}
		end := strings.IndexByte(rest, '}')
		if end < 0 {
			return "", syntaxError(name, line, col, `Unclosed "${": no closing "}" found`)
		}
		inner := rest[2:end]
		m := expression.FindStringSubmatch(inner)
		if m == nil {
			return "", syntaxError(name, line, col, fmt.Sprintf("Unsupported expression ${%s}; only ${sidecar.<name>} and ${user.<name>} are supported", inner))
		}
		canonical := m[1]
		if m[2] != "" {
			canonical += "." + m[2]
		}
		top, ok := data[m[1]]
		var value string
		switch {
		case ok && m[2] == "":
			return "", &renderError{fmt.Sprintf("For \"${...}\" content: Expected a string or something automatically convertible to string (number, date or boolean), or \"template output\" , but this has evaluated to a hash (wrapper: f.t.SimpleHash):\n==> %s  [in template %q at line %d, column %d]", canonical, name, line, col+2)}
		case ok:
			value, ok = top[m[2]]
		}
		if !ok {
			return "", missing(name, canonical, line, col)
		}
		if b.Len()+len(value) > MaxRendered {
			return "", &renderError{fmt.Sprintf("The rendered template %q is larger than %d bytes (at line %d, column %d)", name, MaxRendered, line, col)}
		}
		b.WriteString(value)
		advance(rest[:end+1])
		rest = rest[end+1:]
	}
	out := b.String()
	if !strings.HasSuffix(out, "\n") {
		out += "\n"
	}
	return out, nil
}

// nextSpecial returns the offset of the next ${ or FreeMarker directive
// tag (<#, </#, <@, </@) in s, or -1.
func nextSpecial(s string) int {
	for i := 0; i < len(s)-1; i++ {
		switch {
		case s[i] == '$' && s[i+1] == '{':
			return i
		case s[i] == '<' && (s[i+1] == '#' || s[i+1] == '@'):
			return i
		case s[i] == '<' && s[i+1] == '/' && i+2 < len(s) && (s[i+2] == '#' || s[i+2] == '@'):
			return i
		}
	}
	return -1
}

// missing is FreeMarker's instruction stack for a variable that is not
// defined, which is what Graylog reports (RenderTemplateException carries
// getFTLInstructionStack()).
func missing(name, canonical string, line, col int) error {
	return &renderError{fmt.Sprintf("----\nFTL stack trace (\"~\" means nesting-related):\n\t- Failed at: ${%s}  [in template %q at line %d, column %d]\n----", canonical, name, line, col)}
}

func syntaxError(name string, line, col int, detail string) error {
	return &renderError{fmt.Sprintf("Syntax error in template %q in line %d, column %d:\n%s", name, line, col, detail)}
}
