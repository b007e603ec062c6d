package node_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/logs/messages/embedded"
	"github.com/loggate/loggate/internal/corpus"
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

// corpusGELF returns the first n messages of the corpus as GELF.
func corpusGELF(n int) []string {
	msgs := make([]string, n)
	for i, m := range corpus.First(n) {
		msgs[i] = m.GELF()
	}
	return msgs
}

func BenchmarkIngestCorpus(b *testing.B) {
	h, start := ingest(b, nil, tcpInput, nil, corpusGELF(b.N), sendTCP)
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
