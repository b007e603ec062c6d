// Package corpus is the deterministic log corpus issue 18 compares loggate
// and VictoriaLogs on: GELF application logs of about 324 bytes (host of 20
// values, level 0-7, _service of 5, a user id, a 16-hex request id, a
// duration, a path and a short_message of 8-17 words from a 40-word
// vocabulary), one per millisecond. The ingest benchmark sends it as GELF;
// the store's benchmarks build messages of it, so both measure the same
// data.
package corpus

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

var (
	services = []string{"checkout", "cart", "auth", "search", "billing"}
	words    = strings.Fields(`request completed failed user session order payment cache miss hit
		timeout retry upstream database query slow fast token refreshed expired invalid item added removed
		price updated shipping address validated rejected queue message consumed published lock acquired
		released connection opened closed`)
	paths = []string{"/api/v1/orders", "/api/v1/cart", "/api/v1/login", "/api/v1/search", "/api/v1/invoices", "/health"}
)

// Start is the time of the first message; message i is i ms later.
var Start = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Message is one message of the corpus, its fields as the sender sets them.
type Message struct {
	Time       time.Time
	Host       string
	Short      string
	Level      int
	Service    string
	UserID     int
	RequestID  string
	DurationMS int
	Path       string
}

// First returns the first n messages of the corpus.
func First(n int) []Message {
	r := rand.New(rand.NewPCG(18, 18))
	out := make([]Message, n)
	var b strings.Builder
	for i := range out {
		b.Reset()
		for w := range 8 + r.IntN(10) {
			if w > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(words[r.IntN(len(words))])
		}
		out[i] = Message{
			Time:       Start.Add(time.Duration(i) * time.Millisecond),
			Short:      b.String(),
			Host:       fmt.Sprintf("app-%02d.prod.eu-west-1.example.net", r.IntN(20)),
			Level:      r.IntN(8),
			Service:    services[r.IntN(len(services))],
			UserID:     r.IntN(100000),
			RequestID:  fmt.Sprintf("%016x", r.Uint64()),
			DurationMS: r.IntN(2000),
			Path:       fmt.Sprintf("%s/%d", paths[r.IntN(len(paths))], r.IntN(1000)),
		}
	}
	return out
}

// GELF is the message as a GELF 1.1 sender writes it.
func (m Message) GELF() string {
	return fmt.Sprintf(`{"version":"1.1","host":"%s","short_message":"%s","timestamp":%.3f,"level":%d,`+
		`"_service":"%s","_user_id":%d,"_request_id":"%s","_duration_ms":%d,"_path":"%s"}`,
		m.Host, m.Short, float64(m.Time.UnixMilli())/1000, m.Level, m.Service, m.UserID, m.RequestID, m.DurationMS, m.Path)
}
