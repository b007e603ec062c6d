package journal

import (
	"math"
	"time"
)

// meter is a one-minute exponentially weighted moving average of events per
// second, ticking every five seconds like the Dropwizard Meter whose
// one-minute rate Graylog reports for journal appends and reads. It ticks
// lazily from the injected clock, so it needs no goroutine.
type meter struct {
	last      time.Time // time of the last tick
	uncounted int64
	rate      float64 // events per second
	init      bool
}

const meterTick = 5 * time.Second

// meterAlpha is Dropwizard's M1_ALPHA: 1 - e^(-5s/1min).
var meterAlpha = 1 - math.Exp(-float64(meterTick)/float64(time.Minute))

func (m *meter) start(now time.Time) { m.last = now }

func (m *meter) mark(now time.Time, n int64) {
	m.tick(now)
	m.uncounted += n
}

// perSecond returns the current one-minute rate.
func (m *meter) perSecond(now time.Time) float64 {
	m.tick(now)
	return m.rate
}

func (m *meter) tick(now time.Time) {
	ticks := int64(now.Sub(m.last) / meterTick)
	if ticks <= 0 {
		return
	}
	m.last = m.last.Add(time.Duration(ticks) * meterTick)
	instant := float64(m.uncounted) / meterTick.Seconds()
	m.uncounted = 0
	if m.init {
		m.rate += meterAlpha * (instant - m.rate)
	} else {
		m.rate, m.init = instant, true
	}
	// The remaining ticks saw no events: each decays the rate by 1-alpha.
	m.rate *= math.Pow(1-meterAlpha, float64(ticks-1))
}
