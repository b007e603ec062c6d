package views_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/loggate/loggate/backend/analysis/search"
	"github.com/loggate/loggate/backend/analysis/views"
	"github.com/loggate/loggate/backend/logs/indexsets"
	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/logs/messages/embedded"
	"github.com/loggate/loggate/backend/logs/messages/messagestest"
	"github.com/loggate/loggate/backend/logs/streams"
	"github.com/loggate/loggate/backend/store/bolt"
	"github.com/loggate/loggate/router/routertest"
)

type benchStreams []*streams.Stream

func (s benchStreams) All() []*streams.Stream { return s }

type benchSets []indexsets.IndexSet

func (s benchSets) All(context.Context) ([]indexsets.IndexSet, error) { return s, nil }

// BenchmarkSearchPage times the search page's calls for its default search
// (a histogram of count() by auto time buckets and the newest 150
// messages over the last five minutes): create, execute and status, over
// 100,000 stored messages and, with LOGGATE_BENCH_LARGE=1, 1,000,000. The
// generated messages come about a millisecond apart, so the last five
// minutes hold every message of 100,000 and about 300,000 of 1,000,000.
func BenchmarkSearchPage(b *testing.B) {
	sizes := []int{100_000}
	if os.Getenv("LOGGATE_BENCH_LARGE") != "" {
		sizes = append(sizes, 1_000_000)
	}
	for _, n := range sizes {
		b.Run(fmt.Sprintf("messages=%d", n), func(b *testing.B) { benchSearchPage(b, n) })
	}
}

func benchSearchPage(b *testing.B, n int) {
	ms, err := embedded.Open(filepath.Join(b.TempDir(), "messages"), embedded.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = ms.Close() })
	messagestest.Load(b, ms, "graylog", n, 40000)
	if err := ms.WaitMerges(b.Context()); err != nil {
		b.Fatal(err)
	}
	// Now is the newest message's time: the page shows the last five
	// minutes of the data.
	newest, err := ms.Search(b.Context(), messages.Query{Limit: 1})
	if err != nil || len(newest.Hits) != 1 {
		b.Fatalf("newest message: %v", err)
	}
	end := newest.Hits[0].Message.Timestamp
	ss := benchStreams{{ID: streams.DefaultStreamID, IndexSetID: "is1"}}
	sets := benchSets{{ID: "is1", IndexPrefix: "graylog"}}
	docs, err := bolt.Open(filepath.Join(b.TempDir(), "db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = docs.Close() })
	now := func() time.Time { return end }
	exec := search.NewHandler(search.NewService(ms, ss, sets, search.Options{Now: now}))
	h := routertest.Handler(views.NewSearchHandler(views.NewSearches(docs, views.NewService(docs, now), now), exec,
		views.NewJobs(time.Now), views.NewFields(ms, ss, sets)).Routes())
	c := routertest.Client{H: h}

	var create, execute, status, total []time.Duration
	var inRange int64
	i := 0
	for b.Loop() {
		i++
		id := fmt.Sprintf("%024x", i)
		body := searchPageBody(b, id)
		t0 := time.Now()
		if w := c.Admin("POST", "/views/search", body); w.Code != http.StatusCreated {
			b.Fatalf("create: %d %s", w.Code, w.Body)
		}
		t1 := time.Now()
		w := c.Admin("POST", "/views/search/"+id+"/execute", `{"parameter_bindings":{}}`)
		if w.Code != http.StatusCreated {
			b.Fatalf("execute: %d %s", w.Code, w.Body)
		}
		t2 := time.Now()
		job := gjson.GetBytes(w.Body.Bytes(), "id").Str
		if s := c.Admin("GET", "/views/search/status/"+job, ""); s.Code != http.StatusOK {
			b.Fatalf("status: %d %s", s.Code, s.Body)
		}
		t3 := time.Now()
		create, execute, status, total = append(create, t1.Sub(t0)), append(execute, t2.Sub(t1)), append(status, t3.Sub(t2)), append(total, t3.Sub(t0))
		inRange = gjson.GetBytes(w.Body.Bytes(), "results.q1.search_types.chart.total").Int()
	}
	for _, m := range []struct {
		name string
		lat  []time.Duration
	}{{"create", create}, {"execute", execute}, {"status", status}, {"page", total}} {
		slices.Sort(m.lat)
		b.ReportMetric(ms1(m.lat[len(m.lat)/2]), m.name+"-p50-ms")
		b.ReportMetric(ms1(m.lat[len(m.lat)*95/100]), m.name+"-p95-ms")
	}
	b.ReportMetric(float64(inRange), "msgs-in-range")
}

func ms1(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// searchPageBody is the search the 4.0 search page creates first.
func searchPageBody(b *testing.B, id string) string {
	body, err := json.Marshal(map[string]any{
		"id": id, "parameters": []any{},
		"queries": []any{map[string]any{
			"id": "q1", "query": map[string]any{"type": "elasticsearch", "query_string": ""},
			"timerange": map[string]any{"type": "relative", "range": 300}, "filter": nil,
			"search_types": []any{
				map[string]any{"id": "chart", "type": "pivot", "rollup": true, "sort": []any{}, "column_groups": []any{},
					"row_groups": []any{map[string]any{"type": "time", "field": "timestamp", "interval": map[string]any{"type": "auto", "scaling": 1.0}}},
					"series":     []any{map[string]any{"type": "count", "id": "count()"}}},
				map[string]any{"id": "messages", "type": "messages", "limit": 150, "offset": 0,
					"sort": []any{map[string]any{"field": "timestamp", "order": "DESC"}}},
			},
		}},
	})
	if err != nil {
		b.Fatal(err)
	}
	return string(body)
}

// BenchmarkObserveFields times what recording field types adds to every
// batch the processor writes: a batch of 1000 messages whose fields are all
// known, the steady state.
func BenchmarkObserveFields(b *testing.B) {
	f := views.NewFields(nil, benchStreams{}, benchSets{})
	batch := messagestest.Generate(1, 1000, messagestest.BenchStart)
	f.Observe("graylog", messagestest.Generate(2, 10000, messagestest.BenchStart))
	b.ReportAllocs()
	for b.Loop() {
		f.Observe("graylog", batch)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(batch)), "ns/msg")
}
