package messagestest

import (
	"slices"
	"testing"
)

// testHealth: an open store with an index is a healthy cluster with a name
// and at least one active shard.
func testHealth(t *testing.T, f Factory) {
	s := f.Open(t)
	ctx := t.Context()
	if _, err := s.Rotate(ctx, "health"); err != nil {
		t.Fatal(err)
	}
	h, err := s.Health(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if h.Name == "" || !slices.Contains([]string{"green", "yellow"}, h.Status) || h.Shards.Active < 1 {
		t.Errorf("Health() = %+v, want a named green or yellow cluster with an active shard", h)
	}
}
