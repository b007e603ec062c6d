package search

import (
	"bufio"
	"encoding/json"
	"math"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/backend/analysis/decorators"
	"github.com/loggate/loggate/backend/analysis/search/query"
	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/router/api"
)

// DefaultLimit is the page size of a universal search without a limit
// (SearchesConfig.DEFAULT_LIMIT).
const DefaultLimit = 150

// universal is the parsed form of a /search/universal/* request.
type universal struct {
	req      Request
	fields   []string // requested fields, timestamp first; nil for all
	rawQuery string
	// decorate is the decorate parameter (default true); stream is the
	// stream whose decorators apply, "" for the global ones.
	decorate bool
	stream   string
}

// kind is relative, absolute or keyword: the path segment, and the
// searches:<kind> permission a search without a stream filter needs.
func (h *Handler) parseUniversal(r *http.Request, kind string) (universal, error) {
	q := r.URL.Query()
	var u universal
	u.rawQuery = q.Get("query")
	if strings.TrimSpace(u.rawQuery) == "" {
		return u, api.Errorf(api.Invalid, "Missing required parameter `query`")
	}
	u.req.Query = u.rawQuery
	var err error
	now := h.svc.opts.Now().UTC().Truncate(time.Millisecond)
	switch kind {
	case "relative":
		u.req.Range, err = relative(now, relativeRange(q))
	case "absolute":
		u.req.Range, err = absolute(q.Get("from"), q.Get("to"))
	case "keyword":
		u.req.Range, err = keyword(now, q.Get("keyword"))
	}
	if err != nil {
		return u, api.Errorf(api.Invalid, "Invalid timerange parameters provided: %v", err)
	}
	// Java ints in Graylog; a negative or zero limit is the default.
	if u.req.Limit, err = api.IntParam(q, "limit", 0, math.MinInt32, api.MaxInt32); err != nil {
		return u, err
	}
	if u.req.Limit <= 0 {
		u.req.Limit = DefaultLimit
	}
	if u.req.Offset, err = api.IntParam(q, "offset", 0, 0, api.MaxInt32); err != nil {
		return u, err
	}
	u.req.Sort = parseSort(q.Get("sort"))
	if f := strings.TrimSpace(q.Get("fields")); f != "" {
		u.fields = []string{messages.FieldTimestamp}
		for _, name := range strings.Split(f, ",") {
			if name = strings.TrimSpace(name); name != "" && !slices.Contains(u.fields, name) {
				u.fields = append(u.fields, name)
			}
		}
	}
	if u.req.Streams, err = streamFilter(r, kind, q.Get("filter")); err != nil {
		return u, err
	}
	// A boolean query parameter, as JAX-RS reads it: absent is the
	// default, true; anything but "true" (any case) is false.
	u.decorate = true
	if v, ok := q["decorate"]; ok && len(v) > 0 {
		u.decorate = strings.EqualFold(strings.TrimSpace(v[0]), "true")
	}
	u.stream = filterStream(q.Get("filter"))
	return u, nil
}

// filterStream is Graylog's Searches.extractStreamId: the hex digits after
// the filter's "streams:" (the first stream's id), "" for none.
func filterStream(filter string) string {
	i := strings.Index(filter, "streams:")
	if i < 0 {
		return ""
	}
	if i > 0 {
		// ^(.+[^\p{Alnum}])?streams: ... the character before must not
		// be a letter or digit.
		c := filter[i-1]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			return ""
		}
	}
	rest := filter[i+len("streams:"):]
	n := 0
	for n < len(rest) && strings.IndexByte("0123456789abcdefABCDEF", rest[n]) >= 0 {
		n++
	}
	return rest[:n]
}

// relativeRange is the range parameter of a relative search: Graylog's
// range is a Java int query parameter, so absent (or empty) it is 0, all
// time.
func relativeRange(q url.Values) string {
	if s := strings.TrimSpace(q.Get("range")); s != "" {
		return s
	}
	return "0"
}

// streamFilter checks the caller may search with filter (Graylog's
// checkSearchPermission) and returns its streams: nil without a filter,
// which needs searches:<kind>; a streams: filter needs streams:read on each
// of its streams and no searches:<kind>.
func streamFilter(r *http.Request, kind, filter string) ([]string, error) {
	filter = strings.TrimSpace(filter)
	switch {
	case filter == "" || filter == "*":
		return nil, auth.Require(r.Context(), "searches:"+kind)
	case strings.HasPrefix(filter, "streams:"):
		ids := []string{}
		for _, id := range strings.Split(strings.TrimPrefix(filter, "streams:"), ",") {
			if id = strings.TrimSpace(id); id != "" {
				ids = append(ids, id)
			}
		}
		if len(ids) == 0 {
			return nil, api.Errorf(api.Forbidden, "Not allowed to search with filter: [%s]", filter)
		}
		p := auth.FromContext(r.Context())
		for _, id := range ids {
			if p == nil || !p.Permits("streams:read:"+id) {
				return nil, api.Errorf(api.Forbidden, "Not allowed to search with filter: [%s]. (Forbidden stream: %s)", filter, id)
			}
		}
		return ids, nil
	}
	return nil, api.Errorf(api.Forbidden, "Not allowed to search with filter: [%s]", filter)
}

// parseSort reads field:asc|desc; anything else is the default, timestamp
// descending, as Graylog silently falls back.
func parseSort(s string) messages.Sort {
	field, order, ok := strings.Cut(strings.TrimSpace(s), ":")
	if !ok || field == "" {
		return messages.Sort{}
	}
	switch strings.ToLower(order) {
	case "asc":
		return messages.Sort{Field: sortField(field), Asc: true}
	case "desc":
		return messages.Sort{Field: sortField(field)}
	}
	return messages.Sort{}
}

func sortField(f string) string {
	if f == messages.FieldTimestamp {
		return ""
	}
	return f
}

// universalHandler serves GET /search/universal/<kind>: JSON, or CSV when
// the client accepts only text/csv.
func (h *Handler) universalHandler(kind string) api.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if wantsCSV(r) {
			return h.exportHandler(kind, false)(w, r)
		}
		u, err := h.parseUniversal(r, kind)
		if err != nil {
			return err
		}
		return h.writeSearch(w, r, u)
	}
}

// writeSearch answers a universal search as JSON, writing each message
// before it reads the next: a search holds one message at a time, however
// large the page and its messages. The keys come in Graylog's order, the
// field names that need every message last but two.
func (h *Handler) writeSearch(w http.ResponseWriter, r *http.Request, u universal) error {
	w, ctx, done, err := h.admitWriting(r.Context(), w)
	if err != nil {
		return err
	}
	defer done()
	start := time.Now()
	c, node, err := h.svc.Scan(ctx, u.req, 0)
	if err != nil {
		return err
	}
	defer c.Close()
	var chain *decorators.Chain
	if u.decorate && h.decorators != nil {
		if chain, err = h.decorators.ForStream(ctx, u.stream); err != nil {
			return err
		}
	}
	res := c.Result()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	bw := bufio.NewWriter(w)
	defer bw.Flush()
	out := jsonObject{w: bw, enc: json.NewEncoder(bw)}
	out.enc.SetEscapeHTML(false)
	out.key("query", u.rawQuery)
	out.key("built_query", builtQuery(u.req, node))
	out.key("used_indices", usedIndices(res.Indices))
	bw.WriteString(`,"messages":[`)
	names := map[string]bool{}
	for n := 0; ; n++ {
		hit, ok := c.Next()
		if !ok {
			break
		}
		m := hit.Message.Map()
		if u.fields != nil {
			m = only(m, u.fields)
		}
		// Each message is decorated before it is written; decorators
		// change the answer, never the stored message.
		for i, d := range chain.Decorate(ctx, m, hit.Index) {
			for k := range d.Message {
				names[k] = true
			}
			if n > 0 || i > 0 {
				bw.WriteByte(',')
			}
			rm := ResultMessage{Message: d.Message, Index: d.Index}
			if d.Stats != nil {
				rm.DecorationStats = d.Stats
			}
			if err := out.enc.Encode(rm); err != nil {
				return api.AfterStart(err)
			}
		}
	}
	if err := c.Err(); err != nil {
		// The 200 is out: the answer ends short, and the error is logged.
		return api.AfterStart(err)
	}
	bw.WriteByte(']')
	fields := make([]string, 0, len(names))
	for k := range names {
		fields = append(fields, k)
	}
	sort.Strings(fields)
	from := api.Time{Time: u.req.Range.From.UTC()}
	if u.req.Range.From.IsZero() {
		from = api.Time{Time: time.Unix(0, 0).UTC()}
	}
	out.key("fields", fields)
	out.key("time", time.Since(start).Milliseconds())
	out.key("total_results", res.Total)
	out.key("from", from)
	out.key("to", api.Time{Time: u.req.Range.To.UTC()})
	// Graylog's SearchDecorationStats when decorators ran, else null.
	if st := chain.SearchStats(); st != nil {
		out.key("decoration_stats", st)
	} else {
		out.key("decoration_stats", nil)
	}
	bw.WriteByte('}')
	return api.AfterStart(out.err)
}

// jsonObject writes the members of a JSON object one by one.
type jsonObject struct {
	w   *bufio.Writer
	enc *json.Encoder
	n   int
	err error
}

func (o *jsonObject) key(name string, v any) {
	if o.n == 0 {
		o.w.WriteByte('{')
	} else {
		o.w.WriteByte(',')
	}
	o.n++
	o.w.WriteString(strconv.Quote(name) + ":")
	if err := o.enc.Encode(v); err != nil && o.err == nil {
		o.err = err
	}
}

func wantsCSV(r *http.Request) bool {
	accept := r.Header.Get("Accept")
	return strings.Contains(accept, "text/csv") && !strings.Contains(accept, "application/json")
}

type usedIndex struct {
	IndexName    string    `json:"index_name"`
	Begin        api.Time  `json:"begin"`
	End          api.Time  `json:"end"`
	CalculatedAt *api.Time `json:"calculated_at"`
	TookMS       int       `json:"took_ms"`
}

// ResultMessage is one message of a search response (Graylog's
// ResultMessageSummary).
type ResultMessage struct {
	Message         map[string]any `json:"message"`
	Index           string         `json:"index"`
	HighlightRanges map[string]any `json:"highlight_ranges"`
	DecorationStats any            `json:"decoration_stats"`
}

// only keeps the requested fields, and _id, which Graylog puts back from
// the document id whatever the field selection.
func only(m map[string]any, fields []string) map[string]any {
	out := make(map[string]any, len(fields)+1)
	for _, f := range fields {
		if v, ok := m[f]; ok {
			out[f] = v
		}
	}
	out[messages.FieldID] = m[messages.FieldID]
	return out
}

func usedIndices(ix []messages.Index) []usedIndex {
	out := make([]usedIndex, 0, len(ix))
	for _, i := range ix {
		out = append(out, usedIndex{IndexName: i.Name, Begin: api.Time{Time: i.Begin.UTC()}, End: api.Time{Time: i.End.UTC()}})
	}
	return out
}

// builtQuery renders the search as the Elasticsearch request Graylog would
// have sent, which clients show for debugging.
func builtQuery(r Request, n query.Node) string {
	qs := "*"
	if n != nil {
		if _, all := n.(*query.MatchAll); !all {
			qs = query.ToString(n)
		}
	}
	var filter []any
	if !r.Range.From.IsZero() || !r.Range.To.IsZero() {
		rng := map[string]any{"include_lower": true, "include_upper": true}
		if !r.Range.From.IsZero() {
			rng["from"] = r.Range.From.UTC().Format(esTime)
		}
		if !r.Range.To.IsZero() {
			rng["to"] = r.Range.To.UTC().Format(esTime)
		}
		filter = append(filter, map[string]any{"range": map[string]any{"timestamp": rng}})
	}
	if r.Streams != nil {
		filter = append(filter, map[string]any{"terms": map[string]any{"streams": r.Streams}})
	}
	field, order := "timestamp", "desc"
	if r.Sort.Field != "" {
		field = r.Sort.Field
	}
	if r.Sort.Asc {
		order = "asc"
	}
	body := map[string]any{
		"from": r.Offset, "size": r.Limit,
		"query": map[string]any{"bool": map[string]any{
			"must":   map[string]any{"query_string": map[string]any{"query": qs, "allow_leading_wildcard": false}},
			"filter": filter,
		}},
		"sort": []any{map[string]any{field: map[string]any{"order": order}}},
	}
	b, _ := json.Marshal(body)
	return string(b)
}

// esTime is how Graylog writes message timestamps to Elasticsearch.
const esTime = "2006-01-02 15:04:05.000"
