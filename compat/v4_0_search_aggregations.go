package compat

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/router/api"
)

// aggregationEndpoints are the 3.x aggregations of the universal search,
// removed in 4.0 (Graylog2/graylog2-server#8329).
var aggregationEndpoints = []string{"histogram", "fieldhistogram", "terms", "termsstats", "terms-histogram", "stats"}

// SearchAggregations is 4.0's removal of the universal search's
// aggregations, /search/universal/{relative,absolute,keyword}/{histogram,
// fieldhistogram,terms,termsstats,terms-histogram,stats}, which old
// dashboards and scripts call. Each is converted into a synchronous views
// search (POST /views/search/sync) with one pivot search type, and the pivot
// result back into the 3.x response. The paths do not exist in 4.0, so they
// are recognised on every release.
//
// The caller's 3.x permissions are checked here, unless upstream is set:
// then no one is authenticated here, and the upstream Graylog judges the
// search it is sent.
func SearchAggregations(upstream bool) *Change {
	var routes []Route
	for _, kind := range []string{"relative", "absolute", "keyword"} {
		for _, agg := range aggregationEndpoints {
			routes = append(routes, R("GET /search/universal/"+kind+"/"+agg))
		}
	}
	return &Change{
		Release: MustRelease("4.0"),
		Removed: true,
		Description: "The universal search's aggregations `GET /search/universal/{relative,absolute,keyword}/{histogram,fieldhistogram,terms,termsstats,terms-histogram,stats}` are removed; " +
			"they are still answered in their 3.x shapes, from pivot searches of `POST /views/search/sync` within the caller's streams.",
		Routes:    routes,
		Recognise: func(context.Context, *http.Request, Vars) bool { return true },
		Request: func(ctx context.Context, x *Exchange) error {
			return aggregationRequest(ctx, x, upstream)
		},
		Response: aggregationResponse,
	}
}

// oldAggregation is a 3.x aggregation request, kept in the exchange's
// state for converting the answer.
type oldAggregation struct {
	Kind     string   `json:"kind"`
	Endpoint string   `json:"endpoint"`
	Query    string   `json:"query"`
	Streams  []string `json:"streams,omitempty"`
	Field    string   `json:"field,omitempty"`
	Stacked  []string `json:"stacked,omitempty"`
	Value    string   `json:"value,omitempty"`
	Interval string   `json:"interval,omitempty"`
	Size     int      `json:"size,omitempty"`
	Card     bool     `json:"cardinality,omitempty"`
	// Asc orders the terms of stacked fields least frequent first.
	Asc bool `json:"asc,omitempty"`
}

// defaultTermsSize is the number of terms 3.x answered without a size.
const defaultTermsSize = 50

// stackSeparator joins the values of stacked fields into one term.
const stackSeparator = " - "

func aggregationRequest(ctx context.Context, x *Exchange, upstream bool) error {
	path := x.Route.Template.String()
	rest := strings.TrimPrefix(path, "/search/universal/")
	kind, endpoint, _ := strings.Cut(rest, "/")
	q := x.Req.URL.Query()
	a := oldAggregation{Kind: kind, Endpoint: endpoint, Query: q.Get("query")}
	if strings.TrimSpace(a.Query) == "" {
		return api.Errorf(api.Invalid, "Missing required parameter `query`")
	}
	st, err := a.searchType(q)
	if err != nil {
		return err
	}
	tr, err := oldTimerange(kind, q)
	if err != nil {
		return err
	}
	if a.Streams, err = checkFilter(ctx, kind, q.Get("filter"), !upstream); err != nil {
		return err
	}
	query := map[string]any{
		"id": "q", "query": map[string]string{"type": "elasticsearch", "query_string": a.Query},
		"timerange": tr, "search_types": []any{st},
	}
	if a.Streams != nil {
		var fs []any
		for _, id := range a.Streams {
			fs = append(fs, map[string]string{"type": "stream", "id": id})
		}
		query["filter"] = map[string]any{"type": "or", "filters": fs}
	}
	body, err := api.Marshal(map[string]any{"queries": []any{query}})
	if err != nil {
		return err
	}
	state, err := api.Marshal(a)
	if err != nil {
		return err
	}
	x.State["aggregation"] = string(state)
	if err := setPath(x.Req, x.prefix+"/views/search/sync"); err != nil {
		return err
	}
	x.Req.Method = http.MethodPost
	x.Req.URL.RawQuery = ""
	x.SetHeader("Content-Type", "application/json")
	// The caller sent a GET; the POST it became is the server's own.
	x.SetHeader("X-Requested-By", "loggate-compat")
	x.SetBody(body)
	return nil
}

// oldTimerange reads the time range parameters of a 3.x search as a views
// API time range; the backend validates the values.
func oldTimerange(kind string, q url.Values) (map[string]any, error) {
	switch kind {
	case "relative":
		// 3.x's range is an int query parameter: absent is 0, all time.
		n := 0
		if s := strings.TrimSpace(q.Get("range")); s != "" {
			var err error
			if n, err = strconv.Atoi(s); err != nil || n < 0 {
				return nil, api.Errorf(api.Invalid, "Invalid timerange parameters provided: range must be a number of seconds, 0 or more")
			}
		}
		return map[string]any{"type": "relative", "range": n}, nil
	case "absolute":
		return map[string]any{"type": "absolute", "from": q.Get("from"), "to": q.Get("to")}, nil
	}
	return map[string]any{"type": "keyword", "keyword": q.Get("keyword")}, nil
}

// checkFilter reads a 3.x stream filter and, when check is set, applies
// 3.x's permissions: without a stream filter the caller needs
// searches:<kind>, with one streams:read on every stream.
func checkFilter(ctx context.Context, kind, filter string, check bool) ([]string, error) {
	filter = strings.TrimSpace(filter)
	switch {
	case filter == "" || filter == "*":
		if !check {
			return nil, nil
		}
		return nil, auth.Require(ctx, "searches:"+kind)
	case strings.HasPrefix(filter, "streams:"):
		ids := []string{}
		for _, id := range strings.Split(strings.TrimPrefix(filter, "streams:"), ",") {
			if id = strings.TrimSpace(id); id == "" {
				continue
			}
			if p := auth.FromContext(ctx); check && (p == nil || !p.Permits("streams:read:"+id)) {
				if p == nil {
					return nil, auth.Require(ctx, "streams:read:"+id)
				}
				return nil, api.Errorf(api.Forbidden, "Not allowed to search with filter: [streams:%s]. (Forbidden stream: %s)", id, id)
			}
			ids = append(ids, id)
		}
		return ids, nil
	}
	return nil, api.Errorf(api.Forbidden, "Not allowed to search with filter: [%s]", filter)
}

func required(q url.Values, name string) (string, error) {
	v := strings.TrimSpace(q.Get(name))
	if v == "" {
		return "", api.Errorf(api.Invalid, "Missing required parameter `%s`", name)
	}
	return v, nil
}

// aggregationParams says which parameters each 3.x aggregation endpoint
// reads: an interval, the field (under its name), a value field, the terms
// size, and stacked fields.
var aggregationParams = map[string]struct {
	interval       bool
	field, value   string
	terms, stacked bool
}{
	"histogram":       {interval: true},
	"fieldhistogram":  {interval: true, field: "field"},
	"terms-histogram": {interval: true, field: "field", terms: true, stacked: true},
	"stats":           {field: "field"},
	"terms":           {field: "field", terms: true, stacked: true},
	"termsstats":      {field: "key_field", value: "value_field", terms: true},
}

// searchType builds the pivot that computes the aggregation, reading and
// checking the endpoint's parameters.
func (a *oldAggregation) searchType(q url.Values) (map[string]any, error) {
	p := aggregationParams[a.Endpoint]
	var err error
	if p.interval {
		name, err := required(q, "interval")
		if err != nil {
			return nil, err
		}
		if _, _, err := oldInterval(name); err != nil {
			return nil, api.Errorf(api.Invalid, "Invalid interval type")
		}
		a.Interval = strings.ToLower(name)
	}
	if p.field != "" {
		if a.Field, err = required(q, p.field); err != nil {
			return nil, err
		}
	}
	if p.value != "" {
		if a.Value, err = required(q, p.value); err != nil {
			return nil, err
		}
	}
	if p.terms {
		a.Size = defaultTermsSize
		if s := strings.TrimSpace(q.Get("size")); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil || n < 0 {
				return nil, api.Errorf(api.Invalid, "Invalid size %q: must be a number, 0 or more", s)
			}
			if n > 0 {
				a.Size = n
			}
		}
	}
	if p.stacked {
		for _, f := range strings.Split(q.Get("stacked_fields"), ",") {
			if f = strings.TrimSpace(f); f != "" {
				a.Stacked = append(a.Stacked, f)
			}
		}
	}
	a.Card, _ = strconv.ParseBool(q.Get("cardinality"))

	st := map[string]any{"id": "agg", "type": "pivot", "column_groups": []any{}, "rollup": true}
	var rows, series, sort []any
	count := func(field string) any {
		return map[string]string{"type": "count", "id": "count(" + field + ")", "field": field}
	}
	stat := func(typ, field string) any {
		return map[string]string{"type": typ, "id": typ + "(" + field + ")", "field": field}
	}
	values := func(field string) any { return map[string]any{"type": "values", "field": field, "limit": a.Size} }
	if a.Interval != "" {
		unit, _, _ := oldInterval(a.Interval)
		rows = append(rows, map[string]any{"type": "time", "field": "timestamp", "interval": map[string]string{"type": "timeunit", "timeunit": unit}})
	}
	switch a.Endpoint {
	case "histogram":
		series = []any{count("")}
		st["rollup"] = false
	case "fieldhistogram":
		series = []any{count(""), count(a.Field), stat("min", a.Field), stat("max", a.Field), stat("sum", a.Field), stat("avg", a.Field)}
		if a.Card {
			series = append(series, stat("card", a.Field))
		}
		st["rollup"] = false
	case "stats":
		series = []any{count(a.Field)}
		for _, typ := range []string{"sum", "sumofsquares", "avg", "min", "max", "variance", "stddev", "card"} {
			series = append(series, stat(typ, a.Field))
		}
	case "terms", "terms-histogram":
		rows = append(rows, values(a.Field))
		for _, f := range a.Stacked {
			rows = append(rows, values(f))
		}
		series = []any{count(""), count(a.Field)}
		if by, desc := termsOrder(q.Get("order")); by == "term" {
			sort = append(sort, pivotSort("pivot", a.Field, desc))
		} else if !desc {
			a.Asc = true
			sort = append(sort, pivotSort("series", "count()", false))
		}
	case "termsstats":
		rows = append(rows, values(a.Field))
		series = []any{count(""), count(a.Value), stat("min", a.Value), stat("max", a.Value), stat("sum", a.Value), stat("avg", a.Value)}
		by, desc, err := termsStatsOrder(q.Get("order"))
		if err != nil {
			return nil, err
		}
		switch by {
		case "term":
			sort = append(sort, pivotSort("pivot", a.Field, desc))
		case "count":
			sort = append(sort, pivotSort("series", "count()", desc))
		default:
			sort = append(sort, pivotSort("series", statSeries[by]+"("+a.Value+")", desc))
		}
		st["rollup"] = false
	}
	st["row_groups"], st["series"], st["sort"] = append([]any{}, rows...), series, append([]any{}, sort...)
	return st, nil
}

func pivotSort(typ, field string, desc bool) any {
	dir := "Ascending"
	if desc {
		dir = "Descending"
	}
	return map[string]string{"type": typ, "field": field, "direction": dir}
}

// oldIntervals map 3.x's histogram intervals (Searches.DateHistogramInterval)
// to the views API's timeunits; quarters and years, which it lacks, are
// made of months.
var oldIntervals = map[string]string{"minute": "1m", "hour": "1h", "day": "1d", "week": "1w", "month": "1M", "quarter": "1M", "year": "1M"}

// oldInterval returns the timeunit of a 3.x interval name (any case) and
// the months it merges (0: none).
func oldInterval(name string) (timeunit string, months int, err error) {
	name = strings.ToLower(strings.TrimSpace(name))
	unit, ok := oldIntervals[name]
	if !ok {
		return "", 0, fmt.Errorf("invalid interval %q: use year, quarter, month, week, day, hour or minute", name)
	}
	switch name {
	case "quarter":
		months = 3
	case "year":
		months = 12
	}
	return unit, months, nil
}

// termsOrder reads the terms endpoints' order, "field:asc" or
// "field:desc" (3.x's Sorting, of which only the direction applied to the
// counts; "term:…" orders by the terms). Anything else is the default,
// the most frequent first.
func termsOrder(s string) (by string, desc bool) {
	field, dir, ok := strings.Cut(strings.TrimSpace(s), ":")
	if !ok {
		field, dir = "", field
	}
	desc = !strings.EqualFold(dir, "asc")
	if strings.EqualFold(field, "term") || strings.EqualFold(field, "key") {
		return "term", desc
	}
	return "count", desc
}

// statSeries are the series termsstats orders by.
var statSeries = map[string]string{"total": "sum", "min": "min", "max": "max", "mean": "avg"}

// termsStatsOrder reads termsstats's order (3.x's TermsStatsOrder): TERM,
// COUNT, TOTAL, MIN, MAX or MEAN, ascending, or their REVERSE_ forms,
// descending, in any case; "count:desc" is read too.
func termsStatsOrder(s string) (by string, desc bool, err error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return "", false, api.Errorf(api.Invalid, "Missing required parameter `order`")
	}
	if field, dir, ok := strings.Cut(s, ":"); ok {
		by, desc = field, dir == "desc"
		if dir != "asc" && dir != "desc" {
			by = ""
		}
	} else {
		by, desc = strings.CutPrefix(s, "reverse_")
	}
	if _, ok := statSeries[by]; !ok && by != "term" && by != "count" {
		return "", false, api.Errorf(api.Invalid, "Invalid order %q: use term, count, total, min, max or mean, or their reverse_ forms", s)
	}
	return by, desc, nil
}

// pivot is the part of a views search answer the old shapes are made of.
type pivot struct {
	rows  []gjson.Result
	total int64
	took  int64
	from  string
	to    string
	read  []row // rows, read once (see all)
}

// row is one pivot row: its keys, source and values by series.
type row struct {
	key    []string
	leaf   bool
	values map[string]gjson.Result
}

// all returns the rows, read from the answer the first time only: a
// terms histogram goes over them once per time bucket.
func (p *pivot) all() []row {
	if p.read != nil || len(p.rows) == 0 {
		return p.read
	}
	p.read = make([]row, 0, len(p.rows))
	for _, r := range p.rows {
		out := row{leaf: r.Get("source").String() == "leaf", values: map[string]gjson.Result{}}
		for _, k := range r.Get("key").Array() {
			out.key = append(out.key, k.String())
		}
		for _, v := range r.Get("values").Array() {
			keys := v.Get("key").Array()
			if len(keys) > 0 {
				out.values[keys[len(keys)-1].String()] = v.Get("value")
			}
		}
		p.read = append(p.read, out)
	}
	return p.read
}

func (p *pivot) each(fn func(r row)) {
	for _, r := range p.all() {
		fn(r)
	}
}

func aggregationResponse(_ context.Context, x *Exchange, body []byte) ([]byte, error) {
	var a oldAggregation
	if err := json.Unmarshal([]byte(x.State["aggregation"]), &a); err != nil {
		return nil, fmt.Errorf("compat: aggregation state: %w", err)
	}
	res := gjson.GetBytes(body, "results.q")
	st := res.Get("search_types.agg")
	p := &pivot{rows: st.Get("rows").Array(), total: st.Get("total").Int(), took: res.Get("execution_stats.duration").Int(),
		from: st.Get("effective_timerange.from").String(), to: st.Get("effective_timerange.to").String()}
	built := a.builtQuery(p)
	var o object
	switch a.Endpoint {
	case "histogram", "fieldhistogram":
		o.add("interval", a.Interval)
		o.raw("results", a.histogram(p))
		o.add("time", p.took)
		o.add("built_query", built)
		o.add("queried_timerange", map[string]string{"from": p.from, "to": p.to})
	case "stats":
		a.stats(&o, p)
		o.add("built_query", built)
	case "terms":
		o.add("time", p.took)
		a.terms(&o, p.all(), nil, p.total, built)
	case "termsstats":
		o.raw("terms", a.termsStats(p))
		o.add("time", p.took)
		o.add("built_query", built)
	case "terms-histogram":
		a.termsHistogram(&o, p, built)
	}
	return o.bytes(), nil
}

// object writes a JSON object with its keys in the order added: the old
// responses' maps came in time or count order.
type object struct{ b bytes.Buffer }

func (o *object) raw(key string, v []byte) {
	if o.b.Len() == 0 {
		o.b.WriteByte('{')
	} else {
		o.b.WriteByte(',')
	}
	k, _ := api.Marshal(key)
	o.b.Write(k)
	o.b.WriteByte(':')
	o.b.Write(v)
}

func (o *object) add(key string, v any) {
	b, err := api.Marshal(v)
	if err != nil {
		b = []byte("null")
	}
	o.raw(key, b)
}

func (o *object) bytes() []byte {
	if o.b.Len() == 0 {
		return []byte("{}")
	}
	return append(o.b.Bytes(), '}')
}

// bucketStart returns a time bucket's start in epoch seconds, merged into
// its quarter or year when months > 0.
func bucketStart(key string, months int) (int64, bool) {
	t, err := time.Parse(time.RFC3339, key)
	if err != nil {
		return 0, false
	}
	t = t.UTC()
	if months > 0 {
		m := (int(t.Month())-1)/months*months + 1
		t = time.Date(t.Year(), time.Month(m), 1, 0, 0, 0, 0, time.UTC)
	}
	return t.Unix(), true
}

// fieldBucket is one bucket of a field histogram, as 3.x wrote it.
type fieldBucket struct {
	TotalCount  int64    `json:"total_count"`
	Count       int64    `json:"count"`
	Min         *float64 `json:"min"`
	Max         *float64 `json:"max"`
	Total       float64  `json:"total"`
	Mean        *float64 `json:"mean"`
	Cardinality int64    `json:"cardinality"`
}

func number(v gjson.Result) *float64 {
	if v.Type != gjson.Number {
		return nil
	}
	f := v.Float()
	return &f
}

// merge adds a month's bucket to its quarter's or year's. Cardinalities
// cannot be added: the merged one is the largest month's, a lower bound.
func (b *fieldBucket) merge(o fieldBucket) {
	b.TotalCount += o.TotalCount
	b.Count += o.Count
	b.Total += o.Total
	b.Cardinality = max(b.Cardinality, o.Cardinality)
	if o.Min != nil && (b.Min == nil || *o.Min < *b.Min) {
		b.Min = o.Min
	}
	if o.Max != nil && (b.Max == nil || *o.Max > *b.Max) {
		b.Max = o.Max
	}
	b.Mean = nil
	if b.Count > 0 {
		m := b.Total / float64(b.Count)
		b.Mean = &m
	}
}

// histogram writes results: {"<epoch seconds>": count} for histogram, the
// field's statistics per bucket for fieldhistogram.
func (a *oldAggregation) histogram(p *pivot) []byte {
	_, months, _ := oldInterval(a.Interval)
	var keys []int64
	counts := map[int64]int64{}
	stats := map[int64]*fieldBucket{}
	p.each(func(r row) {
		if !r.leaf || len(r.key) != 1 {
			return
		}
		at, ok := bucketStart(r.key[0], months)
		if !ok {
			return
		}
		if _, seen := counts[at]; !seen {
			keys = append(keys, at)
			stats[at] = &fieldBucket{}
		}
		counts[at] += r.values["count()"].Int()
		f := a.Field
		stats[at].merge(fieldBucket{TotalCount: r.values["count()"].Int(), Count: r.values["count("+f+")"].Int(),
			Min: number(r.values["min("+f+")"]), Max: number(r.values["max("+f+")"]), Total: r.values["sum("+f+")"].Float(),
			Cardinality: r.values["card("+f+")"].Int()})
	})
	var o object
	for _, k := range keys {
		if a.Endpoint == "histogram" {
			o.add(strconv.FormatInt(k, 10), counts[k])
		} else {
			o.add(strconv.FormatInt(k, 10), stats[k])
		}
	}
	return o.bytes()
}

// stats writes 3.x's FieldStatsResult.
func (a *oldAggregation) stats(o *object, p *pivot) {
	var v map[string]gjson.Result
	p.each(func(r row) {
		if len(r.key) == 0 {
			v = r.values
		}
	})
	f := a.Field
	o.add("time", p.took)
	o.add("count", v["count("+f+")"].Int())
	o.add("sum", v["sum("+f+")"].Float())
	o.add("sum_of_squares", number(v["sumofsquares("+f+")"]))
	o.add("mean", number(v["avg("+f+")"]))
	o.add("min", number(v["min("+f+")"]))
	o.add("max", number(v["max("+f+")"]))
	o.add("variance", number(v["variance("+f+")"]))
	o.add("std_deviation", number(v["stddev("+f+")"]))
	o.add("cardinality", v["card("+f+")"].Int())
}

// term is one term and its count.
type term struct {
	key   string
	count int64
}

// terms writes 3.x's TermsResult from the rows under prefix (the rows of
// one time bucket for terms-histogram): the terms, and missing, other and
// total from the total row of the prefix.
func (a *oldAggregation) terms(o *object, rows []row, prefix []string, total int64, built string) []term {
	var list []term
	var withField, first int64
	depth := len(prefix) + 1 + len(a.Stacked)
	for _, r := range rows {
		if len(r.key) < len(prefix) || !slices.Equal(r.key[:len(prefix)], prefix) {
			continue
		}
		switch {
		case len(r.key) == len(prefix):
			// The total row of the prefix (rollup).
			total = r.values["count()"].Int()
			withField = r.values["count("+a.Field+")"].Int()
		case len(r.key) == depth && r.leaf:
			list = append(list, term{strings.Join(r.key[len(prefix):], stackSeparator), r.values["count()"].Int()})
		}
		if len(r.key) == len(prefix)+1 {
			first += r.values["count()"].Int()
		}
	}
	if len(a.Stacked) > 0 {
		// Nested values are the top combinations of the top values; their
		// order and size are the terms'.
		list = a.top(list)
	}
	var terms object
	for _, t := range list {
		terms.add(t.key, t.count)
	}
	o.raw("terms", terms.bytes())
	o.add("missing", max(0, total-withField))
	o.add("other", max(0, withField-first))
	o.add("total", total)
	o.add("built_query", built)
	return list
}

// top orders terms by count and keeps the first Size.
func (a *oldAggregation) top(list []term) []term {
	slices.SortStableFunc(list, func(x, y term) int {
		if a.Asc {
			return cmp.Compare(x.count, y.count)
		}
		return cmp.Compare(y.count, x.count)
	})
	return list[:min(len(list), a.Size)]
}

// termsStats writes 3.x's TermsStatsResult terms, in the pivot's order.
func (a *oldAggregation) termsStats(p *pivot) []byte {
	type item struct {
		KeyField   string   `json:"key_field"`
		Count      int64    `json:"count"`
		Min        *float64 `json:"min"`
		Max        *float64 `json:"max"`
		Total      float64  `json:"total"`
		TotalCount int64    `json:"total_count"`
		Mean       *float64 `json:"mean"`
	}
	items := []item{}
	v := a.Value
	p.each(func(r row) {
		if r.leaf && len(r.key) == 1 {
			items = append(items, item{KeyField: r.key[0], Count: r.values["count("+v+")"].Int(), Min: number(r.values["min("+v+")"]),
				Max: number(r.values["max("+v+")"]), Total: r.values["sum("+v+")"].Float(), TotalCount: r.values["count()"].Int(),
				Mean: number(r.values["avg("+v+")"])})
		}
	})
	b, _ := api.Marshal(items)
	return b
}

// termsHistogram writes 3.x's TermsHistogramResult: per time bucket a
// TermsResult, and every term seen.
func (a *oldAggregation) termsHistogram(o *object, p *pivot, built string) {
	_, months, _ := oldInterval(a.Interval)
	var buckets object
	seen := map[string]bool{}
	all := []string{}
	// The rows of each time bucket, found once: terms goes over a
	// bucket's rows only, not over every row once per bucket.
	var starts []string
	rowsOf := map[string][]row{}
	started := map[string]bool{}
	for _, r := range p.all() {
		if len(r.key) == 0 {
			continue
		}
		if len(r.key) == 1 && !started[r.key[0]] {
			started[r.key[0]] = true
			starts = append(starts, r.key[0])
		}
		rowsOf[r.key[0]] = append(rowsOf[r.key[0]], r)
	}
	type merged struct {
		at     int64
		counts map[string]int64
		order  []string
		total  int64
		with   int64
	}
	var ms []*merged
	for _, start := range starts {
		at, ok := bucketStart(start, months)
		if !ok {
			continue
		}
		if len(ms) == 0 || ms[len(ms)-1].at != at {
			ms = append(ms, &merged{at: at, counts: map[string]int64{}})
		}
		m := ms[len(ms)-1]
		var one object
		list := a.terms(&one, rowsOf[start], []string{start}, 0, built)
		for _, t := range list {
			if _, ok := m.counts[t.key]; !ok {
				m.order = append(m.order, t.key)
			}
			m.counts[t.key] += t.count
		}
		r := gjson.ParseBytes(one.bytes())
		m.total += r.Get("total").Int()
		m.with += r.Get("total").Int() - r.Get("missing").Int()
	}
	for _, m := range ms {
		list := make([]term, 0, len(m.order))
		for _, k := range m.order {
			list = append(list, term{k, m.counts[k]})
		}
		if months > 0 {
			list = a.top(list)
		}
		var terms, tr object
		var listed int64
		for _, t := range list {
			terms.add(t.key, t.count)
			listed += t.count
			if !seen[t.key] {
				seen[t.key] = true
				all = append(all, t.key)
			}
		}
		tr.add("time", p.took)
		tr.raw("terms", terms.bytes())
		tr.add("missing", max(0, m.total-m.with))
		tr.add("other", max(0, m.with-listed))
		tr.add("total", m.total)
		tr.add("built_query", built)
		buckets.raw(strconv.FormatInt(m.at, 10), tr.bytes())
	}
	slices.Sort(all)
	o.add("time", p.took)
	o.add("interval", a.Interval)
	o.add("size", a.Size)
	o.raw("buckets", buckets.bytes())
	o.add("terms", all)
	o.add("built_query", built)
	o.add("queried_timerange", map[string]string{"from": p.from, "to": p.to})
}

// builtQuery renders the Elasticsearch request 3.x would have sent, which
// clients show for debugging.
func (a *oldAggregation) builtQuery(p *pivot) string {
	esTime := func(s string) string {
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			return s
		}
		return t.UTC().Format("2006-01-02 15:04:05.000")
	}
	filter := []any{map[string]any{"range": map[string]any{"timestamp": map[string]any{
		"from": esTime(p.from), "to": esTime(p.to), "include_lower": true, "include_upper": true}}}}
	if a.Streams != nil {
		filter = append(filter, map[string]any{"terms": map[string]any{"streams": a.Streams}})
	}
	b, _ := api.Marshal(map[string]any{"size": 0, "query": map[string]any{"bool": map[string]any{
		"must":   map[string]any{"query_string": map[string]any{"query": a.Query, "allow_leading_wildcard": false}},
		"filter": filter,
	}}})
	return string(b)
}
