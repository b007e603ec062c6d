package buffers_test

import (
	"testing"

	"github.com/loggate/loggate/backend/logs/buffers"
)

// TestCapacityIsTheSizeAskedFor: whatever was given back before, Get(n)
// has capacity n, so a budget charged by capacity sees the same for the
// same payload.
func TestCapacityIsTheSizeAskedFor(t *testing.T) {
	p := buffers.New(256 << 10)
	for _, given := range []int{4 << 10, 8 << 10, 256 << 10, 5000, 1 << 20} {
		p.Put(make([]byte, 0, given))
		for _, n := range []int{1, 4 << 10, 8 << 10, 5000, 256 << 10, 300 << 10} {
			if b := p.Get(n); cap(b) != n || len(b) != 0 {
				t.Errorf("after giving back %d bytes, Get(%d): len %d cap %d", given, n, len(b), cap(b))
			}
		}
	}
}

// TestReuse: a buffer of a pooled size given back is handed out again,
// and one too large to keep is not.
func TestReuse(t *testing.T) {
	p := buffers.New(64 << 10)
	for _, tc := range []struct {
		n      int
		reused bool
	}{
		{4 << 10, true},
		{64 << 10, true},
		{5000, false},      // not a pooled size
		{128 << 10, false}, // over the maximum
	} {
		// The pool is a sync.Pool, free to drop what it is given (the race
		// detector drops a quarter); of 20 tries, some see the marked
		// buffer again when it is kept.
		seen := false
		for range 20 {
			b := p.Get(tc.n)[:1]
			b[0] = 42
			p.Put(b)
			if got := p.Get(tc.n); got[:1][0] == 42 {
				seen = true
			}
		}
		if seen != tc.reused {
			t.Errorf("Get(%d) after Put: reused %v, want %v", tc.n, seen, tc.reused)
		}
	}
}
