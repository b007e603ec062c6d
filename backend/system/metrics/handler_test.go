package metrics_test

import (
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/mux"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/backend/system/metrics"
	"github.com/loggate/loggate/router/api"
	"github.com/loggate/loggate/router/routertest"
)

func newRouter(reg *metrics.Registry) http.Handler { return routertest.Handler(reg.Routes()) }

func principal(t testing.TB, perms ...string) *auth.Principal {
	t.Helper()
	return routertest.Principal(t, perms...)
}

// handlerRegistry is sampleRegistry's kinds under a namespace, plus
// neighbours that namespace queries must tell apart.
func handlerRegistry() *metrics.Registry {
	clk := newFakeClock()
	r := metrics.New(clk.now)
	r.Counter("a.b").Inc(2)
	r.Counter("a.c").Inc(5)
	r.Gauge("a.gauge", func() any { return 7 })
	r.Meter("a.m").Mark(5)
	for _, v := range []int64{4, 1, 3, 2} {
		r.Histogram("a.h").Update(v)
		r.Timer("a.t").Update(time.Duration(v) * time.Millisecond)
	}
	r.Counter("ab.c").Inc(1)
	r.Counter("b.x").Inc(1)
	r.Counter("names").Inc(9)
	clk.set(6 * time.Second)
	return r
}

func serve(t testing.TB, h http.Handler, p *auth.Principal, method, path, body string) *httptest.ResponseRecorder {
	t.Helper()
	return routertest.Serve(h, p, method, "/system/metrics"+path, body)
}

type list struct {
	Total   int `json:"total"`
	Metrics []struct {
		FullName string          `json:"full_name"`
		Name     string          `json:"name"`
		Type     string          `json:"type"`
		Metric   json.RawMessage `json:"metric"`
	} `json:"metrics"`
}

func (l list) names() []string {
	var out []string
	for _, m := range l.Metrics {
		out = append(out, m.FullName)
	}
	return out
}

func decodeList(t *testing.T, body []byte) list {
	t.Helper()
	var l list
	if err := json.Unmarshal(body, &l); err != nil {
		t.Fatalf("not a metrics list: %s: %v", body, err)
	}
	if l.Total != len(l.Metrics) {
		t.Errorf("total = %d for %d metrics", l.Total, len(l.Metrics))
	}
	return l
}

func TestRoutes(t *testing.T) {
	h := newRouter(handlerRegistry())
	admin := principal(t, "metrics:*")
	reader := principal(t, "metrics:read:a.b")
	other := principal(t, "users:read")
	apiError := func(msg string) func(t *testing.T, body []byte) {
		return func(t *testing.T, body []byte) {
			t.Helper()
			var e api.ErrorBody
			if err := json.Unmarshal(body, &e); err != nil || e.Type != "ApiError" || e.Message != msg {
				t.Errorf("body = %s, want an ApiError %q", body, msg)
			}
		}
	}
	listOf := func(names ...string) func(t *testing.T, body []byte) {
		return func(t *testing.T, body []byte) {
			t.Helper()
			if got := decodeList(t, body).names(); !slices.Equal(got, names) {
				t.Errorf("metrics = %q, want %q", got, names)
			}
		}
	}
	tests := []struct {
		name         string
		p            *auth.Principal
		method, path string
		body         string
		status       int
		check        func(t *testing.T, body []byte)
	}{
		{"dump", admin, "GET", "", "", 200, func(t *testing.T, body []byte) {
			var d struct {
				Version  string
				Counters map[string]map[string]int
			}
			if err := json.Unmarshal(body, &d); err != nil || d.Version != "4.0.0" || d.Counters["a.c"]["count"] != 5 || len(d.Counters) != 5 {
				t.Errorf("dump = %s (%v)", body, err)
			}
		}},
		{"dump needs metrics:readall", reader, "GET", "", "", 403, apiError("Not authorized")},
		{"dump needs authentication", nil, "GET", "", "", 401, apiError("Not authenticated")},
		{"names", admin, "GET", "/names", "", 200, func(t *testing.T, body []byte) {
			var n struct{ Names []string }
			want := []string{"a.b", "a.c", "a.gauge", "a.h", "a.m", "a.t", "ab.c", "b.x", "names"}
			if err := json.Unmarshal(body, &n); err != nil || !slices.Equal(n.Names, want) {
				t.Errorf("names = %s, want %q", body, want)
			}
		}},
		{"names needs metrics:allkeys", reader, "GET", "/names", "", 403, apiError("Not authorized")},
		{"one", reader, "GET", "/a.b", "", 200, func(t *testing.T, body []byte) {
			if string(body) != `{"count":2}` {
				t.Errorf("body = %s, want {\"count\":2}", body)
			}
		}},
		{"one timer", admin, "GET", "/a.t", "", 200, func(t *testing.T, body []byte) {
			checkObject(t, body, timerKeys, map[string]any{"max": 0.004, "count": 4.0})
		}},
		{"one needs metrics:read:<name>", reader, "GET", "/a.c", "", 403, apiError("Not authorized")},
		{"one without permissions", other, "GET", "/a.b", "", 403, apiError("Not authorized")},
		{"one unknown", admin, "GET", "/a.zz", "", 404, apiError("I do not have a metric called [a.zz].")},
		{"namespace", admin, "GET", "/namespace/a.", "", 200, listOf("a.b", "a.c", "a.gauge", "a.h", "a.m", "a.t")},
		{"namespace is a string prefix", admin, "GET", "/namespace/a", "", 200, listOf("a.b", "a.c", "a.gauge", "a.h", "a.m", "a.t", "ab.c")},
		{"namespace filtered by permission", reader, "GET", "/namespace/a", "", 200, listOf("a.b")},
		{"namespace with nothing readable", reader, "GET", "/namespace/b", "", 404, apiError("No metrics with namespace [b] found.")},
		{"namespace unknown", admin, "GET", "/namespace/zz", "", 404, apiError("No metrics with namespace [zz] found.")},
		{"multiple in request order", admin, "POST", "/multiple", `{"metrics":["b.x","a.zz","a.b","names"]}`, 200, listOf("b.x", "a.b", "names")},
		{"multiple filtered by permission", reader, "POST", "/multiple", `{"metrics":["a.c","a.b"]}`, 200, listOf("a.b")},
		{"multiple ignores unknown properties", reader, "POST", "/multiple", `{"metrics":["a.b"],"extra":1}`, 200, listOf("a.b")},
		{"multiple empty", admin, "POST", "/multiple", `{"metrics":[]}`, 200, func(t *testing.T, body []byte) {
			if string(body) != `{"total":0,"metrics":[]}` {
				t.Errorf("body = %s", body)
			}
		}},
		{"multiple without metrics", admin, "POST", "/multiple", `{}`, 400, apiError("Missing required property metrics")},
		{"multiple without body", admin, "POST", "/multiple", ``, 400, apiError("Request body is mandatory")},
		{"multiple with a bad body", admin, "POST", "/multiple", `{"metrics":"a.b"}`, 400, apiError("Unable to parse JSON: property metrics must be an array, got a JSON string")},
		{"multiple needs authentication", nil, "POST", "/multiple", `{"metrics":["a.b"]}`, 401, apiError("Not authenticated")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := serve(t, h, tt.p, tt.method, tt.path, tt.body)
			if rec.Code != tt.status {
				t.Fatalf("status = %d, want %d; body %s", rec.Code, tt.status, rec.Body)
			}
			if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type = %q", ct)
			}
			tt.check(t, rec.Body.Bytes())
		})
	}
}

// TestListShapes checks Graylog's listing shapes (MetricUtils.map), which
// differ from metrics-json for meters, histograms and timers.
func TestListShapes(t *testing.T) {
	h := newRouter(handlerRegistry())
	rec := serve(t, h, principal(t, "metrics:*"), "POST", "/multiple", `{"metrics":["a.b","a.gauge","a.m","a.h","a.t","names"]}`)
	if rec.Code != 200 {
		t.Fatalf("status = %d; body %s", rec.Code, rec.Body)
	}
	for _, item := range bytesOfItems(t, rec.Body.Bytes()) {
		if got, want := keysOf(t, item), []string{"full_name", "name", "type", "metric"}; !slices.Equal(got, want) {
			t.Errorf("item keys = %q, want %q", got, want)
		}
	}
	rateKeys := []string{"total", "mean", "one_minute", "five_minute", "fifteen_minute"}
	timeKeys := []string{"max", "min", "mean", "95th_percentile", "98th_percentile", "99th_percentile", "std_dev"}
	tests := []struct {
		fullName, name, typ string
		keys                []string
		values              map[string]any
		nested              map[string][]string // keys of nested objects
		nestedValues        map[string]map[string]any
	}{
		{fullName: "a.b", name: "b", typ: "counter", keys: []string{"count"}, values: map[string]any{"count": 2.0}},
		{fullName: "a.gauge", name: "gauge", typ: "gauge", keys: []string{"value"}, values: map[string]any{"value": 7.0}},
		{
			fullName: "a.m", name: "m", typ: "meter", keys: []string{"rate", "rate_unit"},
			values:       map[string]any{"rate_unit": "events/second"},
			nested:       map[string][]string{"rate": rateKeys},
			nestedValues: map[string]map[string]any{"rate": {"total": 5.0, "one_minute": 1.0, "mean": 5 / 6.0}},
		},
		{
			fullName: "a.h", name: "h", typ: "histogram", keys: []string{"time", "count"},
			values:       map[string]any{"count": 4.0},
			nested:       map[string][]string{"time": timeKeys},
			nestedValues: map[string]map[string]any{"time": {"max": 4.0, "min": 1.0, "mean": 2.0, "95th_percentile": 4.0, "std_dev": 1.0}},
		},
		{
			// Whole microseconds: 2.5 ms mean, sqrt(1.25) ms deviation.
			fullName: "a.t", name: "t", typ: "timer", keys: []string{"time", "rate", "duration_unit", "rate_unit"},
			values: map[string]any{"duration_unit": "microseconds", "rate_unit": "events/second"},
			nested: map[string][]string{"time": timeKeys, "rate": rateKeys},
			nestedValues: map[string]map[string]any{
				"time": {"max": 4000.0, "min": 1000.0, "mean": 2500.0, "99th_percentile": 4000.0, "std_dev": math.Floor(math.Sqrt(1.25) * 1000)},
				"rate": {"total": 4.0, "one_minute": 0.8},
			},
		},
		{fullName: "names", name: "names", typ: "counter", keys: []string{"count"}, values: map[string]any{"count": 9.0}},
	}
	l := decodeList(t, rec.Body.Bytes())
	if len(l.Metrics) != len(tests) {
		t.Fatalf("%d metrics, want %d: %s", len(l.Metrics), len(tests), rec.Body)
	}
	for i, tt := range tests {
		t.Run(tt.fullName, func(t *testing.T) {
			got := l.Metrics[i]
			if got.FullName != tt.fullName || got.Name != tt.name || got.Type != tt.typ {
				t.Errorf("item = %s %s %s, want %s %s %s", got.FullName, got.Name, got.Type, tt.fullName, tt.name, tt.typ)
			}
			checkObject(t, got.Metric, tt.keys, tt.values)
			var nested map[string]json.RawMessage
			if err := json.Unmarshal(got.Metric, &nested); err != nil {
				t.Fatal(err)
			}
			for key, keys := range tt.nested {
				checkObject(t, nested[key], keys, tt.nestedValues[key])
			}
		})
	}
}

func bytesOfItems(t *testing.T, body []byte) []json.RawMessage {
	t.Helper()
	var l struct{ Metrics []json.RawMessage }
	if err := json.Unmarshal(body, &l); err != nil {
		t.Fatal(err)
	}
	return l.Metrics
}

// TestMultipleRepeatedNames: the answer of /multiple is bounded by the
// registry, not by the request body. An 8 MiB body repeating one gauge's
// name ~400,000 times used to read the gauge (the jvm.memory.heap.* gauges
// stop the world) and encode it that many times: seconds of stalls and a
// 35 MB answer for any caller with metrics:read.
func TestMultipleRepeatedNames(t *testing.T) {
	reg := handlerRegistry()
	var reads atomic.Int64
	reg.Gauge("a.costly", func() any { reads.Add(1); return 1 })
	names := make([]string, 10000)
	for i := range names {
		names[i] = []string{"a.costly", "a.b"}[i%2]
	}
	body, err := json.Marshal(map[string]any{"metrics": names})
	if err != nil {
		t.Fatal(err)
	}
	rec := serve(t, newRouter(reg), principal(t, "metrics:read"), "POST", "/multiple", string(body))
	if rec.Code != 200 {
		t.Fatalf("status = %d; body %s", rec.Code, rec.Body)
	}
	if got, want := decodeList(t, rec.Body.Bytes()).names(), []string{"a.costly", "a.b"}; !slices.Equal(got, want) {
		t.Errorf("metrics = %d names (%q…), want %q", len(got), got[:min(len(got), 4)], want)
	}
	if n := reads.Load(); n != 1 {
		t.Errorf("the gauge was read %d times for one answer", n)
	}
}

// TestFilteringHandlersNeedAPrincipal covers the handlers' own check, for
// routes whose permission the router cannot check.
func TestFilteringHandlersNeedAPrincipal(t *testing.T) {
	for _, rt := range handlerRegistry().Routes() {
		if rt.StaticPermission() {
			continue
		}
		req := httptest.NewRequest(rt.Method, "/", strings.NewReader(`{"metrics":["a.b"]}`))
		req = mux.SetURLVars(req, map[string]string{"metricName": "a.b", "namespace": "a"})
		err := rt.Handler(httptest.NewRecorder(), req)
		if code := api.ErrorCode(err); code != api.Unauthorized {
			t.Errorf("%s %s without a principal: %v (code %d), want a 401", rt.Method, rt.Path, err, code)
		}
	}
}

func TestRouteOrder(t *testing.T) {
	var paths []string
	for _, rt := range metrics.New(time.Now).Routes() {
		if rt.Handler == nil || rt.Summary == "" || rt.Permission == "" {
			t.Errorf("%s %s is incomplete", rt.Method, rt.Path)
		}
		paths = append(paths, rt.Path)
	}
	last := paths[len(paths)-1]
	if last != "/system/metrics/{metricName}" {
		t.Errorf("the catch-all route is not last: %q", paths)
	}
}

func FuzzMultiple(f *testing.F) {
	for _, seed := range []string{
		`{"metrics":["a.b","a.t","a.zz"]}`, `{"metrics":[]}`, `{"metrics":null}`, `{}`, `[]`, ``,
		`{"metrics":[1]}`, `{"metrics":["a.b"]} {}`, `{"metrics":["\u0000"]}`, `{"metrics":["a.b"],"x":{"y":[]}}`,
	} {
		f.Add(seed)
	}
	reg := handlerRegistry()
	known := reg.Names()
	h := newRouter(reg)
	admin := principal(f, "metrics:*")
	f.Fuzz(func(t *testing.T, body string) {
		rec := serve(t, h, admin, "POST", "/multiple", body)
		switch rec.Code {
		case 200:
			for _, name := range decodeList(t, rec.Body.Bytes()).names() {
				if !slices.Contains(known, name) {
					t.Errorf("listed unknown metric %q", name)
				}
			}
		case 400:
			var e api.ErrorBody
			if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Type != "ApiError" || e.Message == "" {
				t.Errorf("400 body = %s", rec.Body)
			}
		default:
			t.Errorf("status %d for body %q: %s", rec.Code, body, rec.Body)
		}
	})
}
