package extractors

import (
	"errors"
	"strings"
	"unicode"
)

// csvConverter is CsvConverter: one line of separated values (opencsv's
// CSVParser rules) named by a configured header line.
type csvConverter struct {
	header                         []string
	sep, quote, escape             rune
	strictQuotes, trimLeadingWhite bool
}

func firstRune(s string, def rune) rune {
	for _, r := range s {
		return r
	}
	return def
}

func newCSVConverter(c config) (*csvConverter, error) {
	header, ok := c.str("column_header")
	if !ok || header == "" {
		return nil, errors.New("column_header is missing")
	}
	p := &csvConverter{
		sep: firstRune(c.strOr("separator", ","), ','), quote: firstRune(c.strOr("quote_char", `"`), '"'),
		escape: firstRune(c.strOr("escape_char", `\`), '\\'),
	}
	var err error
	if p.strictQuotes, err = c.boolean("strict_quotes", false); err != nil {
		return nil, err
	}
	if p.trimLeadingWhite, err = c.boolean("trim_leading_whitespace", true); err != nil {
		return nil, err
	}
	if p.header, err = p.split(header); err != nil {
		return nil, err
	}
	return p, nil
}

func (p *csvConverter) convert(v string) ([]kv, error) {
	values, err := p.split(v)
	if err != nil {
		return nil, err
	}
	if len(values) != len(p.header) {
		// Graylog: a different number of columns converts nothing.
		return nil, nil
	}
	out := make([]kv, len(values))
	for i, val := range values {
		out[i] = kv{p.header[i], val}
	}
	return out, nil
}

// split parses one line: separators outside quotes split, the escape
// character takes the next one literally, a doubled quote inside quotes is
// a quote; with strict quotes only quoted text is kept.
func (p *csvConverter) split(line string) ([]string, error) {
	var out []string
	var field strings.Builder
	inQuotes, fieldStarted := false, false
	rs := []rune(line)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == p.escape && i+1 < len(rs) && (rs[i+1] == p.quote || rs[i+1] == p.escape) && (inQuotes || !p.strictQuotes):
			field.WriteRune(rs[i+1])
			i++
		case r == p.quote:
			if inQuotes && i+1 < len(rs) && rs[i+1] == p.quote {
				field.WriteRune(p.quote)
				i++
				continue
			}
			inQuotes = !inQuotes
			fieldStarted = true
		case r == p.sep && !inQuotes:
			out = append(out, field.String())
			field.Reset()
			fieldStarted = false
		default:
			if p.strictQuotes && !inQuotes {
				continue
			}
			if !fieldStarted && !inQuotes && p.trimLeadingWhite && unicode.IsSpace(r) && field.Len() == 0 {
				continue
			}
			field.WriteRune(r)
		}
	}
	if inQuotes {
		return nil, errors.New("un-terminated quoted field at end of CSV line")
	}
	return append(out, field.String()), nil
}
