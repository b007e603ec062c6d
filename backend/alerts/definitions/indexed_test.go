package definitions

import (
	"context"
	"testing"
	"time"

	"github.com/loggate/loggate/internal/testclock"
)

// TestWatermark checks that the watermark follows the journal: now while
// processing keeps up, the time of the last note whose journal end has
// been processed while it lags.
func TestWatermark(t *testing.T) {
	clock := testclock.New(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	var end, processed uint64
	w := NewWatermark(func() uint64 { return end }, func() uint64 { return processed }, clock.Now)
	check := func(want time.Time) {
		t.Helper()
		got, err := w.Indexed(context.Background())
		if err != nil || !got.Equal(want) {
			t.Fatalf("Indexed = %v, %v; want %v", got, err, want)
		}
	}
	t0 := clock.Now()
	check(t0) // idle journal: everything is indexed
	end = 10  // ten messages journaled, none processed
	clock.Advance(time.Second)
	check(t0)
	t1 := clock.Now()
	end = 20
	clock.Advance(time.Second)
	check(t0)
	processed = 10 // the first ten: what was received up to t1
	clock.Advance(time.Second)
	check(t1)
	processed = 20
	t3 := clock.Now()
	check(t3)
}
