package search

import (
	"testing"
	"time"
)

func FuzzParseTimeUnit(f *testing.F) {
	for _, s := range []string{"1m", "15s", "250ms", "2w", "3M", "0h", "", "1y", "99999999999d", "7"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		iv, err := ParseTimeUnit(s)
		if err != nil {
			return
		}
		if iv.N <= 0 {
			t.Fatalf("ParseTimeUnit(%q) = %v", s, iv)
		}
		// Every accepted interval makes increasing buckets.
		at := time.Date(2024, 3, 4, 10, 0, 0, 0, time.UTC).UnixMilli()
		start := iv.start(at)
		if start > at || iv.next(start) <= at {
			t.Fatalf("%s: bucket [%d, %d) does not hold %d", iv, start, iv.next(start), at)
		}
	})
}

func FuzzParseSeries(f *testing.F) {
	for _, s := range []string{"count()", "avg(took)", "card(source)", "percentile(x)", "avg", "()", "max((x))"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sr, err := ParseSeries(s)
		if err != nil {
			return
		}
		if err := sr.Validate(); err != nil {
			t.Fatalf("ParseSeries(%q) = %+v, which does not validate: %v", s, sr, err)
		}
	})
}

// FuzzPivotSpec decodes pivot search types and builds their aggregations:
// a body is refused or aggregates without panicking.
func FuzzPivotSpec(f *testing.F) {
	for _, s := range []string{
		`{"type":"pivot","row_groups":[{"type":"time","interval":{"type":"auto","scaling":0.5}}],"series":[{"type":"count"}],"rollup":true}`,
		`{"type":"pivot","row_pivots":[{"type":"values","field":"source","config":{"limit":3}}],"series":[{"function":"avg(took)"}],"sort":[{"type":"series","field":"avg(took)","direction":"Descending"}]}`,
		`{"type":"pivot","column_groups":[{"type":"time","interval":{"type":"timeunit","value":2,"unit":"hours"}}]}`,
		`{"type":"pivot","row_groups":[{"type":"values","field":"x","limit":-1}]}`,
		`{"row_groups":[{"type":"time","interval":{"type":"timeunit","timeunit":"1ms"}}]}`,
	} {
		f.Add(s)
	}
	msgs := generated(50)
	rng := TimeRange{From: msgs[0].Timestamp, To: msgs[len(msgs)-1].Timestamp}
	f.Fuzz(func(t *testing.T, body string) {
		a, _, err := decodePivot([]byte(body))
		if err != nil {
			return
		}
		ag, err := newAggregator(a, rng, 100)
		if err != nil {
			return
		}
		for i := range msgs {
			if err := ag.add(&msgs[i]); err != nil {
				return
			}
		}
		root, err := ag.finish()
		if err != nil {
			return
		}
		if root.Count != int64(len(msgs)) {
			t.Fatalf("root counts %d of %d", root.Count, len(msgs))
		}
		_ = pivotRows(a, a.Series, root, true)
	})
}
