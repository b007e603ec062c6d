package metrics_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/system/metrics"
)

// clocks are the clocks the update benchmarks run with: the real one, whose
// reading is part of every update, and a fixed one, which isolates the cost
// of the metric itself from that of the platform's clock.
var clocks = []struct {
	name string
	now  func() time.Time
}{
	{"clock=real", time.Now},
	{"clock=fixed", func() time.Time { return time.Unix(1600000000, 0) }},
}

func BenchmarkTimerUpdate(b *testing.B) {
	for _, c := range clocks {
		b.Run(c.name, func(b *testing.B) {
			tm := metrics.New(c.now).Timer("t")
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				tm.Update(time.Duration(i))
			}
		})
	}
}

// BenchmarkTimerUpdateParallel is the request path: every HTTP request
// updates one shared timer.
func BenchmarkTimerUpdateParallel(b *testing.B) {
	for _, c := range clocks {
		b.Run(c.name, func(b *testing.B) {
			tm := metrics.New(c.now).Timer("t")
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				d := time.Duration(0)
				for pb.Next() {
					d += 1000
					tm.Update(d)
				}
			})
		})
	}
}

func BenchmarkTimerUpdateSinceParallel(b *testing.B) {
	for _, c := range clocks {
		b.Run(c.name, func(b *testing.B) {
			tm := metrics.New(c.now).Timer("t")
			start := c.now().Add(-time.Millisecond)
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					tm.UpdateSince(start)
				}
			})
		})
	}
}

func BenchmarkHistogramUpdateParallel(b *testing.B) {
	for _, c := range clocks {
		b.Run(c.name, func(b *testing.B) {
			h := metrics.New(c.now).Histogram("h")
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				v := int64(0)
				for pb.Next() {
					v++
					h.Update(v)
				}
			})
		})
	}
}

func BenchmarkMeterMarkParallel(b *testing.B) {
	for _, c := range clocks {
		b.Run(c.name, func(b *testing.B) {
			m := metrics.New(c.now).Meter("m")
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					m.Mark(1)
				}
			})
		})
	}
}

func BenchmarkCounterIncParallel(b *testing.B) {
	c := metrics.New(time.Now).Counter("c")
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			c.Inc(1)
		}
	})
}

// BenchmarkDump is GET /system/metrics with a hundred full timers.
func BenchmarkDump(b *testing.B) {
	r := metrics.New(time.Now)
	for i := range 100 {
		tm := r.Timer(fmt.Sprintf("org.graylog2.rest.resources.Resource%d.get", i))
		for j := range 2000 {
			tm.Update(time.Duration(j) * time.Microsecond)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := json.Marshal(r); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMeterMark is a rule's meter on the pipeline path.
func BenchmarkMeterMark(b *testing.B) {
	for _, c := range clocks {
		b.Run(c.name, func(b *testing.B) {
			m := metrics.New(c.now).Meter("m")
			b.ReportAllocs()
			for b.Loop() {
				m.Mark(1)
			}
		})
	}
}
