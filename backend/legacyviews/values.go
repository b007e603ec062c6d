package legacyviews

import (
	"context"
	"encoding/json"
	"time"

	"github.com/loggate/loggate/backend/api"
	"github.com/loggate/loggate/backend/search"
)

// SearchValues computes the values of the count widgets of legacy
// dashboards (SEARCH_RESULT_COUNT, STREAM_SEARCH_RESULT_COUNT, STATS_COUNT
// without a field) by running their search, within the caller's streams.
// Chart and quick-value widgets need aggregations loggate's search does not
// have; their values answer 503 with a message saying so.
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
	default:
		return nil, api.Errorf(api.Unavailable, "Values of %s widgets need aggregations, which loggate's search does not compute; use the views API", w.Type)
	}
	now := v.Search.Now()
	rng, err := cfg.TimeRange.Resolve(now)
	if err != nil {
		return nil, api.Errorf(api.Invalid, "Widget %s has an invalid timerange: %v", w.ID, err)
	}
	req := search.Request{Query: cfg.Query, Range: rng}
	if cfg.StreamID != "" {
		req.Streams = []string{cfg.StreamID}
	}
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
	return json.Marshal(out)
}
