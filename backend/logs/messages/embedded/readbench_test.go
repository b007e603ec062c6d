package embedded

import (
	"fmt"
	"testing"
)

// BenchmarkRead compares what reading costs in version 3 and 4 segments of
// the issue 18 corpus: a block decompressed and decoded (a search's page
// fetch without the block cache), a message built of it, and a term
// looked up in a field of unique values and in one of few.
//
//	go test -run '^$' -bench Read -cpu 1 ./backend/logs/messages/embedded
func BenchmarkRead(b *testing.B) {
	msgs := corpusMessages(40000)
	for _, version := range []uint64{3, 4} {
		s, size := buildVersion(b, msgs, version)
		b.Run(fmt.Sprintf("Block/v%d", version), func(b *testing.B) {
			i := 0
			for b.Loop() {
				ref := s.blocks[i%len(s.blocks)]
				raw, err := s.readBlock(i % len(s.blocks))
				if err != nil {
					b.Fatal(err)
				}
				var nums *segmentNums
				if version >= 4 {
					nums = &segmentNums{fields: s.fields, first: ref.first}
				}
				cb, err := decodeColBlock(raw, ref.docs, nums)
				if err != nil {
					b.Fatal(err)
				}
				cb.message(i % ref.docs)
				i++
			}
			b.ReportMetric(float64(size)/float64(len(msgs)), "B/msg")
		})
		for _, field := range []string{"request_id", "gl2_message_id", "path"} {
			b.Run(fmt.Sprintf("Lookup/%s/v%d", field, version), func(b *testing.B) {
				i := 0
				for b.Loop() {
					m := &msgs[i*7919%len(msgs)]
					var v string
					for _, f := range m.Fields {
						if f.Key == field {
							v = f.Value.(string)
						}
					}
					if p, err := s.lookupTerm(s.fields[field], v); err != nil || p == nil {
						b.Fatalf("%s: %v, %v", v, p, err)
					}
					i++
				}
			})
		}
	}
}
