package api

import (
	"slices"
	"strings"
)

// Query is a parsed search query of a paginated configuration listing, in the
// subset of Graylog's SearchQueryParser syntax that listings use:
// whitespace-separated terms, each `field:value` or a bare value searching the
// default field; values may be double-quoted to contain spaces; a leading '-'
// negates a term. Every term must match (AND); matching is a case-insensitive
// substring test, as Graylog's listing searches do.
type Query struct {
	terms []term
}

type term struct {
	field, value string
	negate       bool
}

// ParseQuery parses q for a listing whose searchable fields are fields; bare
// values search defaultField. An unknown field is a 400.
func ParseQuery(q string, defaultField string, fields ...string) (Query, error) {
	var out Query
	rest := strings.TrimSpace(q)
	for rest != "" {
		var t term
		var tok string
		tok, rest = nextToken(rest)
		if tok == "" {
			return Query{}, Errorf(Invalid, "Invalid argument in search query: unterminated quote in %q", q)
		}
		if strings.HasPrefix(tok, "-") && len(tok) > 1 {
			t.negate = true
			tok = tok[1:]
		}
		if f, v, ok := cutField(tok); ok {
			if !slices.Contains(fields, f) {
				return Query{}, Errorf(Invalid, "Invalid argument in search query: unknown field %q; searchable fields are %s", f, strings.Join(fields, ", "))
			}
			t.field, t.value = f, unquote(v)
		} else {
			t.field, t.value = defaultField, unquote(tok)
		}
		t.value = strings.ToLower(t.value)
		out.terms = append(out.terms, t)
		rest = strings.TrimSpace(rest)
	}
	return out, nil
}

// nextToken returns the next whitespace-separated token, keeping quoted
// sections (with their quotes) intact. An unterminated quote yields "".
func nextToken(s string) (tok, rest string) {
	inQuote := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && inQuote && i+1 < len(s):
			i++
		case c == '"':
			inQuote = !inQuote
		case (c == ' ' || c == '\t' || c == '\n') && !inQuote:
			return s[:i], s[i:]
		}
	}
	if inQuote {
		return "", ""
	}
	return s, ""
}

// cutField splits field:value when the token starts with a field name.
func cutField(tok string) (field, value string, ok bool) {
	i := strings.IndexByte(tok, ':')
	if i <= 0 || strings.ContainsRune(tok[:i], '"') {
		return "", "", false
	}
	return tok[:i], tok[i+1:], true
}

func unquote(v string) string {
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		v = v[1 : len(v)-1]
		return strings.ReplaceAll(strings.ReplaceAll(v, `\"`, `"`), `\\`, `\`)
	}
	return v
}

// Match reports whether a record matches; get returns a record's value of a
// searchable field.
func (q Query) Match(get func(field string) string) bool {
	for _, t := range q.terms {
		if strings.Contains(strings.ToLower(get(t.field)), t.value) == t.negate {
			return false
		}
	}
	return true
}
