package elastic

import (
	"errors"
	"testing"

	"github.com/loggate/loggate/backend/logs/messages"
)

func TestHealth(t *testing.T) {
	f := newFake(t, "7.10.2")
	s := f.open(t, Options{})
	f.on("GET /_cluster/health", 200, `{"cluster_name":"logs","status":"yellow","timed_out":false,"number_of_nodes":1,"active_primary_shards":4,"active_shards":4,"relocating_shards":1,"initializing_shards":2,"unassigned_shards":3}`,
		reply{503, `{"error":{"type":"master_not_discovered_exception","reason":"no master"},"status":503}`})
	h, err := s.Health(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want := messages.Health{Name: "logs", Status: "yellow", Shards: messages.ShardCounts{Active: 4, Initializing: 2, Relocating: 1, Unassigned: 3}}
	if h != want {
		t.Errorf("Health() = %+v, want %+v", h, want)
	}
	if _, err := s.Health(t.Context()); !errors.Is(err, messages.ErrUnavailable) {
		t.Errorf("Health() without a master: %v, want ErrUnavailable", err)
	}
}
