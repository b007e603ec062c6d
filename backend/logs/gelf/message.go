package gelf

import "time"

// Message is a decoded GELF message in Graylog's shape: the three fields
// every Graylog message has, and the rest.
type Message struct {
	// Timestamp is the GELF timestamp at millisecond precision, in UTC, or
	// the receive time when the message had none.
	Timestamp time.Time
	// Source is the GELF host.
	Source string
	// Message is the GELF short_message (or its message fallback).
	Message string
	// Fields holds every other field in payload order, keys unique:
	// full_message, level, facility, file, line and the additional fields
	// with their leading underscore stripped. A value is a string, an int64
	// or a float64; JSON objects and arrays arrive as their JSON text.
	//
	// A slice rather than a map: decoding fills it with one allocation, and
	// consumers (indexing, stream rules) iterate far more than they look up.
	Fields []Field
}

// Field is one message field.
type Field struct {
	Key   string
	Value any
}

// Field returns the value of the named field and whether it is set. It
// looks through Fields only, not Timestamp, Source or Message.
func (m *Message) Field(key string) (any, bool) {
	for i := range m.Fields {
		if m.Fields[i].Key == key {
			return m.Fields[i].Value, true
		}
	}
	return nil, false
}
