package search

import (
	"encoding/json"
	"testing"
	"time"
)

// TestCountHistogram: a date histogram of counts answered from the store's
// counts equals the one folded from the messages, edges and gaps included.
func TestCountHistogram(t *testing.T) {
	msgs := generated(3000)
	first, last := msgs[0].Timestamp, msgs[len(msgs)-1].Timestamp
	e := newEnv(t, msgs, last, Options{})
	tests := []struct {
		name  string
		req   Request
		group Grouping
		perms string
	}{
		{"auto over everything", Request{Query: "*", Range: TimeRange{From: first, To: last}}, Grouping{Time: true}, "streams:read:*"},
		{"one second, unaligned edges", Request{Query: "http_status:404", Range: TimeRange{From: first.Add(1234 * time.Millisecond), To: last.Add(-777 * time.Millisecond)}},
			Grouping{Time: true, Interval: Interval{1, "s"}}, "streams:read:*"},
		{"stream filter, finer auto", Request{Query: "source:web-1", Range: TimeRange{From: first, To: last}, Streams: []string{webStream}},
			Grouping{Time: true, Scaling: 0.2}, "streams:read:" + webStream},
		{"callers streams only", Request{Query: "*", Range: TimeRange{From: first, To: last}}, Grouping{Time: true, Interval: Interval{500, "ms"}}, "streams:read:" + webStream},
		{"nothing in range", Request{Query: "*", Range: TimeRange{From: last.Add(time.Hour), To: last.Add(2 * time.Hour)}}, Grouping{Time: true}, "streams:read:*"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := as(t, tt.perms)
			a := Aggregation{Rows: []Grouping{tt.group}, Series: []Series{{Type: "count", ID: "count()"}}}
			counted, err := newAggregator(a, tt.req.Range, DefaultMaxBuckets)
			if err != nil {
				t.Fatal(err)
			}
			ctotal, ok, err := e.svc.countHistogram(ctx, tt.req, counted)
			if err != nil || !ok {
				t.Fatalf("countHistogram: %v, %v", ok, err)
			}
			folded, _ := newAggregator(a, tt.req.Range, DefaultMaxBuckets)
			ftotal, err := e.svc.scan(ctx, tt.req, folded.add)
			if err != nil {
				t.Fatal(err)
			}
			c, err1 := counted.finish()
			f, err2 := folded.finish()
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			cj, _ := json.Marshal(c)
			fj, _ := json.Marshal(f)
			if ctotal != ftotal || string(cj) != string(fj) {
				t.Errorf("counted %d %s\nfolded %d %s", ctotal, cj, ftotal, fj)
			}
			if tt.name != "nothing in range" && len(f.Buckets) < 2 {
				t.Errorf("only %d buckets: the case tests nothing", len(f.Buckets))
			}
		})
	}
	// Not a date histogram of counts alone, or open at the start: folded.
	for _, a := range []Aggregation{
		{Rows: []Grouping{{Time: true}}, Series: []Series{{Type: "avg", Field: "took"}}},
		{Rows: []Grouping{{Time: true}, {Field: "source"}}, Series: []Series{{Type: "count"}}},
		{Rows: []Grouping{{Field: "source"}}, Series: []Series{{Type: "count"}}},
	} {
		ag, _ := newAggregator(a, TimeRange{From: first, To: last}, DefaultMaxBuckets)
		if _, ok, _ := e.svc.countHistogram(as(t, "streams:read:*"), Request{Range: TimeRange{From: first, To: last}}, ag); ok {
			t.Errorf("%+v counted", a)
		}
	}
	ag, _ := newAggregator(Aggregation{Rows: []Grouping{{Time: true}}}, TimeRange{To: last}, DefaultMaxBuckets)
	if _, ok, _ := e.svc.countHistogram(as(t, "streams:read:*"), Request{Range: TimeRange{To: last}}, ag); ok {
		t.Error("a range open at its start counted")
	}
}
