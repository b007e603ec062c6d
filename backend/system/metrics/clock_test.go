package metrics_test

import (
	"sync/atomic"
	"time"
)

// fakeClock is a clock tests move by hand; safe for concurrent use.
type fakeClock struct {
	start  time.Time
	offset atomic.Int64
}

func newFakeClock() *fakeClock {
	return &fakeClock{start: time.Date(2021, 1, 2, 3, 4, 5, 0, time.UTC)}
}

func (c *fakeClock) now() time.Time { return c.start.Add(time.Duration(c.offset.Load())) }

// set moves the clock to d after its start.
func (c *fakeClock) set(d time.Duration) { c.offset.Store(int64(d)) }

func (c *fakeClock) add(d time.Duration) { c.offset.Add(int64(d)) }
