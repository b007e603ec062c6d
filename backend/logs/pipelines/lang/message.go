package lang

import (
	"encoding/json"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/loggate/loggate/backend/logs/messages"
)

// Message is a message as rules see it: the stored message and what a
// pipeline decided about it.
type Message struct {
	*messages.Message
	// Dropped is set by drop_message: the message goes no further.
	Dropped bool
	// Errors are the run-time errors of the rules that ran on it, the text
	// of gl2_processing_error.
	Errors []string
}

// FieldProcessingError is where run-time errors of rules are recorded.
const FieldProcessingError = "gl2_processing_error"

// validKey is Message.java's rule for field names, ^[\w.\-@]*$, without
// a regular expression: it runs for every field a rule sets.
func validKey(key string) bool {
	for i := 0; i < len(key); i++ {
		c := key[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-' || c == '@') {
			return false
		}
	}
	return true
}

// trimKey is strings.TrimSpace for field names, which mostly have nothing
// to trim: that is checked first.
func trimKey(key string) string {
	if n := len(key); n > 0 && key[0] > ' ' && key[0] < utf8.RuneSelf && key[n-1] > ' ' && key[n-1] < utf8.RuneSelf {
		return key
	}
	return strings.TrimSpace(key)
}

// unsettable reports the reserved keys a write to is silently ignored. A
// switch, not a map: it runs for every field a rule sets, and most keys
// are ruled out by their first byte.
func unsettable(key string) bool {
	if key == "" || key[0] != '_' {
		return false
	}
	switch key {
	case "_id", "_ttl", "_source", "_all", "_index", "_type", "_score":
		return true
	}
	return false
}

// reserved are the keys no rule may remove (Message.RESERVED_FIELDS).
func reserved(key string) bool {
	switch key {
	case messages.FieldMessage, messages.FieldSource, messages.FieldTimestamp:
		return true
	}
	return unsettable(key) || reservedGL2[key]
}

var reservedGL2 = map[string]bool{
	"gl2_accounted_message_size": true, "gl2_original_timestamp": true, "gl2_processing_error": true,
	"gl2_processing_timestamp": true, "gl2_receive_timestamp": true, "gl2_remote_hostname": true,
	"gl2_remote_ip": true, "gl2_remote_port": true, "gl2_source_collector": true,
	"gl2_source_collector_input": true, "gl2_source_input": true, "gl2_source_node": true,
	"gl2_source_radio": true, "gl2_source_radio_input": true, "gl2_message_id": true,
}

// Field returns the value of a field, nil when absent.
func (m *Message) Field(key string) any {
	switch key {
	case messages.FieldID:
		return m.ID
	case messages.FieldTimestamp:
		return m.Timestamp
	case messages.FieldStreams:
		return nil
	}
	for i := range m.Fields {
		if m.Fields[i].Key == key {
			return m.Fields[i].Value
		}
	}
	return nil
}

// Has reports whether the message has the field.
func (m *Message) Has(key string) bool {
	switch key {
	case messages.FieldID:
		return m.ID != ""
	case messages.FieldTimestamp:
		return !m.Timestamp.IsZero()
	}
	return slices.ContainsFunc(m.Fields, func(f messages.Field) bool { return f.Key == key })
}

// SetField writes a field as Graylog's Message.addField does: the key is
// trimmed and must be made of word characters, '.', '-' and '@'; the
// reserved keys _id, _ttl, … are never written; strings are trimmed and an
// empty one, like null, is not stored. Values the message store cannot
// hold (lists, maps, JSON, addresses) are stored as their text; a time is
// stored as Graylog's ISO form, or as the timestamp itself.
func (m *Message) SetField(key string, v any) {
	key = trimKey(key)
	if key == "" || unsettable(key) || !validKey(key) || v == nil {
		return
	}
	switch x := v.(type) {
	case string:
		// v is kept unless trimming changes it: boxing the string again
		// would cost an allocation per field.
		if t := messages.Trim(x); len(t) != len(x) {
			v = t
			x = t
		}
		if x == "" {
			return
		}
	case int64, float64, bool:
	case int:
		v = int64(x)
	case time.Time:
		if key == messages.FieldTimestamp {
			m.Timestamp = x.UTC().Truncate(time.Millisecond)
			return
		}
		v = x.UTC().Format(messages.TimeLayout)
	default:
		s := storedText(v)
		if s == "" {
			return
		}
		v = s
	}
	if key == messages.FieldTimestamp {
		// A timestamp that is not a time is kept as Graylog keeps it
		// when it cannot read one.
		m.Message.Set("gl2_original_timestamp", v)
		return
	}
	m.Message.Set(key, v)
}

// storedText is how a value without a stored form is kept: JSON for
// collections, the text form otherwise.
func storedText(v any) string {
	switch x := v.(type) {
	case []any, map[string]any, *MatchResult, JSONNode:
		if r, ok := x.(*MatchResult); ok {
			v = r.Map()
		}
		if j, ok := x.(JSONNode); ok {
			v = j.V
		}
		b, err := json.Marshal(v)
		if err != nil {
			return ""
		}
		return string(b)
	}
	s, _ := ToString(v)
	return s
}

// RemoveField removes a field; reserved ones stay.
func (m *Message) RemoveField(key string) {
	if reserved(key) {
		return
	}
	m.Fields = slices.DeleteFunc(m.Fields, func(f messages.Field) bool { return f.Key == key })
}

// AddStream puts the message on a stream.
func (m *Message) AddStream(id string) {
	if !slices.Contains(m.Streams, id) {
		m.Streams = append(m.Streams, id)
	}
}

// RemoveStream takes the message off a stream.
func (m *Message) RemoveStream(id string) {
	m.Streams = slices.DeleteFunc(m.Streams, func(s string) bool { return s == id })
}

// Fail records a run-time error of a rule on the message, as
// gl2_processing_error, joined to earlier ones with ",".
func (m *Message) Fail(text string) {
	m.Errors = append(m.Errors, text)
	m.Message.Set(FieldProcessingError, strings.Join(m.Errors, ","))
}
