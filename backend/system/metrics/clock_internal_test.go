package metrics

import (
	"testing"
	"time"
)

// TestRealClockMarksWithoutReading checks the real clock's path: marks take
// their interval from the registry's timer, and a mark after an interval
// ended (seen by the timer, with no read in between) closes that interval
// first, as a mark that read the clock would. It waits for one interval
// end, at most five seconds.
func TestRealClockMarksWithoutReading(t *testing.T) {
	t.Parallel()
	r := New(time.Now)
	if !r.clock.real {
		t.Fatal("time.Now is not recognised as the real clock")
	}
	m := r.Meter("m")
	m.Mark(5)
	first := r.clock.published.Load()
	deadline := time.Now().Add(3 * time.Duration(tickInterval))
	for r.clock.published.Load() == first {
		if time.Now().After(deadline) {
			t.Fatal("the interval timer did not advance")
		}
		time.Sleep(10 * time.Millisecond)
	}
	m.Mark(10)
	if got := m.Rate1(); got != 1 {
		t.Errorf("m1 = %v, want 1 (5 events in the first interval)", got)
	}
	if got := m.Count(); got != 15 {
		t.Errorf("count = %d, want 15", got)
	}
	if New(func() time.Time { return time.Now() }).clock.real {
		t.Error("another clock is taken for the real one")
	}
}
