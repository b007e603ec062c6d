package metrics

import (
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// tickInterval is how often Dropwizard's moving averages advance.
const tickInterval = int64(5 * time.Second)

// Smoothing factors of the 1, 5 and 15-minute moving averages for a 5-second
// tick, as in Dropwizard's EWMA.
var (
	alpha1  = 1 - math.Exp(-5.0/60/1)
	alpha5  = 1 - math.Exp(-5.0/60/5)
	alpha15 = 1 - math.Exp(-5.0/60/15)
)

// Meter measures the rate of events: the mean rate since it was created and
// exponentially weighted moving averages over 1, 5 and 15 minutes, as
// Dropwizard's Meter does.
type Meter struct {
	meter
}

// Mark records n events. On the real clock it costs two atomic operations:
// the interval comes from the registry's timer, not from reading the clock.
func (m *Meter) Mark(n int64) { m.mark(m.clock.interval(), n) }

func (m *Meter) typ() metricType { return typeMeter }

func newMeter(c *clock) *Meter {
	m := new(Meter)
	m.init(c)
	return m
}

// meter is the rate-keeping part of meters and timers.
type meter struct {
	clock *clock
	start int64 // nanoseconds since the clock's epoch

	// count is written on every event; the padding keeps it off the cache
	// line of interval, which every event reads.
	_     [64]byte
	count atomic.Int64
	_     [56]byte

	// interval is the interval (see clock.interval) the moving averages
	// have not taken in yet. Only tick, under mu, moves it.
	interval atomic.Int64

	mu sync.Mutex
	// counted is count as of the last tick: the events of an interval are the
	// difference, so marking needs a single atomic add.
	counted     int64
	m1, m5, m15 ewma
}

func (m *meter) init(c *clock) {
	m.clock = c
	m.start = c.nanos()
	m.interval.Store(c.intervalAt(m.start))
	m.m1.alpha, m.m5.alpha, m.m15.alpha = alpha1, alpha5, alpha15
}

// mark records n events in interval i. Like Dropwizard, it first closes
// the intervals that have ended, so the events count toward the current one.
func (m *meter) mark(i, n int64) {
	if i > m.interval.Load() {
		m.tick(i)
	}
	m.count.Add(n)
}

// tick advances the moving averages over every interval that ended before
// interval i. The events since the last tick belong to the first of them;
// the others had none and only decay the averages, which is done in closed
// form so that a meter idle for days costs no more than one idle for
// seconds.
func (m *meter) tick(i int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ticks := i - m.interval.Load()
	if ticks <= 0 {
		return // another caller ticked meanwhile
	}
	m.interval.Store(i)
	c := m.count.Load()
	n := c - m.counted
	m.counted = c
	m.m1.tick(n, ticks)
	m.m5.tick(n, ticks)
	m.m15.tick(n, ticks)
}

// Count returns the number of events marked.
func (m *meter) Count() int64 { return m.count.Load() }

// Rate1 returns the one-minute moving average rate, in events per second.
func (m *meter) Rate1() float64 { return m.rates().m1 }

// Rate5 returns the five-minute moving average rate, in events per second.
func (m *meter) Rate5() float64 { return m.rates().m5 }

// Rate15 returns the fifteen-minute moving average rate, in events per second.
func (m *meter) Rate15() float64 { return m.rates().m15 }

// RateMean returns the mean rate since the meter was created, in events per
// second.
func (m *meter) RateMean() float64 { return m.rates().mean }

type rates struct {
	count       int64
	m1, m5, m15 float64
	mean        float64
}

// rates reads all rates at one instant.
func (m *meter) rates() rates {
	now := m.clock.nanos()
	if i := m.clock.intervalAt(now); i > m.interval.Load() {
		m.tick(i)
	}
	m.mu.Lock()
	r := rates{m1: m.m1.rate, m5: m.m5.rate, m15: m.m15.rate}
	m.mu.Unlock()
	r.count = m.count.Load()
	if elapsed := now - m.start; r.count > 0 && elapsed > 0 {
		r.mean = float64(r.count) / (float64(elapsed) / float64(time.Second))
	}
	return r
}

// ewma is an exponentially weighted moving average of a rate, in events per
// second.
type ewma struct {
	alpha       float64
	rate        float64
	initialized bool
}

// tick takes in n events over one interval followed by ticks-1 empty ones.
func (e *ewma) tick(n, ticks int64) {
	instant := float64(n) / (float64(tickInterval) / float64(time.Second))
	if e.initialized {
		e.rate += e.alpha * (instant - e.rate)
	} else {
		// Dropwizard starts the average at the first interval's rate
		// rather than at zero.
		e.rate = instant
		e.initialized = true
	}
	if ticks > 1 {
		e.rate *= math.Pow(1-e.alpha, float64(ticks-1))
	}
}
