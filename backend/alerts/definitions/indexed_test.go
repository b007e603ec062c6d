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

// TestWatermarkLagging checks that the watermark moves on while
// processing stays behind by more notes than it keeps.
func TestWatermarkLagging(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := testclock.New(start)
	var end, processed uint64
	w := NewWatermark(func() uint64 { return end }, func() uint64 { return processed }, clock.Now)
	ends := map[uint64]time.Time{} // when each end was journaled
	var last time.Time
	for i := range 1000 {
		clock.Advance(100 * time.Millisecond)
		end += 10
		ends[end] = clock.Now()
		if i >= 300 {
			processed = end - 3000 // 300 notes behind, always
		}
		got, err := w.Indexed(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if got.Before(last) {
			t.Fatalf("the watermark went back: %v after %v", got, last)
		}
		last = got
		if i >= 300 && got.After(ends[processed]) {
			t.Fatalf("watermark %v is after what was processed (%v)", got, ends[processed])
		}
	}
	if behind := clock.Now().Sub(last); behind > 60*time.Second {
		t.Errorf("the watermark is %v behind the clock, processing 30 s: it does not move on", behind)
	}
}
