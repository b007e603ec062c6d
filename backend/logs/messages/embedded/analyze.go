package embedded

import (
	"strings"

	"github.com/loggate/loggate/backend/logs/messages"
)

// How a string field is indexed, after Graylog 4.0's index template:
// message and full_message are analyzed text (Elasticsearch's standard
// analyzer: see segmentWords and tokenizer), source is a keyword with a
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

// terms calls fn with every term a value of field is indexed under. As
// with tokenizer.each, the term is valid only until fn returns.
func (t *tokenizer) terms(a analysis, v string, fn func(string)) {
	switch a {
	case keyword:
		fn(v)
	case lowerKeyword:
		fn(t.lower(v))
	default:
		t.each(v, fn)
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

// Tokens returns the terms the store indexes a message or full_message
// value under: Elasticsearch's standard analyzer (standard tokenizer,
// lower-cased), as /messages/{index}/analyze shows them.
func Tokens(s string) []string { return tokens(s) }

// tokens returns the tokens of s as the standard analyzer makes them.
func tokens(s string) []string {
	var t tokenizer
	var out []string
	t.each(s, func(tok string) { out = append(out, strings.Clone(tok)) })
	return out
}
