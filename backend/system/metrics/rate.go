package metrics

import (
	"strings"
	"sync"
	"time"
)

// RateGauge registers the gauge called name whose value is how fast count
// grows, in whole units per second: Graylog's "1-sec-rate" gauges
// (org.graylog2.throughput.input.1-sec-rate, …). Graylog computes them on a
// one-second timer; here the rate is measured lazily between two readings
// at least a second apart, so the hot path only adds to its counter and
// nothing runs while nobody looks. count must not decrease.
func (r *Registry) RateGauge(name string, count func() int64) {
	rate := &rateSampler{now: r.clock.now, count: count}
	r.Gauge(name, func() any { return rate.sample() })
}

type rateSampler struct {
	now   func() time.Time
	count func() int64

	mu   sync.Mutex
	at   time.Time
	seen int64
	last int64
}

// sample returns the rate since the previous sample, or the previous rate
// when less than a second has passed; the first sample only sets the start.
func (s *rateSampler) sample() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	now, n := s.now(), s.count()
	if s.at.IsZero() {
		s.at, s.seen = now, n
		return 0
	}
	d := now.Sub(s.at)
	if d < time.Second {
		return s.last
	}
	s.last = int64(float64(n-s.seen) / d.Seconds())
	s.at, s.seen = now, n
	return s.last
}

// IntGauges reads the gauges whose names end in suffix and whose values are
// integers, such as every input's read_bytes_total, by name.
func (r *Registry) IntGauges(suffix string) map[string]int64 {
	out := map[string]int64{}
	for _, e := range r.entries(func(name string) bool { return strings.HasSuffix(name, suffix) }) {
		g, ok := e.m.(gauge)
		if !ok {
			continue
		}
		switch v := g().(type) {
		case int64:
			out[e.name] = v
		case int:
			out[e.name] = int64(v)
		}
	}
	return out
}
