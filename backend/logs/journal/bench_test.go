package journal

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"
)

const benchRecordSize = 400

// BenchmarkAppend measures durable appends of 400-byte records with 1, 8
// and 64 concurrent appenders sharing fsyncs, handing 1 record per call (an
// HTTP input) or 64 (a TCP input appending what one socket read decoded).
// b.N counts records.
func BenchmarkAppend(b *testing.B) {
	rec := bytes.Repeat([]byte("x"), benchRecordSize)
	for _, perCall := range []int{1, 64} {
		batch := make([][]byte, perCall)
		for i := range batch {
			batch[i] = rec
		}
		for _, appenders := range []int{1, 8, 64} {
			b.Run(fmt.Sprintf("records=%d/appenders=%d", perCall, appenders), func(b *testing.B) {
				j := open(b, b.TempDir(), Options{})
				ctx := context.Background()
				calls := max(b.N/perCall, 1)
				b.ReportAllocs()
				b.SetBytes(benchRecordSize)
				b.ResetTimer()
				var wg sync.WaitGroup
				for g := range appenders {
					n := calls / appenders
					if g < calls%appenders {
						n++
					}
					wg.Go(func() {
						for range n {
							if _, _, err := j.Append(ctx, batch...); err != nil {
								b.Error(err)
								return
							}
						}
					})
				}
				wg.Wait()
				b.StopTimer()
				j.mu.Lock()
				b.ReportMetric(float64(calls*perCall)/b.Elapsed().Seconds(), "msgs/s")
				b.ReportMetric(float64(calls*perCall)/float64(max(j.batches, 1)), "msgs/fsync")
				j.mu.Unlock()
			})
		}
	}
}

// BenchmarkRead measures the processing loop's sequential reads of 400-byte
// records, 500 per call (Graylog's output batch size).
func BenchmarkRead(b *testing.B) {
	const total = 100_000
	rec := bytes.Repeat([]byte("r"), benchRecordSize)
	j := open(b, b.TempDir(), Options{})
	batch := make([][]byte, 1000)
	for i := range batch {
		batch[i] = rec
	}
	for range total / len(batch) {
		if _, _, err := j.Append(context.Background(), batch...); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.SetBytes(benchRecordSize)
	b.ResetTimer()
	off := uint64(0)
	for range b.N / 500 {
		if off >= total {
			off = 0
		}
		es, err := j.Read(off, 500)
		if err != nil {
			b.Fatal(err)
		}
		off = es[len(es)-1].Offset + 1
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
}
