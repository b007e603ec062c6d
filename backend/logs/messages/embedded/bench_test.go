package embedded_test

import (
	"fmt"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/logs/messages/embedded"
	"github.com/loggate/loggate/backend/logs/messages/messagestest"
)

// BenchmarkStore runs the benchmarks every message store runs.
func BenchmarkStore(b *testing.B) {
	messagestest.Bench(b, func(b *testing.B) messages.Store { return mustOpen(b, b.TempDir(), embedded.Options{}) })
}

// BenchmarkSize reports the disk bytes per message after flush and merge;
// the 1,000,000-message run needs LOGGATE_BENCH_LARGE=1.
func BenchmarkSize(b *testing.B) {
	for _, n := range []int{100000, 1000000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			if n > 100000 && os.Getenv("LOGGATE_BENCH_LARGE") == "" {
				b.Skip("set LOGGATE_BENCH_LARGE=1 to run")
			}
			for b.Loop() {
				s := loaded(b, n)
				st := s.Stats()
				b.ReportMetric(float64(st.Bytes)/float64(n), "bytes/msg")
				b.ReportMetric(float64(st.Segments), "segments")
			}
		})
	}
}

// loaded returns a store holding n generated messages, flushed every
// 40,000 (a second of ingest at the goal rate), merged.
func loaded(b *testing.B, n int) *embedded.Store {
	b.Helper()
	s := mustOpen(b, b.TempDir(), embedded.Options{})
	messagestest.Load(b, s, "graylog", n, 40000)
	waitMerged(b, s)
	return s
}

// waitMerged waits until the background merger has nothing left to do.
func waitMerged(tb testing.TB, s *embedded.Store) {
	tb.Helper()
	if err := s.WaitMerges(tb.Context()); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkLarge loads 1,000,000 messages and reports search latency
// percentiles and the process's resident memory. LOGGATE_BENCH_LARGE=1, or
// a number of messages above 1 instead of 1,000,000 (e.g. 200000).
func BenchmarkLarge(b *testing.B) {
	env := os.Getenv("LOGGATE_BENCH_LARGE")
	if env == "" {
		b.Skip("set LOGGATE_BENCH_LARGE=1 to run")
	}
	n := 1000000
	if v, err := strconv.Atoi(env); err == nil && v > 1 {
		n = v
	}
	start := time.Now()
	s := loaded(b, n)
	loadRate := float64(n) / time.Since(start).Seconds()
	b.Run("Footprint", func(b *testing.B) {
		for b.Loop() {
			// Return freed heap to the OS so VmRSS shows what the store
			// holds, not the load's garbage.
			debug.FreeOSMemory()
		}
		st := s.Stats()
		b.ReportMetric(loadRate, "load-msgs/s")
		b.ReportMetric(float64(st.Bytes)/float64(n), "bytes/msg")
		b.ReportMetric(float64(st.Segments), "segments")
		b.ReportMetric(rssMB(b), "rss-MB")
	})
	for name, q := range messagestest.BenchQueries(b, n) {
		b.Run(name, func(b *testing.B) {
			var lat []time.Duration
			var total int64
			for b.Loop() {
				t := time.Now()
				r, err := s.Search(b.Context(), q)
				if err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t))
				total = r.Total
			}
			// The first search reads blocks and runs no cache holds.
			b.ReportMetric(float64(lat[0].Microseconds())/1000, "first-ms")
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds())/1000, "p95-ms")
			b.ReportMetric(float64(total), "hits")
		})
	}
}

// rssMB reads VmRSS from /proc/self/status.
func rssMB(tb testing.TB) float64 {
	tb.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		tb.Skip("no /proc/self/status")
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			var kb float64
			fmt.Sscanf(strings.TrimSpace(rest), "%f", &kb)
			return kb / 1024
		}
	}
	return 0
}
