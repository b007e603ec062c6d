package grok

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Matcher is a compiled grok pattern. It is safe for concurrent use.
//
// Its captures are go-grok's: every named group of the expansion (the
// pattern's own (?P<name>…) groups too), under its name with "___" read as
// a dot, converted where a reference names a type. Everything about them
// that does not depend on the text is worked out once, when the pattern is
// compiled, so that a match is one regexp search and a walk over fields.
type Matcher struct {
	re *regexp.Regexp
	// literal is a text every match contains (RequiredLiteral): a line
	// without it is not searched.
	literal string
	// fields are the capture names in order, each with its groups in
	// the expression's order.
	fields []captureField
}

type captureField struct {
	key    string
	groups []group
}

type group struct {
	index int    // subexpression index
	conv  string // the type of %{NAME:field:type}; empty for text
}

// Capture is one field of a match.
type Capture struct {
	Key   string
	Value any
}

func newMatcher(re *regexp.Regexp, hints map[string]string) *Matcher {
	m := &Matcher{re: re, literal: RequiredLiteral(re)}
	byKey := map[string]int{}
	for i, name := range re.SubexpNames() {
		if name == "" {
			continue
		}
		key := strings.ReplaceAll(name, dotSep, ".")
		j, ok := byKey[key]
		if !ok {
			j = len(m.fields)
			byKey[key] = j
			m.fields = append(m.fields, captureField{key: key})
		}
		m.fields[j].groups = append(m.fields[j].groups, group{index: i, conv: hints[name]})
	}
	slices.SortFunc(m.fields, func(a, b captureField) int { return strings.Compare(a.key, b.key) })
	return m
}

// MatchString reports whether text matches.
func (m *Matcher) MatchString(text string) bool { return m.mayMatch(text) && m.re.MatchString(text) }

// mayMatch reports whether text has what every match contains.
func (m *Matcher) mayMatch(text string) bool {
	return m.literal == "" || strings.Contains(text, m.literal)
}

// Match returns the captures of text, Graylog's flattened match map: field
// name to value, converted where the reference names a type
// (%{NUMBER:bytes:int}), with one pair of enclosing quotes removed from
// strings as java-grok does. Captures that matched nothing are left out. The
// map is empty, never nil, when text does not match.
func (m *Matcher) Match(text string) map[string]any {
	var buf [16]Capture
	caps := m.Captures(text, buf[:0])
	out := make(map[string]any, len(caps))
	for _, c := range caps {
		out[c.Key] = c.Value
	}
	return out
}

// Captures appends the captures of text to dst, what Match puts in its map,
// in key order; dst is returned as is when text does not match.
func (m *Matcher) Captures(text string, dst []Capture) []Capture {
	if !m.mayMatch(text) {
		return dst
	}
	loc := m.re.FindStringSubmatchIndex(text)
	if loc == nil {
		return dst
	}
	if out, ok := m.captures(text, loc, dst, true); ok {
		return out
	}
	// A value its type cannot read (%{WORD:n:int} on "abc"): java-grok
	// keeps the text in that case, so the whole match falls back to text.
	out, _ := m.captures(text, loc, dst, false)
	return out
}

// captures appends the fields of a match at loc; where one name has
// several groups, the last one that matched something wins. It reports
// false when a conversion failed.
func (m *Matcher) captures(text string, loc []int, dst []Capture, convert bool) ([]Capture, bool) {
	for _, f := range m.fields {
		// The value is boxed once, when it is known: a text is kept as a
		// string until then.
		var v any
		var s string
		isText := false
		for _, g := range f.groups {
			start, end := loc[2*g.index], loc[2*g.index+1]
			if start == end { // also -1, -1: the group did not take part
				continue
			}
			if !convert || g.conv == "" || g.conv == "string" {
				s, isText = unquote(text[start:end]), true
				continue
			}
			x, ok := convertText(text[start:end], g.conv)
			if !ok {
				return dst, false
			}
			v, isText = x, false
		}
		switch {
		case isText:
			dst = append(dst, Capture{Key: f.key, Value: s})
		case v != nil:
			dst = append(dst, Capture{Key: f.key, Value: v})
		}
	}
	return dst, true
}

// convertText converts a capture as go-grok does: int and long to Go's
// int, float and double to float64, bool and boolean with
// strconv.ParseBool.
func convertText(s, typ string) (any, bool) {
	switch typ {
	case "int", "long":
		n, err := strconv.Atoi(s)
		return n, err == nil
	case "float", "double":
		f, err := strconv.ParseFloat(s, 64)
		return f, err == nil
	case "bool", "boolean":
		b, err := strconv.ParseBool(s)
		return b, err == nil
	}
	return nil, false
}

// unquote drops one pair of enclosing quotes, as java-grok's cleanString
// does: only when the quote character does not also occur inside.
func unquote(s string) string {
	if s == "" || (s[0] != '"' && s[0] != '\'') || s[len(s)-1] != s[0] {
		return s
	}
	if len(s) <= 2 {
		return ""
	}
	inner := s[1 : len(s)-1]
	for i := 0; i < len(inner); i++ {
		if inner[i] == s[0] {
			return s
		}
	}
	return inner
}
