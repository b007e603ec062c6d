package extractors

import (
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/loggate/loggate/router/api"
)

// The 13 converters of Graylog 4.0 (Converter.Type), which run on the value
// an extractor wrote to its target field while that value is a string.

// converter is one built converter: a single-value one returns the new
// value of the target field, a multi-field one (csv, tokenizer) the fields
// to add.
type converter struct {
	typ    string
	single func(string) (any, error)
	multi  func(string) ([]kv, error)
}

// kv is one field a multi-field converter or extractor returns, in order.
type kv struct {
	key   string
	value any
}

// errSkipConverter marks a converter whose configuration is missing or
// invalid: Graylog logs it and saves the extractor without it.
var errSkipConverter = errors.New("converter configuration is invalid")

// converterTypes are the converter type names, in Graylog's enum order.
var converterTypes = []string{"numeric", "date", "hash", "split_and_count", "syslog_pri_level", "syslog_pri_facility",
	"tokenizer", "ip_anonymizer", "csv", "lowercase", "uppercase", "flexdate", "lookup_table"}

// unknownConverter is Graylog's answer to an unknown converter type, a 500
// with the Java enum's text.
func unknownConverter(typ string) error {
	return api.Errorf(api.Internal, "No enum constant org.graylog2.plugin.inputs.Converter.Type.%s", strings.ToUpper(typ))
}

// config reads the configuration values of a converter or extractor.
type config map[string]json.RawMessage

// str returns a string value; ok is false when absent or not a string.
func (c config) str(key string) (string, bool) {
	raw, ok := c[key]
	if !ok {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// strOr returns a string value, or def when absent, null or empty.
func (c config) strOr(key, def string) string {
	if s, ok := c.str(key); ok && s != "" {
		return s
	}
	return def
}

// strOrNull returns a string value, empty included, or def when absent,
// null or not a string (Java's firstNonNull).
func (c config) strOrNull(key, def string) string {
	if raw, ok := c[key]; !ok || string(raw) == "null" {
		return def
	}
	if s, ok := c.str(key); ok {
		return s
	}
	return def
}

// boolean returns a boolean value, def when absent or null; present but
// not a boolean is an error.
func (c config) boolean(key string, def bool) (bool, error) {
	raw, ok := c[key]
	if !ok || string(raw) == "null" {
		return def, nil
	}
	var b bool
	if err := json.Unmarshal(raw, &b); err != nil {
		return false, fmt.Errorf("%s must be a boolean", key)
	}
	return b, nil
}

// integer returns an integer value; ok is false when absent or not a
// number, fits is false when it is beyond Java's int.
func (c config) integer(key string) (n int64, ok, fits bool) {
	raw, present := c[key]
	if !present {
		return 0, false, false
	}
	var num json.Number
	if json.Unmarshal(raw, &num) != nil {
		return 0, false, false
	}
	n, err := strconv.ParseInt(num.String(), 10, 64)
	if err != nil {
		f, ferr := num.Float64()
		if ferr != nil {
			return 0, false, false
		}
		return int64(f), true, false
	}
	return n, true, n >= -1<<31 && n < 1<<31
}

// newConverter builds a converter; an unknown type is an error for the
// request, a bad configuration wraps errSkipConverter.
func newConverter(typ string, c config, d deps) (converter, error) {
	now := d.now
	cv := converter{typ: typ}
	switch strings.ToLower(typ) {
	case "numeric":
		cv.single = numeric
	case "date":
		format, ok := c.str("date_format")
		if !ok || format == "" {
			return cv, fmt.Errorf("%w: date_format is missing", errSkipConverter)
		}
		p, err := newDateParser(format, zoneOf(c), now)
		if err != nil {
			return cv, fmt.Errorf("%w: %w", errSkipConverter, err)
		}
		cv.single = p.parse
	case "flexdate":
		loc := zoneOf(c)
		cv.single = func(v string) (any, error) { return flexDate(v, loc, now) }
	case "hash":
		cv.single = func(v string) (any, error) {
			sum := md5.Sum([]byte(v))
			return hex.EncodeToString(sum[:]), nil
		}
	case "split_and_count":
		by, ok := c.str("split_by")
		if !ok || by == "" {
			return cv, fmt.Errorf("%w: split_by is missing", errSkipConverter)
		}
		cv.single = func(v string) (any, error) {
			if v == "" {
				return int64(0), nil
			}
			return int64(len(javaSplit(v, by))), nil
		}
	case "syslog_pri_level":
		cv.single = func(v string) (any, error) {
			pri, err := strconv.Atoi(v)
			if err != nil {
				return nil, err
			}
			return int64(pri - 8*(pri>>3)), nil
		}
	case "syslog_pri_facility":
		cv.single = func(v string) (any, error) {
			pri, err := strconv.Atoi(v)
			if err != nil {
				return nil, err
			}
			return facility(pri >> 3), nil
		}
	case "ip_anonymizer":
		cv.single = func(v string) (any, error) { return ipv4.ReplaceAllString(v, "${1}xxx"), nil }
	case "lowercase":
		cv.single = func(v string) (any, error) { return strings.ToLower(v), nil }
	case "uppercase":
		cv.single = func(v string) (any, error) { return strings.ToUpper(v), nil }
	case "tokenizer":
		cv.multi = tokenize
	case "csv":
		p, err := newCSVConverter(c)
		if err != nil {
			return cv, fmt.Errorf("%w: %w", errSkipConverter, err)
		}
		cv.multi = p.convert
	case "lookup_table":
		name, _ := c.str("lookup_table_name")
		if err := d.lookupTable(name); name == "" || err != nil {
			return cv, fmt.Errorf("%w: lookup table <%s> doesn't exist", errSkipConverter, name)
		}
		tables := d.tables
		// No value keeps the field as it is.
		cv.single = func(v string) (any, error) {
			if found, ok := lookupSingle(tables, name, v); ok {
				return found, nil
			}
			return v, nil
		}
	default:
		return cv, unknownConverter(typ)
	}
	cv.typ = strings.ToLower(typ)
	return cv, nil
}

// zoneOf is a date converter's time_zone, UTC when absent or unknown.
func zoneOf(c config) *time.Location {
	loc, err := time.LoadLocation(c.strOr("time_zone", "Etc/UTC"))
	if err != nil {
		return time.UTC
	}
	return loc
}

// numeric is NumericConverter: an int, then a long, then a double; any
// other text is kept. NaN and the infinities are kept as text too: a
// message field cannot hold them (Graylog's Elasticsearch refuses the
// message, and loggate could not encode it in a search answer).
func numeric(v string) (any, error) {
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		return n, nil
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
		return f, nil
	}
	return v, nil
}

// facilities are SyslogUtils.facilityToString's names.
var facilities = []string{"kernel", "user-level", "mail", "system daemon", "security/authorization", "syslogd",
	"line printer", "network news", "UUCP", "clock", "security/authorization", "FTP", "NTP", "log audit", "log alert",
	"clock", "local0", "local1", "local2", "local3", "local4", "local5", "local6", "local7"}

func facility(n int) string {
	if n < 0 || n >= len(facilities) {
		return "Unknown"
	}
	return facilities[n]
}

// ipv4 is IPAnonymizerConverter's pattern: the last octet of every IPv4
// address becomes xxx.
var ipv4 = regexp.MustCompile(`\b(\d{1,3}\.\d{1,3}\.\d{1,3}\.)\d{1,3}\b`)

// tokenize is TokenizerConverter: the key=value pairs of a text, keys of
// word characters and dashes, '=' with an optional whitespace character
// each side, values quoted ("…" or '…', not empty, quotes dropped) or up
// to the next whitespace. It scans as Graylog 4.0's expression
// (?:^|\s)(?:([\w-]+)\s?=\s?((?:"[^"]+")|(?:'[^']+')|(?:[\S]+))) finds its
// matches, without the expression's cost (a test holds the two equal).
func tokenize(v string) ([]kv, error) {
	if !strings.Contains(v, "=") {
		return nil, nil
	}
	var out []kv
	for pos := 0; pos < len(v); {
		key, val, end, ok := pairAt(v, pos)
		if !ok {
			pos++
			continue
		}
		if len(val) >= 2 && (val[0] == '"' || val[0] == '\'') && val[len(val)-1] == val[0] {
			val = val[1 : len(val)-1]
		}
		out = append(out, kv{key, val})
		pos = end
	}
	return out, nil
}

// isSpace is Java's \s.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

func isKey(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// pairAt matches one pair starting at pos: at the text's start, or at a
// whitespace character before the key.
func pairAt(v string, pos int) (key, val string, end int, ok bool) {
	if pos == 0 {
		if key, val, end, ok = pairFrom(v, 0); ok {
			return key, val, end, ok
		}
	}
	if !isSpace(v[pos]) {
		return "", "", 0, false
	}
	return pairFrom(v, pos+1)
}

func pairFrom(v string, i int) (key, val string, end int, ok bool) {
	k := i
	for i < len(v) && isKey(v[i]) {
		i++
	}
	if i == k {
		return "", "", 0, false
	}
	key = v[k:i]
	if i < len(v) && isSpace(v[i]) {
		i++
	}
	if i >= len(v) || v[i] != '=' {
		return "", "", 0, false
	}
	i++
	if i < len(v) && isSpace(v[i]) && i+1 < len(v) && !isSpace(v[i+1]) {
		i++
	}
	if i >= len(v) || isSpace(v[i]) {
		return "", "", 0, false
	}
	if q := v[i]; q == '"' || q == '\'' {
		if j := strings.IndexByte(v[i+1:], q); j > 0 {
			return key, v[i : i+j+2], i + j + 2, true
		}
	}
	j := i
	for j < len(v) && !isSpace(v[j]) {
		j++
	}
	return key, v[i:j], j, true
}

// javaSplit is Java's String.split on a literal: trailing empty parts are
// dropped.
func javaSplit(s, sep string) []string {
	parts := strings.Split(s, sep)
	for len(parts) > 1 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	if len(parts) == 1 && parts[0] == "" && s != "" {
		return nil
	}
	return parts
}
