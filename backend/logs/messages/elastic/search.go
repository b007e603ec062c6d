package elastic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/elastic/go-elasticsearch/v8/esapi"
	"github.com/tidwall/gjson"

	"github.com/loggate/loggate/backend/analysis/search/query"
	"github.com/loggate/loggate/backend/logs/messages"
)

// Search runs q over the indices of q.Prefixes, or of every index set
// when there are none: those with a deflector alias.
func (s *Store) Search(ctx context.Context, q messages.Query) (messages.Result, error) {
	if err := checkWindow(q); err != nil {
		return messages.Result{}, err
	}
	prefixes, indices, err := s.scope(ctx, q.Prefixes)
	if err != nil || len(prefixes) == 0 {
		return messages.Result{Hits: []messages.Hit{}}, err
	}
	body, err := searchBody(s.srv, q)
	if err != nil {
		return messages.Result{}, fmt.Errorf("search: %w", err)
	}
	status, resp, err := s.do(ctx, searchRequest(prefixes, body))
	if err != nil {
		return messages.Result{}, fmt.Errorf("search: %w", err)
	}
	if status != http.StatusOK {
		return messages.Result{}, s.fail("search", status, resp)
	}
	res, err := parseSearch(resp)
	if err != nil {
		return messages.Result{}, fmt.Errorf("search: %w", err)
	}
	res.Hits = s.logicalHits(res.Hits)
	res.Indices = s.logicalIndices(indices)
	return res, nil
}

// scope returns the physical prefixes a search of the logical ones (all
// when empty) reads, none when there is no index set, and their indices.
func (s *Store) scope(ctx context.Context, logical []string) ([]string, []messages.Index, error) {
	for _, p := range logical {
		if !validName(p) {
			return nil, nil, fmt.Errorf("search: invalid index prefix %q", p)
		}
	}
	prefixes := s.physAll(logical)
	if len(prefixes) == 0 {
		var err error
		if prefixes, err = s.allPrefixes(ctx); err != nil {
			return nil, nil, fmt.Errorf("search: %w", err)
		}
	}
	if len(prefixes) == 0 {
		return nil, nil, nil
	}
	indices, err := s.indices(ctx, prefixes)
	if err != nil {
		return nil, nil, fmt.Errorf("search: %w", err)
	}
	// A search pattern leaves closed indices out; so does the answer.
	indices = slices.DeleteFunc(indices, func(ix messages.Index) bool { return ix.Closed })
	return prefixes, indices, nil
}

// checkWindow refuses a page beyond the result window before asking the
// server, which would refuse it with a less helpful error.
func checkWindow(q messages.Query) error {
	window := q.Window
	if window <= 0 {
		window = messages.DefaultResultWindow
	}
	if q.Offset < 0 || q.Limit < 0 {
		return fmt.Errorf("search: negative offset %d or limit %d", q.Offset, q.Limit)
	}
	if q.Offset+q.Limit > window {
		return fmt.Errorf("search: offset %d + limit %d > %d: %w", q.Offset, q.Limit, window, messages.ErrResultWindow)
	}
	return nil
}

// searchRequest searches the indices of the series of prefixes. Indices
// closed or deleted meanwhile are skipped, and no index at all is an empty
// result, not an error.
func searchRequest(prefixes []string, body []byte) esapi.SearchRequest {
	yes := true
	return esapi.SearchRequest{
		Index:             []string{pathName(patterns(prefixes))},
		Body:              jsonBody(body),
		IgnoreUnavailable: &yes,
		AllowNoIndices:    &yes,
	}
}

// patterns is the index list of a search: <prefix>_* for each prefix.
func patterns(prefixes []string) string {
	var b strings.Builder
	for i, p := range prefixes {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(p)
		b.WriteString("_*")
	}
	return b.String()
}

// searchBody is the request Graylog 4.0 sends for a search: query_string
// with the query as written (printed back from the tree, so canonical),
// filtered by time range and streams, sorted with a tiebreak on the id.
//
// allow_leading_wildcard is true because the query was parsed already:
// query.Parse refuses leading wildcards unless Graylog's
// allow_leading_wildcard_searches permitted them, so any left were
// allowed. Fields of a term without one are index.query.default_field,
// "*" unless the operator changed it, as Graylog leaves it.
func searchBody(srv server, q messages.Query) ([]byte, error) {
	return json.Marshal(searchRequestBody(srv, q))
}

// searchRequestBody is searchBody before encoding, for a scan to add
// search_after to.
func searchRequestBody(srv server, q messages.Query) map[string]any {
	var must any = map[string]any{"match_all": map[string]any{}}
	switch n := q.Query.(type) {
	case nil, *query.MatchAll:
	default:
		must = map[string]any{"query_string": map[string]any{
			"query":                  query.ToString(n),
			"allow_leading_wildcard": true,
		}}
	}
	filter := []any{}
	if !q.From.IsZero() || !q.To.IsZero() {
		r := map[string]any{}
		if !q.From.IsZero() {
			r["gte"] = q.From.UTC().Format(timeLayout)
		}
		if !q.To.IsZero() {
			r["lte"] = q.To.UTC().Format(timeLayout)
		}
		filter = append(filter, map[string]any{"range": map[string]any{messages.FieldTimestamp: r}})
	}
	if len(q.Streams) > 0 {
		filter = append(filter, map[string]any{"terms": map[string]any{messages.FieldStreams: q.Streams}})
	}
	order := "desc"
	if q.Sort.Asc {
		order = "asc"
	}
	field := q.Sort.Field
	if field == "" || field == messages.FieldTimestamp {
		field = messages.FieldTimestamp
	}
	primary := map[string]any{"order": order}
	if field != messages.FieldTimestamp {
		// A field no index of the search has mapped sorts as missing
		// instead of failing the search.
		primary["unmapped_type"] = "keyword"
	}
	// Ties are broken by the id copy, and for documents without it (an
	// index Graylog 4.0 wrote) by gl2_message_id, Graylog's own tiebreak:
	// without one, a scan's search_after would skip every hit equal to
	// the last of a page.
	tiebreak := func(f string) map[string]any {
		return map[string]any{f: map[string]any{"order": order, "unmapped_type": "keyword"}}
	}
	var sort []any
	switch field {
	case messages.FieldID:
		sort = []any{tiebreak(idField), tiebreak(messages.FieldMessageID)}
	case messages.FieldMessageID:
		sort = []any{tiebreak(messages.FieldMessageID), tiebreak(idField)}
	default:
		sort = []any{map[string]any{field: primary}, tiebreak(idField), tiebreak(messages.FieldMessageID)}
	}
	body := map[string]any{
		"query": map[string]any{"bool": map[string]any{"must": must, "filter": filter}},
		"from":  q.Offset,
		"size":  q.Limit,
		"sort":  sort,
	}
	if !srv.typed() {
		// Since 7.0 totals above 10,000 are only a lower bound otherwise;
		// 6.8 always counts.
		body["track_total_hits"] = true
	}
	return body
}

// errBadResponse wraps answers that are not what the API documents.
var errBadResponse = errors.New("unexpected answer from Elasticsearch")

// parseSearch reads the total and the hits of a search answer. hits.total
// is a number before 7.0 and {"value","relation"} since.
func parseSearch(body []byte) (messages.Result, error) {
	if !gjson.ValidBytes(body) {
		return messages.Result{}, fmt.Errorf("%w: search answer is not JSON", errBadResponse)
	}
	r := gjson.ParseBytes(body)
	hits := r.Get("hits")
	if !hits.IsObject() {
		return messages.Result{}, fmt.Errorf("%w: search answer without hits", errBadResponse)
	}
	total := hits.Get("total")
	if total.IsObject() {
		total = total.Get("value")
	}
	if total.Type != gjson.Number {
		return messages.Result{}, fmt.Errorf("%w: search answer without hits.total", errBadResponse)
	}
	list := hits.Get("hits")
	res := messages.Result{Total: total.Int(), Hits: []messages.Hit{}}
	var err error
	list.ForEach(func(_, h gjson.Result) bool {
		var hit messages.Hit
		if hit, err = parseHit(h); err != nil {
			return false
		}
		res.Hits = append(res.Hits, hit)
		return true
	})
	return res, err
}

// parseHit reads one hit, or the answer of GET /<index>/_doc/<id>, which
// has the same _index, _id and _source.
func parseHit(h gjson.Result) (messages.Hit, error) {
	index, id, src := h.Get("_index"), h.Get("_id"), h.Get("_source")
	if index.Type != gjson.String || id.Type != gjson.String || !src.IsObject() {
		return messages.Hit{}, fmt.Errorf("%w: hit without _index, _id or _source: %s", errBadResponse, truncate(h.Raw))
	}
	return messages.Hit{Index: index.Str, Message: parseSource(id.Str, src)}, nil
}
