package messages

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"
)

// The record is how a message travels through the journal: inputs append
// it once the message is decoded and valid, processing reads it back. It is
// a compact binary form rather than JSON because both ends run for every
// message, and it round-trips every value type exactly (JSON would turn an
// int64 above 2^53 into a float).
//
//	record  = version:1 id:str millis:varint nstreams:uvarint stream:str*
//	          nfields:uvarint field*
//	field   = key:str tag:1 value
//	str     = len:uvarint bytes
const recordVersion = 1

const (
	tagString = 's'
	tagInt    = 'i'
	tagFloat  = 'f'
	tagTrue   = 't'
	tagFalse  = 'F'
)

// ErrBadRecord is returned by UnmarshalBinary for bytes that are not a
// record this version wrote.
var ErrBadRecord = errors.New("messages: malformed record")

// AppendBinary appends the record form of m to b.
func (m *Message) AppendBinary(b []byte) ([]byte, error) {
	b = append(b, recordVersion)
	b = appendString(b, m.ID)
	b = binary.AppendVarint(b, m.Timestamp.UnixMilli())
	b = binary.AppendUvarint(b, uint64(len(m.Streams)))
	for _, s := range m.Streams {
		b = appendString(b, s)
	}
	b = binary.AppendUvarint(b, uint64(len(m.Fields)))
	for _, f := range m.Fields {
		switch v := f.Value.(type) {
		case string:
			b = AppendStringField(b, f.Key, v)
		case int64:
			b = AppendIntField(b, f.Key, v)
		case float64:
			b = AppendFloatField(b, f.Key, v)
		case bool:
			b = appendString(b, f.Key)
			if v {
				b = append(b, tagTrue)
			} else {
				b = append(b, tagFalse)
			}
		default:
			return nil, fmt.Errorf("messages: field %q has unsupported type %T", f.Key, f.Value)
		}
	}
	return b, nil
}

// AppendRecordHead appends the start of the record of a message on no
// streams, which nfields fields appended with AppendStringField,
// AppendIntField and AppendFloatField complete: inputs write a message's
// record from its parts, without making a Message first.
func AppendRecordHead[ID ~string | ~[]byte](b []byte, id ID, ts time.Time, nfields int) []byte {
	b = append(b, recordVersion)
	b = appendString(b, id)
	b = binary.AppendVarint(b, ts.UnixMilli())
	b = binary.AppendUvarint(b, 0)
	return binary.AppendUvarint(b, uint64(nfields))
}

// AppendStringField appends a field holding a string to a record.
func AppendStringField[S ~string | ~[]byte](b []byte, key string, v S) []byte {
	b = appendString(b, key)
	b = append(b, tagString)
	return appendString(b, v)
}

// AppendIntField appends a field holding an int64 to a record.
func AppendIntField(b []byte, key string, v int64) []byte {
	b = appendString(b, key)
	b = append(b, tagInt)
	return binary.AppendVarint(b, v)
}

// AppendFloatField appends a field holding a float64 to a record.
func AppendFloatField(b []byte, key string, v float64) []byte {
	b = appendString(b, key)
	b = append(b, tagFloat)
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
}

// MarshalBinary returns the record form of m.
func (m *Message) MarshalBinary() ([]byte, error) {
	return m.AppendBinary(make([]byte, 0, 64+m.sizeHint()))
}

func (m *Message) sizeHint() int {
	n := len(m.ID)
	for _, s := range m.Streams {
		n += len(s) + 1
	}
	for _, f := range m.Fields {
		n += len(f.Key) + 10
		if s, ok := f.Value.(string); ok {
			n += len(s)
		}
	}
	return n
}

// UnmarshalBinary reads a record written by MarshalBinary. Strings are
// copied, so b may be reused afterwards: the ID and the string values
// share one copy of b (one allocation, not one each), the field names have
// their own.
func (m *Message) UnmarshalBinary(b []byte) error {
	return (*RecordReader)(nil).Read(m, b)
}

// RecordReader reads records as UnmarshalBinary does with fewer
// allocations, which processing does for every message: a field name read
// before is the same string as before, not a copy again, and the
// message's strings, field slice and boxed values are cut from an Arena's
// blocks. The
// fields it reads have spare capacity (SpareFields), so that processors
// adding a few fields do not regrow them. Its zero value is ready; it is
// not safe for concurrent use.
type RecordReader struct {
	keys map[string]string
	// recent is the name read last at each field position: a sender's
	// records repeat their names in the same order, and comparing a name
	// costs less than hashing it.
	recent [32]string
	arena  Arena
	// Spare is the room for more fields left in every message's field
	// slice; SpareFields when it is less.
	Spare int
}

// SpareFields is the room for more fields a RecordReader leaves in every
// message's field slice.
const SpareFields = 4

// maxRecordKeys bounds the field names a RecordReader remembers: senders
// choose the names, and a stream of new ones must not grow it for ever.
const maxRecordKeys = 4096

// Read reads the record b into m, as UnmarshalBinary. A nil reader
// remembers no field names: each is a copy of its own.
func (d *RecordReader) Read(m *Message, b []byte) error {
	var a *Arena
	spare := 0
	if d != nil {
		a, spare = &d.arena, max(d.Spare, SpareFields)
	}
	r := reader{b: b}
	if a == nil {
		r.s = string(b)
	} else {
		r.a = a
	}
	if r.byte() != recordVersion {
		return fmt.Errorf("%w: unknown version", ErrBadRecord)
	}
	m.ID = r.string()
	m.Timestamp = time.UnixMilli(r.varint()).UTC()
	n := r.count()
	m.Streams = nil
	if n > 0 {
		m.Streams = make([]string, n)
		for i := range m.Streams {
			m.Streams[i] = r.string()
		}
	}
	n = r.count()
	m.Fields = a.Fields(n, spare)
	for i := 0; i < n && r.err == nil; i++ {
		key := d.key(&r, i)
		var v any
		switch r.byte() {
		case tagString:
			v = r.string()
		case tagInt:
			v = r.varint()
		case tagFloat:
			v = math.Float64frombits(r.uint64())
		case tagTrue:
			v = true
		case tagFalse:
			v = false
		default:
			r.fail("unknown value tag")
		}
		m.Fields = append(m.Fields, Field{Key: key, Value: v})
	}
	if r.err == nil && len(r.b) != 0 {
		r.fail("trailing bytes")
	}
	return r.err
}

// key reads a field name. A remembered name has a copy of its own, not a
// part of the record it first came in: the record would stay in memory as
// long as the name.
func (d *RecordReader) key(r *reader, pos int) string {
	n := r.count()
	raw := r.b[:n]
	r.b = r.b[n:]
	if d == nil {
		return string(raw)
	}
	if pos < len(d.recent) && d.recent[pos] == string(raw) {
		return d.recent[pos]
	}
	k, ok := d.keys[string(raw)]
	if !ok {
		k = string(raw)
		if len(d.keys) < maxRecordKeys {
			if d.keys == nil {
				d.keys = map[string]string{}
			}
			d.keys[k] = k
		}
	}
	if pos < len(d.recent) {
		d.recent[pos] = k
	}
	return k
}

func appendString[S ~string | ~[]byte](b []byte, s S) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// reader decodes a record; the first error sticks and every later read
// returns a zero value, so the decoder checks once at the end. The strings
// it reads are copied into a, one by one, or without a cut from s, a copy
// of the whole record: one allocation, and the field names' bytes along.
type reader struct {
	b   []byte
	a   *Arena
	s   string
	err error
}

func (r *reader) fail(why string) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: %s", ErrBadRecord, why)
	}
	r.b = nil
}

func (r *reader) byte() byte {
	if len(r.b) < 1 {
		r.fail("truncated")
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *reader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail("bad varint")
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail("bad varint")
		return 0
	}
	r.b = r.b[n:]
	return v
}

// count reads a length that must fit in what is left, so a forged length
// cannot make the decoder allocate more than the record's size.
func (r *reader) count() int {
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.fail("count exceeds record")
		return 0
	}
	return int(n)
}

func (r *reader) string() string {
	n := r.count()
	if r.a != nil {
		s := r.a.Text(r.b[:n])
		r.b = r.b[n:]
		return s
	}
	at := len(r.s) - len(r.b)
	r.b = r.b[n:]
	return r.s[at : at+n]
}

func (r *reader) uint64() uint64 {
	if len(r.b) < 8 {
		r.fail("truncated")
		return 0
	}
	v := binary.LittleEndian.Uint64(r.b)
	r.b = r.b[8:]
	return v
}
