package embedded

import (
	"context"

	"github.com/loggate/loggate/backend/logs/messages"
)

// ClusterName is what the embedded store calls itself where Graylog names
// its Elasticsearch cluster.
const ClusterName = "loggate-embedded"

// Health reports the embedded store as a one-node cluster: green while it
// is open, each index one active shard; red once closed or broken.
func (s *Store) Health(ctx context.Context) (messages.Health, error) {
	if err := ctx.Err(); err != nil {
		return messages.Health{}, err
	}
	s.mu.RLock()
	closed := s.closed
	active := len(s.indices)
	s.mu.RUnlock()
	h := messages.Health{Name: ClusterName, Status: "green", Shards: messages.ShardCounts{Active: active}}
	if closed {
		h.Status, h.Shards = "red", messages.ShardCounts{Unassigned: active}
	}
	return h, nil
}
