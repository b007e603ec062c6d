package messages

import (
	"math"
	"time"
)

// Graylog's field-write rules (Message.addField, Message.removeField in
// 4.0), which extractors, static fields, converters and pipeline functions
// share: Set stores whatever it is given; SetField is what processing uses.

// ValidKey reports whether key is a field name Graylog stores:
// ^[\w.\-@]*$ with Java's ASCII \w, minus the empty name Elasticsearch
// cannot index.
func ValidKey(key string) bool {
	if key == "" {
		return false
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9',
			c == '_', c == '.', c == '-', c == '@':
		default:
			return false
		}
	}
	return true
}

// Unsettable reports whether key is one of Elasticsearch's reserved names,
// which a write silently ignores (Message.RESERVED_FIELDS minus the
// settable ones), or streams, which only routing sets.
func Unsettable(key string) bool {
	switch key {
	case FieldID, "_ttl", "_source", "_all", "_index", "_type", "_score", FieldStreams:
		return true
	}
	return false
}

// DateLayout is how Graylog writes a date held in a field other than
// timestamp: Elasticsearch's date format (Tools.ES_DATE_FORMAT).
const DateLayout = "2006-01-02 15:04:05.000"

// SetField sets a field as Graylog's Message.addField does and reports
// whether it did: the key is trimmed and must be valid and settable;
// strings are trimmed and an empty one is not stored; a time set on
// timestamp becomes the message's timestamp, on any other field Graylog's
// date text; a NaN or infinite float, Java's text for it. Any other
// value must be a string, int64, float64 or bool.
func (m *Message) SetField(key string, v any) bool {
	key = Trim(key)
	if !ValidKey(key) || Unsettable(key) || v == nil {
		return false
	}
	switch x := v.(type) {
	case string:
		x = Trim(x)
		if x == "" {
			return false
		}
		v = x
	case int:
		v = int64(x)
	case float64:
		// No JSON answer can hold NaN or ±Inf (a message with one would
		// break every search listing it), and Elasticsearch refuses them
		// (Graylog loses such a message to an indexing failure): keep the
		// text Java gives them.
		switch {
		case math.IsNaN(x):
			v = "NaN"
		case math.IsInf(x, 1):
			v = "Infinity"
		case math.IsInf(x, -1):
			v = "-Infinity"
		}
	case time.Time:
		if key == FieldTimestamp {
			m.Timestamp = x.UTC().Truncate(time.Millisecond)
			return true
		}
		v = x.UTC().Format(DateLayout)
	}
	if key == FieldTimestamp {
		// Only a time replaces the timestamp; loggate keeps it a time.
		return false
	}
	m.Set(key, v)
	return true
}

// Reserved reports whether key is one of Graylog's reserved fields: the
// unsettable ones and the settable message, source, timestamp and gl2_*.
func Reserved(key string) bool {
	return Unsettable(key) || key == FieldMessage || key == FieldSource || key == FieldTimestamp ||
		len(key) > 4 && key[:4] == "gl2_"
}

// RemoveField removes a field; removing a reserved one does nothing.
func (m *Message) RemoveField(key string) {
	if Reserved(key) {
		return
	}
	for i := range m.Fields {
		if m.Fields[i].Key == key {
			m.Fields = append(m.Fields[:i], m.Fields[i+1:]...)
			return
		}
	}
}
