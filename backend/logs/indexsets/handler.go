package indexsets

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/router/api"
)

// Handler serves /system/indices/index_sets and the rotation and retention
// strategy resources.
type Handler struct {
	svc *Service
}

// NewHandler returns the index set resources.
func NewHandler(svc *Service) *Handler { return &Handler{svc: svc} }

const base = "/system/indices/index_sets"

// exampleBody is an index set as POST reads it, for the API browser.
const exampleBody = `{"title":"Nginx","description":"Nginx access logs","writable":true,"index_prefix":"nginx","shards":4,"replicas":0,` +
	`"rotation_strategy_class":"` + TimeBasedRotation + `","rotation_strategy":{"type":"` + TimeBasedRotation + `Config","rotation_period":"P1D"},` +
	`"retention_strategy_class":"` + DeletionRetention + `","retention_strategy":{"type":"` + DeletionRetention + `Config","max_number_of_indices":30},` +
	`"index_analyzer":"standard","index_optimization_max_num_segments":1,"index_optimization_disabled":false,"field_type_refresh_interval":5000}`

// Routes returns the routes, the literal /stats before /{id}.
func (h *Handler) Routes() []api.Route {
	return []api.Route{
		{Method: "GET", Path: base, Summary: "Get a list of all index sets (those the caller may read: indexsets:read:<id>)", Query: []string{"skip", "limit", "stats"}, Handler: api.JSON(h.list)},
		{Method: "POST", Path: base, Summary: "Create index set", Permission: "indexsets:create", Body: exampleBody, Handler: h.create},
		{Method: "GET", Path: base + "/stats", Summary: "Get stats of all index sets", Permission: "indexsets:read", Handler: api.JSON(h.totalStats)},
		{Method: "GET", Path: base + "/{id}", Summary: "Get index set", Permission: "indexsets:read:{id}", PathChecked: true, Handler: h.get},
		{Method: "PUT", Path: base + "/{id}", Summary: "Update index set", Permission: "indexsets:edit:{id}", PathChecked: true, Body: `{"title":"Nginx","writable":true,"shards":4,"replicas":1}`, Handler: h.update},
		{Method: "DELETE", Path: base + "/{id}", Summary: "Delete index set", Permission: "indexsets:delete:{id}", PathChecked: true, Query: []string{"delete_indices"}, Handler: h.delete},
		{Method: "PUT", Path: base + "/{id}/default", Summary: "Set default index set", Permission: "indexsets:edit:{id}", PathChecked: true, Handler: h.setDefault},
		{Method: "GET", Path: base + "/{id}/stats", Summary: "Get index set statistics", Permission: "indexsets:read:{id}", PathChecked: true, Handler: api.JSON(h.stats)},
		{Method: "GET", Path: "/system/indices/rotation/strategies", Summary: "List available rotation strategies", Handler: strategiesOf(rotations)},
		{Method: "GET", Path: "/system/indices/rotation/strategies/{strategy}", Summary: "Show JSON schema for configuration of given rotation strategies", Handler: strategyOf("rotation", rotations)},
		{Method: "GET", Path: "/system/indices/retention/strategies", Summary: "List available retention strategies", Handler: strategiesOf(retentions)},
		{Method: "GET", Path: "/system/indices/retention/strategies/{strategy}", Summary: "Show JSON schema for configuration of given retention strategies", Handler: strategyOf("retention", retentions)},
	}
}

// listing is Graylog's IndexSetResponse.
type listing struct {
	Total     int                      `json:"total"`
	IndexSets []Summary                `json:"index_sets"`
	Stats     map[string]IndexSetStats `json:"stats"`
}

func (h *Handler) list(r *http.Request) (any, error) {
	ctx := r.Context()
	q := r.URL.Query()
	skip, err := nonNegative(q, "skip")
	if err != nil {
		return nil, err
	}
	limit, err := nonNegative(q, "limit")
	if err != nil {
		return nil, err
	}
	withStats, err := boolParam(q, "stats", false)
	if err != nil {
		return nil, err
	}
	all, err := h.svc.All(ctx)
	if err != nil {
		return nil, err
	}
	def, err := h.svc.DefaultID(ctx)
	if err != nil {
		return nil, err
	}
	p := auth.FromContext(ctx)
	out := listing{IndexSets: []Summary{}, Stats: map[string]IndexSetStats{}}
	visible := all[:0]
	for _, is := range all {
		if p.Permits("indexsets:read:" + is.ID) {
			visible = append(visible, is)
		}
	}
	out.Total = len(visible)
	page := visible
	// As Graylog: limit 0 lists everything, and then skip does not apply.
	if limit > 0 {
		start := min(skip, len(visible))
		page = visible[start : start+min(limit, len(visible)-start)]
	}
	for _, is := range page {
		out.IndexSets = append(out.IndexSets, Summarize(is, is.ID == def))
	}
	if withStats {
		// Graylog gives the stats of every index set here; loggate keeps
		// to those the caller may read.
		for _, is := range visible {
			if out.Stats[is.ID], err = h.svc.statsOf(ctx, is.ID); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// nonNegative reads an optional whole-number parameter, 0 when absent.
func nonNegative(q url.Values, name string) (int, error) {
	v := q.Get(name)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, api.Errorf(api.Invalid, "Invalid %s %q; it must be a whole number of at least 0", name, v)
	}
	return n, nil
}

// boolParam reads an optional true/false parameter. Java's Boolean.valueOf
// would take any other word for false; loggate says so instead.
func boolParam(q url.Values, name string, def bool) (bool, error) {
	switch v := q.Get(name); {
	case v == "":
		return def, nil
	case strings.EqualFold(v, "true"):
		return true, nil
	case strings.EqualFold(v, "false"):
		return false, nil
	default:
		return false, api.Errorf(api.Invalid, "Invalid %s %q; use true or false", name, v)
	}
}

// load returns the index set of the path, or a 404 in the words Graylog uses
// on that endpoint (format has one %s, the id).
func (h *Handler) load(r *http.Request, format string) (IndexSet, error) {
	id := api.Var(r, "id")
	is, err := h.svc.Get(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		return IndexSet{}, api.Errorf(api.NotFound, format, id)
	}
	return is, err
}

// summary answers an index set, marked default when it is.
func (h *Handler) summary(w http.ResponseWriter, r *http.Request, is IndexSet) error {
	def, err := h.svc.DefaultID(r.Context())
	if err != nil {
		return err
	}
	api.WriteJSON(w, http.StatusOK, Summarize(is, is.ID == def))
	return nil
}

func (h *Handler) get(w http.ResponseWriter, r *http.Request) error {
	is, err := h.load(r, "Couldn't load index set with ID <%s>")
	if err != nil {
		return err
	}
	return h.summary(w, r, is)
}

// create answers 200, not 201, with the saved index set, as Graylog does.
func (h *Handler) create(w http.ResponseWriter, r *http.Request) error {
	var req CreateRequest
	if err := api.Decode(r, &req, true); err != nil {
		return err
	}
	is, err := req.IndexSet(h.svc.now())
	if err != nil {
		return err
	}
	if is, err = h.svc.Create(r.Context(), is); err != nil {
		return err
	}
	return h.summary(w, r, is)
}

func (h *Handler) update(w http.ResponseWriter, r *http.Request) error {
	var req UpdateRequest
	if err := api.Decode(r, &req, false); err != nil {
		return err
	}
	old, err := h.load(r, "Index set <%s> not found")
	if err != nil {
		return err
	}
	is, err := req.Apply(old)
	if err != nil {
		return err
	}
	if is, err = h.svc.Update(r.Context(), is); errors.Is(err, store.ErrNotFound) {
		return api.Errorf(api.NotFound, "Index set <%s> not found", api.Var(r, "id"))
	} else if err != nil {
		return err
	}
	return h.summary(w, r, is)
}

func (h *Handler) setDefault(w http.ResponseWriter, r *http.Request) error {
	id := api.Var(r, "id")
	is, err := h.svc.SetDefault(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		return api.Errorf(api.NotFound, "Index set <%s> does not exist", id)
	}
	if err != nil {
		return err
	}
	return h.summary(w, r, is)
}

// delete removes the index set and, unless delete_indices is false, its
// indices with their messages.
func (h *Handler) delete(w http.ResponseWriter, r *http.Request) error {
	id := api.Var(r, "id")
	indices, err := boolParam(r.URL.Query(), "delete_indices", true)
	if err != nil {
		return err
	}
	err = h.svc.Delete(r.Context(), id, indices)
	if errors.Is(err, store.ErrNotFound) {
		return api.Errorf(api.NotFound, "Index set <%s> not found.", id)
	}
	if err != nil {
		return err
	}
	api.NoContent(w)
	return nil
}

func (h *Handler) totalStats(r *http.Request) (any, error) {
	st, err := h.svc.TotalStats(r.Context())
	if err != nil {
		return nil, err
	}
	return st, nil
}

func (h *Handler) stats(r *http.Request) (any, error) {
	id := api.Var(r, "id")
	st, err := h.svc.Stats(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, api.Errorf(api.NotFound, "Couldn't load index set with ID <%s>", id)
	}
	if err != nil {
		return nil, err
	}
	return st, nil
}

// strategiesOf answers Graylog's RotationStrategies/RetentionStrategies.
func strategiesOf[C any](known map[string]strategy[C]) api.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		list := descriptions(known)
		api.WriteJSON(w, http.StatusOK, map[string]any{"total": len(list), "strategies": list})
		return nil
	}
}

// strategyOf answers one strategy's description, named by its class.
func strategyOf[C any](kind string, known map[string]strategy[C]) api.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		name := api.Var(r, "strategy")
		s, ok := known[name]
		if !ok {
			return api.Errorf(api.NotFound, "Couldn't find %s strategy for given type %s", kind, name)
		}
		api.WriteJSON(w, http.StatusOK, s.describe())
		return nil
	}
}
