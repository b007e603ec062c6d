package functions

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"net/netip"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/loggate/loggate/backend/logs/pipelines/lang"
)

func conversions() []*lang.Function {
	return []*lang.Function{
		fn("to_bool", lang.TBoolean, "Converts a value to a boolean value using its string representation", func(_ *lang.Context, a lang.Args) (any, error) {
			v := a.Get(0)
			if v == nil {
				return a.Bool(1, false), nil
			}
			if b, ok := v.(bool); ok {
				return b, nil
			}
			s, _ := lang.ToString(v)
			return strings.EqualFold(s, "true"), nil
		}, req("value", lang.TObject, "Value to convert"), opt("default", lang.TBoolean, "Used when 'value' is null, defaults to false")),
		fn("to_double", lang.TDouble, "Converts a value to a double value using its string representation", func(_ *lang.Context, a lang.Args) (any, error) {
			def := 0.0
			if d, ok := a.Get(1).(float64); ok {
				def = d
			}
			switch v := a.Get(0).(type) {
			case int64:
				return float64(v), nil
			case float64:
				return a.Get(0), nil // as it is: no new allocation
			case nil:
				return def, nil
			default:
				s, _ := lang.ToString(v)
				if f, ok := guavaDouble(s); ok {
					return f, nil
				}
				return def, nil
			}
		}, req("value", lang.TObject, "Value to convert"), opt("default", lang.TDouble, "Used when 'value' is null, defaults to 0")),
		fn("to_long", lang.TLong, "Converts a value to a long value using its string representation", func(_ *lang.Context, a lang.Args) (any, error) {
			def := a.Long(1, 0)
			switch v := a.Get(0).(type) {
			case int64:
				return a.Get(0), nil // as it is: no new allocation
			case float64:
				return truncate(v), nil
			case nil:
				return def, nil
			default:
				s, _ := lang.ToString(v)
				// Guava's Longs.tryParse: an optional '-', no '+'.
				n, err := strconv.ParseInt(s, 10, 64)
				if err != nil || strings.HasPrefix(s, "+") {
					return def, nil
				}
				return n, nil
			}
		}, req("value", lang.TObject, "Value to convert"), opt("default", lang.TLong, "Used when 'value' is null, defaults to 0")),
		fn("to_string", lang.TString, "Converts a value to its string representation", func(_ *lang.Context, a lang.Args) (any, error) {
			def := a.String(1, "")
			v := a.Get(0)
			switch v.(type) {
			case nil:
				return def, nil
			case string:
				return v, nil // as it is: no new allocation
			}
			if s, ok := lang.ToString(v); ok {
				return s, nil
			}
			return def, nil
		}, req("value", lang.TObject, "Value to convert"), opt("default", lang.TString, "Used when 'value' is null, defaults to \"\"")),
		fn("to_map", lang.TMap, "Converts a map-like value into a map usable by set_fields()", func(_ *lang.Context, a lang.Args) (any, error) {
			if m, ok := lang.AsMap(a.Get(0)); ok {
				return m, nil
			}
			return map[string]any{}, nil
		}, req("value", lang.TObject, "Map-like value to convert")),
		fn("to_ip", lang.TIPAddr, "Converts the given string or number to an IP object", func(_ *lang.Context, a lang.Args) (any, error) {
			if ip, ok := toIP(a.Get(0)); ok {
				return ip, nil
			}
			if !a.Has(1) {
				return netip.IPv4Unspecified(), nil
			}
			// Graylog parses the default without catching its error:
			// a malformed one fails the statement.
			def, _ := a.Get(1).(string)
			ip, ok := toIP(def)
			if !ok {
				return nil, fmt.Errorf("'%s' is not an IP string literal.", def) //lint:ignore ST1005 Guava's words
			}
			return ip, nil
		}, req("ip", lang.TObject, "Value to convert"), opt("default", lang.TString, "Used when 'ip' is null or malformed, defaults to '0.0.0.0'")),
		fn("to_url", lang.TURL, "Converts a value to a valid URL using its string representation", func(_ *lang.Context, a lang.Args) (any, error) {
			if u, ok := toURL(a.Get(0)); ok {
				return u, nil
			}
			if u, ok := toURL(a.Get(1)); ok {
				return u, nil
			}
			return nil, nil
		}, req("url", lang.TObject, "Value to convert"), opt("default", lang.TString, "Used when 'url' is null or malformed")),
		fn("to_date", lang.TDateTime, "Converts a type to a date, useful for $message.timestamp or related message fields", func(_ *lang.Context, a lang.Args) (any, error) {
			// A date stays as it is: Graylog applies the time zone to
			// none of the values it converts.
			t, ok := a.Get(0).(time.Time)
			if !ok {
				return nil, nil
			}
			return t, nil
		}, req("value", lang.TObject, "The value to convert to a date"), opt("timezone", lang.TString, "The timezone to apply to the date, defaults to UTC")),
	}
}

// truncate is Java's (long) cast of a double: toward zero, saturating.
func truncate(f float64) int64 {
	switch {
	case f != f:
		return 0
	case f >= 9.223372036854775807e18:
		return 1<<63 - 1
	case f <= -9.223372036854775808e18:
		return -1 << 63
	}
	return int64(f)
}

// guavaFloat is the syntax Guava's Doubles.tryParse accepts: Java's
// Double.valueOf without white space around it.
var guavaFloat = regexp.MustCompile(`^[+-]?(?:NaN|Infinity|(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[fFdD]?|0[xX](?:[0-9a-fA-F]+(?:\.[0-9a-fA-F]*)?|\.[0-9a-fA-F]+)[pP][+-]?[0-9]+[fFdD]?)$`)

// guavaDouble is Doubles.tryParse.
func guavaDouble(s string) (float64, bool) {
	if !guavaFloat.MatchString(s) {
		return 0, false
	}
	if c := s[len(s)-1]; c == 'f' || c == 'F' || c == 'd' || c == 'D' {
		s = s[:len(s)-1] // the type suffix: the value is the same
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false
	}
	return f, true
}

// toIP is Graylog's IpAddressConversion: a number is the IPv4 address of
// its Java intValue(), anything else its text as Guava's
// InetAddresses.forString reads it (no white space, no brackets).
func toIP(v any) (netip.Addr, bool) {
	var n uint32
	switch x := v.(type) {
	case netip.Addr:
		return x, true
	case int64:
		n = uint32(x) // Long.intValue: the low 32 bits
	case float64:
		n = uint32(javaInt(x))
	case string:
		ip, err := netip.ParseAddr(x)
		return ip.Unmap(), err == nil
	default:
		return netip.Addr{}, false
	}
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], n)
	return netip.AddrFrom4(b), true
}

// javaInt is Java's (int) cast of a double: toward zero, saturating, NaN 0.
func javaInt(f float64) int32 {
	switch {
	case f != f:
		return 0
	case f >= math.MaxInt32:
		return math.MaxInt32
	case f <= math.MinInt32:
		return math.MinInt32
	}
	return int32(f)
}

func toURL(v any) (*url.URL, bool) {
	if u, ok := v.(*url.URL); ok {
		return u, true
	}
	s, ok := v.(string)
	if !ok {
		return nil, false
	}
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" {
		return nil, false
	}
	return u, true
}

// zone resolves a time zone id as Graylog's TimezoneAwareFunction does:
// one of Joda's zone ids, case-insensitively, UTC when unknown (an offset
// such as "+01:00" is no id).
func zone(id string) *time.Location {
	if id == "" || strings.EqualFold(id, "UTC") || strings.EqualFold(id, "Local") || id[0] == '+' || id[0] == '-' {
		return time.UTC
	}
	if loc, err := time.LoadLocation(id); err == nil {
		return loc
	}
	for _, cand := range []string{strings.ToUpper(id), canonicalZone(id)} {
		if loc, err := time.LoadLocation(cand); err == nil {
			return loc
		}
	}
	return time.UTC
}

// forID is Joda's DateTimeZone.forID: a zone id exactly as spelled, or
// an offset such as "+01:00"; other ids are an error.
func forID(id string) (*time.Location, error) {
	if id == "UTC" {
		return time.UTC, nil
	}
	if id != "" && id != "Local" {
		if loc, err := time.LoadLocation(id); err == nil {
			return loc, nil
		}
	}
	if off, ok := parseOffset(id); ok {
		return time.FixedZone(id, off), nil
	}
	//lint:ignore ST1005 Joda's words
	return nil, fmt.Errorf("The datetime zone id '%s' is not recognised", id)
}

// canonicalZone capitalises the parts of an id: "europe/berlin" →
// "Europe/Berlin".
func canonicalZone(id string) string {
	parts := strings.Split(strings.ToLower(id), "/")
	for i, p := range parts {
		words := strings.Split(p, "_")
		for j, w := range words {
			if w != "" {
				words[j] = strings.ToUpper(w[:1]) + w[1:]
			}
		}
		parts[i] = strings.Join(words, "_")
	}
	return strings.Join(parts, "/")
}

// parseOffset reads "+01:00", "-0530".
func parseOffset(s string) (int, bool) {
	if len(s) < 3 || (s[0] != '+' && s[0] != '-') {
		return 0, false
	}
	digits := strings.ReplaceAll(s[1:], ":", "")
	if len(digits) != 2 && len(digits) != 4 {
		return 0, false
	}
	h, err := strconv.Atoi(digits[:2])
	if err != nil {
		return 0, false
	}
	m := 0
	if len(digits) == 4 {
		if m, err = strconv.Atoi(digits[2:]); err != nil {
			return 0, false
		}
	}
	off := h*3600 + m*60
	if s[0] == '-' {
		off = -off
	}
	return off, true
}

func typeTests() []*lang.Function {
	test := func(name, desc string, ok func(v any) bool) *lang.Function {
		return fn(name, lang.TBoolean, desc, func(_ *lang.Context, a lang.Args) (any, error) {
			return ok(a.Get(0)), nil
		}, req("value", lang.TObject, "Value to check"))
	}
	isType := func(v any, kinds ...string) bool {
		var k string
		switch x := v.(type) {
		case bool:
			k = "bool"
		case int64:
			k = "long"
		case float64:
			k = "double"
		case string:
			k = "string"
		case []any:
			k = "list"
		case map[string]any, *lang.MatchResult:
			k = "map"
		case time.Time:
			k = "date"
		case lang.Period:
			k = "period"
		case netip.Addr:
			k = "ip"
		case *url.URL:
			k = "url"
		case lang.JSONNode:
			k = "json"
			if _, ok := x.V.([]any); ok {
				k = "jsonarray"
			}
		}
		for _, want := range kinds {
			if k == want {
				return true
			}
		}
		return false
	}
	return []*lang.Function{
		test("is_bool", "Checks whether a value is a boolean value", func(v any) bool { return isType(v, "bool") }),
		test("is_number", "Checks whether a value is a numeric value (of type long or double)", func(v any) bool { return isType(v, "long", "double") }),
		test("is_double", "Checks whether a value is a double value", func(v any) bool { return isType(v, "double") }),
		test("is_long", "Checks whether a value is a long value", func(v any) bool { return isType(v, "long") }),
		test("is_string", "Checks whether a value is a string", func(v any) bool { return isType(v, "string") }),
		test("is_collection", "Checks whether a value is an iterable collection", func(v any) bool { return isType(v, "list", "map", "jsonarray") }),
		test("is_list", "Checks whether a value is an iterable list", func(v any) bool { return isType(v, "list", "jsonarray") }),
		test("is_map", "Checks whether a value is a map", func(v any) bool {
			if j, ok := v.(lang.JSONNode); ok {
				_, obj := j.V.(map[string]any)
				return obj
			}
			return isType(v, "map")
		}),
		test("is_date", "Checks whether a value is a date", func(v any) bool { return isType(v, "date") }),
		test("is_period", "Checks whether a value is a time period", func(v any) bool { return isType(v, "period") }),
		test("is_ip", "Checks whether a value is an IP address", func(v any) bool { return isType(v, "ip") }),
		test("is_json", "Checks whether a value is a parsed JSON tree", func(v any) bool { return isType(v, "json", "jsonarray") }),
		test("is_url", "Checks whether a value is a parsed URL", func(v any) bool { return isType(v, "url") }),
		test("is_null", "Checks whether a value is 'null'", func(v any) bool { return v == nil }),
		test("is_not_null", "Checks whether a value is not 'null'", func(v any) bool { return v != nil }),
	}
}
