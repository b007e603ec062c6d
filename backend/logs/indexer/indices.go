package indexer

import (
	"net/http"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/backend/logs/indexsets"
	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/router/api"
)

// TimeAndTotal is Graylog's TimeAndTotalStats.
type TimeAndTotal struct {
	Total       int64 `json:"total"`
	TimeSeconds int64 `json:"time_seconds"`
}

// Documents is Graylog's DocsStats.
type Documents struct {
	Count   int64 `json:"count"`
	Deleted int64 `json:"deleted"`
}

// IndexStats is Graylog's IndexStats. loggate keeps no per-operation
// timings; the counts it has are real, the rest zero.
type IndexStats struct {
	Flush              TimeAndTotal `json:"flush"`
	Get                TimeAndTotal `json:"get"`
	Index              TimeAndTotal `json:"index"`
	Merge              TimeAndTotal `json:"merge"`
	Refresh            TimeAndTotal `json:"refresh"`
	SearchQuery        TimeAndTotal `json:"search_query"`
	SearchFetch        TimeAndTotal `json:"search_fetch"`
	OpenSearchContexts int64        `json:"open_search_contexts"`
	StoreSizeBytes     int64        `json:"store_size_bytes"`
	Segments           int64        `json:"segments"`
	Documents          Documents    `json:"documents"`
}

// ShardRouting is Graylog's ShardRouting.
type ShardRouting struct {
	ID           int     `json:"id"`
	State        string  `json:"state"`
	Active       bool    `json:"active"`
	Primary      bool    `json:"primary"`
	NodeID       string  `json:"node_id"`
	NodeName     string  `json:"node_name"`
	NodeHostname string  `json:"node_hostname"`
	RelocatingTo *string `json:"relocating_to"`
}

// IndexInfo is Graylog's IndexInfo.
type IndexInfo struct {
	IndexName     string         `json:"index_name"`
	PrimaryShards IndexStats     `json:"primary_shards"`
	AllShards     IndexStats     `json:"all_shards"`
	Routing       []ShardRouting `json:"routing"`
	Reopened      bool           `json:"reopened"`
}

func (h *Handler) info(ix messages.Index) IndexInfo {
	st := IndexStats{StoreSizeBytes: ix.Size, Segments: 1, Documents: Documents{Count: ix.Count},
		Index: TimeAndTotal{Total: ix.Count}}
	return IndexInfo{IndexName: ix.Name, PrimaryShards: st, AllShards: st, Reopened: ix.Reopened, Routing: []ShardRouting{{
		State: "started", Active: true, Primary: true, NodeID: h.node.ID, NodeName: h.node.ID, NodeHostname: h.node.Hostname}}}
}

// ClosedIndices is Graylog's ClosedIndices, which also lists the reopened
// ones.
type ClosedIndices struct {
	Indices []string `json:"indices"`
	Total   int      `json:"total"`
}

// namesWhere lists the names of the indices of the request's index set
// for which keep is true.
func (h *Handler) namesWhere(r *http.Request, keep func(messages.Index) bool) (ClosedIndices, error) {
	is, err := h.indexSet(r)
	if err != nil {
		return ClosedIndices{}, err
	}
	ixs, err := h.indices(r.Context(), is)
	if err != nil {
		return ClosedIndices{}, err
	}
	out := ClosedIndices{Indices: []string{}}
	for _, ix := range ixs {
		if keep(ix) {
			out.Indices = append(out.Indices, ix.Name)
		}
	}
	out.Total = len(out.Indices)
	return out, nil
}

func isClosed(ix messages.Index) bool   { return ix.Closed }
func isReopened(ix messages.Index) bool { return ix.Reopened }

// OpenIndices is Graylog's OpenIndicesInfo.
type OpenIndices struct {
	Indices map[string]IndexInfo `json:"indices"`
}

func (h *Handler) open(r *http.Request) (OpenIndices, error) {
	is, err := h.indexSet(r)
	if err != nil {
		return OpenIndices{}, err
	}
	ixs, err := h.indices(r.Context(), is)
	if err != nil {
		return OpenIndices{}, err
	}
	out := OpenIndices{Indices: map[string]IndexInfo{}}
	for _, ix := range ixs {
		if !ix.Closed {
			out.Indices[ix.Name] = h.info(ix)
		}
	}
	return out, nil
}

func (h *Handler) listOpen(r *http.Request) (any, error) {
	open, err := h.open(r)
	if err != nil {
		return nil, err
	}
	return open, nil
}

// listNames answers the names of the indices keep selects.
func (h *Handler) listNames(keep func(messages.Index) bool) api.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		list, err := h.namesWhere(r, keep)
		if err != nil {
			return err
		}
		api.WriteJSON(w, http.StatusOK, list)
		return nil
	}
}

func (h *Handler) listAll(w http.ResponseWriter, r *http.Request) error {
	open, err := h.open(r)
	if err != nil {
		return err
	}
	closed, err := h.namesWhere(r, isClosed)
	if err != nil {
		return err
	}
	reopened, err := h.namesWhere(r, isReopened)
	if err != nil {
		return err
	}
	api.WriteJSON(w, http.StatusOK, struct {
		All      OpenIndices   `json:"all"`
		Closed   ClosedIndices `json:"closed"`
		Reopened ClosedIndices `json:"reopened"`
	}{open, closed, reopened})
	return nil
}

// index answers 404 for a closed index, as Graylog does: Elasticsearch
// has no stats for it.
func (h *Handler) index(r *http.Request) (any, error) {
	ix, err := h.openIndex(r)
	if err != nil {
		return nil, err
	}
	return h.info(ix), nil
}

// multiple answers each open index the body names, as GET .../{index}
// does, by name: the index set page polls its expanded indices so. Indices
// that are unknown, closed or not the caller's to read are left out.
func (h *Handler) multiple(r *http.Request) (any, error) {
	var req struct {
		Indices []string `json:"indices"`
	}
	if err := api.Decode(r, &req, false); err != nil {
		return nil, err
	}
	p := auth.FromContext(r.Context())
	out := map[string]IndexInfo{}
	for _, name := range req.Indices {
		if p == nil || !p.Permits("indices:read:"+name) {
			continue
		}
		_, ix, err := h.find(r.Context(), name)
		if api.ErrorCode(err) == api.NotFound || err == nil && ix.Closed {
			continue
		}
		if err != nil {
			return nil, err
		}
		out[ix.Name] = h.info(ix)
	}
	return out, nil
}

// IndexSummary is Graylog's IndexSummary of the overview.
// A closed index has neither size nor range: both are null.
type IndexSummary struct {
	Size        *IndexSize `json:"size"`
	Range       *Range     `json:"range"`
	IsDeflector bool       `json:"is_deflector"`
	IsClosed    bool       `json:"is_closed"`
	IsReopened  bool       `json:"is_reopened"`
}

// IndexSize is Graylog's IndexSizeSummary.
type IndexSize struct {
	Events  int64 `json:"events"`
	Deleted int64 `json:"deleted"`
	Bytes   int64 `json:"bytes"`
}

// Overview is Graylog's IndexerOverview.
type Overview struct {
	Deflector struct {
		IsUp          bool    `json:"is_up"`
		CurrentTarget *string `json:"current_target"`
	} `json:"deflector"`
	IndexerCluster struct {
		Health ClusterHealth `json:"health"`
		Name   string        `json:"name"`
	} `json:"indexer_cluster"`
	Counts struct {
		Events int64 `json:"events"`
	} `json:"counts"`
	Indices map[string]IndexSummary `json:"indices"`
}

func (h *Handler) overview(r *http.Request) (any, error) {
	is, err := h.indexSet(r)
	if err != nil {
		return nil, err
	}
	ov, err := h.overviewOf(r, is)
	if err != nil {
		return nil, err
	}
	return ov, nil
}

func (h *Handler) overviewOf(r *http.Request, is indexsets.IndexSet) (Overview, error) {
	var ov Overview
	hl, err := h.health(r.Context())
	if err != nil {
		return ov, err
	}
	ov.IndexerCluster.Name = hl.Name
	ov.IndexerCluster.Health = ClusterHealth{Status: hl.Status, Shards: hl.Shards}
	ixs, err := h.indices(r.Context(), is)
	if err != nil {
		return ov, err
	}
	now := h.now()
	ov.Indices = map[string]IndexSummary{}
	for _, ix := range ixs {
		s := IndexSummary{IsDeflector: ix.Write, IsClosed: ix.Closed, IsReopened: ix.Reopened}
		if !ix.Closed {
			rg := h.rangeFor(ix, now)
			s.Size, s.Range = &IndexSize{Events: ix.Count, Bytes: ix.Size}, &rg
		}
		ov.Indices[ix.Name] = s
		ov.Counts.Events += ix.Count
		if ix.Write {
			name := ix.Name
			ov.Deflector.IsUp, ov.Deflector.CurrentTarget = true, &name
		}
	}
	return ov, nil
}
