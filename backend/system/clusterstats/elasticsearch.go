package clusterstats

import (
	"context"

	"github.com/loggate/loggate/backend/system/overview"
)

// ElasticsearchStats is Graylog's ElasticsearchStats, describing the message
// store.
type ElasticsearchStats struct {
	ClusterName    string        `json:"cluster_name"`
	ClusterVersion string        `json:"cluster_version"`
	Status         string        `json:"status"`
	ClusterHealth  ClusterHealth `json:"cluster_health"`
	NodesStats     NodesStats    `json:"nodes_stats"`
	IndicesStats   IndicesStats  `json:"indices_stats"`
}

// ClusterHealth is Graylog's ClusterHealth.
type ClusterHealth struct {
	NumberOfNodes           int   `json:"number_of_nodes"`
	NumberOfDataNodes       int   `json:"number_of_data_nodes"`
	ActiveShards            int64 `json:"active_shards"`
	RelocatingShards        int   `json:"relocating_shards"`
	ActivePrimaryShards     int64 `json:"active_primary_shards"`
	InitializingShards      int   `json:"initializing_shards"`
	UnassignedShards        int   `json:"unassigned_shards"`
	TimedOut                bool  `json:"timed_out"`
	PendingTasks            int   `json:"pending_tasks"`
	PendingTasksTimeInQueue []int `json:"pending_tasks_time_in_queue"`
}

// NodesStats is Graylog's NodesStats.
type NodesStats struct {
	Total      int `json:"total"`
	MasterOnly int `json:"master_only"`
	DataOnly   int `json:"data_only"`
	MasterData int `json:"master_data"`
	Client     int `json:"client"`
}

// IndicesStats is Graylog's IndicesStats.
type IndicesStats struct {
	IndexCount    int64 `json:"index_count"`
	StoreSize     int64 `json:"store_size"`
	FieldDataSize int64 `json:"field_data_size"`
	IDCacheSize   int64 `json:"id_cache_size"`
}

// Elasticsearch describes the embedded message store: one node that holds
// and serves every index, each index one shard.
func (h *Handler) Elasticsearch(ctx context.Context) (ElasticsearchStats, error) {
	var indices, size int64
	if h.src.Messages != nil {
		var err error
		if indices, _, size, err = h.src.Messages.IndexStats(ctx); err != nil {
			return ElasticsearchStats{}, err
		}
	}
	return ElasticsearchStats{
		ClusterName: "loggate", ClusterVersion: overview.Version(), Status: "Green",
		ClusterHealth: ClusterHealth{
			NumberOfNodes: 1, NumberOfDataNodes: 1, ActiveShards: indices, ActivePrimaryShards: indices,
			PendingTasksTimeInQueue: []int{},
		},
		NodesStats:   NodesStats{Total: 1, MasterData: 1},
		IndicesStats: IndicesStats{IndexCount: indices, StoreSize: size},
	}, nil
}
