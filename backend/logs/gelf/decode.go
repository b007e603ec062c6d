package gelf

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
	"unsafe"

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
	s, err := payloadText(payload, outer, opts, false)
	if err != nil {
		return Message{}, err
	}
	d := decoders.Get().(*decoder)
	defer d.release()
	v := View{Fields: d.out}
	err = d.view(s, opts, &v)
	d.out = v.Fields
	if err != nil {
		return Message{}, err
	}
	return v.message(), nil
}

// Decoder decodes payloads one after the other for an input that turns
// each message into a journal record at once: it neither copies the
// payload's text nor boxes the field values, which Decode does for a
// Message that outlives its payload. Its zero value is ready; it is not
// safe for concurrent use.
type Decoder struct {
	d    decoder
	view View
}

// Decode decodes payload as the package's Decode does. The View aliases
// payload and the Decoder's buffers: it is valid until the next call and
// while payload is left unchanged.
func (dec *Decoder) Decode(payload []byte, opts Options) (*View, error) {
	return dec.decode(payload, nil, opts)
}

func (dec *Decoder) decode(payload []byte, outer *inflater, opts Options) (*View, error) {
	s, err := payloadText(payload, outer, opts, true)
	if err != nil {
		return nil, err
	}
	dec.d.reset()
	dec.d.sc.keep = true
	if cap(dec.view.Fields) > 4096 {
		dec.view.Fields = nil
	}
	if err := dec.d.view(s, opts, &dec.view); err != nil {
		return nil, err
	}
	return &dec.view, nil
}

// Release forgets the last payload once its View is no longer used, and
// gives back what an unusually large one made the Decoder grow. A Decoder
// kept between payloads (one per connection) then holds little while it
// waits: without this, a payload of many fields kept its maps and slices,
// tens of megabytes after a 2 MB message of short keys, for as long as its
// sender stayed connected, outside the decode budget.
func (dec *Decoder) Release() {
	d := &dec.d
	d.reset()
	// The maps serve only payloads of more than linearMax members or
	// fields, and clear keeps their buckets.
	d.byKey, d.fields = nil, nil
	if cap(d.members) > releasedMax {
		d.members = nil
	}
	if cap(d.out) > releasedMax {
		d.out = nil
	}
	if cap(d.sc.buf) > releasedBuffer {
		d.sc.buf = nil
	}
	if cap(d.sc.stack) > releasedMax {
		d.sc.stack = nil
	}
	clear(dec.view.Fields)
	dec.view.Fields = dec.view.Fields[:0]
	if cap(dec.view.Fields) > releasedMax {
		dec.view.Fields = nil
	}
	dec.view = View{Fields: dec.view.Fields}
}

// What Release keeps: room for the members and fields of common messages
// and a scan buffer of a few kilobytes of escaped text.
const (
	releasedMax    = 256
	releasedBuffer = 16 << 10
)

// payloadText returns the JSON text of a payload, decompressed, with
// invalid UTF-8 replaced and a byte order mark dropped; outer, when set, is
// the inflater whose buffer holds payload, released here. The text is a
// copy, charged to the budget, except that with alias an uncompressed
// payload's text is the payload itself (still charged: the caller's record
// of it takes as much until it is journaled).
func payloadText(payload []byte, outer *inflater, opts Options, alias bool) (string, error) {
	data, owner := payload, outer
	switch c := detect(payload); c {
	case chunked:
		outer.release()
		return "", invalidf("chunked payload must be reassembled first")
	case zlibbed, gzipped:
		owner = inflaters.Get().(*inflater)
		var err error
		data, err = owner.inflate(c, payload, opts.maxDecompressed(), opts.Budget)
		outer.release()
		if err != nil {
			owner.release()
			return "", err
		}
	}
	var s string
	if alias && owner == nil {
		if opts.Budget != nil {
			if err := opts.Budget.Grow(len(data)); err != nil {
				return "", err
			}
		}
		s = unsafe.String(unsafe.SliceData(data), len(data))
	} else {
		var err error
		if s, err = owner.text(data, opts.Budget); err != nil {
			return "", err
		}
	}
	if !utf8.ValidString(s) {
		// Graylog decodes the bytes with a replacing UTF-8 decoder.
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	return strings.TrimPrefix(s, "\uFEFF"), nil
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

// decoder is the per-call state of Decode (pooled) or a Decoder's.
type decoder struct {
	sc      scanner
	members []member
	byKey   map[string]int // member index by key, once members > linearMax
	special [spCount]int
	fields  map[string]struct{} // set field names, once fields > linearMax
	out     []ViewField         // the fields of Decode's View, boxed into its Message
}

var decoders = sync.Pool{New: func() any { return new(decoder) }}

func (d *decoder) release() {
	d.reset()
	decoders.Put(d)
}

// reset forgets the last payload, keeping the buffers unless they grew
// unusually large.
func (d *decoder) reset() {
	clear(d.members)
	d.members = d.members[:0]
	if cap(d.members) > 4096 {
		d.members = nil
	}
	clear(d.byKey)
	clear(d.fields)
	clear(d.out)
	d.out = d.out[:0]
	if cap(d.out) > 4096 {
		d.out = nil
	}
	d.sc = scanner{buf: d.sc.buf[:0], stack: d.sc.stack[:0]}
	if cap(d.sc.buf) > maxPooledBuffer {
		d.sc.buf = nil
	}
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

// view decodes the text s into v, reusing v's field slice.
func (d *decoder) view(s string, opts Options, v *View) error {
	for i := range d.special {
		d.special[i] = -1
	}
	if d.byKey != nil && len(d.byKey) == 0 {
		d.byKey = nil
	}
	d.sc.s = s
	var err error
	if d.members, err = d.sc.object(d.members[:0], d.add); err != nil {
		return err
	}
	if v.Source, err = d.host(); err != nil {
		return err
	}
	if v.Message, err = d.shortMessage(); err != nil {
		return err
	}
	v.Timestamp = d.timestamp(opts)
	clear(v.Fields)
	v.Fields = slices.Grow(v.Fields[:0], len(d.members))
	d.fields = nil
	return d.mapFields(v, opts.Budget)
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
