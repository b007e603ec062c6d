// Package indexer owns Graylog's views of the message store as an indexer
// cluster: /system/indexer/cluster (name and health), /system/indexer/overview,
// /system/indexer/indices (per-index figures, deletion), /system/indices/ranges
// (each index's time range) and /system/indexer/failures (messages the store
// refused for good). Everything is read from the store when asked, so index
// ranges are never stale and "rebuild" has nothing left to do.
package indexer

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/loggate/loggate/backend/logs/indexsets"
	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/router/api"
)

// IndexSets finds index sets; *indexsets.Service satisfies it.
type IndexSets interface {
	All(ctx context.Context) ([]indexsets.IndexSet, error)
	Get(ctx context.Context, id string) (indexsets.IndexSet, error)
	DefaultID(ctx context.Context) (string, error)
}

// Store is the part of messages.Store the indexer resources read.
type Store interface {
	Indices(ctx context.Context, prefix string) ([]messages.Index, error)
	Delete(ctx context.Context, index string) error
	CloseIndex(ctx context.Context, index string) error
	ReopenIndex(ctx context.Context, index string) error
	Health(ctx context.Context) (messages.Health, error)
}

// Node names the node that holds the embedded store's shards.
type Node struct{ ID, Hostname string }

// Handler serves the indexer resources.
type Handler struct {
	sets     IndexSets
	store    Store
	failures *Failures
	node     Node
	now      func() time.Time
}

// NewHandler returns the indexer resources.
func NewHandler(sets IndexSets, store Store, failures *Failures, node Node, now func() time.Time) *Handler {
	return &Handler{sets: sets, store: store, failures: failures, node: node, now: now}
}

// Routes returns the indexer routes; literal paths come before the
// templates that would take them.
func (h *Handler) Routes() []api.Route {
	return []api.Route{
		{Method: "GET", Path: "/system/indexer/cluster/name", Summary: "Get the cluster name",
			Permission: "indexercluster:read", Handler: api.JSON(h.clusterName)},
		{Method: "GET", Path: "/system/indexer/cluster/health", Summary: "Get cluster and shard health overview",
			Permission: "indexercluster:read", Handler: api.JSON(h.clusterHealth)},
		{Method: "GET", Path: "/system/indexer/overview", Summary: "Get overview of current indexing state, including deflector config, cluster state, index ranges & message counts",
			Permission: "indexercluster:read", Successor: "/system/indexer/overview/{indexSetId}", Handler: api.JSON(h.overview)},
		{Method: "GET", Path: "/system/indexer/overview/{indexSetId}", Summary: "Get overview of current indexing state for the given index set",
			Permission: "indexercluster:read", Handler: api.JSON(h.overview)},
		{Method: "GET", Path: "/system/indexer/failures", Summary: "Get a list of failed index operations",
			Permission: "indices:failures", Query: []string{"limit", "offset"}, Handler: h.listFailures},
		{Method: "GET", Path: "/system/indexer/failures/count", Summary: "Total count of failed index operations since the given date",
			Permission: "indices:failures", Query: []string{"since"}, Handler: api.JSON(h.countFailures)},
		{Method: "GET", Path: "/system/indexer/indices/{indexSetId}/list", Summary: "List all open, closed and reopened indices",
			Permission: "indices:read", Handler: h.listAll},
		{Method: "GET", Path: "/system/indexer/indices/{indexSetId}/open", Summary: "Get information of all open indices managed by Graylog and their shards",
			Permission: "indices:read", Handler: api.JSON(h.listOpen)},
		{Method: "GET", Path: "/system/indexer/indices/{indexSetId}/closed", Summary: "Get a list of closed indices that can be reopened",
			Permission: "indices:read", Handler: h.listNames(isClosed)},
		{Method: "GET", Path: "/system/indexer/indices/{indexSetId}/reopened", Summary: "Get a list of reopened indices, which will not be cleaned by retention cleaning",
			Permission: "indices:read", Handler: h.listNames(isReopened)},
		{Method: "POST", Path: "/system/indexer/indices/multiple", Summary: "Get information of multiple indices and their shards",
			Permission: "indices:read", Handler: api.JSON(h.multiple)},
		{Method: "POST", Path: "/system/indexer/indices/{index}/close", Summary: "Close an index. This will also trigger an index ranges rebuild job",
			Permission: "indices:changestate", Handler: h.closeIndex},
		{Method: "POST", Path: "/system/indexer/indices/{index}/reopen", Summary: "Reopen a closed index. This will also trigger an index ranges rebuild job",
			Permission: "indices:changestate", Handler: h.reopenIndex},
		{Method: "GET", Path: "/system/indexer/indices/{index}", Summary: "Get information of an index and its shards",
			Permission: "indices:read", Handler: api.JSON(h.index)},
		{Method: "DELETE", Path: "/system/indexer/indices/{index}", Summary: "Delete an index; this also deletes all messages in it",
			Permission: "indices:delete", Handler: h.deleteIndex},
		{Method: "GET", Path: "/system/indices/ranges", Summary: "Get a list of all index ranges",
			Permission: "indexranges:read", Handler: h.ranges},
		{Method: "POST", Path: "/system/indices/ranges/rebuild", Summary: "Rebuild/sync index range information (ranges are always current here)",
			Permission: "indexranges:rebuild", Handler: h.rebuild},
		{Method: "POST", Path: "/system/indices/ranges/index_set/{indexSetId}/rebuild", Summary: "Rebuild/sync index range information for the given index set",
			Permission: "indexranges:rebuild", Handler: h.rebuildSet},
		{Method: "POST", Path: "/system/indices/ranges/{index}/rebuild", Summary: "Rebuild/sync index range information for the given index",
			Permission: "indexranges:rebuild", Handler: h.rebuildIndex},
		{Method: "GET", Path: "/system/indices/ranges/{index}", Summary: "Show single index range",
			Permission: "indexranges:read", Handler: api.JSON(h.rangeOf)},
	}
}

// ClusterHealth is Graylog's ClusterHealth.
type ClusterHealth struct {
	Status string               `json:"status"`
	Shards messages.ShardCounts `json:"shards"`
}

func (h *Handler) health(ctx context.Context) (messages.Health, error) {
	hl, err := h.store.Health(ctx)
	return hl, storeError(err)
}

// parseSince reads an ISO 8601 date as Joda's parser does: with a zone, or
// without one (the web interface sends local time with no zone), then UTC.
func parseSince(v string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t, nil
	}
	return time.ParseInLocation("2006-01-02T15:04:05.999999999", v, time.UTC)
}

// storeError says a lost store is a 503 for the client to retry.
func storeError(err error) error {
	if errors.Is(err, messages.ErrUnavailable) {
		return api.Wrap(api.Unavailable, "The message store is unavailable; try again later.", err)
	}
	return err
}

func (h *Handler) clusterName(r *http.Request) (any, error) {
	hl, err := h.health(r.Context())
	if err != nil {
		return nil, err
	}
	return map[string]string{"name": hl.Name}, nil
}

func (h *Handler) clusterHealth(r *http.Request) (any, error) {
	hl, err := h.health(r.Context())
	if err != nil {
		return nil, err
	}
	return ClusterHealth{Status: hl.Status, Shards: hl.Shards}, nil
}

// indexSet is the set a request names by {indexSetId}, or the default one.
func (h *Handler) indexSet(r *http.Request) (indexsets.IndexSet, error) {
	id := api.Var(r, "indexSetId")
	if id == "" {
		def, err := h.sets.DefaultID(r.Context())
		if err != nil {
			return indexsets.IndexSet{}, err
		}
		id = def
	}
	is, err := h.sets.Get(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		// Graylog's IndexSetRegistry lookup on these resources.
		return indexsets.IndexSet{}, api.Errorf(api.NotFound, "Couldn't find index set with ID <%s>", id)
	}
	return is, err
}

// indices lists an index set's indices, newest last.
func (h *Handler) indices(ctx context.Context, is indexsets.IndexSet) ([]messages.Index, error) {
	ixs, err := h.store.Indices(ctx, is.IndexPrefix)
	slices.SortFunc(ixs, func(a, b messages.Index) int { return a.Number - b.Number })
	return ixs, storeError(err)
}

// find returns the index set and index a name such as graylog_3 stands for.
func (h *Handler) find(ctx context.Context, name string) (indexsets.IndexSet, messages.Index, error) {
	sets, err := h.sets.All(ctx)
	if err != nil {
		return indexsets.IndexSet{}, messages.Index{}, err
	}
	for _, is := range sets {
		if !strings.HasPrefix(name, is.IndexPrefix+"_") {
			continue
		}
		if _, err := strconv.Atoi(strings.TrimPrefix(name, is.IndexPrefix+"_")); err != nil {
			continue
		}
		ixs, err := h.indices(ctx, is)
		if err != nil {
			return is, messages.Index{}, err
		}
		for _, ix := range ixs {
			if ix.Name == name {
				return is, ix, nil
			}
		}
	}
	return indexsets.IndexSet{}, messages.Index{}, api.Errorf(api.NotFound, "Index <%s> not found", name)
}

// Range is Graylog's IndexRangeSummary. An empty index spans the epoch, as
// Graylog records it.
type Range struct {
	IndexName    string   `json:"index_name"`
	Begin        api.Time `json:"begin"`
	End          api.Time `json:"end"`
	CalculatedAt api.Time `json:"calculated_at"`
	TookMS       int      `json:"took_ms"`
}

func (h *Handler) rangeFor(ix messages.Index, at time.Time) Range {
	epoch := time.Unix(0, 0).UTC()
	begin, end := ix.Begin, ix.End
	if begin.IsZero() {
		begin, end = epoch, epoch
	}
	return Range{IndexName: ix.Name, Begin: api.Time{Time: begin.UTC()}, End: api.Time{Time: end.UTC()},
		CalculatedAt: api.Time{Time: at.UTC()}}
}

func (h *Handler) ranges(w http.ResponseWriter, r *http.Request) error {
	sets, err := h.sets.All(r.Context())
	if err != nil {
		return err
	}
	now := h.now()
	out := []Range{}
	for _, is := range sets {
		ixs, err := h.indices(r.Context(), is)
		if err != nil {
			return err
		}
		for _, ix := range ixs {
			// Graylog removes the range of a closed index.
			if !ix.Closed {
				out = append(out, h.rangeFor(ix, now))
			}
		}
	}
	api.WriteJSON(w, http.StatusOK, struct {
		Total  int     `json:"total"`
		Ranges []Range `json:"ranges"`
	}{len(out), out})
	return nil
}

func (h *Handler) rangeOf(r *http.Request) (any, error) {
	ix, err := h.openIndex(r)
	if err != nil {
		return nil, err
	}
	return h.rangeFor(ix, h.now()), nil
}

// rebuild answers 202 as Graylog does when it starts a rebuild job: the
// ranges are read from the store on every request, so they are current.
func (h *Handler) rebuild(w http.ResponseWriter, r *http.Request) error {
	w.WriteHeader(http.StatusAccepted)
	return nil
}

func (h *Handler) rebuildSet(w http.ResponseWriter, r *http.Request) error {
	if _, err := h.indexSet(r); err != nil {
		return err
	}
	return h.rebuild(w, r)
}

func (h *Handler) rebuildIndex(w http.ResponseWriter, r *http.Request) error {
	if _, _, err := h.find(r.Context(), api.Var(r, "index")); err != nil {
		return err
	}
	return h.rebuild(w, r)
}

func (h *Handler) listFailures(w http.ResponseWriter, r *http.Request) error {
	limit, err := api.IntParam(r.URL.Query(), "limit", 50, 1, keepFailures)
	if err != nil {
		return err
	}
	offset, err := api.IntParam(r.URL.Query(), "offset", 0, 0, keepFailures)
	if err != nil {
		return err
	}
	fs, total, err := h.failures.List(r.Context(), offset, limit)
	if err != nil {
		return err
	}
	if fs == nil {
		fs = []Failure{}
	}
	api.WriteJSON(w, http.StatusOK, struct {
		Failures []Failure `json:"failures"`
		Total    int       `json:"total"`
	}{fs, total})
	return nil
}

func (h *Handler) countFailures(r *http.Request) (any, error) {
	v := r.URL.Query().Get("since")
	if v == "" {
		return nil, api.Errorf(api.Invalid, "Missing parameter since: an ISO 8601 date, e.g. 2021-01-01T00:00:00.000Z")
	}
	since, err := parseSince(v)
	if err != nil {
		return nil, api.Errorf(api.Invalid, "Invalid since %q: an ISO 8601 date, e.g. 2021-01-01T00:00:00.000Z", v)
	}
	n, err := h.failures.CountSince(r.Context(), since)
	if err != nil {
		return nil, err
	}
	return map[string]int{"count": n}, nil
}

// openIndex returns the index the request names; a closed one is not
// found, as it has no stats or range in Graylog.
func (h *Handler) openIndex(r *http.Request) (messages.Index, error) {
	_, ix, err := h.find(r.Context(), api.Var(r, "index"))
	if err == nil && ix.Closed {
		err = api.Errorf(api.NotFound, "Index <%s> not found: it is closed", ix.Name)
	}
	return ix, err
}

func (h *Handler) deleteIndex(w http.ResponseWriter, r *http.Request) error {
	return h.change(w, r, "delete", "Index <%s> is the current write index; cycle the deflector first", h.store.Delete)
}

func (h *Handler) closeIndex(w http.ResponseWriter, r *http.Request) error {
	return h.change(w, r, "close", "Cannot close the current write index <%s>; cycle the deflector first", h.store.CloseIndex)
}

func (h *Handler) reopenIndex(w http.ResponseWriter, r *http.Request) error {
	return h.change(w, r, "reopen", "", h.store.ReopenIndex)
}

// change applies op to the index the request names and answers 204. A
// write index is refused with forbidden (a 403) when forbidden is set:
// the index set could not be written to without it.
func (h *Handler) change(w http.ResponseWriter, r *http.Request, what, forbidden string, op func(context.Context, string) error) error {
	_, ix, err := h.find(r.Context(), api.Var(r, "index"))
	if err != nil {
		return err
	}
	if forbidden != "" && ix.Write {
		return api.Errorf(api.Forbidden, forbidden, ix.Name)
	}
	err = op(r.Context(), ix.Name)
	switch {
	case errors.Is(err, messages.ErrNotFound):
		return api.Errorf(api.NotFound, "Index <%s> not found", ix.Name)
	case errors.Is(err, messages.ErrWriteIndex):
		// It became the write index meanwhile.
		return api.Errorf(api.Forbidden, forbidden, ix.Name)
	case err != nil:
		return fmt.Errorf("%s index %s: %w", what, ix.Name, storeError(err))
	}
	api.NoContent(w)
	return nil
}
