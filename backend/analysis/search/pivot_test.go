package search

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/router/api"
	"github.com/loggate/loggate/router/routertest"
)

var pivotBase = time.Date(2024, 3, 4, 10, 0, 0, 0, time.UTC)

// pivotEnv holds five messages over two minutes: sources a, a, b, a, c;
// took 1, 3, 5, none, 10; the last also in the web stream.
func pivotEnv(t *testing.T) (http.Handler, *testEnv) {
	t.Helper()
	type m struct {
		sec    int
		source string
		took   any
	}
	var msgs []messages.Message
	for i, x := range []m{{10, "a", 1.0}, {20, "a", int64(3)}, {30, "b", 5.0}, {65, "a", nil}, {110, "c", 10.0}} {
		msg := messages.Message{ID: "msg-" + string(rune('a'+i)), Timestamp: pivotBase.Add(time.Duration(x.sec) * time.Second),
			Streams: []string{defaultStream}, Fields: []messages.Field{{Key: "source", Value: x.source}}}
		if x.took != nil {
			msg.Fields = append(msg.Fields, messages.Field{Key: "took", Value: x.took})
		}
		if i == 4 {
			msg.Streams = append(msg.Streams, webStream)
		}
		msgs = append(msgs, msg)
	}
	e := newEnv(t, msgs, pivotBase.Add(time.Hour), Options{})
	return routertest.Handler(NewHandler(e.svc).Routes()), e
}

// syncBody is a sync search of one query over 10:00–10:05 with the given
// search types.
func syncBody(types string) string {
	return `{"queries":[{"id":"q1","query":{"type":"elasticsearch","query_string":""},` +
		`"timerange":{"type":"absolute","from":"2024-03-04T10:00:00.000Z","to":"2024-03-04T10:05:00.000Z"},` +
		`"search_types":[` + types + `]}]}`
}

func sameJSON(t *testing.T, got, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatalf("response is not JSON: %v: %s", err, got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("want is not JSON: %v", err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestSyncPivotTimeRows(t *testing.T) {
	h, _ := pivotEnv(t)
	rec := routertest.Serve(h, routertest.Principal(t, "streams:read:*"), "POST", "/views/search/sync", syncBody(
		`{"id":"p1","type":"pivot","row_groups":[{"type":"time","field":"timestamp","interval":{"type":"timeunit","timeunit":"1m"}}],`+
			`"column_groups":[],"series":[{"type":"count","id":"count()"},{"type":"avg","id":"avg(took)","field":"took"}],"sort":[],"rollup":true}`))
	routertest.WantStatus(t, rec, http.StatusOK)
	got := gjson.Get(rec.Body.String(), "results.q1.search_types.p1").Raw
	row := func(minute string, count int, avg float64) string {
		b, _ := json.Marshal(map[string]any{"key": []string{"2024-03-04T10:0" + minute + ":00.000Z"}, "source": "leaf", "values": []any{
			map[string]any{"key": []string{"count()"}, "value": count, "rollup": true, "source": "row-leaf"},
			map[string]any{"key": []string{"avg(took)"}, "value": avg, "rollup": true, "source": "row-leaf"}}})
		return string(b)
	}
	sameJSON(t, got, `{"id":"p1","type":"pivot","total":5,
		"effective_timerange":{"type":"absolute","from":"2024-03-04T10:00:00.000Z","to":"2024-03-04T10:05:00.000Z"},
		"rows":[`+row("0", 3, 3)+`,`+row("1", 2, 10)+`,
			{"key":[],"source":"non-leaf","values":[
				{"key":["count()"],"value":5,"rollup":true,"source":"row-inner"},
				{"key":["avg(took)"],"value":4.75,"rollup":true,"source":"row-inner"}]}]}`)
}

func TestSyncPivotColumns(t *testing.T) {
	h, _ := pivotEnv(t)
	rec := routertest.Serve(h, routertest.Principal(t, "streams:read:*"), "POST", "/views/search/sync", syncBody(
		`{"id":"p1","type":"pivot","row_groups":[{"type":"values","field":"source","limit":2}],`+
			`"column_groups":[{"type":"time","field":"timestamp","interval":{"type":"timeunit","timeunit":"1m"}}],`+
			`"series":[{"type":"count","id":"count()"}],"rollup":true}`))
	routertest.WantStatus(t, rec, http.StatusOK)
	sameJSON(t, gjson.Get(rec.Body.String(), "results.q1.search_types.p1.rows").Raw, `[
		{"key":["a"],"source":"leaf","values":[
			{"key":["2024-03-04T10:00:00.000Z","count()"],"value":2,"rollup":false,"source":"col-leaf"},
			{"key":["2024-03-04T10:01:00.000Z","count()"],"value":1,"rollup":false,"source":"col-leaf"},
			{"key":["count()"],"value":3,"rollup":true,"source":"col-inner"}]},
		{"key":["b"],"source":"leaf","values":[
			{"key":["2024-03-04T10:00:00.000Z","count()"],"value":1,"rollup":false,"source":"col-leaf"},
			{"key":["count()"],"value":1,"rollup":true,"source":"col-inner"}]},
		{"key":[],"source":"non-leaf","values":[{"key":["count()"],"value":5,"rollup":true,"source":"row-inner"}]}]`)
}

// TestSyncPivotVariants covers the other request forms: no rollup, the
// widget form, sorting, no groups, a search type's own query and streams.
func TestSyncPivotVariants(t *testing.T) {
	h, _ := pivotEnv(t)
	for _, c := range []struct {
		name, types, path, want string
		perms                   []string
	}{
		{"no rollup", `{"id":"p1","type":"pivot","row_groups":[{"type":"values","field":"source"}],"series":[{"type":"count","id":"n"}],"rollup":false}`,
			"results.q1.search_types.p1.rows", `[
			{"key":["a"],"source":"leaf","values":[{"key":["n"],"value":3,"rollup":true,"source":"row-leaf"}]},
			{"key":["b"],"source":"leaf","values":[{"key":["n"],"value":1,"rollup":true,"source":"row-leaf"}]},
			{"key":["c"],"source":"leaf","values":[{"key":["n"],"value":1,"rollup":true,"source":"row-leaf"}]}]`, nil},
		{"widget form sorted by max", `{"id":"p1","type":"pivot","row_pivots":[{"type":"values","field":"source","config":{"limit":2}}],` +
			`"series":[{"function":"max(took)"}],"sort":[{"type":"series","field":"max(took)","direction":"Descending"}],"rollup":false}`,
			"results.q1.search_types.p1.rows.#.key.0", `["c","b"]`, nil},
		{"sorted by value", `{"id":"p1","type":"pivot","row_groups":[{"type":"values","field":"source"}],` +
			`"series":[],"sort":[{"type":"pivot","field":"source","direction":"Descending"}],"rollup":false}`,
			"results.q1.search_types.p1.rows.#.key.0", `["c","b","a"]`, nil},
		{"no groups", `{"id":"p1","type":"pivot","series":[{"type":"card","field":"source"},{"type":"latest","field":"source"},{"type":"stddev","field":"nothing"}],"rollup":true}`,
			"results.q1.search_types.p1.rows", `[{"key":[],"source":"leaf","values":[
			{"key":["card(source)"],"value":3,"rollup":true,"source":"row-leaf"},
			{"key":["latest(source)"],"value":"c","rollup":true,"source":"row-leaf"},
			{"key":["stddev(nothing)"],"value":null,"rollup":true,"source":"row-leaf"}]}]`, nil},
		{"own query", `{"id":"p1","type":"pivot","query":{"type":"elasticsearch","query_string":"source:a"},"series":[{"type":"sum","field":"took"}],"rollup":true}`,
			"results.q1.search_types.p1.rows.0.values.0.value", `4`, nil},
		{"auto interval", `{"id":"p1","type":"pivot","row_groups":[{"type":"time","field":"timestamp","interval":{"type":"auto","scaling":0.5}}],"series":[],"rollup":false}`,
			// 5 min × 0.5 gets 5 s buckets, from the first message's to the last's.
			"results.q1.search_types.p1.rows.#.key.0", every5s(10, 110), nil},
		{"only readable streams", `{"id":"p1","type":"pivot","series":[{"type":"count"}],"rollup":true}`,
			"results.q1.search_types.p1.total", `1`, []string{"streams:read:" + webStream}},
		{"no match", `{"id":"p1","type":"pivot","query":{"type":"elasticsearch","query_string":"source:zzz"},"row_groups":[{"type":"values","field":"source"}],"series":[{"type":"count"}],"rollup":false}`,
			"results.q1.search_types.p1", `{"id":"p1","type":"pivot","total":0,"effective_timerange":{"type":"absolute","from":"2024-03-04T10:00:00.000Z","to":"2024-03-04T10:05:00.000Z"}}`, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			perms := c.perms
			if perms == nil {
				perms = []string{"streams:read:*"}
			}
			rec := routertest.Serve(h, routertest.Principal(t, perms...), "POST", "/views/search/sync", syncBody(c.types))
			routertest.WantStatus(t, rec, http.StatusOK)
			sameJSON(t, gjson.Get(rec.Body.String(), c.path).Raw, c.want)
		})
	}
}

// repeated is n copies of s, separated by commas.
func repeated(s string, n int) string {
	return strings.TrimSuffix(strings.Repeat(s+",", n), ",")
}

// TestSyncPivotErrors: invalid pivots, and requests asking for more than
// one search may build in memory, are 400s.
func TestSyncPivotErrors(t *testing.T) {
	h, _ := pivotEnv(t)
	for _, c := range []struct {
		name, types string
		status      int
		msg         string
	}{
		{"bad timeunit", `{"id":"p","type":"pivot","row_groups":[{"type":"time","interval":{"type":"timeunit","timeunit":"1y"}}]}`, 400, "Invalid row group: time unit \"1y\""},
		{"bad interval type", `{"id":"p","type":"pivot","row_groups":[{"type":"time","interval":{"type":"weekly"}}]}`, 400, "unknown interval type"},
		{"bad scaling", `{"id":"p","type":"pivot","row_groups":[{"type":"time","interval":{"type":"auto","scaling":-1}}]}`, 400, "scaling"},
		{"other time field", `{"id":"p","type":"pivot","row_groups":[{"type":"time","field":"created"}]}`, 400, "time groups are by timestamp"},
		{"values without field", `{"id":"p","type":"pivot","row_groups":[{"type":"values"}]}`, 400, "a values group needs a field"},
		{"zero limit", `{"id":"p","type":"pivot","column_groups":[{"type":"values","field":"source","limit":0}]}`, 400, "Invalid column group: the limit"},
		{"unknown group", `{"id":"p","type":"pivot","row_groups":[{"type":"geo","field":"ip"}]}`, 400, "unknown group type"},
		{"unknown series", `{"id":"p","type":"pivot","series":[{"type":"median","field":"took"}]}`, 400, "unknown series type"},
		{"percentile", `{"id":"p","type":"pivot","series":[{"type":"percentile","field":"took","percentile":95}]}`, 400, "percentile is not supported"},
		{"series without field", `{"id":"p","type":"pivot","series":[{"type":"avg"}]}`, 400, "needs a field"},
		{"bad function", `{"id":"p","type":"pivot","series":[{"function":"avg"}]}`, 400, "must be <type>(<field>)"},
		{"bad sort", `{"id":"p","type":"pivot","sort":[{"type":"random","field":"x"}]}`, 400, "unknown type"},
		{"sort by missing series", `{"id":"p","type":"pivot","row_groups":[{"type":"values","field":"source"}],"sort":[{"type":"series","field":"avg(x)"}]}`, 400, "no such series"},
		{"unknown search type", `{"id":"p","type":"events"}`, 400, "Unsupported search type"},
		{"too many groups", `{"id":"p","type":"pivot","row_groups":[` + repeated(`{"type":"values","field":"source"}`, MaxGroupings+1) + `]}`, 400, "at most 16 row and column groups"},
		{"too many series", `{"id":"p","type":"pivot","series":[` + repeated(`{"type":"count"}`, MaxSeries+1) + `]}`, 400, "at most 64 series"},
		{"too many messages", repeated(`{"id":"m","type":"messages","limit":10000}`, 3), 400, "at most 20000 messages together"},
		{"too many search types", repeated(`{"id":"m","type":"messages","limit":1}`, MaxSearchTypes+1), 400, "at most 256 search types"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := routertest.Serve(h, routertest.Principal(t, "streams:read:*"), "POST", "/views/search/sync", syncBody(c.types))
			routertest.WantStatus(t, rec, c.status)
			if msg := gjson.Get(rec.Body.String(), "message").String(); !strings.Contains(msg, c.msg) {
				t.Errorf("message %q, want it to contain %q", msg, c.msg)
			}
		})
	}
	t.Run("forbidden stream", func(t *testing.T) {
		rec := routertest.Serve(h, routertest.Principal(t, "streams:read:"+webStream), "POST", "/views/search/sync", syncBody(
			`{"id":"p","type":"pivot","streams":["`+defaultStream+`"],"series":[{"type":"count"}]}`))
		routertest.WantStatus(t, rec, http.StatusForbidden)
		if typ := gjson.Get(rec.Body.String(), "type").String(); typ != "MissingStreamPermission" {
			t.Errorf("type %q, want MissingStreamPermission: %s", typ, rec.Body)
		}
	})
	t.Run("query syntax", func(t *testing.T) {
		rec := routertest.Serve(h, routertest.Principal(t, "streams:read:*"), "POST", "/views/search/sync", syncBody(
			`{"id":"p","type":"pivot","query":{"type":"elasticsearch","query_string":"source:(a"},"series":[{"type":"count"}]}`))
		routertest.WantStatus(t, rec, http.StatusBadRequest)
		if !strings.Contains(rec.Body.String(), "Cannot parse") && !gjson.Get(rec.Body.String(), "line").Exists() {
			t.Errorf("not a query parse error: %s", rec.Body)
		}
	})
}

// every5s lists the 5 s buckets from second a to second b after pivotBase.
func every5s(a, b int) string {
	var keys []string
	for s := a; s <= b; s += 5 {
		keys = append(keys, pivotBase.Add(time.Duration(s)*time.Second).Format(messages.TimeLayout))
	}
	out, _ := json.Marshal(keys)
	return string(out)
}

// TestPivotValuesBounded: the values the pivots of one request answer are
// bounded together. Empty time buckets are filled in and every series
// multiplies them: one pivot of a 1 ms interval and 64 series over two
// messages a minute apart answered 220 MB (and a request may hold 256
// pivots). Within the bound, a histogram of the most buckets still runs.
func TestPivotValuesBounded(t *testing.T) {
	msgs := generated(2)
	msgs[1].Timestamp = msgs[0].Timestamp.Add(60 * time.Second)
	e := newEnv(t, msgs, msgs[1].Timestamp.Add(time.Second), Options{})
	h := NewHandler(e.svc)
	pivot := func(id string, series int) string {
		var ss []string
		for i := range series {
			ss = append(ss, fmt.Sprintf(`{"type":"count","id":"c%d"}`, i))
		}
		return `{"id":"` + id + `","type":"pivot","rollup":true,"column_groups":[],"sort":[],` +
			`"row_groups":[{"type":"time","field":"timestamp","interval":{"type":"timeunit","timeunit":"1ms"}}],` +
			`"series":[` + strings.Join(ss, ",") + `]}`
	}
	query := func(types ...string) json.RawMessage {
		return json.RawMessage(`{"id":"q1","query":{"type":"elasticsearch","query_string":""},"timerange":{"type":"relative","range":0},` +
			`"search_types":[` + strings.Join(types, ",") + `]}`)
	}
	_, err := h.RunQuery(WithRequestSize(as(t, "*")), query(pivot("p", MaxSeries)), e.now)
	if api.ErrorCode(err) != api.Invalid || !strings.Contains(err.Error(), "at most") {
		t.Errorf("64 series over 60,001 buckets: %v, want a 400", err)
	}
	if _, err := h.RunQuery(WithRequestSize(as(t, "*")), query(pivot("p", 1)), e.now); err != nil {
		t.Errorf("one series over 60,001 buckets: %v", err)
	}
	// Together, across the queries of one request.
	ctx := WithRequestSize(as(t, "*"))
	var types []string
	for i := range 9 {
		types = append(types, pivot(fmt.Sprint("p", i), 1))
	}
	if _, err := h.RunQuery(ctx, query(types...), e.now); api.ErrorCode(err) != api.Invalid {
		t.Errorf("nine histograms of 60,001 buckets: %v, want a 400", err)
	}
}

// TestRunQueryTakesAPlace: executing a stored search takes a place among
// the concurrent searches (search_max_concurrent), as every other search
// does; it ran beside them without one.
func TestRunQueryTakesAPlace(t *testing.T) {
	e := newEnv(t, generated(100), generated(100)[99].Timestamp.Add(time.Minute),
		Options{MaxConcurrent: 1, MaxQueueDuration: 50 * time.Millisecond})
	h := NewHandler(e.svc)
	_, release, err := e.svc.gate.admit(context.Background()) // another search holds the only place
	if err != nil {
		t.Fatal(err)
	}
	q := json.RawMessage(`{"id":"q1","query":{"type":"elasticsearch","query_string":""},"timerange":{"type":"relative","range":0},` +
		`"search_types":[{"id":"m","type":"messages","limit":10}]}`)
	if _, err := h.RunQuery(WithRequestSize(as(t, "*")), q, e.now); api.ErrorCode(err) != api.Unavailable {
		t.Errorf("RunQuery with every place taken: %v, want a 503", err)
	}
	release()
	if _, err := h.RunQuery(WithRequestSize(as(t, "*")), q, e.now); err != nil {
		t.Errorf("RunQuery with a place free: %v", err)
	}
}
