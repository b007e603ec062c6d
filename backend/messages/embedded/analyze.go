package embedded

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/loggate/loggate/backend/messages"
)

// How a string field is indexed, after Graylog 4.0's index template:
// message and full_message are analyzed text, source is a keyword with a
// lower-case filter, every other string an exact keyword.
type analysis uint8

const (
	keyword analysis = iota
	lowerKeyword
	text
)

func analysisOf(field string) analysis {
	switch field {
	case messages.FieldMessage, messages.FieldFull:
		return text
	case messages.FieldSource:
		return lowerKeyword
	}
	return keyword
}

// terms calls fn with every term a value of field is indexed under.
func terms(a analysis, v string, fn func(string)) {
	switch a {
	case keyword:
		fn(v)
	case lowerKeyword:
		fn(strings.ToLower(v))
	default:
		tokenize(v, fn)
	}
}

// normalize is what a query term or pattern becomes before it is compared
// with the terms of a field: lower-cased for source and text (Elasticsearch
// normalizes multi-term queries with the lower-case filter), as is
// otherwise.
func normalize(a analysis, v string) string {
	if a == keyword {
		return v
	}
	return strings.ToLower(v)
}

// tokenize splits s into lower-cased runs of letters and digits, a
// simplification of Elasticsearch's standard analyzer (which also keeps
// "1.5" or "o'neil" together): good enough for log text, and cheap.
func tokenize(s string, fn func(string)) {
	start := -1
	lower := true
	for i := 0; i < len(s); {
		c := s[i]
		size := 1
		var word bool
		if c < utf8.RuneSelf {
			word = c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c >= 'A' && c <= 'Z'
			if c >= 'A' && c <= 'Z' {
				lower = false
			}
		} else {
			var r rune
			r, size = utf8.DecodeRuneInString(s[i:])
			word = unicode.IsLetter(r) || unicode.IsDigit(r)
			if word && unicode.ToLower(r) != r {
				lower = false
			}
		}
		switch {
		case word && start < 0:
			start = i
		case !word && start >= 0:
			emit(s[start:i], lower, fn)
			start, lower = -1, true
		}
		i += size
	}
	if start >= 0 {
		emit(s[start:], lower, fn)
	}
}

func emit(tok string, lower bool, fn func(string)) {
	if !lower {
		tok = strings.ToLower(tok)
	}
	fn(tok)
}

// tokens returns the tokens of s.
func tokens(s string) []string {
	var out []string
	tokenize(s, func(t string) { out = append(out, t) })
	return out
}
