package search

import (
	"net/http"
	"strings"

	"github.com/loggate/loggate/backend/analysis/decorators"
	"github.com/loggate/loggate/router/api"
)

// Handler serves the search endpoints.
type Handler struct {
	svc        *Service
	decorators *decorators.Service
	parser     Parser
}

// NewHandler returns the handler of svc.
func NewHandler(svc *Service) *Handler { return &Handler{svc: svc} }

// storeless builds the decorators of message lists for a handler without
// WithDecorators: it reads no store.
var storeless = decorators.NewService(nil)

// WithDecorators makes the handler decorate its answers with the
// decorators d stores and builds: the universal searches with the stored
// ones (unless decorate=false), the views' message lists with those they
// name. Without it, the universal searches are not decorated, and message
// lists only by the types that need neither lookup tables nor pipelines.
func (h *Handler) WithDecorators(d *decorators.Service) *Handler {
	h.decorators = d
	return h
}

var universalQuery = []string{"query", "limit", "offset", "filter", "fields", "sort", "decorate"}

// Routes returns the search routes.
func (h *Handler) Routes() []api.Route {
	var routes []api.Route
	ranges := map[string][]string{"relative": {"range"}, "absolute": {"from", "to"}, "keyword": {"keyword"}}
	for _, kind := range []string{"relative", "absolute", "keyword"} {
		q := append(append([]string{}, universalQuery...), ranges[kind]...)
		// No route Permission: searches:<kind> is needed only without a
		// stream filter, and a filter needs streams:read on each of its
		// streams instead (parseUniversal checks both), so that a user who
		// may read one stream can search it, as in Graylog.
		routes = append(routes,
			api.Route{Method: "GET", Path: "/search/universal/" + kind, Summary: "Message search with " + kind + " timerange",
				Query: q, Handler: h.universalHandler(kind)},
			api.Route{Method: "GET", Path: "/search/universal/" + kind + "/export", Summary: "Export message search with " + kind + " timerange as CSV",
				Query: append(q, "batch_size"), Handler: h.exportHandler(kind, true)},
		)
	}
	routes = append(routes,
		// Before /messages/{index}/{messageId}, which would take "analyze"
		// for a message id.
		api.Route{Method: "GET", Path: "/messages/{index}/analyze", Summary: "Analyze a message string: the tokens the message field of the index is cut into (loggate: the standard analyzer)",
			Permission: "messages:analyze", Query: []string{"string", "analyzer"}, Handler: api.JSON(h.analyze)},
		api.Route{Method: "POST", Path: "/messages/parse", Summary: "Parse a raw message with a codec (loggate has GELF only)",
			Body: parseExample, Handler: api.JSON(h.parse)},
		api.Route{Method: "GET", Path: "/messages/{index}/{messageId}", Summary: "Get a single message",
			Permission: "messages:read:{messageId}", Handler: h.message},
		api.Route{Method: "POST", Path: "/views/search/sync", Summary: "Execute a new synchronous search",
			Query: []string{"timeout"}, Body: syncExample, Handler: h.sync},
		api.Route{Method: "POST", Path: "/views/search/messages", Summary: "Export a message table as CSV",
			Body: exportExample, Handler: h.exportMessages},
		// Permission as the relative search: searches:relative, or
		// streams:read on each stream of the filter (checked in tail).
		api.Route{Method: "GET", Path: "/search/tail", Summary: "Live tail (loggate): the messages received after the cursor `after` (a gl2_message_id; without it the newest of the last hour), oldest first, at most `limit` (100, up to 500), with the cursor to pass next; `query` and `filter` as in the relative search, and its permissions: searches:relative, or streams:read on each stream of the filter",
			Query: tailQuery, Handler: h.tail},
		// Graylog's web interface previews and validates a keyword time
		// range with it; any authenticated user may ask.
		api.Route{Method: "GET", Path: "/tools/natural_date_tester", Summary: "Test natural date parser: the range a keyword stands for",
			Query: []string{"string"}, Handler: api.JSON(h.naturalDate)},
	)
	return routes
}

// naturalDate answers a keyword's range as Graylog's NaturalDateParser
// does: from and to in UTC as "yyyy-MM-dd HH:mm:ss"; 422 for a keyword
// that is no range, 400 without one.
func (h *Handler) naturalDate(r *http.Request) (any, error) {
	kw := r.URL.Query().Get("string")
	if strings.TrimSpace(kw) == "" {
		return nil, api.Errorf(api.Invalid, "Missing required parameter `string`")
	}
	tr, err := keyword(h.svc.opts.Now().UTC(), kw)
	if err != nil {
		return nil, api.Errorf(api.Unprocessable, "Could not parse from natural date: %v", err)
	}
	const layout = "2006-01-02 15:04:05"
	return map[string]string{"from": tr.From.UTC().Format(layout), "to": tr.To.UTC().Format(layout)}, nil
}

// messageResponse is Graylog's ResultMessageSummary for a single message:
// the message as a bean (id, fields, timestamp, streams, …).
type messageResponse struct {
	Message         messageBean    `json:"message"`
	Index           string         `json:"index"`
	HighlightRanges map[string]any `json:"highlight_ranges"`
	DecorationStats any            `json:"decoration_stats"`
}

type messageBean struct {
	ID         string         `json:"id"`
	Fields     map[string]any `json:"fields"`
	Timestamp  string         `json:"timestamp"`
	Streams    []string       `json:"streams"`
	StreamIDs  []string       `json:"stream_ids"`
	Source     any            `json:"source"`
	Message    any            `json:"message"`
	FieldCount int            `json:"field_count"`
	FieldNames []string       `json:"field_names"`
}

func (h *Handler) message(w http.ResponseWriter, r *http.Request) error {
	hit, err := h.svc.Message(r.Context(), api.Var(r, "index"), api.Var(r, "messageId"))
	if err != nil {
		return err
	}
	api.WriteJSON(w, http.StatusOK, messageResponse{
		Message: bean(hit.Message),
		Index:   hit.Index,
	})
	return nil
}
