// Package messages owns the log message as loggate stores it: the record an
// input appends to the journal, the document a message store holds, and the
// interface every message store (embedded or Elasticsearch) implements.
package messages

import (
	"strconv"
	"time"

	"github.com/loggate/loggate/router/api"
)

// Names of the fields every stored message has or may have, as Graylog
// spells them (Message.java@4.0.0).
const (
	FieldID        = "_id"
	FieldTimestamp = "timestamp"
	FieldStreams   = "streams"
	FieldSource    = "source"
	FieldMessage   = "message"
	FieldFull      = "full_message"

	FieldSourceInput   = "gl2_source_input"
	FieldSourceNode    = "gl2_source_node"
	FieldRemoteIP      = "gl2_remote_ip"
	FieldRemotePort    = "gl2_remote_port"
	FieldMessageID     = "gl2_message_id"
	FieldAccountedSize = "gl2_accounted_message_size"
)

// Message is one log message. ID, Timestamp and Streams are kept apart
// because every store indexes them specially; everything else, source and
// message included, is a Field.
type Message struct {
	// ID is the message's _id, a UUID assigned when the message was
	// received, so a replay of the journal writes the same document again
	// rather than a copy.
	ID string
	// Timestamp is at millisecond precision, in UTC.
	Timestamp time.Time
	// Streams are the ids of the streams the message was routed to.
	Streams []string
	// Fields are the other fields, keys unique. A value is a string, an
	// int64, a float64 or a bool.
	Fields []Field
}

// Field is one message field.
type Field struct {
	Key   string
	Value any
}

// Get returns the value of the named field, including the three kept
// apart (as a string, a time.Time and a []string), and whether it is set.
func (m *Message) Get(key string) (any, bool) {
	switch key {
	case FieldID:
		return m.ID, m.ID != ""
	case FieldTimestamp:
		return m.Timestamp, !m.Timestamp.IsZero()
	case FieldStreams:
		return m.Streams, len(m.Streams) > 0
	}
	for i := range m.Fields {
		if m.Fields[i].Key == key {
			return m.Fields[i].Value, true
		}
	}
	return nil, false
}

// Set sets a field, replacing its value if the key is present.
func (m *Message) Set(key string, v any) {
	for i := range m.Fields {
		if m.Fields[i].Key == key {
			m.Fields[i].Value = v
			return
		}
	}
	m.Fields = append(m.Fields, Field{Key: key, Value: v})
}

// String returns the field as text, the way stream rules and the query
// language compare it, and whether it is set.
func (m *Message) String(key string) (string, bool) {
	v, ok := m.Get(key)
	if !ok {
		return "", false
	}
	return FormatValue(v), true
}

// FormatValue renders a field value as text: numbers as Java's toString
// would for a long or a double, times as Graylog's ISO form.
func FormatValue(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(v)
	case time.Time:
		return v.UTC().Format(TimeLayout)
	case []string:
		b, _ := api.Marshal(v)
		return string(b)
	}
	return ""
}

// TimeLayout is how a message timestamp is rendered in responses: Joda's
// ISO form with milliseconds and Z.
const TimeLayout = "2006-01-02T15:04:05.000Z"

// Map returns the message as Graylog's flat field map, the shape of
// messages[].message in a search response.
func (m *Message) Map() map[string]any {
	out := make(map[string]any, len(m.Fields)+3)
	for _, f := range m.Fields {
		out[f.Key] = f.Value
	}
	out[FieldID] = m.ID
	out[FieldTimestamp] = m.Timestamp.UTC().Format(TimeLayout)
	streams := m.Streams
	if streams == nil {
		streams = []string{}
	}
	out[FieldStreams] = streams
	return out
}

// MatchMap returns the map stream rules are evaluated on: every field
// by its stored name, timestamp as a time.
func (m *Message) MatchMap() map[string]any {
	out := make(map[string]any, len(m.Fields)+2)
	for _, f := range m.Fields {
		out[f.Key] = f.Value
	}
	out[FieldID] = m.ID
	out[FieldTimestamp] = m.Timestamp
	return out
}

// Trim trims a string value as Graylog's Message does when a field is set:
// Java's String.trim, which strips every char up to U+0020 at both ends,
// control characters included. It does not allocate.
func Trim(s string) string {
	i, j := 0, len(s)
	for i < j && s[i] <= ' ' {
		i++
	}
	for j > i && s[j-1] <= ' ' {
		j--
	}
	return s[i:j]
}
