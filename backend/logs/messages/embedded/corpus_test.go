package embedded

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/loggate/loggate/backend/logs/messages"
)

// The corpus of issue 18 as the ingest path hands it to the store: GELF
// application logs (host of 20 values, level 0-7, _service of 5, a user
// id, a 16-hex request id, a duration, a path, a short_message of 8-17
// words from a 40-word vocabulary) with the fields a GELF input adds.
var (
	corpusServices = []string{"checkout", "cart", "auth", "search", "billing"}
	corpusWords    = strings.Fields(`request completed failed user session order payment cache miss hit
		timeout retry upstream database query slow fast token refreshed expired invalid item added removed
		price updated shipping address validated rejected queue message consumed published lock acquired
		released connection opened closed`)
	corpusPaths = []string{"/api/v1/orders", "/api/v1/cart", "/api/v1/login", "/api/v1/search", "/api/v1/invoices", "/health"}
	corpusStart = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
)

// corpusMessages returns the first n messages of the corpus, one per
// millisecond.
func corpusMessages(n int) []messages.Message {
	r := rand.New(rand.NewPCG(18, 18))
	out := make([]messages.Message, n)
	var words strings.Builder
	entropy := r.Uint64()
	for i := range out {
		words.Reset()
		for w := range 8 + r.IntN(10) {
			if w > 0 {
				words.WriteByte(' ')
			}
			words.WriteString(corpusWords[r.IntN(len(corpusWords))])
		}
		ts := corpusStart.Add(time.Duration(i) * time.Millisecond)
		// A time-based UUID as _id and a monotonic ULID-like
		// gl2_message_id, as the GELF input makes them.
		ticks := uint64(ts.UnixNano()/100) + 0x01b21dd213814000 + uint64(i%7)
		id := fmt.Sprintf("%08x-%04x-1%03x-8a3c-0242ac120002", uint32(ticks), uint16(ticks>>32), uint16(ticks>>48)&0xfff)
		entropy += 1 + r.Uint64N(1<<20)
		var mid [10]byte
		binary.BigEndian.PutUint64(mid[2:], entropy)
		out[i] = messages.Message{ID: id, Timestamp: ts, Streams: []string{"000000000000000000000001"},
			Fields: []messages.Field{
				{Key: "message", Value: words.String()},
				{Key: "source", Value: fmt.Sprintf("app-%02d.prod.eu-west-1.example.net", r.IntN(20))},
				{Key: "level", Value: int64(r.IntN(8))},
				{Key: "service", Value: corpusServices[r.IntN(len(corpusServices))]},
				{Key: "user_id", Value: int64(r.IntN(100000))},
				{Key: "request_id", Value: fmt.Sprintf("%016x", r.Uint64())},
				{Key: "duration_ms", Value: int64(r.IntN(2000))},
				{Key: "path", Value: fmt.Sprintf("%s/%d", corpusPaths[r.IntN(len(corpusPaths))], r.IntN(1000))},
				{Key: messages.FieldSourceInput, Value: "5fd0e2a1c1d2e3f4a5b6c7d8"},
				{Key: messages.FieldSourceNode, Value: "3f2b8a1e-6c4d-4e5f-8a9b-0c1d2e3f4a5b"},
				{Key: messages.FieldRemoteIP, Value: "127.0.0.1"},
				{Key: messages.FieldRemotePort, Value: int64(40000 + i%2)},
				{Key: messages.FieldMessageID, Value: fmt.Sprintf("01J%013X%010X", ts.UnixMilli(), mid[2:])},
			}}
	}
	return out
}
