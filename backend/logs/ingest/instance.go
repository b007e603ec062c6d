package ingest

import (
	"log/slog"
	"net/netip"
	"strconv"
	"strings"

	"github.com/loggate/loggate/backend/logs/gelf"
	"github.com/loggate/loggate/backend/logs/inputs"
	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/oklog/ulid/v2"
)

// instance is one launch of an input: what its transport needs to turn
// payloads into journal records.
type instance struct {
	r       *Runner
	id      string
	cfg     config
	log     *slog.Logger
	gelf    gelf.Options
	metrics *inputMetrics
	prefix  string // metric name prefix
}

func (r *Runner) newInstance(in inputs.Input, cfg config, log *slog.Logger) *instance {
	prefix := in.Type + "." + in.ID
	inst := &instance{
		r:       r,
		id:      in.ID,
		cfg:     cfg,
		log:     log,
		gelf:    gelf.Options{MaxDecompressed: r.decompressLimit(cfg), Now: r.opts.Now},
		metrics: newInputMetrics(r.opts.Metrics, prefix),
		prefix:  prefix,
	}
	return inst
}

// decompressLimit is the input's decompress_size_limit, at most the
// journal's record limit: an input stored before that was enforced must not
// inflate a payload to gigabytes only to refuse it.
func (r *Runner) decompressLimit(cfg config) int64 {
	limit := cfg.decompressLimit
	if limit <= 0 {
		limit = gelf.DefaultMaxDecompressed
	}
	return min(limit, int64(r.opts.MaxRecordSize))
}

// remote is a sender's address as message fields, computed once per
// connection.
type remote struct {
	ip   string
	port int64
}

func newRemote(ap netip.AddrPort) remote {
	return remote{ip: javaHostAddress(ap.Addr()), port: int64(ap.Port())}
}

// javaHostAddress formats an address as Java's InetAddress.getHostAddress
// does, which is what Graylog stores in gl2_remote_ip: IPv4-mapped
// addresses as IPv4, IPv6 as eight uncompressed hexadecimal groups.
func javaHostAddress(a netip.Addr) string {
	a = a.Unmap()
	if !a.Is6() {
		return a.String()
	}
	b := a.As16()
	var sb strings.Builder
	sb.Grow(39)
	for i := 0; i < 16; i += 2 {
		if i > 0 {
			sb.WriteByte(':')
		}
		sb.WriteString(strconv.FormatUint(uint64(b[i])<<8|uint64(b[i+1]), 16))
	}
	if z := a.Zone(); z != "" {
		sb.WriteByte('%')
		sb.WriteString(z)
	}
	return sb.String()
}

// encoder turns decoded GELF messages into journal records, writing each
// part into the record at once: no Message is made, no value boxed. Each
// goroutine has its own.
type encoder struct {
	inst *instance
	// id and msgID hold the text of the ids being written.
	id    [36]byte
	msgID [ulid.EncodedSize]byte
}

// reserved are the fields the input sets itself; a client's values for
// them are replaced, as Graylog overwrites them after decoding.
func reserved(key string) bool {
	if !strings.HasPrefix(key, "gl2_") {
		return false
	}
	switch key {
	case messages.FieldSourceInput, messages.FieldSourceNode, messages.FieldRemoteIP,
		messages.FieldRemotePort, messages.FieldMessageID:
		return true
	}
	return false
}

// addedFields counts the fields encode adds to a GELF message's: message
// and source before them, and the five gl2_ fields after.
const addedFields = 7

// encode appends the record of v, received from rem, to dst.
func (e *encoder) encode(dst []byte, v *gelf.View, rem remote) []byte {
	inst := e.inst
	r := inst.r
	source := v.Source
	if inst.cfg.overrideSource != "" {
		source = inst.cfg.overrideSource
	}
	n := addedFields
	for i := range v.Fields {
		if !reserved(v.Fields[i].Key) {
			n++
		}
	}
	if r.opts.NewID != nil {
		dst = messages.AppendRecordHead(dst, r.opts.NewID(), v.Timestamp, n)
	} else {
		dst = messages.AppendRecordHead(dst, putUUID(&e.id), v.Timestamp, n)
	}
	// Static fields are not added here: processing adds them after the
	// extractors, in the Message Filter Chain, as Graylog does.
	dst = messages.AppendStringField(dst, messages.FieldMessage, v.Message)
	dst = messages.AppendStringField(dst, messages.FieldSource, source)
	for i := range v.Fields {
		f := &v.Fields[i]
		if reserved(f.Key) {
			continue
		}
		switch f.Kind {
		case gelf.IntValue:
			dst = messages.AppendIntField(dst, f.Key, f.Int)
		case gelf.FloatValue:
			dst = messages.AppendFloatField(dst, f.Key, f.Float)
		default:
			dst = messages.AppendStringField(dst, f.Key, f.Str)
		}
	}
	dst = messages.AppendStringField(dst, messages.FieldSourceInput, inst.id)
	dst = messages.AppendStringField(dst, messages.FieldSourceNode, r.opts.NodeID)
	dst = messages.AppendStringField(dst, messages.FieldRemoteIP, rem.ip)
	dst = messages.AppendIntField(dst, messages.FieldRemotePort, rem.port)
	_ = r.ids.next(r.opts.Now()).MarshalTextTo(e.msgID[:]) // fails only for a short buffer
	return messages.AppendStringField(dst, messages.FieldMessageID, e.msgID[:])
}

// batch collects the records of one journal append in one buffer.
type batch struct {
	buf  []byte
	ends []int
	recs [][]byte
}

func (b *batch) len() int { return len(b.ends) }

// add encodes v into the batch.
func (b *batch) add(e *encoder, v *gelf.View, rem remote) {
	b.buf = e.encode(b.buf, v, rem)
	b.ends = append(b.ends, len(b.buf))
}

// records returns the records, valid until reset.
func (b *batch) records() [][]byte {
	b.recs = b.recs[:0]
	start := 0
	for _, end := range b.ends {
		b.recs = append(b.recs, b.buf[start:end:end])
		start = end
	}
	return b.recs
}

// maxPooledBatch keeps one burst of huge messages from pinning its buffer:
// a batch of the usual few hundred small records fits.
const maxPooledBatch = 1 << 20

func (b *batch) reset() {
	if cap(b.buf) > maxPooledBatch {
		b.buf = nil
	}
	b.buf, b.ends = b.buf[:0], b.ends[:0]
	clear(b.recs)
}
