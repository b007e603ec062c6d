package metrics

import (
	"testing"
	"time"
)

// TestReservoirGrowsOnUse: a timer holds no samples' memory until it is
// updated, and its reservoir still fills to Dropwizard's 1028 samples.
func TestReservoirGrowsOnUse(t *testing.T) {
	r := New(time.Now)
	tm := r.Timer("unused")
	if c := cap(tm.res.heap); c != 0 {
		t.Fatalf("an unused timer holds room for %d samples", c)
	}
	for i := range 5000 {
		tm.Update(time.Duration(i) * time.Microsecond)
	}
	if n := len(tm.res.heap); n != reservoirSize {
		t.Fatalf("after 5000 updates the reservoir holds %d samples, want %d", n, reservoirSize)
	}
}
