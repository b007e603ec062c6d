package messagestest

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/loggate/loggate/backend/logs/messages"
)

// Generator produces realistic log messages deterministically: about
// 70% web access logs and 30% application logs of ~400 bytes and ~12
// fields, with the vocabulary and repetition of real logs (a few hosts,
// paths and agents, many client addresses, unique ids), at about one
// message per millisecond.
type Generator struct {
	r  *rand.Rand
	ts time.Time
	// Streams every message is routed to; access logs also go to
	// WebStream.
	DefaultStream, WebStream string
}

// NewGenerator returns a generator whose first message is at start.
func NewGenerator(seed uint64, start time.Time) *Generator {
	return &Generator{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), ts: start.UTC(),
		DefaultStream: "000000000000000000000001", WebStream: "5f1a2b3c4d5e6f7a8b9c0d1e"}
}

// Generate returns n messages from NewGenerator(seed, start).
func Generate(seed uint64, n int, start time.Time) []messages.Message {
	g := NewGenerator(seed, start)
	out := make([]messages.Message, n)
	for i := range out {
		out[i] = g.Next()
	}
	return out
}

var (
	methods   = []string{"GET", "GET", "GET", "GET", "POST", "POST", "PUT", "DELETE", "HEAD"}
	statuses  = []int64{200, 200, 200, 200, 200, 200, 304, 301, 404, 404, 500, 502, 201, 204}
	resources = []string{"users", "orders", "products", "carts", "sessions", "search", "images", "reports"}
	agents    = []string{
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",
		"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Safari/605.1.15",
		"Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0",
		"curl/8.4.0", "python-requests/2.31.0", "Go-http-client/1.1",
		"Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148",
	}
	loggers = []string{"com.example.orders.OrderService", "com.example.billing.InvoiceJob",
		"com.example.auth.LoginController", "com.example.search.Indexer", "org.hibernate.SQL", "com.example.cache.RedisClient"}
	appEvents = []string{
		"Order %d processed for customer %d in %d ms",
		"Invoice %d sent to customer %d after %d retries",
		"User %d logged in from session %d (%d active)",
		"Cache miss for key product:%d, loaded %d rows in %d ms",
		"Slow query on table orders: %d rows scanned, %d returned, %d ms",
		"Connection pool exhausted: %d waiting, %d active, timeout %d ms",
	}
	levels = []int64{6, 6, 6, 6, 6, 7, 4, 4, 3}
)

// Next returns the next message.
func (g *Generator) Next() messages.Message {
	g.ts = g.ts.Add(time.Duration(g.r.IntN(3)) * time.Millisecond)
	m := messages.Message{ID: g.uuid(), Timestamp: g.ts, Streams: []string{g.DefaultStream}}
	input := "5fd0e2a1c1d2e3f4a5b6c7d8"
	if g.r.IntN(10) < 7 {
		g.access(&m)
		m.Streams = append(m.Streams, g.WebStream)
	} else {
		g.app(&m)
		input = "5fd0e2a1c1d2e3f4a5b6c7d9"
	}
	m.Fields = append(m.Fields,
		messages.Field{Key: messages.FieldSourceInput, Value: input},
		messages.Field{Key: messages.FieldSourceNode, Value: "3f2b8a1e-6c4d-4e5f-8a9b-0c1d2e3f4a5b"})
	return m
}

func (g *Generator) pick(list []string) string { return list[g.r.IntN(len(list))] }

// zipf-ish: small numbers are much more frequent, like real ids.
func (g *Generator) skewed(n int) int {
	return int(float64(n) * g.r.Float64() * g.r.Float64() * g.r.Float64())
}

func (g *Generator) access(m *messages.Message) {
	ip := fmt.Sprintf("10.%d.%d.%d", g.r.IntN(4), g.skewed(256), g.r.IntN(256))
	method := g.pick(methods)
	status := statuses[g.r.IntN(len(statuses))]
	path := fmt.Sprintf("/api/v1/%s/%d", g.pick(resources), g.skewed(20000))
	if g.r.IntN(4) == 0 {
		path = fmt.Sprintf("/static/%s/%d.js", g.pick(resources), g.r.IntN(40))
	}
	size := int64(200 + g.skewed(50000))
	took := float64(g.skewed(2000)) / 1000
	agent := g.pick(agents)
	host := fmt.Sprint("web-", 1+g.r.IntN(8))
	m.Fields = append(m.Fields,
		messages.Field{Key: messages.FieldSource, Value: host},
		messages.Field{Key: messages.FieldMessage, Value: fmt.Sprintf(`%s - - [%s] "%s %s HTTP/1.1" %d %d "-" "%s"`,
			ip, m.Timestamp.Format("02/Jan/2006:15:04:05 -0700"), method, path, status, size, agent)},
		messages.Field{Key: "facility", Value: "nginx"},
		messages.Field{Key: "level", Value: int64(6)},
		messages.Field{Key: "http_method", Value: method},
		messages.Field{Key: "http_status", Value: status},
		messages.Field{Key: "http_path", Value: path},
		messages.Field{Key: "bytes", Value: size},
		messages.Field{Key: "took", Value: took},
		messages.Field{Key: "client_ip", Value: ip},
	)
}

func (g *Generator) app(m *messages.Message) {
	level := levels[g.r.IntN(len(levels))]
	logger := g.pick(loggers)
	thread := fmt.Sprint("worker-", g.r.IntN(16))
	text := fmt.Sprintf(appEvents[g.r.IntN(len(appEvents))], g.skewed(100000), g.skewed(5000), g.r.IntN(500))
	host := fmt.Sprint("app-", 1+g.r.IntN(5))
	m.Fields = append(m.Fields,
		messages.Field{Key: messages.FieldSource, Value: host},
		messages.Field{Key: messages.FieldMessage, Value: fmt.Sprintf("%s %s [%s] %s - %s",
			m.Timestamp.Format("2006-01-02 15:04:05.000"), levelName(level), thread, logger, text)},
		messages.Field{Key: "facility", Value: "app"},
		messages.Field{Key: "level", Value: level},
		messages.Field{Key: "logger", Value: logger},
		messages.Field{Key: "thread", Value: thread},
		messages.Field{Key: "env", Value: "production"},
		messages.Field{Key: "took", Value: float64(g.r.IntN(500))},
	)
	if level <= 4 {
		m.Fields = append(m.Fields, messages.Field{Key: messages.FieldFull, Value: fmt.Sprintf(
			"%s\n\tat %s.handle(%s.java:%d)\n\tat com.example.core.Dispatcher.run(Dispatcher.java:88)",
			text, logger, logger[len(logger)-10:], 40+g.r.IntN(200))})
	}
	if g.r.IntN(2) == 0 {
		m.Fields = append(m.Fields, messages.Field{Key: "trace_id", Value: fmt.Sprintf("%016x", g.r.Uint64())})
	}
}

func levelName(l int64) string {
	switch l {
	case 3:
		return "ERROR"
	case 4:
		return "WARN"
	case 7:
		return "DEBUG"
	}
	return "INFO"
}

// uuid returns a random (version 4) UUID from the generator's source.
func (g *Generator) uuid() string {
	a, b := g.r.Uint64(), g.r.Uint64()
	a = a&^(0xf<<12) | 4<<12
	b = b&^(3<<62) | 2<<62
	return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", a>>32, a>>16&0xffff, a&0xffff, b>>48, b&0xffffffffffff)
}
