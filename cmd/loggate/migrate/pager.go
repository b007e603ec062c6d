package migrate

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"hash"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/loggate/loggate/backend/logs/messages"
)

// Cursor is a position in the (timestamp, _id) order of a series: after
// the first At messages whose timestamp is TS (Unix milliseconds). A zero
// Cursor is the start.
type Cursor struct {
	TS int64 `json:"ts"`
	At int   `json:"at"`
}

// pager reads the messages of one index in (timestamp, _id) order, the
// order the stores guarantee, a page at a time.
//
// A store pages by Offset and Limit, and a deep offset costs a store the
// whole prefix of the order on every page (and Elasticsearch refuses it
// past max_result_window). The pager therefore moves From along instead:
// each page starts at the timestamp of the last message seen, skipping the
// messages of that millisecond already read, so the offset stays as small
// as the number of messages sharing one millisecond.
//
// A store searches index sets, not single indices, so the query covers the
// index's time range in its series and the pager drops the hits of the
// other indices of the series whose time ranges overlap it.
type pager struct {
	st    messages.Store
	ix    messages.Index
	batch int
	cur   Cursor
	done  bool
}

func newPager(st messages.Store, ix messages.Index, batch int, from Cursor) *pager {
	return &pager{st: st, ix: ix, batch: batch, cur: from, done: ix.Count == 0 || ix.Begin.IsZero()}
}

// next returns the next page of the index's messages and the cursor after
// them; a page may be empty when every hit belonged to another index. It
// returns ok false when the index has been read.
func (p *pager) next(ctx context.Context) (msgs []messages.Message, cur Cursor, ok bool, err error) {
	if p.done {
		return nil, p.cur, false, nil
	}
	from := p.ix.Begin
	if p.cur != (Cursor{}) {
		from = time.UnixMilli(p.cur.TS).UTC()
	}
	q := messages.Query{
		Prefixes: []string{p.ix.Prefix},
		From:     from, To: p.ix.End,
		Sort:   messages.Sort{Field: messages.FieldTimestamp, Asc: true},
		Offset: p.cur.At, Limit: p.batch,
		// The offset is the messages of one millisecond: it never comes
		// near a store's window, but the default is no bound to rely on.
		Window: p.cur.At + p.batch,
	}
	res, err := p.st.Search(ctx, q)
	if err != nil {
		return nil, p.cur, false, err
	}
	for _, h := range res.Hits {
		ts := h.Message.Timestamp.UnixMilli()
		if ts == p.cur.TS && p.cur != (Cursor{}) {
			p.cur.At++
		} else {
			p.cur = Cursor{TS: ts, At: 1}
		}
		if h.Index == p.ix.Name {
			msgs = append(msgs, h.Message)
		}
	}
	if len(res.Hits) < p.batch {
		p.done = true
	}
	return msgs, p.cur, true, nil
}

// digest sums up a sequence of messages: their count and a SHA-256 over
// each message's canonical form, in the order given (the stores' order,
// the same on both sides of a copy).
type digest struct {
	n   int64
	h   hash.Hash
	buf []byte
}

func newDigest() *digest { return &digest{h: sha256.New()} }

// add adds a message.
func (d *digest) add(m *messages.Message) {
	d.n++
	d.buf = appendCanonical(d.buf[:0], m)
	_, _ = d.h.Write(d.buf)
}

// sum returns the count and the checksum.
func (d *digest) sum() (int64, [sha256.Size]byte) {
	var out [sha256.Size]byte
	d.h.Sum(out[:0])
	return d.n, out
}

// appendCanonical appends a form of m that every store gives back alike:
// the id, the timestamp in milliseconds, the streams sorted, and the
// fields sorted by key with values as text (an integral float and an
// integer read back from JSON are the same text). Keys are spelled as
// Elasticsearch stores them, dots replaced with underscores, and the
// values it cannot hold (non-finite floats) and the metadata names it
// drops are left out, so that a copy to Elasticsearch compares equal.
func appendCanonical(b []byte, m *messages.Message) []byte {
	b = appendField(b, m.ID)
	b = binary.BigEndian.AppendUint64(b, uint64(m.Timestamp.UnixMilli()))
	streams := slices.Clone(m.Streams)
	slices.Sort(streams)
	b = binary.BigEndian.AppendUint32(b, uint32(len(streams)))
	for _, s := range streams {
		b = appendField(b, s)
	}
	type kv struct{ k, v string }
	fields := make([]kv, 0, len(m.Fields))
	for _, f := range m.Fields {
		k := strings.ReplaceAll(strings.ToValidUTF8(f.Key, "\uFFFD"), ".", "_")
		if k == "" || storedApart[k] || (strings.HasPrefix(k, "_") && esMetadata[k]) {
			continue
		}
		if v, ok := f.Value.(float64); ok && (math.IsNaN(v) || math.IsInf(v, 0)) {
			continue
		}
		fields = append(fields, kv{k, messages.FormatValue(f.Value)})
	}
	slices.SortFunc(fields, func(a, b kv) int { return strings.Compare(a.k, b.k) })
	b = binary.BigEndian.AppendUint32(b, uint32(len(fields)))
	for _, f := range fields {
		b = appendField(appendField(b, f.k), f.v)
	}
	return b
}

// appendField appends s with its length, so that no two sequences of
// fields have the same bytes.
func appendField(b []byte, s string) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(s)))
	return append(b, s...)
}

// storedApart are the field names a message keeps outside its Fields, and
// Elasticsearch's copy of the id.
var storedApart = map[string]bool{
	messages.FieldID: true, messages.FieldTimestamp: true, messages.FieldStreams: true, "gl2_loggate_id": true,
}

// esMetadata are the names Elasticsearch reserves, which it does not store
// as fields.
var esMetadata = map[string]bool{
	"_index": true, "_type": true, "_source": true, "_routing": true, "_ignored": true, "_seq_no": true,
	"_primary_term": true, "_version": true, "_field_names": true, "_nested_path": true, "_all": true,
	"_ttl": true, "_score": true, "_uid": true, "_parent": true, "_size": true, "_doc_count": true,
	"_data_stream_timestamp": true, "_tier": true,
}
