package compat_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
	"github.com/loggate/loggate/compat"
	"github.com/loggate/loggate/router/api"
	"github.com/loggate/loggate/router/routertest"
)

// aggMessage is one message the aggregation goldens search.
type aggMessage struct {
	at     string // 2024-…T…Z
	host   string
	status int     // 0: no http_status
	took   float64 // <0: no took
}

var aggMessages = []aggMessage{
	{"2024-02-10T08:00:00Z", "web-1", 200, 0.5},
	{"2024-03-04T10:00:05Z", "web-1", 200, 0.12},
	{"2024-03-04T10:00:40Z", "web-1", 404, 0.3},
	{"2024-03-04T10:01:10Z", "web-2", 200, 0.25},
	{"2024-03-04T10:03:00Z", "web-2", 500, 1.5},
	{"2024-03-04T10:07:30Z", "web-1", 200, 0.05},
	{"2024-03-04T10:59:59Z", "db-1", 0, 12},
	{"2024-03-04T11:15:00Z", "web-1", 200, 0.4},
	{"2024-03-04T11:45:00Z", "db-1", 0, 7},
	{"2024-03-04T12:30:00Z", "web-2", 404, 0.2},
	{"2024-03-04T12:31:00Z", "web-2", 200, -1},
	{"2024-04-02T09:00:00Z", "db-1", 0, 3},
}

// The morning of 2024-03-04, as 3.x clients write absolute ranges.
const morning = "from=2024-03-04T10:00:00.000Z&to=2024-03-04T13:00:00.000Z"

// aggExchange is one old aggregation request and what its answer must
// show besides its golden file.
type aggExchange struct {
	name    string // fixtures/compat/<name>.golden
	release string
	path    string
	as      string // "root" (default) or "nobody"
	status  int
	check   func(t *testing.T, r *nodetest.Response)
}

// inMorning returns the morning's messages that keep says.
func inMorning(keep func(m aggMessage) bool) []aggMessage {
	var out []aggMessage
	for _, m := range aggMessages {
		if strings.HasPrefix(m.at, "2024-03-04") && keep(m) {
			out = append(out, m)
		}
	}
	return out
}

func epoch(t *testing.T, at string, trunc time.Duration) string {
	t.Helper()
	ts, err := time.Parse(time.RFC3339, at)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprint(ts.Truncate(trunc).Unix())
}

var aggExchanges = []aggExchange{
	{name: "3.3/search-histogram-all-time", release: "3.3", path: "/search/universal/relative/histogram?query=%2A&interval=day&range=0&pretty=true", status: 200,
		check: func(t *testing.T, r *nodetest.Response) {
			if n := r.Get("results." + epoch(t, "2024-03-04T00:00:00Z", 0)).Int(); n != int64(len(inMorning(func(aggMessage) bool { return true }))) {
				t.Errorf("messages of 2024-03-04: %d", n)
			}
			var sum int64
			r.Get("results").ForEach(func(_, v gjson.Result) bool { sum += v.Int(); return true })
			if sum != int64(len(aggMessages)) {
				t.Errorf("histogram counts %d messages, want %d", sum, len(aggMessages))
			}
		}},
	{name: "default/search-histogram-absolute", path: "/search/universal/absolute/histogram?query=source%3Aweb%2A&interval=HOUR&" + morning + "&pretty=true", status: 200,
		check: func(t *testing.T, r *nodetest.Response) {
			for _, h := range []string{"10", "11", "12"} {
				want := len(inMorning(func(m aggMessage) bool { return strings.HasPrefix(m.host, "web") && m.at[11:13] == h }))
				if got := r.Get("results." + epoch(t, "2024-03-04T"+h+":00:00Z", 0)).Int(); got != int64(want) {
					t.Errorf("hour %s: %d web messages, want %d", h, got, want)
				}
			}
		}},
	{name: "2.4/search-histogram-quarter", release: "2.4", path: "/search/universal/keyword/histogram?query=%2A&interval=quarter&keyword=" +
		url.QueryEscape("from 2024-01-01 to 2024-06-30") + "&pretty=true", status: 200,
		check: func(t *testing.T, r *nodetest.Response) {
			q1, q2 := r.Get("results."+epoch(t, "2024-01-01T00:00:00Z", 0)).Int(), r.Get("results."+epoch(t, "2024-04-01T00:00:00Z", 0)).Int()
			if q1 != int64(len(aggMessages)-1) || q2 != 1 || len(r.Get("results").Map()) != 2 {
				t.Errorf("quarters %d and %d, want %d and 1: %s", q1, q2, len(aggMessages)-1, r.Get("results"))
			}
		}},
	{name: "3.3/search-fieldhistogram", release: "3.3", path: "/search/universal/absolute/fieldhistogram?query=%2A&field=took&interval=hour&cardinality=true&" + morning + "&pretty=true", status: 200,
		check: func(t *testing.T, r *nodetest.Response) {
			ten := inMorning(func(m aggMessage) bool { return m.at[11:13] == "10" })
			sum, most := 0.0, 0.0
			for _, m := range ten {
				sum += m.took
				most = max(most, m.took)
			}
			b := r.Get("results." + epoch(t, "2024-03-04T10:00:00Z", 0))
			if b.Get("total_count").Int() != int64(len(ten)) || b.Get("max").Float() != most || fmt.Sprintf("%.4f", b.Get("total").Float()) != fmt.Sprintf("%.4f", sum) {
				t.Errorf("10:00 bucket %s, want %d messages, max %v, total %v", b, len(ten), most, sum)
			}
		}},
	{name: "3.3/search-terms", release: "3.3", path: "/search/universal/absolute/terms?query=%2A&field=http_status&size=2&" + morning + "&pretty=true", status: 200,
		check: func(t *testing.T, r *nodetest.Response) {
			ok := inMorning(func(m aggMessage) bool { return m.status == 200 })
			missing := inMorning(func(m aggMessage) bool { return m.status == 0 })
			if r.Get("terms.200").Int() != int64(len(ok)) || r.Get("missing").Int() != int64(len(missing)) || r.Get("other").Int() != 1 {
				t.Errorf("terms %s missing %s other %s; want 200 × %d, %d missing, 1 other (the 500)", r.Get("terms"), r.Get("missing"), r.Get("other"), len(ok), len(missing))
			}
		}},
	{name: "3.3/search-terms-stacked-ascending", release: "3.3", path: "/search/universal/relative/terms?query=%2A&field=source&stacked_fields=http_status&order=count%3Aasc&range=0&pretty=true", status: 200,
		check: func(t *testing.T, r *nodetest.Response) {
			if r.Get(`terms.web-1 - 200`).Int() != 4 || r.Get("missing").Int() != 0 {
				t.Errorf("web-1 - 200: %s, want 4", r.Get("terms"))
			}
		}},
	{name: "3.3/search-termsstats", release: "3.3", path: "/search/universal/absolute/termsstats?query=%2A&key_field=source&value_field=took&order=reverse_mean&" + morning + "&pretty=true", status: 200,
		check: func(t *testing.T, r *nodetest.Response) {
			if got := r.Get("terms.#.key_field").String(); got != `["db-1","web-2","web-1"]` {
				t.Errorf("terms by mean, largest first: %s", got)
			}
			web2 := inMorning(func(m aggMessage) bool { return m.host == "web-2" })
			if r.Get("terms.1.total_count").Int() != int64(len(web2)) || r.Get("terms.1.count").Int() != int64(len(web2)-1) {
				t.Errorf("web-2: %s; want %d messages, %d with took", r.Get("terms.1"), len(web2), len(web2)-1)
			}
		}},
	{name: "3.3/search-terms-histogram", release: "3.3", path: "/search/universal/absolute/terms-histogram?query=%2A&field=source&interval=hour&size=1&" + morning + "&pretty=true", status: 200,
		check: func(t *testing.T, r *nodetest.Response) {
			b := r.Get("buckets." + epoch(t, "2024-03-04T10:00:00Z", 0))
			if b.Get("terms.web-1").Int() != 3 || b.Get("other").Int() != 3 || b.Get("total").Int() != 6 {
				t.Errorf("10:00 bucket %s, want web-1 × 3, other 3, total 6", b)
			}
		}},
	{name: "3.3/search-stats", release: "3.3", path: "/search/universal/absolute/stats?query=source%3Aweb%2A&field=took&" + morning + "&pretty=true", status: 200,
		check: func(t *testing.T, r *nodetest.Response) {
			web := inMorning(func(m aggMessage) bool { return strings.HasPrefix(m.host, "web") && m.took >= 0 })
			sum := 0.0
			for _, m := range web {
				sum += m.took
			}
			if r.Get("count").Int() != int64(len(web)) || fmt.Sprintf("%.6f", r.Get("mean").Float()) != fmt.Sprintf("%.6f", sum/float64(len(web))) {
				t.Errorf("count %s mean %s, want %d and %v", r.Get("count"), r.Get("mean"), len(web), sum/float64(len(web)))
			}
		}},
	{name: "3.3/search-stats-stream-filter", release: "3.3", path: "/search/universal/relative/stats?query=%2A&field=took&range=0&filter=streams%3A000000000000000000000001&pretty=true", status: 200,
		check: func(t *testing.T, r *nodetest.Response) {
			if r.Get("count").Int() != int64(len(aggMessages)-1) || !strings.Contains(r.Get("built_query").String(), "000000000000000000000001") {
				t.Errorf("count %s built_query %s", r.Get("count"), r.Get("built_query"))
			}
		}},
	{name: "3.3/search-histogram-bad-interval", release: "3.3", path: "/search/universal/relative/histogram?query=%2A&interval=fortnight&range=300", status: 400},
	{name: "3.3/search-terms-without-field", release: "3.3", path: "/search/universal/relative/terms?query=%2A&range=300", status: 400},
	{name: "3.3/search-termsstats-bad-order", release: "3.3", path: "/search/universal/relative/termsstats?query=%2A&key_field=source&value_field=took&order=loudest&range=300", status: 400},
	{name: "3.3/search-histogram-bad-query", release: "3.3", path: "/search/universal/relative/histogram?query=source%3A%28web&interval=hour&range=300", status: 400},
	{name: "3.3/search-histogram-forbidden", release: "3.3", path: "/search/universal/relative/histogram?query=%2A&interval=hour&range=300", as: "nobody", status: 403},
	{name: "3.3/search-stats-forbidden-stream", release: "3.3", path: "/search/universal/relative/stats?query=%2A&field=took&range=300&filter=streams%3A000000000000000000000001", as: "nobody", status: 403},
	{name: "4.0/search-histogram-is-gone", release: "4.0", path: "/search/universal/relative/histogram?query=%2A&interval=hour&range=300", status: 404},
}

// Volatile parts of aggregation answers: how long they took, and the end
// of relative ranges in Elasticsearch's time format.
var (
	aggTook = regexp.MustCompile(`"time" ?: ?\d+`)
	esNow   = regexp.MustCompile(`\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}`)
)

// TestSearchAggregationsGolden sends the 3.x aggregation calls to a node
// holding messages received over GELF HTTP.
func TestSearchAggregationsGolden(t *testing.T) {
	h := nodetest.Start(t)
	sendGELF(t, h, aggMessages)
	h.CreateUser("nobody", "nobodypass")
	for _, ex := range aggExchanges {
		t.Run(ex.name, func(t *testing.T) {
			opts := []nodetest.ReqOption{nodetest.AsRoot()}
			if ex.as == "nobody" {
				opts[0] = nodetest.Basic("nobody", "nobodypass")
			}
			if ex.release != "" {
				opts = append(opts, nodetest.Header("X-API-Version", ex.release))
			}
			r := h.Do("GET", ex.path, nil, opts...)
			if r.Status != ex.status {
				t.Fatalf("status %d, want %d: %s", r.Status, ex.status, r.Body)
			}
			if ex.check != nil {
				ex.check(t, r)
			}
			got := render(exchange{method: "GET", path: ex.path, release: ex.release}, r, nil)
			got = aggTook.ReplaceAllStringFunc(got, func(s string) string { return s[:strings.IndexAny(s, "0123456789")] + "<ms>" })
			got = esNow.ReplaceAllStringFunc(got, func(s string) string {
				if strings.HasPrefix(s, "1970-") || strings.HasPrefix(s, "2024-") {
					return s
				}
				return "<time>"
			})
			compare(t, filepath.Join("..", "fixtures", "compat", ex.name+".golden"), got)
		})
	}
}

// sendGELF posts msgs to a new GELF HTTP input and waits until the node
// has processed them.
func sendGELF(t *testing.T, h *nodetest.Harness, msgs []aggMessage) {
	t.Helper()
	addr := gelfAddr(h)
	for _, m := range msgs {
		at, err := time.Parse(time.RFC3339, m.at)
		if err != nil {
			t.Fatal(err)
		}
		extra := ""
		if m.status != 0 {
			extra += fmt.Sprintf(`,"_http_status":%d`, m.status)
		}
		if m.took >= 0 {
			extra += fmt.Sprintf(`,"_took":%v`, m.took)
		}
		body := fmt.Sprintf(`{"version":"1.1","host":%q,"short_message":"request","timestamp":%d,"level":6%s}`, m.host, at.Unix(), extra)
		resp, err := http.Post("http://"+addr.String()+"/gelf", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusAccepted {
			t.Fatalf("POST /gelf: %d", resp.StatusCode)
		}
	}
	h.WaitProcessed(uint64(len(msgs)))
}

// FuzzSearchAggregations feeds 3.x aggregation parameters (intervals,
// orders, sizes, stacked fields, filters) through the change: a request is
// refused with an API error or becomes a views search, and any pivot
// answer converts back to JSON.
func FuzzSearchAggregations(f *testing.F) {
	f.Add("histogram", "query=*&interval=QUARTER&range=0", `{"key":["2024-02-01T00:00:00.000Z"],"values":[{"key":["count()"],"value":3}],"source":"leaf"}`)
	f.Add("terms", "query=*&field=source&stacked_fields=a,b&order=term:asc&size=3", `{"key":["x","y","z"],"values":[{"key":["count()"],"value":1}],"source":"leaf"}`)
	f.Add("termsstats", "query=*&key_field=a&value_field=b&order=REVERSE_TOTAL", `{"key":["a"],"values":[{"key":["min(b)"],"value":null}],"source":"leaf"}`)
	f.Add("terms-histogram", "query=*&field=f&interval=year&order=count:desc", `{"key":["2024-05-01T00:00:00.000Z","v"],"values":[],"source":"leaf"}`)
	f.Add("fieldhistogram", "query=*&field=took&interval=minute&cardinality=true", `{"key":["bad"],"values":[{"key":["card(took)"],"value":"x"}],"source":"leaf"}`)
	f.Add("stats", "query=*&field=took&filter=streams:a,,b&range=-1", `{"key":[],"values":[{"key":["avg(took)"],"value":1.5}],"source":"leaf"}`)
	ch := compat.SearchAggregations(false)
	ctx := auth.WithPrincipal(context.Background(), routertest.Principal(f, "*"))
	f.Fuzz(func(t *testing.T, endpoint, query, row string) {
		path := "/search/universal/relative/" + endpoint
		var route compat.Route
		for _, r := range ch.Routes {
			if r.Template.String() == path {
				route = r
			}
		}
		if route.Method == "" {
			return
		}
		req, err := http.NewRequest("GET", "http://loggate"+path+"?"+query, nil)
		if err != nil {
			return
		}
		x := &compat.Exchange{Req: req, Route: route, State: map[string]string{}}
		if err := ch.Request(ctx, x); err != nil {
			if api.ErrorCode(err) == api.Internal {
				t.Fatalf("%s?%s: %v", path, query, err)
			}
			return
		}
		body, err := io.ReadAll(x.Req.Body)
		if err != nil || x.Req.Method != "POST" || x.Req.URL.Path != "/views/search/sync" ||
			gjson.GetBytes(body, "queries.0.search_types.0.type").String() != "pivot" {
			t.Fatalf("%s?%s became %s %s %s", path, query, x.Req.Method, x.Req.URL.Path, body)
		}
		answer := `{"results":{"q":{"search_types":{"agg":{"id":"agg","type":"pivot","total":3,"rows":[` + row + `]}}}}}`
		out, err := ch.Response(ctx, x, []byte(answer))
		if err != nil || !json.Valid(out) {
			t.Fatalf("%s?%s with rows %s: %v %s", path, query, row, err, out)
		}
	})
}

// gelfAddr starts a GELF HTTP input on h and returns its address.
func gelfAddr(h *nodetest.Harness) net.Addr {
	_, addr := h.CreateInput(nodetest.GELFHTTP)
	return addr
}
