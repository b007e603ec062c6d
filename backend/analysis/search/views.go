package search

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/backend/analysis/decorators"
	"github.com/loggate/loggate/backend/analysis/search/query"
	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/router/api"
	"go.mongodb.org/mongo-driver/bson/primitive"
)

const syncExample = `{"queries":[{"id":"q1","query":{"type":"elasticsearch","query_string":"source:web-1"},` +
	`"timerange":{"type":"relative","range":300},"search_types":[{"id":"m1","type":"messages","limit":150,"offset":0},` +
	`{"id":"p1","type":"pivot","row_groups":[{"type":"time","field":"timestamp","interval":{"type":"auto","scaling":1.0}}],` +
	`"column_groups":[],"series":[{"type":"count","id":"count()"},{"type":"avg","id":"avg(took)","field":"took"}],"sort":[],"rollup":true}]}]}`

const exportExample = `{"query_string":{"type":"elasticsearch","query_string":"*"},"timerange":{"type":"relative","range":300},` +
	`"streams":[],"fields_in_order":["timestamp","source","message"]}`

// viewQueryString is the views API's ElasticsearchQueryString.
type viewQueryString struct {
	Type        string `json:"type"`
	QueryString string `json:"query_string"`
}

// RangeSpec is a time range as clients write it (the views API's and
// legacy widgets' TimeRange), by its type: relative (range in seconds),
// absolute (from, to) or keyword.
type RangeSpec struct {
	Type    string          `json:"type"`
	Range   json.RawMessage `json:"range,omitempty"`
	From    string          `json:"from,omitempty"`
	To      string          `json:"to,omitempty"`
	Keyword string          `json:"keyword,omitempty"`
}

// Resolve returns the range at now; a nil spec is the last five minutes,
// Graylog's default.
func (t *RangeSpec) Resolve(now time.Time) (TimeRange, error) {
	if t == nil {
		return relative(now, "300")
	}
	switch t.Type {
	case "relative":
		return relative(now, strings.Trim(string(t.Range), `"`))
	case "absolute":
		return absolute(t.From, t.To)
	case "keyword":
		return keyword(now, t.Keyword)
	}
	return TimeRange{}, fmt.Errorf("unknown timerange type %q", t.Type)
}

// viewFilter is the views API's filter tree; loggate reads the stream
// filters in it (type "stream", under an "or").
type viewFilter struct {
	Type    string       `json:"type"`
	ID      string       `json:"id"`
	Query   string       `json:"query"` // of a query_string filter
	Filters []viewFilter `json:"filters"`
}

// query is what a filter says beyond its streams, as a query to AND with
// the search's: Graylog turns a filter into Elasticsearch clauses, so an
// "and" of streams finds the messages in each of them and a query_string
// filter narrows like a query. It is "" for the usual filters, one stream
// or an "or" of streams, which the search's streams (every stream the
// filter names, each checked) say whole.
func (f *viewFilter) query() string {
	if f == nil || !f.narrows() {
		return ""
	}
	return f.clause()
}

// narrows reports whether f holds an "and" of more than one filter or a
// query_string filter.
func (f *viewFilter) narrows() bool {
	switch {
	case f.Type == "query_string" && strings.TrimSpace(f.Query) != "":
		return true
	case f.Type == "and" && len(f.Filters) > 1:
		return true
	}
	for i := range f.Filters {
		if f.Filters[i].narrows() {
			return true
		}
	}
	return false
}

// clause is f as a query clause; "" for a filter that does not narrow.
func (f *viewFilter) clause() string {
	switch f.Type {
	case "stream":
		if f.ID == "" {
			return ""
		}
		return query.ToString(&query.Term{Field: messages.FieldStreams, Value: f.ID})
	case "query_string":
		if strings.TrimSpace(f.Query) == "" {
			return ""
		}
		return "(" + f.Query + ")"
	}
	op := " OR "
	if f.Type == "and" {
		op = " AND "
	}
	var parts []string
	for i := range f.Filters {
		if c := f.Filters[i].clause(); c != "" {
			parts = append(parts, c)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "(" + strings.Join(parts, op) + ")"
}

// narrowed is qs ANDed with the filter's query, if any.
func narrowed(qs string, f *viewFilter) string {
	fq := f.query()
	switch {
	case fq == "":
		return qs
	case strings.TrimSpace(qs) == "":
		return fq
	}
	return "(" + qs + ") AND " + fq
}

func (f *viewFilter) streams() []string {
	if f == nil {
		return nil
	}
	if f.Type == "stream" && f.ID != "" {
		return []string{f.ID}
	}
	out := []string{}
	for i := range f.Filters {
		out = append(out, f.Filters[i].streams()...)
	}
	return out
}

// viewSort is a sort of the messages search type ({"field","order"}) or
// of a pivot ({"type":"series"|"pivot","field","direction"}).
type viewSort struct {
	Type      string `json:"type,omitempty"`
	Field     string `json:"field"`
	Order     string `json:"order,omitempty"`
	Direction string `json:"direction,omitempty"`
}

func toSort(s []viewSort) messages.Sort {
	if len(s) == 0 {
		return messages.Sort{}
	}
	return messages.Sort{Field: sortField(s[0].Field), Asc: strings.EqualFold(s[0].Order, "asc")}
}

type searchType struct {
	ID     string     `json:"id"`
	Type   string     `json:"type"`
	Limit  int        `json:"limit"`
	Offset int        `json:"offset"`
	Sort   []viewSort `json:"sort"`
	// A search type may narrow its query's range, query and streams.
	TimeRange *RangeSpec       `json:"timerange"`
	Query     *viewQueryString `json:"query"`
	Streams   []string         `json:"streams"`
	// Decorators decorate a message list's messages (MessageList's
	// decorators).
	Decorators []decorators.Decorator `json:"decorators,omitempty"`
	pivotSpec
}

type viewQuery struct {
	ID          string           `json:"id"`
	Query       *viewQueryString `json:"query"`
	TimeRange   *RangeSpec       `json:"timerange"`
	Filter      *viewFilter      `json:"filter"`
	SearchTypes []searchType     `json:"search_types"`
}

type syncRequest struct {
	ID      string      `json:"id"`
	Queries []viewQuery `json:"queries"`
}

// missingStreams is Graylog's MissingStreamPermission error body (403).
type missingStreams struct {
	Type    string   `json:"type"`
	Message string   `json:"message"`
	Streams []string `json:"streams"`
}

// checkStreams refuses stream ids the caller cannot read, in Graylog's
// MissingStreamPermission shape.
func checkStreams(ctx context.Context, ids []string) error {
	p := auth.FromContext(ctx)
	var missing []string
	for _, id := range ids {
		if p == nil || !p.Permits("streams:read:"+id) {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		msg := "Missing stream permissions: " + strings.Join(missing, ", ")
		return &api.Error{Code: api.Forbidden, Message: msg,
			Body: missingStreams{Type: "MissingStreamPermission", Message: msg, Streams: missing}}
	}
	return nil
}

func (h *Handler) sync(w http.ResponseWriter, r *http.Request) error {
	var req syncRequest
	if err := api.Decode(r, &req, false); err != nil {
		return err
	}
	if len(req.Queries) == 0 {
		return api.Errorf(api.Invalid, "Search must contain at least one query")
	}
	w, ctx, done, err := h.admitWriting(WithRequestSize(r.Context()), w)
	if err != nil {
		return err
	}
	defer done()
	now := h.svc.opts.Now().UTC().Truncate(time.Millisecond)
	results := map[string]any{}
	for _, q := range req.Queries {
		res, err := h.runQuery(ctx, q, now)
		if err != nil {
			return err
		}
		results[q.ID] = res
	}
	id := req.ID
	if id == "" {
		id = primitive.NewObjectID().Hex()
	}
	owner := ""
	if p := auth.FromContext(r.Context()); p != nil {
		owner = p.Username
	}
	api.WriteJSON(w, http.StatusOK, map[string]any{
		"id": uuid.NewString(), "search_id": id, "owner": owner,
		"execution": map[string]any{"done": true, "cancelled": false, "completed_exceptionally": false},
		"results":   results,
	})
	return nil
}

func (h *Handler) runQuery(ctx context.Context, q viewQuery, now time.Time) (map[string]any, error) {
	started := time.Now()
	rng, err := q.TimeRange.Resolve(now)
	if err != nil {
		return nil, api.Errorf(api.Invalid, "Invalid timerange: %v", err)
	}
	streams := q.Filter.streams()
	if err := checkStreams(ctx, streams); err != nil {
		return nil, err
	}
	qs := ""
	if q.Query != nil {
		qs = q.Query.QueryString
	}
	qs = narrowed(qs, q.Filter)
	types := map[string]any{}
	var size requestSize
	for _, st := range q.SearchTypes {
		if st.Type != "messages" && st.Type != "pivot" {
			return nil, api.Errorf(api.Invalid, "Unsupported search type %q: loggate answers the messages and pivot search types", st.Type)
		}
		listed := 0
		if st.Type == "messages" {
			listed = st.Limit
			if listed <= 0 {
				listed = DefaultLimit
			}
		}
		if err := countSearchType(ctx, &size, listed); err != nil {
			return nil, err
		}
		req := Request{Query: qs, Range: rng, Streams: streams, Sort: toSort(st.Sort), Offset: st.Offset, Limit: st.Limit}
		if st.TimeRange != nil {
			if req.Range, err = st.TimeRange.Resolve(now); err != nil {
				return nil, api.Errorf(api.Invalid, "Invalid timerange: %v", err)
			}
		}
		if st.Query != nil && strings.TrimSpace(st.Query.QueryString) != "" {
			req.Query = "(" + qs + ") AND (" + st.Query.QueryString + ")"
			if strings.TrimSpace(qs) == "" {
				req.Query = st.Query.QueryString
			}
		}
		if len(st.Streams) > 0 {
			if err := checkStreams(ctx, st.Streams); err != nil {
				return nil, err
			}
			req.Streams = st.Streams
		}
		if st.Type == "pivot" {
			res, err := h.runPivot(ctx, st, req)
			if err != nil {
				return nil, err
			}
			types[st.ID] = res
			continue
		}
		if req.Limit <= 0 {
			req.Limit = DefaultLimit
		}
		var chain *decorators.Chain
		if len(st.Decorators) > 0 {
			builder := h.decorators
			if builder == nil {
				builder = storeless
			}
			if chain, err = builder.Build(ctx, st.Decorators); err != nil {
				return nil, err
			}
		}
		resp, err := h.svc.Search(ctx, req)
		if err != nil {
			return nil, err
		}
		msgs := make([]ResultMessage, 0, len(resp.Result.Hits))
		for _, hit := range resp.Result.Hits {
			for _, d := range chain.Decorate(ctx, hit.Message.Map(), hit.Index) {
				rm := ResultMessage{Message: d.Message, Index: d.Index, HighlightRanges: map[string]any{}}
				if d.Stats != nil {
					rm.DecorationStats = d.Stats
				}
				msgs = append(msgs, rm)
			}
		}
		types[st.ID] = map[string]any{
			"id": st.ID, "type": "messages", "messages": msgs, "total_results": resp.Result.Total,
			"effective_timerange": effective(req.Range),
		}
	}
	return map[string]any{
		"query": q, "search_types": types, "errors": []any{}, "state": "COMPLETED",
		"execution_stats": map[string]any{"duration": time.Since(started).Milliseconds(), "timestamp": api.Time{Time: now},
			"effective_timerange": effective(rng)},
	}, nil
}

func effective(r TimeRange) map[string]any {
	from := r.From
	if from.IsZero() {
		from = time.Unix(0, 0)
	}
	return map[string]any{"type": "absolute", "from": api.Time{Time: from.UTC()}, "to": api.Time{Time: r.To.UTC()}}
}

// exportRequest is the views API's MessagesRequest.
type exportRequest struct {
	QueryString   *viewQueryString `json:"query_string"`
	TimeRange     *RangeSpec       `json:"timerange"`
	Streams       []string         `json:"streams"`
	FieldsInOrder []string         `json:"fields_in_order"`
	Sort          []viewSort       `json:"sort"`
	Limit         *int             `json:"limit"`
	ChunkSize     *int             `json:"chunk_size"`
}

// exportMessages serves POST /views/search/messages: the message table as
// CSV, all pages, within the caller's streams.
func (h *Handler) exportMessages(w http.ResponseWriter, r *http.Request) error {
	var req exportRequest
	if err := api.Decode(r, &req, false); err != nil {
		return err
	}
	if len(req.FieldsInOrder) == 0 {
		req.FieldsInOrder = []string{messages.FieldTimestamp, messages.FieldSource, messages.FieldMessage}
	}
	rng, err := req.TimeRange.Resolve(h.svc.opts.Now().UTC().Truncate(time.Millisecond))
	if err != nil {
		return api.Errorf(api.Invalid, "Invalid timerange: %v", err)
	}
	if err := checkStreams(r.Context(), req.Streams); err != nil {
		return err
	}
	sr := Request{Range: rng, Sort: toSort(req.Sort)}
	if req.QueryString != nil {
		sr.Query = req.QueryString.QueryString
	}
	if len(req.Streams) > 0 {
		sr.Streams = req.Streams
	}
	limit := 0
	if req.Limit != nil {
		if *req.Limit <= 0 {
			return api.Errorf(api.Invalid, "limit must be greater than 0")
		}
		limit = *req.Limit
	}
	// chunk_size is checked and otherwise ignored: the store pages a scan
	// by itself.
	if req.ChunkSize != nil && *req.ChunkSize > MaxBatchSize {
		return api.RangeError("chunk_size", strconv.Itoa(*req.ChunkSize), 1, MaxBatchSize)
	}
	return h.exportCSV(w, r, sr, limit, req.FieldsInOrder, "")
}

// RunQuery runs one query of a views search (Graylog's Query as JSON: an
// element of the queries the sync endpoint takes, or of a stored search)
// for the caller in ctx, with relative ranges ending at now. It answers the
// query's result as the sync endpoint and a search job show it; the search
// jobs of the views package execute through it.
func (h *Handler) RunQuery(ctx context.Context, query json.RawMessage, now time.Time) (map[string]any, error) {
	var q viewQuery
	if err := api.DecodeBytes(query, &q, false); err != nil {
		return nil, err
	}
	// A place among the concurrent searches, as every other search
	// takes (unless ctx holds one already).
	ctx, release, err := h.svc.gate.admit(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	return h.runQuery(ctx, q, now)
}

// Now returns the time relative ranges of a search end at.
func (h *Handler) Now() time.Time { return h.svc.Now() }

// CheckStreams refuses stream ids the caller in ctx cannot read, with the
// MissingStreamPermission body (403); storing a search that names such a
// stream is refused as executing it is.
func CheckStreams(ctx context.Context, ids []string) error { return checkStreams(ctx, ids) }

// resultFormat is the views API's ResultFormat: the body of an export of a
// stored search, or of one of its message lists.
type resultFormat struct {
	FieldsInOrder []string   `json:"fields_in_order"`
	Sort          []viewSort `json:"sort"`
	Limit         *int       `json:"limit"`
	TimeRange     *RangeSpec `json:"timerange"`
	// ExecutionState is applied to the search by its caller.
	ExecutionState json.RawMessage `json:"execution_state"`
}

// ExportQuery serves the CSV export of a query of a stored search (POST
// /views/search/messages/{searchId}) or, when searchTypeID is not "", of
// one of its message lists (…/{searchId}/{searchTypeId}), as Graylog's
// CommandFactory builds them: the query's range, query string and streams,
// narrowed by the message list's, with the fields, sort, limit and range
// of body, the ResultFormat (empty: the defaults). The caller has checked
// that the user may read the search and applied its execution state; the
// streams are checked here, as every search checks them.
func (h *Handler) ExportQuery(w http.ResponseWriter, r *http.Request, query json.RawMessage, searchTypeID string, body []byte) error {
	var q viewQuery
	if err := api.DecodeBytes(query, &q, false); err != nil {
		return err
	}
	var format resultFormat
	if len(strings.TrimSpace(string(body))) > 0 {
		if err := api.DecodeBytes(body, &format, false); err != nil {
			return err
		}
	}
	now := h.svc.opts.Now().UTC().Truncate(time.Millisecond)
	rng, err := q.TimeRange.Resolve(now)
	if err != nil {
		return api.Errorf(api.Invalid, "Invalid timerange: %v", err)
	}
	sr := Request{Range: rng, Streams: q.Filter.streams(), Sort: toSort(format.Sort)}
	if q.Query != nil {
		sr.Query = q.Query.QueryString
	}
	sr.Query = narrowed(sr.Query, q.Filter)
	if searchTypeID != "" {
		var st *searchType
		for i := range q.SearchTypes {
			if q.SearchTypes[i].ID == searchTypeID {
				st = &q.SearchTypes[i]
				break
			}
		}
		if st == nil {
			return api.Errorf(api.NotFound, "Search type %s does not exist in query %s", searchTypeID, q.ID)
		}
		if st.Type != "messages" {
			return api.Errorf(api.Invalid, "export is not supported for search type %s: only message lists are exported", st.Type)
		}
		if st.TimeRange != nil {
			if sr.Range, err = st.TimeRange.Resolve(now); err != nil {
				return api.Errorf(api.Invalid, "Invalid timerange: %v", err)
			}
		}
		if st.Query != nil && strings.TrimSpace(st.Query.QueryString) != "" {
			if strings.TrimSpace(sr.Query) == "" {
				sr.Query = st.Query.QueryString
			} else {
				sr.Query = "(" + sr.Query + ") AND (" + st.Query.QueryString + ")"
			}
		}
		if len(st.Streams) > 0 {
			sr.Streams = st.Streams
		}
		if len(format.Sort) == 0 {
			sr.Sort = toSort(st.Sort)
		}
	}
	if format.TimeRange != nil {
		if sr.Range, err = format.TimeRange.Resolve(now); err != nil {
			return api.Errorf(api.Invalid, "Invalid timerange: %v", err)
		}
	}
	if err := checkStreams(r.Context(), sr.Streams); err != nil {
		return err
	}
	if len(sr.Streams) == 0 {
		// No stream filter: every stream the caller may read.
		sr.Streams = nil
	}
	if len(format.FieldsInOrder) == 0 {
		format.FieldsInOrder = []string{messages.FieldTimestamp, messages.FieldSource, messages.FieldMessage}
	}
	limit := 0
	if format.Limit != nil {
		if *format.Limit <= 0 {
			return api.Errorf(api.Invalid, "limit must be greater than 0")
		}
		limit = *format.Limit
	}
	return h.exportCSV(w, r, sr, limit, format.FieldsInOrder, "")
}
