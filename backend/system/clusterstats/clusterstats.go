// Package clusterstats serves Graylog's deprecated /system/cluster/stats
// resources, filled from what loggate really knows: the counts kept by each
// resource's service and the sizes of the embedded stores.
package clusterstats

import (
	"context"
	"net/http"

	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/router/api"
)

// The counters each resource's service provides. They are small on purpose:
// this package needs a number, not the service.
type (
	// Streams counts streams and their rules.
	Streams interface {
		Stats(ctx context.Context) (streams, rules int, rulesByStream map[string]int, err error)
	}
	// Users counts stored users.
	Users interface {
		Count(ctx context.Context) (int, error)
	}
	// Outputs counts outputs by type class.
	Outputs interface {
		CountByType(ctx context.Context) (total int, byType map[string]int, err error)
	}
	// Inputs counts inputs by type class.
	Inputs interface {
		Count(ctx context.Context) (total, global int, byType map[string]int, err error)
	}
	// Views counts dashboards and saved searches.
	Views interface {
		Counts(ctx context.Context) (dashboards, searches int, err error)
	}
	// DocumentStore reports the configuration store's size.
	DocumentStore interface {
		Stats(ctx context.Context) (store.Stats, error)
	}
	// MessageIndex reports the message store's indices.
	MessageIndex interface {
		IndexStats(ctx context.Context) (indices, documents, size int64, err error)
	}
)

// Sources are where the figures come from. Messages may be nil while no
// message store exists: then no index holds anything, which is what the
// figures say.
type Sources struct {
	Streams  Streams
	Users    Users
	Outputs  Outputs
	Inputs   Inputs
	Views    Views
	Store    DocumentStore
	Messages MessageIndex
	// StoreEngine names the document store ("bbolt", "mongodb").
	StoreEngine string
	// Host describes the machine and process; see Host.
	Host Host
}

// Handler serves /system/cluster/stats.
type Handler struct{ src Sources }

// NewHandler returns the cluster stats resource.
func NewHandler(src Sources) *Handler { return &Handler{src: src} }

// Routes returns the deprecated cluster stats routes. Graylog 4.0 names no
// successor ("to be removed in a future version") and needs only
// authentication for them.
func (h *Handler) Routes() []api.Route {
	return []api.Route{
		{Method: "GET", Path: "/system/cluster/stats", Summary: "Cluster status information (deprecated, to be removed in a future version)", Deprecated: true, Handler: api.JSON(h.all)},
		{Method: "GET", Path: "/system/cluster/stats/elasticsearch", Summary: "Search backend cluster information (deprecated)", Deprecated: true, Handler: api.JSON(h.elasticsearch)},
		{Method: "GET", Path: "/system/cluster/stats/mongo", Summary: "Document database information (deprecated)", Deprecated: true, Handler: api.JSON(h.mongo)},
	}
}

func (h *Handler) all(r *http.Request) (any, error) {
	st, err := h.Cluster(r.Context())
	if err != nil {
		return nil, err
	}
	return st, nil
}

func (h *Handler) elasticsearch(r *http.Request) (any, error) {
	st, err := h.Elasticsearch(r.Context())
	if err != nil {
		return nil, err
	}
	return st, nil
}

func (h *Handler) mongo(r *http.Request) (any, error) {
	st, err := h.Mongo(r.Context())
	if err != nil {
		return nil, err
	}
	return st, nil
}
