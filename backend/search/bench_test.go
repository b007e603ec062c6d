package search

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/messages/embedded"
	"github.com/loggate/loggate/backend/messages/messagestest"
)

// BenchmarkAggregate times aggregations over 100,000 messages in the
// embedded store, against a search that only counts them.
func BenchmarkAggregate(b *testing.B) {
	const n = 100000
	st, err := embedded.Open(filepath.Join(b.TempDir(), "messages"), embedded.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = st.Close() })
	messagestest.Load(b, st, "graylog", n, 40000)
	if err := st.WaitMerges(b.Context()); err != nil {
		b.Fatal(err)
	}
	end := messagestest.BenchStart.Add(2 * n * time.Millisecond)
	svc := NewService(st, fakeStreams{{ID: defaultStream, IndexSetID: "is1"}, {ID: webStream, IndexSetID: "is1"}},
		fakeSets{{ID: "is1", IndexPrefix: "graylog"}}, Options{Now: func() time.Time { return end }})
	all := Request{Query: "*", Range: TimeRange{To: end}}
	for _, c := range []struct {
		name  string
		req   Request
		agg   *Aggregation
		perms string
	}{
		{"CountOnly", all, nil, "streams:read:*"},
		{"Histogram", all, &Aggregation{Rows: []Grouping{{Time: true}}, Series: []Series{{Type: "count"}}}, "streams:read:*"},
		{"TermsAvg", all, &Aggregation{Rows: []Grouping{{Field: "source", Limit: 10}}, Series: []Series{{Type: "count"}, {Type: "avg", Field: "took"}}}, "streams:read:*"},
		{"Stats", all, &Aggregation{Series: []Series{{Type: "avg", Field: "bytes"}, {Type: "stddev", Field: "bytes"}, {Type: "card", Field: "client_ip"}}}, "streams:read:*"},
		{"TermsHistogramWebStream", Request{Query: "facility:nginx", Range: TimeRange{To: end}},
			&Aggregation{Rows: []Grouping{{Time: true, Interval: Interval{1, "m"}}, {Field: "http_status", Limit: 5}}, Series: []Series{{Type: "count"}}},
			"streams:read:" + webStream},
	} {
		b.Run(c.name, func(b *testing.B) {
			ctx := as(b, c.perms)
			b.ReportAllocs()
			var total int64
			for b.Loop() {
				if c.agg == nil {
					r := c.req
					r.Limit = 0
					res, err := svc.Search(ctx, r)
					if err != nil {
						b.Fatal(err)
					}
					total = res.Result.Total
					continue
				}
				res, err := svc.Aggregate(ctx, c.req, *c.agg)
				if err != nil {
					b.Fatal(err)
				}
				total = res.Total
			}
			b.ReportMetric(float64(total), "msgs")
			b.ReportMetric(float64(total)*float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
		})
	}
}
