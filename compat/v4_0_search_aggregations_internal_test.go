package compat

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestTermsHistogramGrowsWithRows: a terms histogram's answer is built in
// work proportional to the pivot's rows. It went over every row once per
// time bucket, so that one request of a few thousand buckets (an interval
// of minutes over days) held a CPU for minutes. Allocations count the
// work, as time would not on a loaded machine: four times the buckets
// must cost about four times as much, not sixteen.
func TestTermsHistogramGrowsWithRows(t *testing.T) {
	build := func(buckets, size int) []byte {
		var rows []string
		start := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
		for b := range buckets {
			ts := start.Add(time.Duration(b) * time.Minute).Format(time.RFC3339)
			for s := range size {
				rows = append(rows, fmt.Sprintf(`{"key":[%q,"t%d"],"values":[{"key":["count()"],"value":1},{"key":["count(f)"],"value":1}],"source":"leaf"}`, ts, s))
			}
			rows = append(rows, fmt.Sprintf(`{"key":[%q],"values":[{"key":["count()"],"value":%d},{"key":["count(f)"],"value":%d}],"source":"row-inner"}`, ts, size, size))
		}
		return []byte(`{"results":{"q":{"execution_stats":{"duration":1},"search_types":{"agg":{"total":1,"rows":[` + strings.Join(rows, ",") +
			`],"effective_timerange":{"from":"2020-01-01T00:00:00.000Z","to":"2020-01-08T00:00:00.000Z"}}}}}}`)
	}
	x := &Exchange{State: map[string]string{"aggregation": `{"kind":"relative","endpoint":"terms-histogram","query":"*","field":"f","interval":"minute","size":5}`}}
	allocs := func(buckets int) float64 {
		body := build(buckets, 5)
		return testing.AllocsPerRun(1, func() {
			out, err := aggregationResponse(context.Background(), x, body)
			if err != nil || !strings.Contains(string(out), `"t4"`) {
				t.Fatalf("%v: %.200s", err, out)
			}
		})
	}
	small, large := allocs(100), allocs(400)
	if large > 6*small {
		t.Errorf("4× the buckets took %.1f× the allocations (%.0f, %.0f): the work grows faster than the rows", large/small, small, large)
	}
}
