package forward

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"
	"unicode"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/loggate/loggate/backend/logs/messages"
)

// ForwarderName is the value of the _forwarder field Graylog's GelfOutput
// adds to every message it sends.
const ForwarderName = "org.graylog2.outputs.GelfOutput"

// ErrInvalid is wrapped by the errors of messages that cannot be sent as
// GELF: one without a source or a message, which every GELF receiver
// refuses.
var ErrInvalid = errors.New("forward: message cannot be sent as GELF")

// Encode returns m as a GELF 1.1 JSON object, the payload GelfOutput sends.
// See AppendEncode.
func Encode(m messages.Message) ([]byte, error) {
	return AppendEncode(nil, &m)
}

// AppendEncode appends m as a GELF 1.1 JSON object to dst, the way Graylog
// 4.0's GelfOutput builds it with gelfclient:
//
//   - host is the source field and short_message the message field; a
//     message lacking either (or where it is blank) is refused with
//     ErrInvalid, as every GELF receiver would refuse it.
//   - timestamp is seconds since the epoch with milliseconds; a message
//     without one has none, so the receiver uses its receive time (Graylog
//     sends its own clock's).
//   - level is sent when the level field is a number or numeric string from
//     0 to 7 (GelfMessageLevel); any other level travels as _level.
//   - full_message is sent when the full_message field is a string.
//   - _forwarder names GelfOutput unless the message has a forwarder field.
//   - every other field is an additional field, its name prefixed with an
//     underscore. Strings and numbers keep their JSON type (an integral
//     float keeps its ".0", so it decodes as a float again); booleans and
//     anything else are sent as text, as gelfclient's toString does;
//     non-finite numbers and nil values are left out.
//
// Not sent: the message's _id (GELF forbids an _id field and receivers drop
// it; the message keeps its identity through gl2_message_id when it has
// that field, which is sent like any other), a field called id (it would be
// _id), and streams, which are the sender's routing and mean nothing to the
// receiver — Graylog's GelfOutput does not send them either.
//
// Unlike gelfclient, a field whose name already starts with an underscore
// is prefixed too, so that the receiver, which strips one underscore, gets
// the name back.
func AppendEncode(dst []byte, m *messages.Message) ([]byte, error) {
	var (
		host, short, full string
		level             int64 = -1
		hasFull           bool
		hasForwarder      bool
	)
	for i := range m.Fields {
		f := &m.Fields[i]
		switch f.Key {
		case messages.FieldSource:
			host = text(f.Value)
		case messages.FieldMessage:
			short = text(f.Value)
		case messages.FieldFull:
			full, hasFull = f.Value.(string)
		case "level":
			level = gelfLevel(f.Value)
		case "forwarder":
			hasForwarder = true
		}
	}
	switch {
	case blank(host):
		return dst, fmt.Errorf("%w: it has no source", ErrInvalid)
	case blank(short):
		return dst, fmt.Errorf("%w: it has no message", ErrInvalid)
	}

	dst = append(dst, `{"version":"1.1","host":`...)
	dst = appendString(dst, host)
	dst = append(dst, `,"short_message":`...)
	dst = appendString(dst, short)
	if hasFull {
		dst = append(dst, `,"full_message":`...)
		dst = appendString(dst, full)
	}
	if !m.Timestamp.IsZero() {
		dst = append(dst, `,"timestamp":`...)
		dst = appendTimestamp(dst, m.Timestamp)
	}
	if level >= 0 {
		dst = append(dst, `,"level":`...)
		dst = strconv.AppendInt(dst, level, 10)
	}
	if !hasForwarder {
		dst = append(dst, `,"_forwarder":"`+ForwarderName+`"`...)
	}
	for i := range m.Fields {
		f := &m.Fields[i]
		switch f.Key {
		case messages.FieldSource, messages.FieldMessage, messages.FieldID, "id",
			messages.FieldTimestamp, messages.FieldStreams, "":
			continue
		case messages.FieldFull:
			if hasFull {
				continue
			}
		case "level":
			if level >= 0 {
				continue
			}
		}
		dst = appendField(dst, f.Key, f.Value)
	}
	return append(dst, '}'), nil
}

// appendField appends one additional field, or nothing for a value GELF
// cannot carry.
func appendField(dst []byte, key string, v any) []byte {
	start := len(dst)
	dst = append(dst, ',', '"', '_')
	quote := len(dst)
	dst = appendString(dst, key)
	// Drop the key's opening quote: the underscore sits inside it.
	dst = append(dst[:quote], dst[quote+1:]...)
	dst = append(dst, ':')
	switch v := v.(type) {
	case string:
		return appendString(dst, v)
	case int64:
		return strconv.AppendInt(dst, v, 10)
	case int:
		return strconv.AppendInt(dst, int64(v), 10)
	case int32:
		return strconv.AppendInt(dst, int64(v), 10)
	case uint64:
		return strconv.AppendUint(dst, v, 10)
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return dst[:start]
		}
		return appendFloat(dst, v)
	case float32:
		f := float64(v)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return dst[:start]
		}
		return appendFloat(dst, f)
	case bool:
		if v {
			return append(dst, `"true"`...)
		}
		return append(dst, `"false"`...)
	case nil:
		return dst[:start]
	}
	return appendString(dst, text(v))
}

// blank reports whether s is empty once receivers trim it: Graylog trims
// control characters and spaces (String.trim) and then refuses a host or
// short_message that is empty or whitespace.
func blank(s string) bool {
	for _, r := range s {
		if r > ' ' && !unicode.IsSpace(r) {
			return false
		}
	}
	return true
}

// text renders a value as gelfclient's toString would.
func text(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case nil:
		return ""
	case int64, float64, bool, time.Time, []string:
		return messages.FormatValue(v)
	}
	return fmt.Sprint(v)
}

// gelfLevel returns the GELF level a level field stands for, or -1: as
// GelfOutput.extractLevel does, a number is truncated to an int and a
// string must parse as one, and only syslog levels 0 to 7 exist.
func gelfLevel(v any) int64 {
	var n int64
	switch v := v.(type) {
	case int64:
		n = v
	case int:
		n = int64(v)
	case float64:
		if !(v > -1 && v < 8) { // also refuses NaN
			return -1
		}
		n = int64(v)
	case string:
		i, err := strconv.ParseInt(v, 10, 32)
		if err != nil {
			return -1
		}
		n = i
	default:
		return -1
	}
	if n < 0 || n > 7 {
		return -1
	}
	return n
}

// appendTimestamp writes seconds with three decimals, the value of
// getMillis() / 1000.0d, exactly: no float rounding on the way.
func appendTimestamp(dst []byte, t time.Time) []byte {
	ms := t.UnixMilli()
	if ms < 0 {
		return strconv.AppendFloat(dst, float64(ms)/1000, 'f', 3, 64)
	}
	dst = strconv.AppendInt(dst, ms/1000, 10)
	frac := ms % 1000
	return append(dst, '.', byte('0'+frac/100), byte('0'+frac/10%10), byte('0'+frac%10))
}

// appendFloat writes a float as JSON the way encoding/json chooses between
// plain and exponent notation, keeping a ".0" on integral values so that
// the receiver reads a float rather than an integer.
func appendFloat(dst []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	start := len(dst)
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'f' {
		for _, c := range dst[start:] {
			if c == '.' {
				return dst
			}
		}
		dst = append(dst, ".0"...)
	}
	return dst
}

// appendString writes s as a JSON string. jsontext replaces invalid UTF-8
// with U+FFFD, as encoding/json does, and says so in an error that is of no
// use here: the replacement is what a receiver should get.
func appendString(dst []byte, s string) []byte {
	dst, _ = jsontext.AppendQuote(dst, s)
	return dst
}
