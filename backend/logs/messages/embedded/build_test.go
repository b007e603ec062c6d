package embedded

import (
	"bytes"
	"testing"

	"github.com/loggate/loggate/backend/logs/messages/messagestest"
)

// BenchmarkBuild indexes and writes a segment of 40,000 messages, what a
// Flush does each second at 40,000 messages/s.
func BenchmarkBuild(b *testing.B) {
	msgs := messagestest.Generate(4, 40000, messagestest.BenchStart)
	order := timeOrder(msgs)
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		bl := newBuilder(&buf)
		for _, i := range order {
			if err := bl.add(&msgs[i]); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := bl.finish(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(msgs)), "ns/msg")
}
