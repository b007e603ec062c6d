package search

import (
	"bytes"
	"net/http"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/logs/messages/embedded"
	"github.com/loggate/loggate/backend/logs/messages/messagestest"
	"github.com/loggate/loggate/router/routertest"
)

// BenchmarkAggregate times aggregations over 100,000 messages in the
// embedded store, against a search that only counts them.
func BenchmarkAggregate(b *testing.B) {
	const n = 100000
	st := loadedStore(b, n)
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

// BenchmarkExport times CSV exports of 100,000 and 500,000 rows (the whole
// store, past the result window) through the export handler: one pass over
// the store, so rows/s stays the same whatever the size.
func BenchmarkExport(b *testing.B) {
	const n = 500000
	st := loadedStore(b, n)
	end := messagestest.BenchStart.Add(2 * n * time.Millisecond)
	svc := NewService(st, fakeStreams{{ID: defaultStream, IndexSetID: "is1"}}, fakeSets{{ID: "is1", IndexPrefix: "graylog"}},
		Options{Now: func() time.Time { return end }})
	h := routertest.Handler(NewHandler(svc).Routes())
	admin := routertest.Principal(b, "*")
	for _, rows := range []int{100000, n} {
		b.Run(strconv.Itoa(rows), func(b *testing.B) {
			for b.Loop() {
				rec := routertest.Serve(h, admin, "GET", "/search/universal/relative/export?query=*&range=0&fields=source,took&limit="+strconv.Itoa(rows), "")
				if rec.Code != http.StatusOK || bytes.Count(rec.Body.Bytes(), []byte{'\n'}) != rows+1 {
					b.Fatalf("status %d, %d lines; want %d rows", rec.Code, bytes.Count(rec.Body.Bytes(), []byte{'\n'}), rows)
				}
			}
			b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// loadedStore is an embedded store holding n generated messages, merged.
func loadedStore(b *testing.B, n int) *embedded.Store {
	b.Helper()
	st, err := embedded.Open(filepath.Join(b.TempDir(), "messages"), embedded.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = st.Close() })
	messagestest.Load(b, st, "graylog", n, 40000)
	if err := st.WaitMerges(b.Context()); err != nil {
		b.Fatal(err)
	}
	return st
}
