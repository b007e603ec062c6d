package apibrowser

import (
	"errors"
	"fmt"
	"strings"
)

// template is a gorilla/mux path template taken apart: its segments, with
// each variable's name and the pattern it must match.
type template struct {
	segments []segment
}

// segment is one path segment. Literal segments have no Var; a variable
// segment may still have literal text around the variable ("{id}.json").
type segment struct {
	text    string // the segment as documented: variables as {name}
	vars    []variable
	literal bool
}

type variable struct {
	name    string
	pattern string // "" when the template gives none
}

var errTemplate = errors.New("invalid path template")

// parseTemplate reads a mux path template. Patterns may contain braces of
// their own ({id:[0-9a-f]{24}}), so braces are counted rather than split on,
// as mux does.
func parseTemplate(path string) (template, error) {
	if !strings.HasPrefix(path, "/") {
		return template{}, fmt.Errorf("%w %q: it must start with /", errTemplate, path)
	}
	var t template
	if path == "/" {
		return t, nil
	}
	var (
		seg   segment
		text  strings.Builder
		start = -1 // index of the open brace of the variable being read
		depth int
	)
	seg.literal = true
	for i := 1; i < len(path); i++ {
		c := path[i]
		switch {
		case start >= 0 && c == '{':
			depth++
		case start >= 0 && c == '}':
			if depth--; depth > 0 {
				continue
			}
			v, err := parseVariable(path[start+1 : i])
			if err != nil {
				return template{}, fmt.Errorf("%w %q: %w", errTemplate, path, err)
			}
			seg.vars = append(seg.vars, v)
			seg.literal = false
			text.WriteString("{" + v.name + "}")
			start = -1
		case start >= 0:
		case c == '{':
			start, depth = i, 1
		case c == '}':
			return template{}, fmt.Errorf("%w %q: unbalanced }", errTemplate, path)
		case c == '/':
			seg.text = text.String()
			t.segments = append(t.segments, seg)
			seg, text = segment{literal: true}, strings.Builder{}
		default:
			text.WriteByte(c)
		}
	}
	if start >= 0 {
		return template{}, fmt.Errorf("%w %q: unbalanced {", errTemplate, path)
	}
	seg.text = text.String()
	t.segments = append(t.segments, seg)
	seen := map[string]bool{}
	for _, v := range t.vars() {
		if seen[v.name] {
			return template{}, fmt.Errorf("%w %q: variable %s appears twice", errTemplate, path, v.name)
		}
		seen[v.name] = true
	}
	return t, nil
}

func parseVariable(s string) (variable, error) {
	name, pattern, _ := strings.Cut(s, ":")
	v := variable{name: strings.TrimSpace(name), pattern: strings.TrimSpace(pattern)}
	if v.name == "" {
		return variable{}, errors.New("a variable has no name")
	}
	if strings.ContainsAny(v.name, "{}/") {
		return variable{}, fmt.Errorf("variable name %q is not a name", v.name)
	}
	return v, nil
}

// String returns the template as documented: variables as {name}, without
// their patterns.
func (t template) String() string {
	if len(t.segments) == 0 {
		return "/"
	}
	var b strings.Builder
	for _, s := range t.segments {
		b.WriteByte('/')
		b.WriteString(s.text)
	}
	return b.String()
}

// shape returns the template with every variable written {}: two templates
// of the same shape match the same requests, which OpenAPI calls identical
// paths.
func (t template) shape() string {
	if len(t.segments) == 0 {
		return "/"
	}
	var b strings.Builder
	for _, s := range t.segments {
		b.WriteByte('/')
		text := s.text
		for _, v := range s.vars {
			text = strings.Replace(text, "{"+v.name+"}", "{}", 1)
		}
		b.WriteString(text)
	}
	return b.String()
}

// vars returns the template's variables in path order.
func (t template) vars() []variable {
	var out []variable
	for _, s := range t.segments {
		out = append(out, s.vars...)
	}
	return out
}
