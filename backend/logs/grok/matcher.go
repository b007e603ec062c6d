package grok

import (
	gogrok "github.com/elastic/go-grok"
)

// Matcher is a compiled grok pattern. It is safe for concurrent use.
type Matcher struct {
	g *gogrok.Grok
}

// MatchString reports whether text matches.
func (m *Matcher) MatchString(text string) bool { return m.g.MatchString(text) }

// Match returns the captures of text, Graylog's flattened match map: field
// name to value, converted where the reference names a type
// (%{NUMBER:bytes:int}), with one pair of enclosing quotes removed from
// strings as java-grok does. Captures that matched nothing are left out. The
// map is empty, never nil, when text does not match.
func (m *Matcher) Match(text string) map[string]any {
	typed, err := m.g.ParseTypedString(text)
	if err != nil {
		// A value its type cannot read (%{WORD:n:int} on "abc"): java-grok
		// keeps the text in that case, so the whole match falls back to text.
		raw, _ := m.g.ParseString(text) // never fails: no conversions
		typed = make(map[string]any, len(raw))
		for k, v := range raw {
			typed[k] = v
		}
	}
	for k, v := range typed {
		if s, ok := v.(string); ok {
			typed[k] = unquote(s)
		}
	}
	return typed
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
