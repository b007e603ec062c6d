package elastic

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/tidwall/gjson"

	"github.com/loggate/loggate/backend/logs/messages"
)

// metaFields are the names Elasticsearch 6.8 to 7.10 reserve for metadata;
// a document holding one is refused whole. Graylog drops them too
// (Message.RESERVED_FIELDS).
var metaFields = map[string]bool{
	"_id": true, "_index": true, "_type": true, "_source": true, "_routing": true,
	"_ignored": true, "_seq_no": true, "_primary_term": true, "_version": true,
	"_field_names": true, "_nested_path": true, "_all": true, "_ttl": true,
	"_score": true, "_uid": true, "_parent": true, "_size": true, "_doc_count": true,
	"_data_stream_timestamp": true, "_tier": true,
}

// errNoID is returned for a message without an id: Elasticsearch would
// make one up, and a replay would then duplicate the message.
var errNoID = errors.New("message has no _id")

// fieldKey returns the name a field is stored under, and false for a
// field that is not stored: the fields kept apart in messages.Message and
// the metadata names. Graylog replaces dots in keys with underscores, as
// Elasticsearch would otherwise read "a.b" as field b of an object a;
// invalid UTF-8 becomes U+FFFD, as in values.
func fieldKey(key string) (string, bool) {
	if rewritten(key) {
		key = strings.ReplaceAll(string([]rune(key)), ".", "_")
	}
	switch {
	case key == "", metaFields[key],
		key == messages.FieldTimestamp, key == messages.FieldStreams, key == idField:
		return "", false
	}
	return key, true
}

// appendDocument appends the _source of m: timestamp in Graylog's format,
// streams, the id copy and every field. Non-finite floats are left out,
// as no JSON number and no Elasticsearch double can hold them. When keys
// collide once dots are replaced, the last one wins, as it would in
// Graylog's field map.
func appendDocument(b []byte, m *messages.Message) []byte {
	b = append(b, `{"timestamp":"`...)
	b = m.Timestamp.UTC().AppendFormat(b, timeLayout)
	b = append(b, `","streams":[`...)
	for i, s := range m.Streams {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, s)
	}
	b = append(b, `],"`+idField+`":`...)
	b = appendString(b, m.ID)
	collide := false
	for i := range m.Fields {
		if rewritten(m.Fields[i].Key) {
			collide = true
			break
		}
	}
	for i := range m.Fields {
		f := &m.Fields[i]
		key, ok := fieldKey(f.Key)
		if !ok || (collide && shadowed(m.Fields[i+1:], key)) {
			continue
		}
		mark := len(b)
		b = append(b, ',')
		b = appendString(b, key)
		b = append(b, ':')
		switch v := f.Value.(type) {
		case string:
			b = appendString(b, v)
		case int64:
			b = strconv.AppendInt(b, v, 10)
		case float64:
			if math.IsNaN(v) || math.IsInf(v, 0) {
				b = b[:mark]
				continue
			}
			b = appendFloat(b, v)
		case bool:
			b = strconv.AppendBool(b, v)
		default:
			b = appendString(b, messages.FormatValue(v))
		}
	}
	return append(b, '}')
}

// rewritten reports whether fieldKey changes key.
func rewritten(key string) bool {
	return strings.IndexByte(key, '.') >= 0 || !utf8.ValidString(key)
}

// shadowed reports whether a later field is stored under key. Keys are
// unique, so only a message with rewritten keys needs the scan.
func shadowed(later []messages.Field, key string) bool {
	for i := range later {
		if later[i].Key == key {
			return true
		}
		if rewritten(later[i].Key) {
			if k, _ := fieldKey(later[i].Key); k == key {
				return true
			}
		}
	}
	return false
}

// appendFloat writes a float so that it reads back as a float: always
// with a fraction or an exponent, since 3.0 written as 3 would come back
// as the integer 3.
func appendFloat(b []byte, v float64) []byte {
	start := len(b)
	b = strconv.AppendFloat(b, v, 'g', -1, 64)
	for _, c := range b[start:] {
		if c == '.' || c == 'e' || c == 'E' {
			return b
		}
	}
	return append(b, ".0"...)
}

// appendString appends s as a JSON string. Invalid UTF-8 becomes U+FFFD,
// as encoding/json does (Elasticsearch refuses it); jsontext reports that
// in an error there is nothing to do about.
func appendString(b []byte, s string) []byte {
	b, _ = jsontext.AppendQuote(b, s)
	return b
}

// appendBulk appends the _bulk lines indexing msgs into target, the
// deflector alias, each under its own id so that writing it again replaces
// it.
func appendBulk(b []byte, srv server, target string, msgs []messages.Message) ([]byte, error) {
	for i := range msgs {
		m := &msgs[i]
		if m.ID == "" {
			return nil, errNoID
		}
		b = append(b, `{"index":{"_index":`...)
		b = appendString(b, target)
		if srv.typed() {
			b = append(b, `,"_type":"message"`...)
		}
		b = append(b, `,"_id":`...)
		b = appendString(b, m.ID)
		b = append(b, "}}\n"...)
		b = appendDocument(b, m)
		b = append(b, '\n')
	}
	return b, nil
}

// timeLayouts are the timestamp forms read back: Graylog's, and the ISO
// forms other writers of a shared cluster may use.
var timeLayouts = []string{timeLayout, "2006-01-02 15:04:05", time.RFC3339Nano, "2006-01-02T15:04:05.000Z0700"}

// parseTime reads a stored timestamp as UTC at millisecond precision; a
// number is epoch milliseconds. It returns false for anything else.
func parseTime(v gjson.Result) (time.Time, bool) {
	switch v.Type {
	case gjson.String:
		for _, layout := range timeLayouts {
			if t, err := time.Parse(layout, v.Str); err == nil {
				return t.UTC().Truncate(time.Millisecond), true
			}
		}
	case gjson.Number:
		if ms, err := strconv.ParseInt(v.Raw, 10, 64); err == nil {
			return time.UnixMilli(ms).UTC(), true
		}
	}
	return time.Time{}, false
}

// parseSource reads a stored document back into a message. The server is
// outside input and other programs may share the cluster, so nothing is
// assumed: a timestamp that does not parse is kept as a string field; a
// number without fraction or exponent that fits is an int64, any other a
// float64; null is no value; arrays and objects, which loggate never
// writes, are kept as their JSON text.
func parseSource(id string, src gjson.Result) messages.Message {
	m := messages.Message{ID: id}
	src.ForEach(func(k, v gjson.Result) bool {
		key := k.Str
		switch key {
		case messages.FieldTimestamp:
			if t, ok := parseTime(v); ok {
				m.Timestamp = t
				return true
			}
		case messages.FieldStreams:
			m.Streams = parseStreams(v)
			return true
		case idField, messages.FieldID:
			return true
		}
		if val, ok := fieldValue(v); ok {
			m.Set(key, val)
		}
		return true
	})
	if m.Streams == nil {
		m.Streams = []string{}
	}
	return m
}

func parseStreams(v gjson.Result) []string {
	out := []string{}
	switch {
	case v.IsArray():
		v.ForEach(func(_, s gjson.Result) bool {
			if s.Type == gjson.String {
				out = append(out, s.Str)
			}
			return true
		})
	case v.Type == gjson.String:
		out = append(out, v.Str)
	}
	return out
}

// fieldValue converts a JSON value to a field value.
func fieldValue(v gjson.Result) (any, bool) {
	switch v.Type {
	case gjson.String:
		return v.Str, true
	case gjson.True:
		return true, true
	case gjson.False:
		return false, true
	case gjson.Number:
		if !strings.ContainsAny(v.Raw, ".eE") {
			if n, err := strconv.ParseInt(v.Raw, 10, 64); err == nil {
				return n, true
			}
		}
		return v.Num, true
	case gjson.JSON:
		return v.Raw, true
	}
	return nil, false
}
