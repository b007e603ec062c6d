package gelf

import (
	"math"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/loggate/loggate/backend/logs/messages"
)

// Decode decodes one GELF payload: an uncompressed, zlib or gzip JSON
// object, as GelfCodec.decode does. The Message does not alias payload, so
// the caller may reuse its buffer. Errors wrap ErrInvalid.
func Decode(payload []byte, opts Options) (Message, error) {
	return decode(payload, nil, opts)
}

// decode decodes payload; outer, when set, is the inflater whose buffer
// holds payload (the decompressed body of DecodeHTTP), released here.
func decode(payload []byte, outer *inflater, opts Options) (Message, error) {
	data, owner := payload, outer
	switch c := detect(payload); c {
	case chunked:
		outer.release()
		return Message{}, invalidf("chunked payload must be reassembled first")
	case zlibbed, gzipped:
		owner = inflaters.Get().(*inflater)
		var err error
		data, err = owner.inflate(c, payload, opts.maxDecompressed(), opts.Budget)
		outer.release()
		if err != nil {
			owner.release()
			return Message{}, err
		}
	}
	s, err := owner.text(data, opts.Budget)
	if err != nil {
		return Message{}, err
	}
	if !utf8.ValidString(s) {
		// Graylog decodes the bytes with a replacing UTF-8 decoder.
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	s = strings.TrimPrefix(s, "\uFEFF")

	d := decoders.Get().(*decoder)
	defer d.release()
	return d.decode(s, opts)
}

// special names the top-level keys GelfCodec reads by name.
type special uint8

const (
	spHost special = iota
	spShortMessage
	spMessage
	spTimestamp
	spFullMessage
	spFile
	spLine
	spLevel
	spFacility
	spCount
)

func specialOf(key string) (special, bool) {
	switch key {
	case "host":
		return spHost, true
	case "short_message":
		return spShortMessage, true
	case "message":
		return spMessage, true
	case "timestamp":
		return spTimestamp, true
	case "full_message":
		return spFullMessage, true
	case "file":
		return spFile, true
	case "line":
		return spLine, true
	case "level":
		return spLevel, true
	case "facility":
		return spFacility, true
	}
	return 0, false
}

// linearMax is the member count up to which duplicate checks scan a slice;
// beyond it they use a map so a payload with many keys stays linear.
const linearMax = 16

// decoder is the pooled per-call state of Decode.
type decoder struct {
	sc      scanner
	members []member
	byKey   map[string]int // member index by key, once members > linearMax
	special [spCount]int
	fields  map[string]struct{} // set field names, once fields > linearMax
}

var decoders = sync.Pool{New: func() any { return new(decoder) }}

func (d *decoder) release() {
	clear(d.members)
	d.members = d.members[:0]
	if cap(d.members) > 4096 {
		d.members = nil
	}
	clear(d.byKey)
	clear(d.fields)
	d.sc = scanner{buf: d.sc.buf[:0], stack: d.sc.stack[:0]}
	if cap(d.sc.buf) > maxPooledBuffer {
		d.sc.buf = nil
	}
	decoders.Put(d)
}

// add appends a member. A repeated key replaces the earlier value in place,
// as Jackson's tree model does (last value wins, first position kept).
func (d *decoder) add(ms []member, m member) []member {
	if i := d.index(ms, m.key); i >= 0 {
		ms[i].val = m.val
		return ms
	}
	if sp, ok := specialOf(m.key); ok {
		d.special[sp] = len(ms)
	}
	ms = append(ms, m)
	if d.byKey != nil {
		d.byKey[m.key] = len(ms) - 1
	} else if len(ms) > linearMax {
		d.byKey = make(map[string]int, 2*len(ms))
		for i := range ms {
			d.byKey[ms[i].key] = i
		}
	}
	return ms
}

func (d *decoder) index(ms []member, key string) int {
	if len(ms) > linearMax && d.byKey != nil {
		if i, ok := d.byKey[key]; ok {
			return i
		}
		return -1
	}
	for i := range ms {
		if ms[i].key == key {
			return i
		}
	}
	return -1
}

func (d *decoder) get(sp special) (value, bool) {
	if i := d.special[sp]; i >= 0 {
		return d.members[i].val, true
	}
	return value{}, false
}

func (d *decoder) decode(s string, opts Options) (Message, error) {
	for i := range d.special {
		d.special[i] = -1
	}
	if d.byKey != nil && len(d.byKey) == 0 {
		d.byKey = nil
	}
	d.sc.s = s
	var err error
	if d.members, err = d.sc.object(d.members[:0], d.add); err != nil {
		return Message{}, err
	}

	var msg Message
	if msg.Source, err = d.host(); err != nil {
		return Message{}, err
	}
	if msg.Message, err = d.shortMessage(); err != nil {
		return Message{}, err
	}
	msg.Timestamp = d.timestamp(opts)
	msg.Fields = make([]Field, 0, len(d.members))
	d.fields = nil
	return d.mapFields(msg), nil
}

// host validates host as the issue requires: unlike Graylog 4.0, which only
// warns when it is missing, a message without a host is rejected.
func (d *decoder) host() (string, error) {
	v, ok := d.get(spHost)
	switch {
	case !ok:
		return "", invalidf(`missing mandatory "host" field`)
	case v.kind != kindString:
		return "", invalidf(`"host" is not a string`)
	}
	h := messages.Trim(v.str)
	if isBlank(h) {
		return "", invalidf(`empty mandatory "host" field`)
	}
	return h, nil
}

// shortMessage applies validateGELFMessage's rules: short_message must be a
// string; when it is absent or blank, a non-blank string "message" stands in.
func (d *decoder) shortMessage() (string, error) {
	sm, hasShort := d.get(spShortMessage)
	if hasShort {
		if sm.kind != kindString {
			return "", invalidf(`"short_message" is not a string`)
		}
		if t := messages.Trim(sm.str); !isBlank(t) {
			return t, nil
		}
	}
	m, ok := d.get(spMessage)
	switch {
	case !ok && hasShort:
		return "", invalidf(`empty mandatory "short_message" field`)
	case !ok:
		return "", invalidf(`missing mandatory "short_message" or "message" field`)
	case m.kind != kindString:
		return "", invalidf(`"message" is not a string`)
	}
	t := messages.Trim(m.str)
	if isBlank(t) {
		return "", invalidf(`empty mandatory "short_message" field`)
	}
	return t, nil
}

// maxSeconds is the first second of year 10000: later instants cannot be
// written in Graylog's timestamp format.
const maxSeconds = 253402300800

// timestamp follows GelfCodec.timestampValue: seconds since the epoch as a
// number or numeric string, rounded to milliseconds like
// Tools.dateTimeFromDouble; anything unusable or ≤ 0 means the receive time.
func (d *decoder) timestamp(opts Options) time.Time {
	v, _ := d.get(spTimestamp)
	var secs float64
	switch v.kind {
	case kindInt:
		secs = float64(v.i)
	case kindFloat:
		secs = v.f
	case kindString:
		var err error
		if secs, err = strconv.ParseFloat(messages.Trim(v.str), 64); err != nil {
			secs = -1
		}
	default:
		secs = -1
	}
	if !(secs > 0 && secs < maxSeconds) { // also rejects NaN
		return opts.now().UTC()
	}
	return time.UnixMilli(int64(math.Floor(secs*1000 + 0.5))).UTC()
}

// isBlank reports what StringUtils.isBlank does for an already trimmed
// string: empty or only Unicode whitespace.
func isBlank(s string) bool {
	return strings.TrimSpace(s) == ""
}
