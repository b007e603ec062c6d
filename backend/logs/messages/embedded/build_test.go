package embedded

import (
	"bytes"
	"syscall"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/logs/messages/messagestest"
)

// BenchmarkBuild indexes and writes a segment of 40,000 messages, what a
// Flush does each second at 40,000 messages/s, of the generator's mixed
// logs and of issue 18's corpus, and reports the segment's bytes per
// message.
//
//	go test -run '^$' -bench Build -cpu 1 ./backend/logs/messages/embedded
func BenchmarkBuild(b *testing.B) {
	gen := messagestest.Generate(4, 40000, messagestest.BenchStart)
	order := timeOrder(gen)
	sorted := make([]messages.Message, len(gen))
	for i, k := range order {
		sorted[i] = gen[k]
	}
	for _, c := range []struct {
		name string
		msgs []messages.Message
	}{{"Generated", sorted}, {"Corpus", corpusMessages(40000)}} {
		ptrs := make([]*messages.Message, len(c.msgs))
		for i := range c.msgs {
			ptrs[i] = &c.msgs[i]
		}
		b.Run(c.name, func(b *testing.B) {
			var buf bytes.Buffer
			b.ReportAllocs()
			cpu := cpuTime(b)
			for b.Loop() {
				buf.Reset()
				bl := newBuilder(&buf)
				bl.expect = len(c.msgs) // as a flush does
				if err := bl.addAll(ptrs); err != nil {
					b.Fatal(err)
				}
				if _, err := bl.finish(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(c.msgs)), "ns/msg")
			// The process's CPU time, garbage collection included, is
			// what a loaded machine does not distort.
			b.ReportMetric(float64((cpuTime(b)-cpu).Nanoseconds())/float64(b.N)/float64(len(c.msgs)), "cpu-ns/msg")
			b.ReportMetric(float64(buf.Len())/float64(len(c.msgs)), "B/msg")
		})
	}
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Skip("no getrusage")
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
