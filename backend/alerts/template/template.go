// Package template renders the subset of JMTE (Java Minimal Template
// Engine) that Graylog 4.0's notifications and event field templates use,
// so that templates written for Graylog work unchanged:
//
//	${a.b.c}                       the value at a path of the model ("" when absent)
//	${a.b!default text}            the value, or the text when absent or empty
//	${a;renderer}                  the value (the renderer name is ignored)
//	${if a}…${else}…${end}         a is present, not false, not "" and not empty
//	${if !a}…${end}                the opposite
//	${foreach list item}…${end}    the body once per element, as ${item};
//	${foreach list item , }…${end} the same, with a separator between elements
//	\${                            a literal ${
//
// A map iterated by foreach gives entries with .key and .value, in key
// order. Lists print as Java prints them ([a, b]), maps as {k=v}, numbers
// as Java's long or double. Go's text/template is not used because its
// syntax ({{.event.message}}) is not the one Graylog users have written.
package template

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/loggate/loggate/backend/logs/messages"
)

// Template is a parsed template.
type Template struct{ nodes []node }

type node struct {
	kind   int // text, value, if, foreach
	text   string
	path   []string
	def    *string
	negate bool
	item   string
	sep    string
	body   []node
	orElse []node
}

const (
	kindText = iota
	kindValue
	kindIf
	kindForeach
)

// maxDepth bounds nesting of if and foreach.
const maxDepth = 64

// Parse parses a template.
func Parse(src string) (*Template, error) {
	p := &parser{src: src}
	nodes, end, err := p.parse(0)
	if err != nil {
		return nil, err
	}
	if end != "" {
		return nil, fmt.Errorf("template: ${%s} without an opening ${if} or ${foreach}", end)
	}
	return &Template{nodes: nodes}, nil
}

type parser struct {
	src string
	pos int
}

// parse reads nodes until the end of the source or a closing tag, which it
// returns ("end" or "else").
func (p *parser) parse(depth int) ([]node, string, error) {
	if depth > maxDepth {
		return nil, "", fmt.Errorf("template: nested deeper than %d", maxDepth)
	}
	var out []node
	var text strings.Builder
	flush := func() {
		if text.Len() > 0 {
			out = append(out, node{kind: kindText, text: text.String()})
			text.Reset()
		}
	}
	for p.pos < len(p.src) {
		rest := p.src[p.pos:]
		if strings.HasPrefix(rest, `\${`) {
			text.WriteString("${")
			p.pos += 3
			continue
		}
		if !strings.HasPrefix(rest, "${") {
			i := strings.Index(rest[1:], "$")
			if i < 0 {
				text.WriteString(rest)
				p.pos = len(p.src)
				continue
			}
			// Stop before a "$" or before the "\" of an escaped "\${".
			n := i + 1
			if rest[n-1] == '\\' && strings.HasPrefix(rest[n:], "${") {
				n--
			}
			if n == 0 {
				n = 1
			}
			text.WriteString(rest[:n])
			p.pos += n
			continue
		}
		closing := strings.IndexByte(rest, '}')
		if closing < 0 {
			// JMTE's scan stops at a ${ never closed: the rest is text.
			text.WriteString(rest)
			p.pos = len(p.src)
			continue
		}
		raw := rest[2:closing]
		tag := strings.TrimSpace(raw)
		p.pos += closing + 1
		word, arg, _ := strings.Cut(tag, " ")
		arg = strings.TrimSpace(arg)
		switch word {
		case "end", "else":
			flush()
			return out, word, nil
		case "if":
			flush()
			n := node{kind: kindIf}
			if strings.HasPrefix(arg, "!") {
				n.negate = true
				arg = strings.TrimSpace(arg[1:])
			}
			if arg == "" {
				return nil, "", fmt.Errorf("template: ${if} without a condition")
			}
			n.path = strings.Split(arg, ".")
			body, end, err := p.parse(depth + 1)
			if err != nil {
				return nil, "", err
			}
			n.body = body
			if end == "else" {
				if n.orElse, end, err = p.parse(depth + 1); err != nil {
					return nil, "", err
				}
			}
			if end != "end" {
				return nil, "", fmt.Errorf("template: ${if %s} without ${end}", arg)
			}
			out = append(out, n)
		case "foreach":
			flush()
			fields := strings.Fields(arg)
			if len(fields) < 2 {
				return nil, "", fmt.Errorf("template: ${foreach %s} needs a list and a name", arg)
			}
			n := node{kind: kindForeach, path: strings.Split(fields[0], "."), item: fields[1]}
			if len(fields) > 2 {
				// The separator is the rest of the tag after the name and
				// one space, trailing spaces included.
				rest := raw
				for _, f := range []string{"foreach", fields[0], fields[1]} {
					rest = strings.TrimLeft(rest, " \t\r\n")[len(f):]
				}
				n.sep = strings.TrimPrefix(rest, " ")
			}
			body, end, err := p.parse(depth + 1)
			if err != nil {
				return nil, "", err
			}
			if end != "end" {
				return nil, "", fmt.Errorf("template: ${foreach %s} without ${end}", arg)
			}
			n.body = body
			out = append(out, n)
		default:
			if tag == "" {
				return nil, "", fmt.Errorf("template: empty ${} at offset %d", p.pos-closing-1)
			}
			flush()
			expr, _, _ := strings.Cut(tag, ";")
			n := node{kind: kindValue}
			if path, def, ok := strings.Cut(expr, "!"); ok {
				d := strings.Trim(def, `"`)
				n.def = &d
				expr = path
			}
			n.path = strings.Split(strings.TrimSpace(expr), ".")
			out = append(out, n)
		}
	}
	flush()
	return out, "", nil
}

// Execute renders the template over model, a tree of maps, lists and
// scalars as JSON decoding makes them.
func (t *Template) Execute(model map[string]any) (string, error) {
	out, err := t.Render(model, RenderOptions{})
	if err != nil {
		return "", err
	}
	return out, nil
}

// RenderOptions print and bound one rendering.
type RenderOptions struct {
	// Format prints a value (Format when nil): JSON-decoded models hold
	// every number as a float64, other models know their longs.
	Format func(any) string
	// MaxSteps and MaxOutput bound the rendering (the package's bounds
	// when 0).
	MaxSteps, MaxOutput int
}

// Render renders the template over model. Past its bounds it stops and
// returns what it wrote, cut at MaxOutput on a character boundary, with
// ErrTooBig.
func (t *Template) Render(model map[string]any, o RenderOptions) (string, error) {
	r := renderer{steps: cmp.Or(o.MaxSteps, MaxSteps), max: cmp.Or(o.MaxOutput, MaxOutput), format: o.Format}
	if r.format == nil {
		r.format = Format
	}
	r.render(t.nodes, scope{vars: model})
	if r.steps < 0 || r.b.Len() > r.max {
		out := r.b.String()
		if len(out) > r.max {
			out = out[:r.max]
			for len(out) > 0 { // a character cut in two goes
				if c, size := utf8.DecodeLastRuneInString(out); c != utf8.RuneError || size > 1 {
					break
				}
				out = out[:len(out)-1]
			}
		}
		return out, ErrTooBig
	}
	return r.b.String(), nil
}

// Variables are the names the template reads from its model, in the order
// of their first use (JMTE's getUsedVariableDescriptions): those of values,
// conditions and lists, dotted paths whole, the names foreach binds left
// out.
func (t *Template) Variables() []string {
	var out []string
	var visit func(nodes []node, bound []string)
	visit = func(nodes []node, bound []string) {
		for _, n := range nodes {
			if n.kind != kindText && !slices.Contains(bound, n.path[0]) {
				if name := strings.Join(n.path, "."); !slices.Contains(out, name) {
					out = append(out, name)
				}
			}
			inner := bound
			if n.kind == kindForeach {
				inner = append(slices.Clip(bound), n.item)
			}
			visit(n.body, inner)
			visit(n.orElse, bound)
		}
	}
	visit(t.nodes, nil)
	return out
}

// MaxSteps and MaxOutput bound one rendering: nested foreach loops
// multiply, so that a template of a few lines over a message of a few
// fields could otherwise render for hours, on the scheduler that runs
// every definition's firings, and fill the memory.
const (
	MaxSteps  = 1_000_000 // parts of the template rendered
	MaxOutput = 4 << 20   // bytes
)

// ErrTooBig is the error of a rendering past MaxSteps or MaxOutput.
var ErrTooBig = fmt.Errorf("template renders more than %d parts or %d bytes", MaxSteps, MaxOutput)

// renderer writes one rendering, counting down what it may still do.
type renderer struct {
	b      strings.Builder
	steps  int
	max    int // bytes
	format func(any) string
}

// spent reports whether the rendering is past its bounds; it then stops.
func (r *renderer) spent() bool {
	r.steps--
	return r.steps < 0 || r.b.Len() > r.max
}

// scope is the model plus the names foreach bound.
type scope struct {
	vars   map[string]any
	parent *scope
}

func (s scope) lookup(path []string) (any, bool) {
	for sc := &s; sc != nil; sc = sc.parent {
		if v, ok := sc.vars[path[0]]; ok {
			return walk(v, path[1:])
		}
	}
	return nil, false
}

func walk(v any, path []string) (any, bool) {
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[p]; !ok {
			return nil, false
		}
	}
	return v, v != nil
}

func (r *renderer) render(nodes []node, sc scope) {
	b := &r.b
	for _, n := range nodes {
		if r.spent() {
			return
		}
		switch n.kind {
		case kindText:
			b.WriteString(n.text)
		case kindValue:
			v, ok := sc.lookup(n.path)
			s := ""
			if ok {
				s = r.format(v)
			}
			if s == "" && n.def != nil {
				s = *n.def
			}
			b.WriteString(s)
		case kindIf:
			v, ok := sc.lookup(n.path)
			if truthy(v, ok) != n.negate {
				r.render(n.body, sc)
			} else {
				r.render(n.orElse, sc)
			}
		case kindForeach:
			v, _ := sc.lookup(n.path)
			for i, item := range elements(v) {
				if r.spent() {
					return
				}
				if i > 0 {
					b.WriteString(n.sep)
				}
				r.render(n.body, scope{vars: map[string]any{n.item: item}, parent: &sc})
			}
		}
	}
}

// elements are what foreach iterates: a list's elements, a map's entries.
func elements(v any) []any {
	switch v := v.(type) {
	case []any:
		return v
	case []string:
		out := make([]any, len(v))
		for i, s := range v {
			out[i] = s
		}
		return out
	case map[string]any:
		var out []any
		for _, k := range slices.Sorted(maps.Keys(v)) {
			out = append(out, map[string]any{"key": k, "value": v[k]})
		}
		return out
	}
	return nil
}

func truthy(v any, ok bool) bool {
	if !ok || v == nil {
		return false
	}
	switch v := v.(type) {
	case bool:
		return v
	case string:
		return v != ""
	case []any:
		return len(v) > 0
	case map[string]any:
		return len(v) > 0
	}
	return true
}

// Format prints a model value as JMTE prints the Java value behind it.
func Format(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case bool:
		return strconv.FormatBool(v)
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
			return strconv.FormatInt(int64(v), 10)
		}
		return messages.JavaDouble(v)
	case int64:
		return strconv.FormatInt(v, 10)
	case int:
		return strconv.Itoa(v)
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = Format(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		parts := make([]string, 0, len(v))
		for _, k := range slices.Sorted(maps.Keys(v)) {
			parts = append(parts, k+"="+Format(v[k]))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprint(v)
}
