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

// View is a decoded message as a Decoder returns it: Message's parts, with
// field values not boxed into interfaces. Its strings alias the payload
// and the Decoder's buffers.
type View struct {
	Timestamp time.Time
	Source    string
	Message   string
	// Fields are Message.Fields, in the same order.
	Fields []ViewField
}

// ValueKind tells which member of a ViewField holds its value.
type ValueKind uint8

const (
	StringValue ValueKind = iota + 1 // Str
	IntValue                         // Int
	FloatValue                       // Float
)

// ViewField is one field of a View.
type ViewField struct {
	Key   string
	Kind  ValueKind
	Str   string
	Int   int64
	Float float64
}

// Value returns the field's value as Message.Fields holds it.
func (f *ViewField) Value() any {
	switch f.Kind {
	case IntValue:
		return f.Int
	case FloatValue:
		return f.Float
	}
	return f.Str
}

// message returns the view as a Message; it shares the view's strings.
func (v *View) message() Message {
	fs := make([]Field, len(v.Fields))
	for i := range v.Fields {
		fs[i] = Field{Key: v.Fields[i].Key, Value: v.Fields[i].Value()}
	}
	return Message{Timestamp: v.Timestamp, Source: v.Source, Message: v.Message, Fields: fs}
}
