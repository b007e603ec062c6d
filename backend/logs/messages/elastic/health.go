package elastic

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/elastic/go-elasticsearch/v8/esapi"

	"github.com/loggate/loggate/backend/logs/messages"
)

// Health is the cluster's _cluster/health: its name, status and shards, as
// Graylog's /system/indexer/cluster/health shows them.
func (s *Store) Health(ctx context.Context) (messages.Health, error) {
	status, body, err := s.do(ctx, esapi.ClusterHealthRequest{})
	if err != nil {
		return messages.Health{}, err
	}
	if status != http.StatusOK {
		return messages.Health{}, s.fail("cluster health", status, body)
	}
	var h struct {
		Name         string `json:"cluster_name"`
		Status       string `json:"status"`
		Active       int    `json:"active_shards"`
		Initializing int    `json:"initializing_shards"`
		Relocating   int    `json:"relocating_shards"`
		Unassigned   int    `json:"unassigned_shards"`
	}
	if err := json.Unmarshal(body, &h); err != nil {
		return messages.Health{}, fmt.Errorf("cluster health: %w", err)
	}
	return messages.Health{Name: h.Name, Status: h.Status, Shards: messages.ShardCounts{
		Active: h.Active, Initializing: h.Initializing, Relocating: h.Relocating, Unassigned: h.Unassigned}}, nil
}
