package processing

import (
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/loggate/loggate/backend/logs/messages"
)

// forIndex returns m as Graylog 4.0 indexes it (Message.toElasticSearchObject
// and the bulk indexer): dots in field names become underscores, as
// Elasticsearch 2 and later refuse them, and gl2_accounted_message_size holds
// the message's size. A dotted field whose replaced name is already a field
// is dropped, as Graylog drops it with a warning. m itself is not changed:
// outputs forward the message with its names as received, as Graylog's do.
//
// A message whose names need no change is indexed in the spare room of its
// own field slice, without a copy; the caller then keeps m's fields only
// up to their length (see shared).
func (x *indexer) forIndex(m messages.Message) messages.Message {
	size := accountedSize(&m)
	if n := len(m.Fields); n < cap(m.Fields) && asIndexed(m.Fields) {
		m.Fields = append(m.Fields, messages.Field{Key: messages.FieldAccountedSize, Value: size})
		return m
	}
	fs := x.arena.Fields(len(m.Fields)+1, 0)
	for _, f := range m.Fields {
		if f.Key == messages.FieldAccountedSize {
			continue
		}
		if strings.IndexByte(f.Key, '.') >= 0 {
			key := x.dotless(f.Key)
			if _, clash := m.Get(key); clash {
				continue
			}
			f.Key = key
		}
		fs = append(fs, f)
	}
	m.Fields = append(fs, messages.Field{Key: messages.FieldAccountedSize, Value: size})
	return m
}

// asIndexed reports whether fields are indexed under their own names and
// hold no accounted size of their own.
func asIndexed(fields []messages.Field) bool {
	for _, f := range fields {
		if f.Key == messages.FieldAccountedSize || strings.IndexByte(f.Key, '.') >= 0 {
			return false
		}
	}
	return true
}

// shared returns fs without room to grow: the indexed copy of its
// message may use that room (forIndex), so an append must move fs.
func shared(fs []messages.Field) []messages.Field { return fs[:len(fs):len(fs)] }

// indexer makes the indexed copies of messages (forIndex). Its field
// slices are cut from an arena, and the names it gave a
// dotted field name are remembered: processing sees the same few names
// in every message. Not safe for concurrent use.
type indexer struct {
	arena messages.Arena
	keys  map[string]string
}

// maxDotlessKeys bounds the names an indexer remembers: senders choose
// them, and a stream of new ones must not grow it for ever.
const maxDotlessKeys = 4096

// dotless returns key with its dots replaced by underscores.
func (x *indexer) dotless(key string) string {
	if k, ok := x.keys[key]; ok {
		return k
	}
	k := strings.ReplaceAll(key, ".", "_")
	if len(x.keys) < maxDotlessKeys {
		if x.keys == nil {
			x.keys = map[string]string{}
		}
		x.keys[key] = k
	}
	return k
}

// accountedSize is Graylog 4.0's Message.getSize, which the outputs' and
// the license's traffic accounting use: for every field but _id (and the
// streams, which are not fields) the length of its name plus the size of
// its value. Lengths are Java's, in UTF-16 code units, not bytes; a
// number counts as the bytes of its Java type (8 for a long or a double, 4
// for the int fields level and gl2_remote_port), a boolean 1, the timestamp
// 8.
func accountedSize(m *messages.Message) int64 {
	size := int64(len(messages.FieldTimestamp) + 8)
	if m.Timestamp.IsZero() {
		size = 0
	}
	for _, f := range m.Fields {
		if f.Key == messages.FieldAccountedSize {
			continue
		}
		size += javaLength(f.Key) + valueSize(f.Key, f.Value)
	}
	return size
}

func valueSize(key string, v any) int64 {
	switch v := v.(type) {
	case string:
		return javaLength(v)
	case int64, int:
		if key == "level" || key == messages.FieldRemotePort {
			return 4
		}
		return 8
	case float64, time.Time:
		return 8
	case bool:
		return 1
	}
	return 0
}

// javaLength is String.length(): UTF-16 code units. An ASCII byte is one
// unit, and most text is ASCII: only the rest is decoded.
func javaLength(s string) int64 {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			n := int64(i)
			for _, r := range s[i:] {
				n += int64(utf16.RuneLen(r))
			}
			return n
		}
	}
	return int64(len(s))
}

// AccountedSize is Graylog's Message.getSize of m, what
// gl2_accounted_message_size holds once the message is stored.
func AccountedSize(m *messages.Message) int64 { return accountedSize(m) }
