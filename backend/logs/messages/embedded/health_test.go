package embedded_test

import (
	"testing"

	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/logs/messages/embedded"
)

// The embedded store is a green one-node cluster with a shard per index
// while open, red once closed.
func TestHealth(t *testing.T) {
	s := mustOpen(t, t.TempDir(), embedded.Options{})
	for _, prefix := range []string{"graylog", "graylog", "events"} {
		if _, err := s.Rotate(t.Context(), prefix); err != nil {
			t.Fatal(err)
		}
	}
	h, err := s.Health(t.Context())
	want := messages.Health{Name: embedded.ClusterName, Status: "green", Shards: messages.ShardCounts{Active: 3}}
	if err != nil || h != want {
		t.Fatalf("Health() = %+v, %v; want %+v", h, err, want)
	}
	s.Close()
	if h, _ := s.Health(t.Context()); h.Status != "red" || h.Shards.Unassigned != 3 {
		t.Errorf("Health() after Close = %+v, want red with 3 unassigned", h)
	}
}
