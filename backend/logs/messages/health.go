package messages

// Health is the message store's state as Graylog shows an Elasticsearch
// cluster's (/system/indexer/cluster/name and /health).
type Health struct {
	// Name is the cluster's name.
	Name string
	// Status is green, yellow or red.
	Status string
	// Shards counts the shards by state.
	Shards ShardCounts
}

// ShardCounts are Graylog's ClusterHealth.ShardStatus.
type ShardCounts struct {
	Active       int `json:"active"`
	Initializing int `json:"initializing"`
	Relocating   int `json:"relocating"`
	Unassigned   int `json:"unassigned"`
}
