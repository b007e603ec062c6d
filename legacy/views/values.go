package views

import (
	"context"
	"encoding/json"
	"strconv"
	"time"

	"github.com/loggate/loggate/backend/analysis/search"
	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/router/api"
)

// SearchValues computes the values of legacy dashboards' widgets by
// running their search, within the caller's streams: counts
// (SEARCH_RESULT_COUNT, STREAM_SEARCH_RESULT_COUNT, STATS_COUNT without a
// field) from the search's total, the others from aggregations: the top
// values of a field (QUICKVALUES), messages over time
// (SEARCH_RESULT_CHART), a field's statistics over time (FIELD_CHART) and
// a field statistic (STATS_COUNT with a field). Other types (stacked and
// quick-value histograms, maps) answer 503 saying so.
type SearchValues struct {
	Search *search.Service
}

// widgetConfig is the part of a legacy widget's configuration a count
// needs.
type widgetConfig struct {
	Query     string            `json:"query"`
	TimeRange *search.RangeSpec `json:"timerange"`
	StreamID  string            `json:"stream_id"`
	Trend     bool              `json:"trend"`
	Field     string            `json:"field"`
	// Interval is a chart's bucket: minute, hour, day, week or month.
	Interval string `json:"interval"`
	// StatsFunction is STATS_COUNT's statistic of Field.
	StatsFunction string `json:"stats_function"`
	// Limit is QUICKVALUES' number of values (5 when absent, as the 2.x
	// web interface asks).
	Limit int `json:"limit"`
}

// request is the search a widget's value runs at now.
func (cfg widgetConfig) request(w Widget, now time.Time) (search.Request, error) {
	rng, err := cfg.TimeRange.Resolve(now)
	if err != nil {
		return search.Request{}, api.Errorf(api.Invalid, "Widget %s has an invalid timerange: %v", w.ID, err)
	}
	req := search.Request{Query: cfg.Query, Range: rng}
	if cfg.StreamID != "" {
		req.Streams = []string{cfg.StreamID}
	}
	return req, nil
}

// countValue is Graylog 2.x's widget value response.
type countValue struct {
	Result       any            `json:"result"`
	TookMS       int64          `json:"took_ms"`
	CalculatedAt api.Time       `json:"calculated_at"`
	TimeRange    map[string]any `json:"computation_time_range"`
}

// Value computes w's value.
func (v SearchValues) Value(ctx context.Context, w Widget) (json.RawMessage, error) {
	var cfg widgetConfig
	if len(w.Config) > 0 {
		if err := json.Unmarshal(w.Config, &cfg); err != nil {
			return nil, api.Errorf(api.Invalid, "Widget %s has an unreadable configuration: %v", w.ID, err)
		}
	}
	switch {
	case w.Type == "SEARCH_RESULT_COUNT", w.Type == "STREAM_SEARCH_RESULT_COUNT", w.Type == "STATS_COUNT" && cfg.Field == "":
	case w.Type == "QUICKVALUES", w.Type == "SEARCH_RESULT_CHART", w.Type == "FIELD_CHART", w.Type == "STATS_COUNT":
		return v.aggregated(ctx, w, cfg)
	default:
		return nil, api.Errorf(api.Unavailable, "Values of %s widgets are not computed by loggate; use the views API", w.Type)
	}
	now := v.Search.Now()
	req, err := cfg.request(w, now)
	if err != nil {
		return nil, err
	}
	rng := req.Range
	start := time.Now()
	count := func(r search.Request) (int64, error) {
		resp, err := v.Search.Search(ctx, r)
		return resp.Result.Total, err
	}
	n, err := count(req)
	if err != nil {
		return nil, err
	}
	out := countValue{Result: n, CalculatedAt: api.Time{Time: now},
		TimeRange: map[string]any{"from": api.Time{Time: rng.From}, "to": api.Time{Time: rng.To}}}
	if cfg.Trend && !rng.From.IsZero() {
		// The trend compares with the period of the same length just
		// before.
		prev := req
		prev.Range = search.TimeRange{From: rng.From.Add(-rng.To.Sub(rng.From)), To: rng.From.Add(-time.Millisecond)}
		p, err := count(prev)
		if err != nil {
			return nil, err
		}
		out.Result = map[string]int64{"now": n, "previous": p}
	}
	out.TookMS = time.Since(start).Milliseconds()
	return api.Marshal(out)
}

// chartIntervals are the 2.x chart intervals loggate buckets by.
var chartIntervals = map[string]search.Interval{
	"minute": {N: 1, Unit: "m"}, "hour": {N: 1, Unit: "h"}, "day": {N: 1, Unit: "d"},
	"week": {N: 1, Unit: "w"}, "month": {N: 1, Unit: "M"},
}

// statsSeries maps STATS_COUNT's and FIELD_CHART's statistic names to
// series.
var statsSeries = map[string]string{
	"count": "count", "mean": "avg", "min": "min", "max": "max", "sum": "sum", "total": "sum",
	"std_dev": "stddev", "variance": "variance", "sum_of_squares": "sumofsquares", "cardinality": "card",
}

// aggregated computes the value of an aggregating widget.
func (v SearchValues) aggregated(ctx context.Context, w Widget, cfg widgetConfig) (json.RawMessage, error) {
	now := v.Search.Now()
	req, err := cfg.request(w, now)
	if err != nil {
		return nil, err
	}
	rng := req.Range
	needField := func() error {
		if cfg.Field == "" {
			return api.Errorf(api.Invalid, "Widget %s has no field", w.ID)
		}
		return nil
	}
	interval := func() (search.Interval, error) {
		name := cfg.Interval
		if name == "" {
			name = "minute"
		}
		iv, ok := chartIntervals[name]
		if !ok {
			return iv, api.Errorf(api.Invalid, "Widget %s has an interval loggate does not chart: %q (use minute, hour, day, week or month)", w.ID, name)
		}
		return iv, nil
	}
	start := time.Now()
	var result any
	switch w.Type {
	case "QUICKVALUES":
		if err := needField(); err != nil {
			return nil, err
		}
		limit := cfg.Limit
		if limit <= 0 {
			limit = 5
		}
		ag, err := v.Search.Aggregate(ctx, req, search.Aggregation{Rows: []search.Grouping{{Field: cfg.Field, Limit: limit}},
			Series: []search.Series{{Type: "count"}, {ID: "present", Type: "count", Field: cfg.Field}}})
		if err != nil {
			return nil, err
		}
		terms, listed := map[string]int64{}, int64(0)
		for _, b := range ag.Root.Buckets {
			terms[b.Key] = b.Count
			listed += b.Count
		}
		present := asInt(ag.Root.Values[1])
		result = map[string]any{"terms": terms, "total": ag.Total, "missing": ag.Total - present, "other": present - listed}
	case "SEARCH_RESULT_CHART", "FIELD_CHART":
		iv, err := interval()
		if err != nil {
			return nil, err
		}
		series := []search.Series{{Type: "count"}}
		if w.Type == "FIELD_CHART" {
			if err := needField(); err != nil {
				return nil, err
			}
			for _, t := range []string{"min", "max", "sum", "count", "avg", "card"} {
				series = append(series, search.Series{Type: t, Field: cfg.Field})
			}
		}
		ag, err := v.Search.Aggregate(ctx, req, search.Aggregation{Rows: []search.Grouping{{Time: true, Interval: iv}}, Series: series})
		if err != nil {
			return nil, err
		}
		buckets := map[string]any{}
		for _, b := range ag.Root.Buckets {
			t, err := time.Parse(messages.TimeLayout, b.Key)
			if err != nil {
				continue
			}
			key := strconv.FormatInt(t.Unix(), 10)
			if w.Type == "SEARCH_RESULT_CHART" {
				buckets[key] = b.Count
				continue
			}
			buckets[key] = map[string]any{"count": b.Count, "min": b.Values[1], "max": b.Values[2], "total": b.Values[3],
				"total_count": b.Values[4], "mean": b.Values[5], "cardinality": b.Values[6]}
		}
		result = buckets
	case "STATS_COUNT":
		typ, ok := statsSeries[cfg.StatsFunction]
		if !ok {
			return nil, api.Errorf(api.Invalid, "Widget %s has an unknown stats_function %q", w.ID, cfg.StatsFunction)
		}
		ag, err := v.Search.Aggregate(ctx, req, search.Aggregation{Series: []search.Series{{Type: typ, Field: cfg.Field}}})
		if err != nil {
			return nil, err
		}
		result = ag.Root.Values[0]
	}
	return api.Marshal(countValue{Result: result, TookMS: time.Since(start).Milliseconds(), CalculatedAt: api.Time{Time: now},
		TimeRange: map[string]any{"from": api.Time{Time: rng.From}, "to": api.Time{Time: rng.To}}})
}

func asInt(v any) int64 {
	switch v := v.(type) {
	case int64:
		return v
	case int:
		return int64(v)
	case float64:
		return int64(v)
	}
	return 0
}
