package messagestest

import (
	"testing"
	"time"

	"github.com/loggate/loggate/backend/logs/messages"
)

// BenchStart is the time of the first generated message in benchmarks.
var BenchStart = time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)

// Load writes n generated messages into prefix in batches of 1000,
// flushing every flushEvery messages (0: only at the end), as the
// processing loop would.
func Load(tb testing.TB, s messages.Store, prefix string, n, flushEvery int) {
	tb.Helper()
	g := NewGenerator(1, BenchStart)
	batch := make([]messages.Message, 0, 1000)
	for i := 1; i <= n; i++ {
		batch = append(batch, g.Next())
		if len(batch) == cap(batch) || i == n {
			if err := s.Write(tb.Context(), prefix, batch); err != nil {
				tb.Fatal(err)
			}
			batch = batch[:0]
		}
		if (flushEvery > 0 && i%flushEvery == 0) || i == n {
			if err := s.Flush(tb.Context(), uint64(i)); err != nil {
				tb.Fatal(err)
			}
		}
	}
}

// BenchQueries are the searches Bench times: a field query with a time
// range (the last tenth of the data), a full-text word and a wildcard,
// each for the first page of 150 by time, newest first.
func BenchQueries(tb testing.TB, n int) map[string]messages.Query {
	tb.Helper()
	end := BenchStart.Add(time.Duration(n) * time.Millisecond)
	return map[string]messages.Query{
		"FieldTimeRange": {Query: parse(tb, "http_status:404 AND source:web-3"),
			From: end.Add(-time.Duration(n/10) * time.Millisecond), To: end, Limit: 150},
		"FullText": {Query: parse(tb, "message:exhausted"), Limit: 150},
		"Phrase":   {Query: parse(tb, `message:"connection pool exhausted"`), Limit: 150},
		"Wildcard": {Query: parse(tb, "http_path:\\/api\\/v1\\/orders\\/12*"), Limit: 150},
	}
}

// Bench runs the same benchmarks on every implementation: Write
// throughput (msgs/s) and the BenchQueries over 100,000 messages.
func Bench(b *testing.B, open func(b *testing.B) messages.Store) {
	b.Run("Write", func(b *testing.B) {
		s := open(b)
		g := NewGenerator(2, BenchStart)
		batch := make([]messages.Message, 500)
		b.ReportAllocs()
		// busy counts only the store's time (Write, and Flush every
		// 40,000 messages as the processing loop would), not the
		// generator's.
		var busy time.Duration
		n := 0
		for b.Loop() {
			for i := range batch {
				batch[i] = g.Next()
			}
			t := time.Now()
			if err := s.Write(b.Context(), "bench", batch); err != nil {
				b.Fatal(err)
			}
			n += len(batch)
			if n%40000 == 0 {
				if err := s.Flush(b.Context(), uint64(n)); err != nil {
					b.Fatal(err)
				}
			}
			busy += time.Since(t)
		}
		t := time.Now()
		if err := s.Flush(b.Context(), uint64(n)); err != nil {
			b.Fatal(err)
		}
		busy += time.Since(t)
		b.ReportMetric(float64(n)/busy.Seconds(), "msgs/s")
	})
	const n = 100000
	parent := b
	var s messages.Store // shared by the searches, closed when Bench ends
	for name, q := range BenchQueries(b, n) {
		b.Run("Search"+name, func(b *testing.B) {
			if s == nil {
				s = open(parent)
				Load(b, s, "bench", n, 25000)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.Search(b.Context(), q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
