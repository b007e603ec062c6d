package metrics

import (
	"sync/atomic"
	"time"
)

// Histogram measures the distribution of values, biased toward the last few
// minutes, as Dropwizard's Histogram over an exponentially decaying reservoir
// does.
type Histogram struct {
	clock *clock
	res   reservoir
	// The padding keeps count, written on every update, off the cache line
	// of the reservoir's lowest key, read on every update.
	_     [64]byte
	count atomic.Int64
}

func newHistogram(c *clock) *Histogram {
	h := &Histogram{clock: c}
	h.res.init()
	return h
}

// Update records a value.
func (h *Histogram) Update(v int64) {
	h.count.Add(1)
	h.res.update(h.clock.nanos(), v)
}

// Count returns the number of values recorded.
func (h *Histogram) Count() int64 { return h.count.Load() }

// Snapshot returns the current sample.
func (h *Histogram) Snapshot() Snapshot { return h.res.snapshot(h.clock.nanos()) }

func (h *Histogram) typ() metricType { return typeHistogram }

// Timer measures both the rate of an event and the distribution of its
// duration, as Dropwizard's Timer does. Its Count is the number of durations
// recorded.
//
// On a request path, prefer UpdateSince(start) to Update(time.Since(start)):
// the timer reads the clock anyway, so the caller need not read it again.
type Timer struct {
	meter
	res reservoir
}

func newTimer(c *clock) *Timer {
	t := new(Timer)
	t.init(c)
	t.res.init()
	return t
}

// Update records a duration. Negative durations are ignored, as in
// Dropwizard.
func (t *Timer) Update(d time.Duration) { t.update(t.clock.nanos(), d) }

// UpdateSince records the time elapsed since start. It reads the clock once.
func (t *Timer) UpdateSince(start time.Time) {
	now := t.clock.nanos()
	t.update(now, time.Duration(now-t.clock.at(start)))
}

func (t *Timer) update(now int64, d time.Duration) {
	if d < 0 {
		return
	}
	t.res.update(now, int64(d))
	t.mark(t.clock.intervalAt(now), 1)
}

// Snapshot returns the current sample of durations, in nanoseconds.
func (t *Timer) Snapshot() Snapshot { return t.res.snapshot(t.clock.nanos()) }

func (t *Timer) typ() metricType { return typeTimer }
