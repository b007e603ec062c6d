package metrics_test

import (
	"math"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/system/metrics"
)

func TestSnapshotQuantiles(t *testing.T) {
	clk := newFakeClock()
	h := metrics.New(clk.now).Histogram("h")
	// 1..1024 in scrambled order (389 is coprime with 1024), all at one
	// instant so that the weights are equal and the cumulative weights
	// k/1024 are exact.
	const n = 1024
	for i := range n {
		h.Update(int64(i*389%n) + 1)
	}
	s := h.Snapshot()
	if s.Size() != n || h.Count() != n {
		t.Fatalf("Size() = %d, Count() = %d, want %d", s.Size(), h.Count(), n)
	}
	// The value at q is the largest one whose preceding weight (k-1)/1024
	// does not exceed q.
	tests := []struct {
		q    float64
		want float64
	}{
		{-1, 1}, {0, 1}, {0.5, 513}, {0.75, 769}, {0.95, 973}, {0.98, 1004},
		{0.99, 1014}, {0.999, 1023}, {1, 1024}, {2, 1024}, {math.NaN(), 1},
	}
	for _, tt := range tests {
		if got := s.Quantile(tt.q); got != tt.want {
			t.Errorf("Quantile(%v) = %v, want %v", tt.q, got, tt.want)
		}
	}
	if s.Min() != 1 || s.Max() != n {
		t.Errorf("Min, Max = %d, %d; want 1, %d", s.Min(), s.Max(), n)
	}
	checkFloat(t, "mean", s.Mean(), (n+1)/2.0)
	checkFloat(t, "stddev", s.StdDev(), math.Sqrt((n*n-1)/12.0)) // of a discrete uniform distribution
}

func TestSnapshotSmall(t *testing.T) {
	tests := []struct {
		name         string
		values       []int64
		p50, p75     float64
		min, max     int64
		mean, stddev float64
		wantSize     int
	}{
		{name: "empty"},
		{name: "one", values: []int64{7}, p50: 7, p75: 7, min: 7, max: 7, mean: 7, wantSize: 1},
		{name: "four", values: []int64{4, 1, 3, 2}, p50: 3, p75: 4, min: 1, max: 4, mean: 2.5, stddev: math.Sqrt(1.25), wantSize: 4},
		{name: "negative", values: []int64{-10, 10}, p50: 10, p75: 10, min: -10, max: 10, mean: 0, stddev: 10, wantSize: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := newFakeClock()
			h := metrics.New(clk.now).Histogram("h")
			for _, v := range tt.values {
				h.Update(v)
			}
			s := h.Snapshot()
			if s.Size() != tt.wantSize {
				t.Errorf("Size() = %d, want %d", s.Size(), tt.wantSize)
			}
			if got := s.Quantile(0.5); got != tt.p50 {
				t.Errorf("p50 = %v, want %v", got, tt.p50)
			}
			if got := s.Quantile(0.75); got != tt.p75 {
				t.Errorf("p75 = %v, want %v", got, tt.p75)
			}
			if s.Min() != tt.min || s.Max() != tt.max {
				t.Errorf("Min, Max = %d, %d; want %d, %d", s.Min(), s.Max(), tt.min, tt.max)
			}
			checkFloat(t, "mean", s.Mean(), tt.mean)
			checkFloat(t, "stddev", s.StdDev(), tt.stddev)
		})
	}
}

// TestHistogramFavoursRecentValues checks the decay: samples ten minutes old
// weigh e^(0.015·600) ≈ 8103 times less than fresh ones.
func TestHistogramFavoursRecentValues(t *testing.T) {
	clk := newFakeClock()
	h := metrics.New(clk.now).Histogram("h")
	for range 100 {
		h.Update(1000)
	}
	clk.add(10 * time.Minute)
	for range 100 {
		h.Update(1)
	}
	s := h.Snapshot()
	for _, q := range []float64{0.5, 0.99, 0.999} {
		if got := s.Quantile(q); got != 1 {
			t.Errorf("Quantile(%v) = %v, want 1: old samples should weigh almost nothing", q, got)
		}
	}
	if s.Max() != 1000 {
		t.Errorf("Max() = %d, want 1000: old samples are still in the reservoir", s.Max())
	}
	old := math.Exp(-0.015 * 600)
	checkFloat(t, "mean", s.Mean(), (1+1000*old)/(1+old))
}

func TestReservoirIsBounded(t *testing.T) {
	clk := newFakeClock()
	h := metrics.New(clk.now).Histogram("h")
	for i := range 10000 {
		h.Update(int64(i))
	}
	if got := h.Snapshot().Size(); got != 1028 {
		t.Errorf("Size() = %d, want 1028", got)
	}
	if got := h.Count(); got != 10000 {
		t.Errorf("Count() = %d, want 10000", got)
	}
}

// TestReservoirReplacesOldSamples: an hour later, new samples outrank every
// old one (e^(0.015·3600) = e^54), so a full reservoir turns over completely.
func TestReservoirReplacesOldSamples(t *testing.T) {
	clk := newFakeClock()
	h := metrics.New(clk.now).Histogram("h")
	for range 1028 {
		h.Update(1)
	}
	clk.add(time.Hour)
	for range 1028 {
		h.Update(2)
	}
	s := h.Snapshot()
	if s.Size() != 1028 || s.Min() != 2 {
		t.Errorf("Size() = %d, Min() = %d; want 1028 samples of 2", s.Size(), s.Min())
	}
}

func TestReservoirDropsDecayedSamples(t *testing.T) {
	tests := []struct {
		age  time.Duration
		want int
	}{
		{13 * time.Hour, 1}, // e^-702 is still a float64
		{14 * time.Hour, 0}, // e^-756 is not
	}
	for _, tt := range tests {
		clk := newFakeClock()
		h := metrics.New(clk.now).Histogram("h")
		h.Update(5)
		clk.add(tt.age)
		if got := h.Snapshot().Size(); got != tt.want {
			t.Errorf("after %v: Size() = %d, want %d", tt.age, got, tt.want)
		}
	}
}

func TestTimer(t *testing.T) {
	clk := newFakeClock()
	tm := metrics.New(clk.now).Timer("t")
	tm.Update(3 * time.Millisecond)
	tm.Update(-time.Second) // ignored
	start := clk.now()
	clk.add(7 * time.Millisecond)
	tm.UpdateSince(start)
	s := tm.Snapshot()
	if tm.Count() != 2 || s.Size() != 2 {
		t.Fatalf("Count() = %d, Size() = %d, want 2", tm.Count(), s.Size())
	}
	if s.Min() != int64(3*time.Millisecond) || s.Max() != int64(7*time.Millisecond) {
		t.Errorf("Min, Max = %v, %v; want 3ms, 7ms", time.Duration(s.Min()), time.Duration(s.Max()))
	}
	clk.add(5 * time.Second)
	checkFloat(t, "m1", tm.Rate1(), 2/5.0)
}
