package views

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"

	"github.com/tidwall/gjson"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/backend/analysis/search"
	"github.com/loggate/loggate/backend/logs/streams"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/router/api"
)

// SearchHandler serves the searches of views (/views/search and its
// metadata, execution and job status), the field types (/views/fields)
// and the aggregation functions (/views/functions).
type SearchHandler struct {
	searches *Searches
	exec     Executor
	jobs     *Jobs
	fields   *Fields
}

// NewSearchHandler returns the search resources.
func NewSearchHandler(searches *Searches, exec Executor, jobs *Jobs, fields *Fields) *SearchHandler {
	return &SearchHandler{searches: searches, exec: exec, jobs: jobs, fields: fields}
}

const searchExample = `{"id":"5f1a2b3c4d5e6f7a8b9c0d1f","queries":[{"id":"q1","query":{"type":"elasticsearch","query_string":"source:web-1"},` +
	`"timerange":{"type":"relative","range":300},"filter":null,"search_types":[` +
	`{"id":"chart","type":"pivot","row_groups":[{"type":"time","field":"timestamp","interval":{"type":"auto","scaling":1.0}}],` +
	`"column_groups":[],"series":[{"type":"count","id":"count()"}],"sort":[],"rollup":true},` +
	`{"id":"messages","type":"messages","limit":150,"offset":0,"sort":[{"field":"timestamp","order":"DESC"}]}]}],"parameters":[]}`

const executeExample = `{"parameter_bindings":{},"global_override":{"timerange":{"type":"relative","range":3600},` +
	`"query":{"type":"elasticsearch","query_string":"level:3"},"keep_search_types":["messages"],` +
	`"search_types":{"messages":{"limit":150,"offset":150}}}}`

// Routes returns the routes. They precede the views' own, whose /views/{id}
// would otherwise take /views/fields and /views/functions for view ids.
func (h *SearchHandler) Routes() []api.Route {
	return []api.Route{
		{Method: "POST", Path: "/views/search", Summary: "Create a search query", Body: searchExample, Handler: h.create},
		{Method: "POST", Path: "/views/search/metadata", Summary: "Metadata for the given Search object", Body: searchExample, Handler: api.JSON(h.metadata)},
		{Method: "GET", Path: "/views/search/metadata/{searchId}", Summary: "Metadata for the given Search", Handler: api.JSON(h.storedMetadata)},
		{Method: "GET", Path: "/views/search/status/{jobId}", Summary: "Retrieve the status of an executed query", Handler: h.status},
		{Method: "POST", Path: "/views/search/messages/{searchId}", Summary: "Export the messages of a search as CSV",
			Body: exportExample, Handler: h.exportSearch},
		{Method: "POST", Path: "/views/search/messages/{searchId}/{searchTypeId}", Summary: "Export the messages of a message list of a search as CSV",
			Body: exportExample, Handler: h.exportSearch},
		{Method: "POST", Path: "/views/search/{id}/execute", Summary: "Execute the referenced search query", Body: executeExample, Handler: h.execute},
		// Only ObjectIds, so that GET of /views/search/sync and the other
		// POST-only paths answers 405 as Jersey does, not "no such search".
		{Method: "GET", Path: "/views/search/{id:[0-9a-fA-F]{24}}", Summary: "Retrieve a search query", Handler: api.JSON(h.get)},
		{Method: "GET", Path: "/views/fields", Summary: "Retrieve the field list of all streams the user may read", Handler: h.allFields},
		{Method: "POST", Path: "/views/fields", Summary: "Retrieve the field list of the given streams", Body: `{"streams":["000000000000000000000001"]}`, Handler: h.streamFields},
		{Method: "GET", Path: "/views/functions", Summary: "Get the available aggregation functions", Handler: api.JSON(h.functions)},
		// The stream rule form's field names (the 4.0 interface's
		// TypeAheadFieldInput).
		{Method: "GET", Path: "/system/fields", Summary: "Get list of message fields that exist", Permission: "fieldnames:read",
			Query: []string{"limit"}, Handler: api.JSON(h.fieldNames)},
	}
}

// standardFields are listed first by /system/fields, whatever its limit
// (Graylog's Message.RESERVED_FIELDS that messages carry).
var standardFields = []string{"_id", "message", "source", "timestamp", "streams", "full_message"}

// fieldNames is Graylog's SystemFieldsResource: the names of the fields of
// every message index set, whatever streams the caller may read (as
// Graylog's, under fieldnames:read alone), the standard ones first; limit
// (0 or less for all) cuts the rest.
func (h *SearchHandler) fieldNames(r *http.Request) (any, error) {
	limit, err := api.IntParam(r.URL.Query(), "limit", 0, math.MinInt32, api.MaxInt32)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, st := range h.fields.streams.All() {
		if st.ID != streams.EventsStreamID && st.ID != streams.SystemEventsStreamID {
			ids = append(ids, st.ID)
		}
	}
	types, err := h.fields.Types(r.Context(), ids)
	if err != nil {
		return nil, err
	}
	names := slices.Clone(standardFields)
	for _, t := range types {
		if limit > 0 && len(names) >= limit+len(standardFields) {
			break
		}
		if !slices.Contains(names, t.Name) {
			names = append(names, t.Name)
		}
	}
	return map[string]any{"fields": names}, nil
}

func (h *SearchHandler) create(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	s, err := readSearch(r)
	if err != nil {
		return err
	}
	p := auth.FromContext(ctx)
	if p == nil {
		return auth.Unauthenticated()
	}
	prev, err := h.searches.Get(ctx, s.ID)
	switch {
	case err == nil && !isAdmin(p) && prev.owner() != p.Username:
		return api.Errorf(api.Forbidden, "Unable to update search with id <%s>, already exists and user is not permitted to overwrite it.", s.ID)
	case err != nil && !errors.Is(err, store.ErrNotFound):
		return err
	}
	if err := search.CheckStreams(ctx, searchStreams(s)); err != nil {
		return err
	}
	saved, err := h.searches.Save(ctx, s, p.Username)
	if err != nil {
		return err
	}
	w.Header().Set("Location", api.Location(r, "/views/search/"+saved.ID))
	api.WriteJSON(w, http.StatusCreated, saved)
	return nil
}

func (h *SearchHandler) get(r *http.Request) (any, error) {
	s, err := h.searches.load(r.Context(), api.Var(r, "id"))
	if err != nil {
		return nil, err
	}
	return s, nil
}

func (h *SearchHandler) metadata(r *http.Request) (any, error) {
	s, err := readSearch(r)
	if err != nil {
		return nil, err
	}
	return metadataOf(s), nil
}

func (h *SearchHandler) storedMetadata(r *http.Request) (any, error) {
	s, err := h.searches.load(r.Context(), api.Var(r, "searchId"))
	if err != nil {
		return nil, err
	}
	return metadataOf(s), nil
}

func (h *SearchHandler) execute(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	var state executionState
	// The web interface sends an execution state; an empty body is none.
	if body, err := api.ReadBody(r); err != nil {
		return err
	} else if len(body) > 0 {
		if err := api.DecodeBytes(body, &state, false); err != nil {
			return err
		}
	}
	s, err := h.searches.load(ctx, api.Var(r, "id"))
	if err != nil {
		return err
	}
	p := auth.FromContext(ctx)
	job, err := execute(ctx, h.exec, s, state, p.Username)
	if err != nil {
		return err
	}
	enc, err := json.Marshal(job)
	if err != nil {
		return err
	}
	h.jobs.Add(job.ID, job.Owner, enc)
	w.Header().Set("Location", api.Location(r, "/views/search/status/"+job.ID))
	api.WriteRawJSON(w, http.StatusCreated, enc)
	return nil
}

const exportExample = `{"fields_in_order":["timestamp","source","message"],"execution_state":{"parameter_bindings":{}}}`

// exportSearch serves POST /views/search/messages/{searchId} and
// …/{searchId}/{searchTypeId}: the CSV of the search's one query, or of
// the query holding the message list, for a caller who may read the search
// (and, as every search, its streams), with the body's execution state
// applied.
func (h *SearchHandler) exportSearch(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	body, err := api.ReadBody(r)
	if err != nil {
		return err
	}
	var format struct {
		ExecutionState executionState `json:"execution_state"`
	}
	if len(bytes.TrimSpace(body)) > 0 {
		if err := api.DecodeBytes(body, &format, false); err != nil {
			return err
		}
	}
	id, typeID := api.Var(r, "searchId"), api.Var(r, "searchTypeId")
	s, err := h.searches.load(ctx, id)
	if err != nil {
		return err
	}
	var query json.RawMessage
	switch {
	case typeID != "":
		for _, q := range s.Queries {
			for _, st := range gjson.GetBytes(q, "search_types").Array() {
				if st.Get("id").Str == typeID {
					query = q
				}
			}
		}
		if query == nil {
			return api.Errorf(api.NotFound, "Search type %s does not exist in search %s", typeID, id)
		}
	case len(s.Queries) > 1:
		return api.Errorf(api.Invalid, "Can't get messages for search with id %s, because it contains multiple queries", id)
	case len(s.Queries) == 0:
		return api.Errorf(api.Invalid, "Invalid Search object with empty Query")
	default:
		query = s.Queries[0]
	}
	state := format.ExecutionState
	query, err = state.GlobalOverride.apply(query)
	if err == nil {
		query, err = state.Queries[gjson.GetBytes(query, "id").Str].apply(query)
	}
	if err != nil {
		return fmt.Errorf("apply the execution state to search %s: %w", id, err)
	}
	return h.exec.ExportQuery(w, r, query, typeID, body)
}

func (h *SearchHandler) status(w http.ResponseWriter, r *http.Request) error {
	p := auth.FromContext(r.Context())
	if p == nil {
		return auth.Unauthenticated()
	}
	id := api.Var(r, "jobId")
	enc, ok := h.jobs.Get(id, p.Username)
	if !ok {
		return api.Errorf(api.NotFound, "No such search job %s", id)
	}
	api.WriteRawJSON(w, http.StatusOK, enc)
	return nil
}

func (h *SearchHandler) allFields(w http.ResponseWriter, r *http.Request) error {
	p := auth.FromContext(r.Context())
	var ids []string
	for _, st := range h.fields.streams.All() {
		// Graylog's permitted streams leave out the events streams.
		if st.ID != streams.EventsStreamID && st.ID != streams.SystemEventsStreamID && p.Permits("streams:read:"+st.ID) {
			ids = append(ids, st.ID)
		}
	}
	return h.writeFields(w, r, ids)
}

func (h *SearchHandler) streamFields(w http.ResponseWriter, r *http.Request) error {
	var req struct {
		Streams []string `json:"streams"`
	}
	if err := api.Decode(r, &req, false); err != nil {
		return err
	}
	if err := search.CheckStreams(r.Context(), req.Streams); err != nil {
		return err
	}
	return h.writeFields(w, r, req.Streams)
}

func (h *SearchHandler) writeFields(w http.ResponseWriter, r *http.Request, streamIDs []string) error {
	types, err := h.fields.Types(r.Context(), streamIDs)
	if err != nil {
		return err
	}
	api.WriteJSON(w, http.StatusOK, types)
	return nil
}

// function is Graylog's SeriesDescription.
type function struct {
	Type        string `json:"type"`
	Description string `json:"description"`
}

// functions are the aggregation functions of Graylog 4.0's pivots, by
// type, as /views/functions lists them.
var functions = func() map[string]function {
	out := map[string]function{}
	for _, f := range []function{
		{"avg", "Average"}, {"card", "Cardinality"}, {"count", "Count"}, {"latest", "Latest Value"},
		{"max", "Maximum"}, {"min", "Minimum"}, {"percentile", "Percentile"}, {"stddev", "Standard Deviation"},
		{"sum", "Sum"}, {"sumofsquares", "Sum of Squares"}, {"variance", "Variance"},
	} {
		out[f.Type] = f
	}
	return out
}()

func (h *SearchHandler) functions(_ *http.Request) (any, error) {
	return functions, nil
}

// searchStreams returns the streams a search names: those of its queries'
// stream filters and of their search types.
func searchStreams(s ViewSearch) []string {
	var ids []string
	add := func(id string) {
		if id != "" && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	for _, q := range s.Queries {
		walkStreamFilter(gjson.GetBytes(q, "filter"), add)
		for _, st := range gjson.GetBytes(q, "search_types").Array() {
			for _, id := range st.Get("streams").Array() {
				add(id.Str)
			}
		}
	}
	return ids
}

// walkStreamFilter calls add with the stream of every stream filter in a
// query's filter tree ({"type":"or","filters":[{"type":"stream","id":…}]}).
func walkStreamFilter(f gjson.Result, add func(string)) {
	if f.Get("type").Str == "stream" {
		add(f.Get("id").Str)
	}
	for _, sub := range f.Get("filters").Array() {
		walkStreamFilter(sub, add)
	}
}

// UsedStreams returns the streams a search names: those of its queries'
// stream filters and of their search types (Graylog's usedStreamIds).
func UsedStreams(s ViewSearch) []string { return searchStreams(s) }

// CheckStreams refuses, with POST /views/search's 403, a search naming a
// stream the caller in ctx may not read.
func CheckStreams(ctx context.Context, s ViewSearch) error {
	return search.CheckStreams(ctx, searchStreams(s))
}
