package node_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/logs/messages/embedded"
)

// The end-to-end ingest figure of make load: a deterministic corpus of
// application logs (the one issue 18 compares loggate and VictoriaLogs on)
// sent over GELF TCP on two connections; the clock runs from the first byte
// sent until every message is searchable. After it the benchmark reports
// what holding the corpus costs: store bytes per message (flushed and
// merged), journal bytes still on disk once everything is stored, and the
// process's resident memory.
//
//	go test -run '^$' -bench IngestCorpus -benchtime 200000x ./cmd/loggate/node

var (
	corpusServices = []string{"checkout", "cart", "auth", "search", "billing"}
	corpusWords    = strings.Fields(`request completed failed user session order payment cache miss hit
		timeout retry upstream database query slow fast token refreshed expired invalid item added removed
		price updated shipping address validated rejected queue message consumed published lock acquired
		released connection opened closed`)
	corpusPaths = []string{"/api/v1/orders", "/api/v1/cart", "/api/v1/login", "/api/v1/search", "/api/v1/invoices", "/health"}
)

// corpusMessage is message i of the corpus: about 324 bytes, host of 20
// values, level 0-7, _service of 5, a user id, a 16-hex request id, a
// duration, a path and a short_message of 8-17 words from a 40-word
// vocabulary. r must be seeded the same way for the same corpus.
func corpusMessage(r *rand.Rand, i int) string {
	var words strings.Builder
	for w := range 8 + r.IntN(10) {
		if w > 0 {
			words.WriteByte(' ')
		}
		words.WriteString(corpusWords[r.IntN(len(corpusWords))])
	}
	ts := float64(corpusStart.UnixMilli()+int64(i)) / 1000
	return fmt.Sprintf(`{"version":"1.1","host":"app-%02d.prod.eu-west-1.example.net","short_message":"%s","timestamp":%.3f,"level":%d,`+
		`"_service":"%s","_user_id":%d,"_request_id":"%016x","_duration_ms":%d,"_path":"%s/%d"}`,
		r.IntN(20), words.String(), ts, r.IntN(8), corpusServices[r.IntN(len(corpusServices))],
		r.IntN(100000), r.Uint64(), r.IntN(2000), corpusPaths[r.IntN(len(corpusPaths))], r.IntN(1000))
}

var corpusStart = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// corpus returns the first n messages of the corpus.
func corpus(n int) []string {
	r := rand.New(rand.NewPCG(18, 18))
	msgs := make([]string, n)
	for i := range msgs {
		msgs[i] = corpusMessage(r, i)
	}
	return msgs
}

func BenchmarkIngestCorpus(b *testing.B) {
	h, start := ingest(b, nil, tcpInput, nil, corpus(b.N), sendTCP)
	runtime.GC() // the corpus is garbage now

	// Everything searchable is now made durable and merged, as it would be
	// a second later; then what stays on disk and in memory is measured.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := h.Node.Messages.Processor.WaitFlushed(ctx, start+uint64(b.N)); err != nil {
		b.Fatal(err)
	}
	if err := h.Node.Messages.Journal.Sync(); err != nil {
		b.Fatal(err)
	}
	if st, ok := h.Node.Messages.Store.(*embedded.Store); ok {
		if err := st.WaitMerges(ctx); err != nil {
			b.Fatal(err)
		}
		s := st.Stats()
		if s.Messages < int64(b.N) {
			b.Fatalf("store holds %d of %d", s.Messages, b.N)
		}
		b.ReportMetric(float64(s.Bytes)/float64(b.N), "store-B/msg")
	}
	b.ReportMetric(float64(h.Node.Messages.Journal.Stats().JournalSize)/float64(b.N), "journal-B/msg")
	debug.FreeOSMemory()
	b.ReportMetric(vmRSS(b), "rss-MB")
}

// vmRSS reads the process's resident memory in MB from /proc/self/status.
func vmRSS(tb testing.TB) float64 {
	tb.Helper()
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		tb.Skip("no /proc/self/status")
	}
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			var kb float64
			fmt.Sscanf(strings.TrimSpace(rest), "%f", &kb)
			return kb / 1024
		}
	}
	return 0
}
