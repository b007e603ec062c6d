package views_test

import (
	"testing"
	"time"

	"github.com/loggate/loggate/backend/analysis/views"
	"github.com/loggate/loggate/internal/testclock"
)

// TestPurgeSearches: searches older than the cutoff go unless a view shows
// them.
func TestPurgeSearches(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	clock := testclock.New(epoch)
	searches := views.NewSearches(e.st, e.svc, clock.Now)
	ctx := t.Context()
	save := func(id string) {
		t.Helper()
		if _, err := searches.Save(ctx, views.ViewSearch{ID: id}, "alice"); err != nil {
			t.Fatal(err)
		}
	}
	save("5f0000000000000000000001") // shown by the views env.add creates
	save("5f00000000000000000000a1")
	clock.Advance(5 * time.Hour)
	save("5f00000000000000000000a2")
	e.add("alice", views.Search, "Saved", "")

	n, err := searches.Purge(ctx, clock.Now().Add(-views.MaxSearchAge))
	if err != nil || n != 1 {
		t.Fatalf("purged %d, %v; want 1", n, err)
	}
	for id, kept := range map[string]bool{"5f0000000000000000000001": true, "5f00000000000000000000a1": false, "5f00000000000000000000a2": true} {
		if _, err := searches.Get(ctx, id); (err == nil) != kept {
			t.Errorf("%s: %v, kept should be %v", id, err, kept)
		}
	}
}
