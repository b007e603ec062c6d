package search

import (
	"reflect"
	"testing"
	"time"
)

// TestAggregateEach checks that aggregations computed together over one
// read answer exactly what each answers alone, for overlapping, nested and
// touching ranges and for every kind of series, with pages small enough
// that page boundaries fall inside shared milliseconds.
func TestAggregateEach(t *testing.T) {
	msgs := generated(2000)
	first, last := msgs[0].Timestamp, msgs[len(msgs)-1].Timestamp
	e := newEnv(t, msgs, last, Options{aggregatePage: 300})
	ctx := as(t, "streams:read:*")
	span := last.Sub(first)
	at := func(f float64) time.Time {
		return first.Add(time.Duration(f * float64(span))).Truncate(time.Millisecond)
	}
	ranges := []TimeRange{
		{From: first, To: last},
		{From: at(0.1), To: at(0.4)},
		{From: at(0.4), To: at(0.7)}, // touches the one before
		{From: at(0.2), To: at(0.3)}, // within the second
		{From: at(0.65), To: at(0.9)},
	}
	aggs := []Aggregation{
		{Series: []Series{{Type: "count"}}},
		{Rows: []Grouping{{Field: "http_status", Limit: 100}}, Series: []Series{{Type: "avg", Field: "took"}, {Type: "stddev", Field: "took"}}},
		{Rows: []Grouping{{Field: "http_method", Limit: 100}}, Series: []Series{{Type: "sum", Field: "bytes"}, {Type: "max", Field: "bytes"}}},
		{Series: []Series{{Type: "card", Field: "client_ip"}, {Type: "min", Field: "took"}}},
		{Rows: []Grouping{{Time: true}}, Series: []Series{{Type: "count"}}},
	}
	var parts []Part
	for i, r := range ranges {
		parts = append(parts, Part{Range: r, Aggregation: aggs[i%len(aggs)]})
	}
	for _, q := range []string{"", "facility:nginx", "http_method:GET OR http_method:POST"} {
		got, err := e.svc.AggregateEach(ctx, Request{Query: q, Range: TimeRange{From: first, To: last}}, parts)
		if err != nil {
			t.Fatal(err)
		}
		for i, p := range parts {
			want, err := e.svc.Aggregate(ctx, Request{Query: q, Range: p.Range}, p.Aggregation)
			if err != nil {
				t.Fatal(err)
			}
			if want.Total == 0 {
				t.Fatalf("query %q part %d: the reference matched nothing", q, i)
			}
			got[i].Took, want.Took = 0, 0
			if !reflect.DeepEqual(got[i], want) {
				t.Errorf("query %q part %d: got total %d root %+v, want total %d root %+v", q, i, got[i].Total, got[i].Root, want.Total, want.Root)
			}
		}
	}
}
