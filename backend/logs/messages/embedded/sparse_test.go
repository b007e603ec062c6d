package embedded

import (
	"testing"

	"github.com/loggate/loggate/backend/logs/messages/messagestest"
)

// BenchmarkSparseFetch reads one message in every 100 of a segment of
// 40,000 generated messages, what a search whose hits are spread out does,
// in the current layout and in version 2's, and reports the time per
// message read.
func BenchmarkSparseFetch(b *testing.B) {
	msgs := messagestest.Generate(4, 40000, messagestest.BenchStart)
	for _, v := range []uint64{2, 3} {
		s, _ := buildVersion(b, msgs, v)
		b.Run(map[uint64]string{2: "rows", 3: "columns"}[v], func(b *testing.B) {
			cpu := cpuTime(b)
			for b.Loop() {
				r := &docReader{s: s}
				for d := s.n - 1; d >= 0; d -= 100 {
					if _, err := r.get(d); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64((cpuTime(b)-cpu).Nanoseconds())/float64(b.N*(s.n/100)), "cpu-ns/read")
		})
	}
}
