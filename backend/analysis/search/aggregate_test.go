package search

import (
	"errors"
	"math"
	"slices"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/logs/messages/messagestest"
	"github.com/loggate/loggate/router/api"
)

// stats computes the series of msgs the slow way, as the reference.
func refStats(msgs []*messages.Message, field string) (count, present int64, sum, min, max, mean, variance float64, card int64) {
	seen := map[string]bool{}
	var n float64
	var sumsq float64
	min, max = math.Inf(1), math.Inf(-1)
	for _, m := range msgs {
		count++
		v, ok := m.Get(field)
		if !ok {
			continue
		}
		present++
		seen[messages.FormatValue(v)] = true
		var x float64
		switch v := v.(type) {
		case int64:
			x = float64(v)
		case float64:
			x = v
		default:
			continue
		}
		n++
		sum += x
		sumsq += x * x
		min, max = math.Min(min, x), math.Max(max, x)
	}
	if n > 0 {
		mean = sum / n
		variance = sumsq/n - mean*mean
	}
	return count, present, sum, min, max, mean, variance, int64(len(seen))
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func wantFloat(t *testing.T, what string, got any, want float64) {
	t.Helper()
	x, ok := got.(float64)
	if !ok || !near(x, want) {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

func group(msgs []messages.Message, keep func(*messages.Message) bool, key func(*messages.Message) string) map[string][]*messages.Message {
	out := map[string][]*messages.Message{}
	for i := range msgs {
		m := &msgs[i]
		if keep(m) {
			out[key(m)] = append(out[key(m)], m)
		}
	}
	return out
}

// TestAggregateDateHistogram checks every series in every minute bucket
// against a computation over the generated messages, with pages small
// enough that page boundaries fall inside milliseconds shared by several
// messages.
func TestAggregateDateHistogram(t *testing.T) {
	msgs := generated(3000)
	e := newEnv(t, msgs, msgs[len(msgs)-1].Timestamp.Add(time.Minute), Options{aggregatePage: 97})
	from, to := msgs[500].Timestamp, msgs[2600].Timestamp
	series := []Series{{Type: "count"}, {Type: "avg", Field: "took"}, {Type: "max", Field: "bytes"}, {Type: "min", Field: "bytes"},
		{Type: "sum", Field: "bytes"}, {Type: "variance", Field: "took"}, {Type: "stddev", Field: "took"}, {Type: "card", Field: "source"}, {Type: "count", Field: "trace_id"}}
	res, err := e.svc.Aggregate(as(t, "streams:read:*"), Request{Query: "*", Range: TimeRange{From: from, To: to}},
		Aggregation{Rows: []Grouping{{Time: true, Interval: Interval{1, "m"}}}, Series: series})
	if err != nil {
		t.Fatal(err)
	}
	inRange := func(m *messages.Message) bool { return !m.Timestamp.Before(from) && !m.Timestamp.After(to) }
	want := group(msgs, inRange, func(m *messages.Message) string { return m.Timestamp.Truncate(time.Minute).Format(messages.TimeLayout) })
	n := 0
	for _, ms := range want {
		n += len(ms)
	}
	if res.Total != int64(n) || res.Root.Count != res.Total || n < 2101 {
		t.Errorf("total %d, root %d; want %d", res.Total, res.Root.Count, n)
	}
	if len(res.Root.Buckets) != len(want) {
		t.Fatalf("%d buckets, want %d", len(res.Root.Buckets), len(want))
	}
	for i, b := range res.Root.Buckets {
		if i > 0 && b.Key <= res.Root.Buckets[i-1].Key {
			t.Errorf("bucket %s after %s", b.Key, res.Root.Buckets[i-1].Key)
		}
		ms := want[b.Key]
		count, _, _, _, _, tookMean, tookVar, _ := refStats(ms, "took")
		_, _, bytesSum, bytesMin, bytesMax, _, _, _ := refStats(ms, "bytes")
		_, _, _, _, _, _, _, sources := refStats(ms, "source")
		_, traces, _, _, _, _, _, _ := refStats(ms, "trace_id")
		if b.Count != count || b.Values[0] != count {
			t.Errorf("%s: count %d (%v), want %d", b.Key, b.Count, b.Values[0], count)
		}
		wantFloat(t, b.Key+" avg(took)", b.Values[1], tookMean)
		wantFloat(t, b.Key+" max(bytes)", b.Values[2], bytesMax)
		wantFloat(t, b.Key+" min(bytes)", b.Values[3], bytesMin)
		wantFloat(t, b.Key+" sum(bytes)", b.Values[4], bytesSum)
		wantFloat(t, b.Key+" variance(took)", b.Values[5], tookVar)
		wantFloat(t, b.Key+" stddev(took)", b.Values[6], math.Sqrt(tookVar))
		if b.Values[7] != sources || b.Values[8] != traces {
			t.Errorf("%s: card(source) %v count(trace_id) %v, want %d %d", b.Key, b.Values[7], b.Values[8], sources, traces)
		}
	}
}

// TestAggregateValues checks top values with nested columns, a query and
// orders against the reference.
func TestAggregateValues(t *testing.T) {
	msgs := generated(2000)
	e := newEnv(t, msgs, msgs[len(msgs)-1].Timestamp, Options{aggregatePage: 300})
	nginx := func(m *messages.Message) bool { s, _ := m.String("facility"); return s == "nginx" }
	str := func(f string) func(m *messages.Message) string {
		return func(m *messages.Message) string { s, _ := m.String(f); return s }
	}
	for _, c := range []struct {
		name  string
		sort  []Order
		order func(a, b string, by map[string][]*messages.Message) int
	}{
		{"by count", nil, func(a, b string, by map[string][]*messages.Message) int {
			if d := len(by[b]) - len(by[a]); d != 0 {
				return d
			}
			return compareKeys(a, b)
		}},
		{"by value descending", []Order{{Field: "http_status", Desc: true}}, func(a, b string, _ map[string][]*messages.Message) int { return -compareKeys(a, b) }},
		{"by sum ascending", []Order{{Series: "sum(bytes)"}}, func(a, b string, by map[string][]*messages.Message) int {
			_, _, x, _, _, _, _, _ := refStats(by[a], "bytes")
			_, _, y, _, _, _, _, _ := refStats(by[b], "bytes")
			if x != y {
				return compareValues(x, y)
			}
			return compareKeys(a, b)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := e.svc.Aggregate(as(t, "streams:read:*"), Request{Query: "facility:nginx", Range: TimeRange{To: e.now}}, Aggregation{
				Rows:    []Grouping{{Field: "http_status", Limit: 4}},
				Columns: []Grouping{{Field: "http_method", Limit: 2}},
				Series:  []Series{{Type: "count"}, {Type: "sum", Field: "bytes"}},
				Sort:    c.sort,
			})
			if err != nil {
				t.Fatal(err)
			}
			by := group(msgs, nginx, str("http_status"))
			keys := make([]string, 0, len(by))
			for k := range by {
				keys = append(keys, k)
			}
			slices.SortFunc(keys, func(a, b string) int { return c.order(a, b, by) })
			var got []string
			for _, b := range res.Root.Buckets {
				got = append(got, b.Key)
				if b.Count != int64(len(by[b.Key])) {
					t.Errorf("%s: count %d, want %d", b.Key, b.Count, len(by[b.Key]))
				}
				methods := group(msgs, func(m *messages.Message) bool { return nginx(m) && str("http_status")(m) == b.Key }, str("http_method"))
				mkeys := make([]string, 0, len(methods))
				for k := range methods {
					mkeys = append(mkeys, k)
				}
				slices.SortFunc(mkeys, func(a, b string) int { return c.order(a, b, methods) })
				var gotMethods []string
				for _, mb := range b.Buckets {
					gotMethods = append(gotMethods, mb.Key)
					_, _, sum, _, _, _, _, _ := refStats(methods[mb.Key], "bytes")
					wantFloat(t, b.Key+"/"+mb.Key+" sum(bytes)", mb.Values[1], sum)
				}
				// Sorting by the http_status value does not order methods:
				// they come by count.
				if c.sort != nil && c.sort[0].Field != "" {
					slices.SortFunc(mkeys, func(a, b string) int {
						return cmpOrInt(len(methods[b])-len(methods[a]), compareKeys(a, b))
					})
				}
				if want := mkeys[:min(2, len(mkeys))]; !slices.Equal(gotMethods, want) {
					t.Errorf("%s: methods %v, want %v", b.Key, gotMethods, want)
				}
			}
			if want := keys[:4]; !slices.Equal(got, want) {
				t.Errorf("statuses %v, want %v", got, want)
			}
		})
	}
}

func cmpOrInt(a, b int) int {
	if a != 0 {
		return a
	}
	return b
}

// TestAggregateStreams checks that an aggregation sees only the streams
// the caller may read, and that a stream filter is checked as Search does.
func TestAggregateStreams(t *testing.T) {
	msgs := generated(1500)
	e := newEnv(t, msgs, msgs[len(msgs)-1].Timestamp, Options{})
	web := 0
	for _, m := range msgs {
		if slices.Contains(m.Streams, webStream) {
			web++
		}
	}
	agg := Aggregation{Rows: []Grouping{{Field: "streams"}}, Series: []Series{{Type: "count"}}}
	res, err := e.svc.Aggregate(as(t, "streams:read:"+webStream), Request{Query: "*", Range: TimeRange{To: e.now}}, agg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Total != int64(web) || web == len(msgs) {
		t.Errorf("total %d, want the web stream's %d of %d", res.Total, web, len(msgs))
	}
	// The web stream's messages are in the default stream too: a values
	// group on a list field counts each element.
	counts := map[string]int64{}
	for _, b := range res.Root.Buckets {
		counts[b.Key] = b.Count
	}
	if counts[webStream] != int64(web) || counts[defaultStream] != int64(web) || len(counts) != 2 {
		t.Errorf("stream buckets %v, want %d each", counts, web)
	}
	_, err = e.svc.Aggregate(as(t, "streams:read:"+webStream), Request{Query: "*", Range: TimeRange{To: e.now}, Streams: []string{defaultStream}}, agg)
	if api.ErrorCode(err) != api.Forbidden {
		t.Errorf("filter on an unreadable stream: %v, want 403", err)
	}
}

// TestAggregateLimits checks the bounds: messages read, buckets answered.
func TestAggregateLimits(t *testing.T) {
	msgs := generated(500)
	e := newEnv(t, msgs, msgs[len(msgs)-1].Timestamp, Options{MaxAggregated: 499, MaxBuckets: 20})
	ctx := as(t, "streams:read:*")
	all := Request{Query: "*", Range: TimeRange{To: e.now}}
	_, err := e.svc.Aggregate(ctx, all, Aggregation{Series: []Series{{Type: "count"}}})
	var ae *api.Error
	if !errors.As(err, &ae) || ae.Code != api.Invalid {
		t.Fatalf("500 messages over a limit of 499: %v, want 400", err)
	}
	some := Request{Query: "facility:nginx", Range: TimeRange{To: e.now}}
	if _, err := e.svc.Aggregate(ctx, some, Aggregation{Series: []Series{{Type: "count"}}}); err != nil {
		t.Errorf("fewer matches than the limit: %v", err)
	}
	_, err = e.svc.Aggregate(ctx, some, Aggregation{Rows: []Grouping{{Time: true, Interval: Interval{1, "ms"}}}})
	if api.ErrorCode(err) != api.Invalid {
		t.Errorf("millisecond buckets over 20 buckets: %v, want 400", err)
	}
	if _, err := e.svc.Aggregate(ctx, some, Aggregation{Rows: []Grouping{{Time: true, Interval: Interval{1, "h"}}}}); err != nil {
		t.Errorf("one hour bucket: %v", err)
	}
	_, err = e.svc.Aggregate(ctx, some, Aggregation{Rows: []Grouping{{Field: "source"}}, Sort: []Order{{Series: "avg(nothing)"}}})
	if api.ErrorCode(err) != api.Invalid {
		t.Errorf("sort by a series the pivot lacks: %v, want 400", err)
	}
}

// TestAggregateEmptyBuckets checks the empty time buckets between the
// first and the last, and undefined series in them.
func TestAggregateEmptyBuckets(t *testing.T) {
	base := time.Date(2024, 3, 4, 10, 0, 0, 0, time.UTC)
	var msgs []messages.Message
	for i, minute := range []int{0, 0, 3, 5} {
		msgs = append(msgs, messages.Message{ID: "m" + strconv.Itoa(i), Timestamp: base.Add(time.Duration(minute) * time.Minute),
			Streams: []string{defaultStream}, Fields: []messages.Field{{Key: "took", Value: float64(i)}}})
	}
	e := newEnv(t, msgs, base.Add(time.Hour), Options{})
	res, err := e.svc.Aggregate(as(t, "streams:read:*"), Request{Query: "*", Range: TimeRange{From: base.Add(-time.Hour), To: base.Add(time.Hour)}},
		Aggregation{Rows: []Grouping{{Time: true, Interval: Interval{2, "m"}}}, Series: []Series{{Type: "count"}, {Type: "avg", Field: "took"}}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range res.Root.Buckets {
		got = append(got, b.Key[11:16]+"="+strconv.FormatInt(b.Count, 10)+"/"+messages.FormatValue(b.Values[1]))
	}
	want := []string{"10:00=2/0.5", "10:02=1/2", "10:04=1/3"}
	if !slices.Equal(got, want) {
		t.Errorf("buckets %v, want %v", got, want)
	}
	res, err = e.svc.Aggregate(as(t, "streams:read:*"), Request{Query: "*", Range: TimeRange{From: base.Add(-time.Hour), To: base.Add(time.Hour)}},
		Aggregation{Rows: []Grouping{{Time: true, Interval: Interval{1, "m"}}}, Series: []Series{{Type: "avg", Field: "took"}, {Type: "sum", Field: "took"}}})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(res.Root.Buckets); n != 6 {
		t.Fatalf("%d minute buckets, want 6", n)
	}
	if b := res.Root.Buckets[1]; b.Count != 0 || b.Values[0] != nil || b.Values[1] != 0.0 {
		t.Errorf("empty bucket %+v, want count 0, avg null, sum 0", b)
	}
}

// TestScanTies pages through messages that share one millisecond.
func TestScanTies(t *testing.T) {
	at := time.Date(2024, 3, 4, 10, 0, 0, 0, time.UTC)
	var msgs []messages.Message
	for i := range 45 {
		ts := at
		if i >= 30 {
			ts = at.Add(time.Duration(i) * time.Millisecond)
		}
		msgs = append(msgs, messages.Message{ID: "id-" + strconv.Itoa(100+i), Timestamp: ts, Streams: []string{defaultStream}})
	}
	e := newEnv(t, msgs, at.Add(time.Hour), Options{aggregatePage: 7})
	var seen []string
	total, err := e.svc.scan(as(t, "streams:read:*"), Request{Query: "*", Range: TimeRange{To: e.now}}, func(m *messages.Message) error {
		seen = append(seen, m.ID)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sorted := slices.Clone(seen)
	sort.Strings(sorted)
	if total != 45 || len(seen) != 45 || len(slices.Compact(sorted)) != 45 {
		t.Errorf("total %d, saw %d messages (%d distinct)", total, len(seen), len(slices.Compact(sorted)))
	}
}

// TestAutoInterval checks Graylog's auto interval table at its edges.
func TestAutoInterval(t *testing.T) {
	to := messagestest.BenchStart
	for _, c := range []struct {
		length  time.Duration
		scaling float64
		want    string
	}{
		{20 * time.Millisecond, 1, "1ms"},
		{21 * time.Millisecond, 1, "5ms"},
		{5 * time.Minute, 1, "10s"},
		{time.Hour, 1, "1m"},
		{time.Hour + time.Millisecond, 1, "2m"},
		{time.Hour, 2, "2m"},
		{24 * time.Hour, 1, "30m"},
		{30 * 24 * time.Hour, 1, "1d"},
		{365 * 24 * time.Hour, 1, "1w"},
		{400 * 24 * time.Hour, 1, "14d"},
		{730 * 24 * time.Hour, 1, "1M"},
	} {
		if got := AutoInterval(TimeRange{From: to.Add(-c.length), To: to}, c.scaling); got.String() != c.want {
			t.Errorf("%v × %v: %s, want %s", c.length, c.scaling, got, c.want)
		}
	}
	if got := AutoInterval(TimeRange{To: to}, 1); got.String() != "1M" {
		t.Errorf("all time: %s, want 1M", got)
	}
}

func TestParseTimeUnit(t *testing.T) {
	for in, want := range map[string]string{"1m": "1m", "15s": "15s", "250ms": "250ms", "1w": "1w", "2w": "14d", "1M": "1M", "3M": "90d", "12h": "12h"} {
		got, err := ParseTimeUnit(in)
		if err != nil || got.String() != want {
			t.Errorf("ParseTimeUnit(%q) = %s, %v; want %s", in, got, err, want)
		}
	}
	for _, in := range []string{"", "m", "0m", "-1m", "1", "1y", "1 m", "1mm", "99999999999999999999s", "200000d"} {
		if got, err := ParseTimeUnit(in); err == nil {
			t.Errorf("ParseTimeUnit(%q) = %s, want an error", in, got)
		}
	}
}

// TestIntervalBuckets checks bucket starts: calendar weeks from Monday,
// calendar months, fixed lengths from the epoch.
func TestIntervalBuckets(t *testing.T) {
	at := time.Date(2024, 3, 14, 15, 47, 12, 345e6, time.UTC) // a Thursday
	for _, c := range []struct {
		iv         Interval
		start, nxt string
	}{
		{Interval{1, "w"}, "2024-03-11T00:00:00.000Z", "2024-03-18T00:00:00.000Z"},
		{Interval{1, "M"}, "2024-03-01T00:00:00.000Z", "2024-04-01T00:00:00.000Z"},
		{Interval{1, "d"}, "2024-03-14T00:00:00.000Z", "2024-03-15T00:00:00.000Z"},
		{Interval{15, "m"}, "2024-03-14T15:45:00.000Z", "2024-03-14T16:00:00.000Z"},
		// Day 19796 of the epoch is a multiple of 14.
		{Interval{14, "d"}, "2024-03-14T00:00:00.000Z", "2024-03-28T00:00:00.000Z"},
		{Interval{3, "d"}, "2024-03-12T00:00:00.000Z", "2024-03-15T00:00:00.000Z"}, // 19796 = 3×6598 + 2
		{Interval{200, "ms"}, "2024-03-14T15:47:12.200Z", "2024-03-14T15:47:12.400Z"},
	} {
		s := c.iv.start(at.UnixMilli())
		if got := time.UnixMilli(s).UTC().Format(messages.TimeLayout); got != c.start {
			t.Errorf("%s start = %s, want %s", c.iv, got, c.start)
		}
		if got := time.UnixMilli(c.iv.next(s)).UTC().Format(messages.TimeLayout); got != c.nxt {
			t.Errorf("%s next = %s, want %s", c.iv, got, c.nxt)
		}
	}
	if s := (Interval{1, "h"}).start(-1); s != -3600000 {
		t.Errorf("bucket of 1 ms before the epoch starts at %d, want -3600000", s)
	}
}

func TestParseSeries(t *testing.T) {
	for in, want := range map[string]Series{
		"count()":        {ID: "count()", Type: "count"},
		"avg(took)":      {ID: "avg(took)", Type: "avg", Field: "took"},
		" card(source) ": {ID: "card(source)", Type: "card", Field: "source"},
		"count(trace)":   {ID: "count(trace)", Type: "count", Field: "trace"},
	} {
		if got, err := ParseSeries(in); err != nil || got != want {
			t.Errorf("ParseSeries(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "count", "avg()", "percentile(took)", "median(took)", "(took)", "avg(a(b))"} {
		if got, err := ParseSeries(in); err == nil {
			t.Errorf("ParseSeries(%q) = %+v, want an error", in, got)
		}
	}
}

func TestSeriesValues(t *testing.T) {
	var f fieldStats
	for i, v := range []any{int64(1), 2.0, int64(3), 4.0, "n/a"} {
		f.add(v, int64(i), true)
	}
	for typ, want := range map[string]any{
		"count": int64(5), "sum": 10.0, "min": 1.0, "max": 4.0, "avg": 2.5, "sumofsquares": 30.0,
		"variance": 1.25, "stddev": math.Sqrt(1.25), "card": int64(5), "latest": "n/a",
	} {
		if got := seriesValue(typ, 9, &f, true); got != want {
			t.Errorf("%s = %v (%T), want %v", typ, got, got, want)
		}
	}
	if got := seriesValue("count", 9, &f, false); got != int64(9) {
		t.Errorf("count() = %v, want the bucket's 9", got)
	}
	var none fieldStats
	for _, typ := range []string{"avg", "min", "max", "variance", "stddev", "sumofsquares"} {
		if got := seriesValue(typ, 0, &none, true); got != nil {
			t.Errorf("%s of nothing = %v, want nil", typ, got)
		}
	}
}
