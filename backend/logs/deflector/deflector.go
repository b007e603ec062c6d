// Package deflector owns /system/deflector, Graylog's name for an index
// set's write index: which index receives its messages, and cycling it (a
// manual rotation), plus the deprecated forms for the default index set
// and the /cluster variants the web interface calls.
package deflector

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strings"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/backend/logs/indexsets"
	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/router/api"
)

// IndexSets finds index sets; *indexsets.Service satisfies it.
type IndexSets interface {
	// Get returns an index set; an unknown one wraps store.ErrNotFound.
	Get(ctx context.Context, id string) (indexsets.IndexSet, error)
	DefaultID(ctx context.Context) (string, error)
}

// Store is the part of messages.Store the deflector uses.
type Store interface {
	Indices(ctx context.Context, prefix string) ([]messages.Index, error)
	Rotate(ctx context.Context, prefix string) (string, error)
}

// Handler serves the deflector resources.
type Handler struct {
	sets  IndexSets
	store Store
	log   *slog.Logger
}

// NewHandler returns the deflector resources over the message store; a cycle
// is logged to log, the indexer's, not to the HTTP server's.
func NewHandler(sets IndexSets, store Store, log *slog.Logger) *Handler {
	return &Handler{sets: sets, store: store, log: log}
}

// Summary is Graylog's DeflectorSummary.
type Summary struct {
	IsUp          bool    `json:"is_up"`
	CurrentTarget *string `json:"current_target"`
}

// Routes returns the deflector routes.
func (h *Handler) Routes() []api.Route {
	return []api.Route{
		{Method: "GET", Path: "/system/deflector", Summary: "Get current deflector status of the default index set",
			Permission: "deflector:read", Successor: "/system/deflector/{indexSetId}", Handler: h.named("/system/deflector/{indexSetId}", api.JSON(h.get))},
		{Method: "GET", Path: "/system/deflector/{indexSetId}", Summary: "Get current deflector status in index set",
			Permission: "deflector:read", Handler: api.JSON(h.get)},
		{Method: "POST", Path: "/system/deflector/cycle", Summary: "Cycle deflector of the default index set to new/next index",
			Permission: "deflector:cycle", Successor: "/system/deflector/{indexSetId}/cycle", Handler: h.named("/system/deflector/{indexSetId}/cycle", h.cycle)},
		{Method: "POST", Path: "/system/deflector/{indexSetId}/cycle", Summary: "Cycle deflector to new/next index in index set",
			Permission: "deflector:cycle", Handler: h.cycle},
		// One message store for the whole cluster, or one per node: either
		// way cycling here is what the cluster-wide call asks for.
		{Method: "POST", Path: "/cluster/deflector/cycle", Summary: "Finds master node and triggers deflector cycle",
			Permission: "deflector:cycle", Successor: "/cluster/deflector/{indexSetId}/cycle", Handler: h.named("/cluster/deflector/{indexSetId}/cycle", h.cycle)},
		{Method: "POST", Path: "/cluster/deflector/{indexSetId}/cycle", Summary: "Finds master node and triggers deflector cycle",
			Permission: "deflector:cycle", Handler: h.cycle},
	}
}

// named serves a deprecated form for the default index set, naming in its
// Link header the successor for that index set by its URI (successor with
// the default index set's id for {indexSetId}).
func (h *Handler) named(successor string, next api.HandlerFunc) api.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		api.SuccessorLink(w, r, "")
		id, err := h.sets.DefaultID(r.Context())
		if err != nil {
			return err
		}
		api.SuccessorLink(w, r, strings.Replace(successor, "{indexSetId}", url.PathEscape(id), 1))
		return next(w, r)
	}
}

// indexSet returns the index set of the request: the path's, or the
// default one.
func (h *Handler) indexSet(r *http.Request) (indexsets.IndexSet, error) {
	ctx := r.Context()
	id := api.Var(r, "indexSetId")
	if id == "" {
		var err error
		if id, err = h.sets.DefaultID(ctx); err != nil {
			return indexsets.IndexSet{}, err
		}
	}
	is, err := h.sets.Get(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return is, api.Errorf(api.NotFound, "Index set <%s> not found", id)
	}
	return is, err
}

func (h *Handler) get(r *http.Request) (any, error) {
	is, err := h.indexSet(r)
	if err != nil {
		return nil, err
	}
	indices, err := h.store.Indices(r.Context(), is.IndexPrefix)
	if err != nil {
		return nil, err
	}
	// Graylog's is_up: the write alias exists, which here means the
	// series has a write index (its first message creates it).
	var out Summary
	for _, ix := range indices {
		if ix.Write {
			name := ix.Name
			out = Summary{IsUp: true, CurrentTarget: &name}
		}
	}
	return out, nil
}

func (h *Handler) cycle(w http.ResponseWriter, r *http.Request) error {
	is, err := h.indexSet(r)
	if err != nil {
		return err
	}
	if !is.Writable {
		return api.Errorf(api.Forbidden, "Index set <%s> is not writable", is.ID)
	}
	name, err := h.store.Rotate(r.Context(), is.IndexPrefix)
	if errors.Is(err, messages.ErrUnavailable) {
		return api.Wrap(api.Unavailable, "The message store is unavailable; try again later.", err)
	}
	if err != nil {
		return err
	}
	h.log.InfoContext(r.Context(), "deflector cycled", "index_set", is.ID, "new_target", name,
		"user", auth.FromContext(r.Context()).Username)
	api.NoContent(w)
	return nil
}
