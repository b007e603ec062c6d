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

// parallelPerClock runs, with each clock, an update made by op from every
// benchmark goroutine at once on one metric that setup makes from a
// registry on that clock; op gets a number that grows per goroutine.
func parallelPerClock(b *testing.B, setup func(r *metrics.Registry, now func() time.Time) func(i int64)) {
	for _, c := range clocks {
		b.Run(c.name, func(b *testing.B) {
			op := setup(metrics.New(c.now), c.now)
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for i := int64(1); pb.Next(); i++ {
					op(i)
				}
			})
		})
	}
}

// BenchmarkTimerUpdateParallel is the request path: every HTTP request
// updates one shared timer.
func BenchmarkTimerUpdateParallel(b *testing.B) {
	parallelPerClock(b, func(r *metrics.Registry, _ func() time.Time) func(int64) {
		tm := r.Timer("t")
		return func(i int64) { tm.Update(time.Duration(i * 1000)) }
	})
}

func BenchmarkTimerUpdateSinceParallel(b *testing.B) {
	parallelPerClock(b, func(r *metrics.Registry, now func() time.Time) func(int64) {
		tm := r.Timer("t")
		start := now().Add(-time.Millisecond)
		return func(int64) { tm.UpdateSince(start) }
	})
}

func BenchmarkHistogramUpdateParallel(b *testing.B) {
	parallelPerClock(b, func(r *metrics.Registry, _ func() time.Time) func(int64) {
		h := r.Histogram("h")
		return func(i int64) { h.Update(i) }
	})
}

func BenchmarkMeterMarkParallel(b *testing.B) {
	parallelPerClock(b, func(r *metrics.Registry, _ func() time.Time) func(int64) {
		m := r.Meter("m")
		return func(int64) { m.Mark(1) }
	})
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
