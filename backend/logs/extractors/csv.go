package extractors

import (
	"errors"
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

// split parses one line as opencsv 2.3's CSVParser.parseLine (the version
// Graylog 4.0 ships): inside a field or quotes the escape character takes
// a following quote or escape character literally, and is dropped before
// anything else; a doubled quote inside a field or quotes is a quote; a
// quote in the middle of a field (a,bc"d"ef,g) is kept as well as
// toggling quotes, and with trim_leading_whitespace the blanks before
// such a quote are dropped; with strict quotes only quoted text is kept.
func (p *csvConverter) split(line string) ([]string, error) {
	var out []string
	var sb []rune
	inQuotes, inField := false, false
	rs := []rune(line)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		switch {
		case c == p.escape:
			if (inQuotes || inField) && i+1 < len(rs) && (rs[i+1] == p.quote || rs[i+1] == p.escape) {
				sb = append(sb, rs[i+1])
				i++
			}
		case c == p.quote:
			if (inQuotes || inField) && i+1 < len(rs) && rs[i+1] == p.quote {
				sb = append(sb, rs[i+1])
				i++
			} else {
				if !p.strictQuotes && i > 2 && rs[i-1] != p.sep && i+1 < len(rs) && rs[i+1] != p.sep {
					if p.trimLeadingWhite && len(sb) > 0 && allJavaWhitespace(sb) {
						sb = sb[:0]
					} else {
						sb = append(sb, c)
					}
				}
				inQuotes = !inQuotes
			}
			inField = !inField
		case c == p.sep && !inQuotes:
			out = append(out, string(sb))
			sb = sb[:0]
			inField = false
		default:
			if !p.strictQuotes || inQuotes {
				sb = append(sb, c)
				inField = true
			}
		}
	}
	if inQuotes {
		return nil, errors.New("un-terminated quoted field at end of CSV line")
	}
	return append(out, string(sb)), nil
}

// allJavaWhitespace reports whether every rune is Java's
// Character.isWhitespace: space separators other than the non-breaking
// ones, line and paragraph separators, \t to \r and \x1c to \x1f.
func allJavaWhitespace(rs []rune) bool {
	for _, r := range rs {
		switch {
		case r == '\u00a0', r == '\u2007', r == '\u202f':
			return false
		case r >= '\t' && r <= '\r', r >= 0x1c && r <= 0x1f, unicode.In(r, unicode.Zs, unicode.Zl, unicode.Zp):
		default:
			return false
		}
	}
	return true
}
