package metrics_test

import (
	"math"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/system/metrics"
)

// alpha is Dropwizard's smoothing factor of a moving average over a window
// of the given minutes, for 5-second ticks.
func alpha(minutes float64) float64 { return 1 - math.Exp(-5/(60*minutes)) }

type mark struct {
	at time.Duration
	n  int64
}

func TestMeterRates(t *testing.T) {
	const eps = time.Nanosecond
	tick := 5 * time.Second
	// steady marks 10 events in the middle of every interval for 30 minutes.
	var steady []mark
	for i := range 360 {
		steady = append(steady, mark{time.Duration(i)*tick + time.Second, 10})
	}
	tests := []struct {
		name        string
		marks       []mark
		readAt      time.Duration
		m1, m5, m15 float64
		mean        float64
		count       int64
	}{
		{name: "no events", readAt: time.Hour},
		{
			// The current interval is not part of the averages yet.
			name: "before the first tick", marks: []mark{{0, 3}}, readAt: 4 * time.Second,
			mean: 3.0 / 4, count: 3,
		},
		{
			name: "first interval", marks: []mark{{0, 3}}, readAt: tick + eps,
			m1: 0.6, m5: 0.6, m15: 0.6, mean: 3 / (tick + eps).Seconds(), count: 3,
		},
		{
			// Dropwizard's EWMATest: 0.22072766 after a minute for m1.
			name: "one minute later", marks: []mark{{0, 3}}, readAt: tick + time.Minute + eps,
			m1: 0.6 * math.Exp(-1), m5: 0.6 * math.Exp(-1.0/5), m15: 0.6 * math.Exp(-1.0/15),
			mean: 3 / (tick + time.Minute + eps).Seconds(), count: 3,
		},
		{
			name: "ten minutes later", marks: []mark{{0, 3}}, readAt: tick + 10*time.Minute + eps,
			m1: 0.6 * math.Exp(-10), m5: 0.6 * math.Exp(-2), m15: 0.6 * math.Exp(-10.0/15),
			mean: 3 / (tick + 10*time.Minute + eps).Seconds(), count: 3,
		},
		{
			name: "a day later", marks: []mark{{0, 3}}, readAt: tick + 24*time.Hour + eps,
			m1: 0.6 * math.Exp(-24*60), m5: 0.6 * math.Exp(-24*60/5.0), m15: 0.6 * math.Exp(-24*60/15.0),
			mean: 3 / (tick + 24*time.Hour + eps).Seconds(), count: 3,
		},
		{
			// A mark after an interval ended closes that interval first:
			// the 10 events count toward the second one.
			name: "two intervals", marks: []mark{{0, 5}, {tick + eps, 10}}, readAt: 2*tick + 2*eps,
			m1: 1 + alpha(1)*(2-1), m5: 1 + alpha(5)*(2-1), m15: 1 + alpha(15)*(2-1),
			mean: 15 / (2*tick + 2*eps).Seconds(), count: 15,
		},
		{
			name: "steady rate", marks: steady, readAt: 30*time.Minute + 2*time.Second,
			m1: 2, m5: 2, m15: 2, mean: 3600 / (30*time.Minute + 2*time.Second).Seconds(), count: 3600,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := newFakeClock()
			m := metrics.New(clk.now).Meter("m")
			for _, mk := range tt.marks {
				clk.set(mk.at)
				m.Mark(mk.n)
			}
			clk.set(tt.readAt)
			checkFloat(t, "m1", m.Rate1(), tt.m1)
			checkFloat(t, "m5", m.Rate5(), tt.m5)
			checkFloat(t, "m15", m.Rate15(), tt.m15)
			checkFloat(t, "mean", m.RateMean(), tt.mean)
			if got := m.Count(); got != tt.count {
				t.Errorf("count = %d, want %d", got, tt.count)
			}
		})
	}
}

// TestMeterReadsDoNotShiftIntervals checks that reading between marks, which
// ticks the averages, gives the same rates as not reading.
func TestMeterReadsDoNotShiftIntervals(t *testing.T) {
	run := func(read bool) float64 {
		clk := newFakeClock()
		m := metrics.New(clk.now).Meter("m")
		for i := range 100 {
			clk.set(time.Duration(i) * 1700 * time.Millisecond)
			m.Mark(int64(i % 7))
			if read {
				m.Rate1()
			}
		}
		clk.add(time.Minute)
		return m.Rate1()
	}
	quiet, busy := run(false), run(true)
	if quiet == 0 || math.Abs(quiet-busy) > 1e-12*quiet {
		t.Errorf("rate with reads = %v, without = %v", busy, quiet)
	}
}

func checkFloat(t *testing.T, what string, got, want float64) {
	t.Helper()
	if want == 0 {
		if got != 0 {
			t.Errorf("%s = %v, want 0", what, got)
		}
		return
	}
	if math.Abs(got-want) > 1e-9*math.Abs(want) {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

func TestCounter(t *testing.T) {
	tests := []struct {
		name string
		ops  func(*metrics.Counter)
		want int64
	}{
		{"zero", func(*metrics.Counter) {}, 0},
		{"inc", func(c *metrics.Counter) { c.Inc(1); c.Inc(41) }, 42},
		{"dec below zero", func(c *metrics.Counter) { c.Inc(2); c.Dec(5) }, -3},
		{"inc negative", func(c *metrics.Counter) { c.Inc(-4) }, -4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := metrics.New(time.Now).Counter("c")
			tt.ops(c)
			if got := c.Count(); got != tt.want {
				t.Errorf("Count() = %d, want %d", got, tt.want)
			}
		})
	}
}
