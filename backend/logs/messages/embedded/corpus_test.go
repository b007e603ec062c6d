package embedded

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"

	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/internal/corpus"
)

// corpusMessages returns the first n messages of issue 18's corpus as the
// GELF input hands them to the store, with the fields it adds.
func corpusMessages(n int) []messages.Message {
	// The ids' entropy has its own source, so the corpus itself is the
	// one the ingest benchmark sends.
	r := rand.New(rand.NewPCG(18, 19))
	entropy := r.Uint64()
	out := make([]messages.Message, n)
	for i, c := range corpus.First(n) {
		ts := c.Time
		// A time-based UUID as _id and a monotonic ULID-like
		// gl2_message_id, as the GELF input makes them.
		ticks := uint64(ts.UnixNano()/100) + 0x01b21dd213814000 + uint64(i%7)
		id := fmt.Sprintf("%08x-%04x-1%03x-8a3c-0242ac120002", uint32(ticks), uint16(ticks>>32), uint16(ticks>>48)&0xfff)
		entropy += 1 + r.Uint64N(1<<20)
		var mid [10]byte
		binary.BigEndian.PutUint64(mid[2:], entropy)
		out[i] = messages.Message{ID: id, Timestamp: ts, Streams: []string{"000000000000000000000001"},
			Fields: []messages.Field{
				{Key: "message", Value: c.Short},
				{Key: "source", Value: c.Host},
				{Key: "level", Value: int64(c.Level)},
				{Key: "service", Value: c.Service},
				{Key: "user_id", Value: int64(c.UserID)},
				{Key: "request_id", Value: c.RequestID},
				{Key: "duration_ms", Value: int64(c.DurationMS)},
				{Key: "path", Value: c.Path},
				{Key: messages.FieldSourceInput, Value: "5fd0e2a1c1d2e3f4a5b6c7d8"},
				{Key: messages.FieldSourceNode, Value: "3f2b8a1e-6c4d-4e5f-8a9b-0c1d2e3f4a5b"},
				{Key: messages.FieldRemoteIP, Value: "127.0.0.1"},
				{Key: messages.FieldRemotePort, Value: int64(40000 + i%2)},
				{Key: messages.FieldMessageID, Value: fmt.Sprintf("01J%013X%010X", ts.UnixMilli(), mid[2:])},
			}}
	}
	return out
}
