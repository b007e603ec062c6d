package ingest

import (
	"log/slog"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/loggate/loggate/backend/logs/gelf"
	"github.com/loggate/loggate/backend/logs/inputs"
	"github.com/loggate/loggate/backend/logs/messages"
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
// connection: boxing the port into an interface allocates.
type remote struct {
	ip   string
	port any // int64
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

// encoder turns decoded GELF messages into journal records. It reuses its
// field slice, so each goroutine has its own.
type encoder struct {
	inst *instance
	msg  messages.Message
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

// encode appends the record of gm, received from rem, to dst.
func (e *encoder) encode(dst []byte, gm *gelf.Message, rem remote) ([]byte, error) {
	inst := e.inst
	r := inst.r
	source := gm.Source
	if inst.cfg.overrideSource != "" {
		source = inst.cfg.overrideSource
	}
	// Static fields are not added here: processing adds them after the
	// extractors, in the Message Filter Chain, as Graylog does.
	fs := slices.Grow(e.msg.Fields[:0], len(gm.Fields)+7)
	fs = append(fs,
		messages.Field{Key: messages.FieldMessage, Value: gm.Message},
		messages.Field{Key: messages.FieldSource, Value: source})
	for _, f := range gm.Fields {
		if !reserved(f.Key) {
			fs = append(fs, messages.Field(f))
		}
	}
	fs = append(fs,
		messages.Field{Key: messages.FieldSourceInput, Value: inst.id},
		messages.Field{Key: messages.FieldSourceNode, Value: r.opts.NodeID},
		messages.Field{Key: messages.FieldRemoteIP, Value: rem.ip},
		messages.Field{Key: messages.FieldRemotePort, Value: rem.port},
		messages.Field{Key: messages.FieldMessageID, Value: r.ids.next(r.opts.Now())})
	e.msg.ID = r.opts.NewID()
	e.msg.Timestamp = gm.Timestamp
	e.msg.Fields = fs
	return e.msg.AppendBinary(dst)
}

// batch collects the records of one journal append in one buffer.
type batch struct {
	buf  []byte
	ends []int
	recs [][]byte
}

func (b *batch) len() int { return len(b.ends) }

// add encodes gm into the batch. A message that cannot be encoded leaves
// the batch as it was.
func (b *batch) add(e *encoder, gm *gelf.Message, rem remote) error {
	buf, err := e.encode(b.buf, gm, rem)
	if err != nil {
		return err
	}
	b.buf = buf
	b.ends = append(b.ends, len(buf))
	return nil
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
