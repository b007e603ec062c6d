package systemmessages_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/store/bolt"
	"github.com/loggate/loggate/backend/system/systemmessages"
	"github.com/loggate/loggate/internal/testclock"
)

// Messages come newest first, 30 a page; the oldest go past keep.
func TestPagesAndKeep(t *testing.T) {
	st, err := bolt.Open(filepath.Join(t.TempDir(), "db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	clock := testclock.New(time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC))
	s := systemmessages.NewService(st, "node-a", clock.Now, 40)
	ctx := context.Background()
	for i := range 100 {
		if err := s.Record(ctx, "loggate.test", "event %d", i); err != nil {
			t.Fatal(err)
		}
		clock.Advance(time.Second)
	}
	first, total, err := s.Page(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	// Trimmed every 50 writes: after the 51st, 40 were kept; 49 came since.
	if total != 89 {
		t.Errorf("total %d, want 89", total)
	}
	if len(first) != systemmessages.PerPage || first[0].Content != "event 99" || first[29].Content != "event 70" || first[0].NodeID != "node-a" || first[0].Caller != "loggate.test" {
		t.Fatalf("page 1: %d messages, first %+v", len(first), first[0])
	}
	last, _, _ := s.Page(ctx, 3)
	if len(last) != 29 || last[28].Content != fmt.Sprintf("event %d", 100-89) {
		t.Errorf("page 3: %d messages, last %+v", len(last), last[len(last)-1])
	}
	for _, p := range []int{4, 1 << 62} {
		if beyond, _, err := s.Page(ctx, p); err != nil || len(beyond) != 0 {
			t.Errorf("page %d: %d messages, %v", p, len(beyond), err)
		}
	}
}
