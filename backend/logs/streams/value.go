package streams

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/loggate/loggate/backend/logs/messages"
)

// Graylog's matchers see message fields as Java objects: strings as stored
// by Message (trimmed, never empty), numbers as Long or Double. The helpers
// here reproduce the two views the matchers take of a value: its toString()
// and Guava's Doubles.tryParse of it.

// fieldValue is a message field as Graylog's Message holds it. A string is
// kept apart, trimmed, so that the hot path never boxes it into an any.
type fieldValue struct {
	v        any // when not a string
	s        string
	isString bool
}

// lookup returns a message field as Graylog's Message holds it: strings
// trimmed, and a nil, empty or blank value absent, because Message never
// stores those.
func lookup(msg map[string]any, name string) (fieldValue, bool) {
	v, ok := msg[name]
	if !ok || v == nil {
		return fieldValue{}, false
	}
	if s, isString := v.(string); isString {
		s = messages.Trim(s)
		return fieldValue{s: s, isString: true}, s != ""
	}
	return fieldValue{v: v}, true
}

// number is the numeric view of the field (see number).
func (f fieldValue) number() (float64, bool) {
	if f.isString {
		return parseJavaDouble(f.s)
	}
	return number(f.v)
}

// appendText appends the Java toString() of a non-string field value.
// Integers print as a Long does, float64 values as a Double does (5.0 is
// "5.0": messages keep GELF's integers as int64 and its decimals as
// float64, as Graylog's Long and Double); a json.Number as the type Jackson
// would have read it as; a time as Joda's DateTime, the timestamp's type.
func appendText(b []byte, v any) []byte {
	switch v := v.(type) {
	case string:
		return append(b, v...)
	case float64:
		return messages.AppendJavaDouble(b, v)
	case time.Time:
		return v.UTC().AppendFormat(b, "2006-01-02T15:04:05.000Z07:00")
	case float32:
		return appendText(b, float64(v))
	case int64:
		return strconv.AppendInt(b, v, 10)
	case int:
		return strconv.AppendInt(b, int64(v), 10)
	case int8, int16, int32:
		return strconv.AppendInt(b, reflect.ValueOf(v).Int(), 10)
	case uint, uint8, uint16, uint32, uint64:
		return strconv.AppendUint(b, reflect.ValueOf(v).Uint(), 10)
	case bool:
		return strconv.AppendBool(b, v)
	case json.Number:
		return appendJSONNumber(b, v)
	}
	return fmt.Append(b, v)
}

// appendJSONNumber appends a JSON number as Jackson reads it: an integer
// literal becomes an Integer, Long or BigInteger, anything else a Double.
func appendJSONNumber(b []byte, n json.Number) []byte {
	s := string(n)
	if !strings.ContainsAny(s, ".eE") {
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return strconv.AppendInt(b, i, 10)
		}
		return append(b, s...) // a BigInteger prints its digits
	}
	f, ok := parseJavaDouble(s)
	if !ok {
		return append(b, s...)
	}
	return messages.AppendJavaDouble(b, f)
}

// number returns a field value as a number the way Graylog's GREATER and
// SMALLER matchers read it (Tools.getDouble): numbers as they are, anything
// else parsed from its text by Guava's Doubles.tryParse.
func number(v any) (float64, bool) {
	switch v := v.(type) {
	case float64:
		return v, true
	case float32:
		return float64(v), true
	case int:
		return float64(v), true
	case int8:
		return float64(v), true
	case int16:
		return float64(v), true
	case int32:
		return float64(v), true
	case int64:
		return float64(v), true
	case uint:
		return float64(v), true
	case uint8:
		return float64(v), true
	case uint16:
		return float64(v), true
	case uint32:
		return float64(v), true
	case uint64:
		return float64(v), true
	case string:
		return parseJavaDouble(v)
	case json.Number:
		return parseJavaDouble(string(v))
	}
	return 0, false
}

// parseJavaDouble is Guava's Doubles.tryParse: the syntax of Java's
// Double.valueOf without surrounding whitespace — decimal or hexadecimal
// floating point, an optional f/F/d/D suffix, NaN and Infinity. It does not
// allocate.
func parseJavaDouble(s string) (float64, bool) {
	if !javaDoubleSyntax(s) {
		return 0, false
	}
	body := strings.TrimLeft(s, "+-")
	switch body {
	case "NaN":
		return math.NaN(), true
	case "Infinity":
		if s[0] == '-' {
			return math.Inf(-1), true
		}
		return math.Inf(1), true
	}
	if isFloatSuffix(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		// The syntax check admits only what ParseFloat reads; keep the
		// two honest rather than guess a value.
		return 0, false
	}
	// Out of range: ParseFloat's ±Inf or ±0 is what Java returns too.
	return f, true
}

// javaDoubleSyntax checks s against Guava's floating-point pattern:
// [+-]?(NaN|Infinity|decimal([eE][+-]?\d+)?[fFdD]?|0[xX]hex[pP][+-]?\d+[fFdD]?)
// where decimal is \d+(\.\d*)?|\.\d+ and hex the same with hex digits.
func javaDoubleSyntax(s string) bool {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	if s == "NaN" || s == "Infinity" {
		return true
	}
	hex := len(s) >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')
	digits, expMark := isDigit, func(c byte) bool { return c == 'e' || c == 'E' }
	if hex {
		s = s[2:]
		digits, expMark = isHexDigit, func(c byte) bool { return c == 'p' || c == 'P' }
	}
	i := span(s, 0, digits)
	whole := i
	frac := 0
	if i < len(s) && s[i] == '.' {
		j := span(s, i+1, digits)
		frac, i = j-i-1, j
	}
	if whole == 0 && frac == 0 {
		return false
	}
	if i < len(s) && expMark(s[i]) {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		j := span(s, i, isDigit)
		if j == i {
			return false
		}
		i = j
	} else if hex {
		return false // a hexadecimal literal needs its binary exponent
	}
	if i < len(s) && isFloatSuffix(s[i]) {
		i++
	}
	return i == len(s)
}

func span(s string, i int, ok func(byte) bool) int {
	for i < len(s) && ok(s[i]) {
		i++
	}
	return i
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isHexDigit(c byte) bool {
	return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func isFloatSuffix(c byte) bool { return c == 'f' || c == 'F' || c == 'd' || c == 'D' }
