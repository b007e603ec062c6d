package compat_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
)

// legacyStep is one request of an old client to the legacy dashboards or
// saved searches, run in order against one node, with its golden exchange
// fixtures/compat/<release>/legacy-<name>.golden.
type legacyStep struct {
	name    string
	release string // X-API-Version; "" for the default release
	method  string
	path    string // with {placeholders} of ids saved by earlier steps
	body    string
	as      string // "root" (the default), "reader" or "anonymous"
	noCSRF  bool   // send no X-Requested-By
	status  int
	// save names the placeholder that the id in the response (or the id
	// a before function returns) is saved as.
	save   string
	before func(t *testing.T, e *legacyEnv) string
	after  func(t *testing.T, e *legacyEnv, r *nodetest.Response)
}

type legacyEnv struct {
	h   *nodetest.Harness
	ids map[string]string // placeholder → id
}

func (e *legacyEnv) expand(s string) string {
	for name, id := range e.ids {
		s = strings.ReplaceAll(s, "{"+name+"}", id)
	}
	return s
}

// Legacy request bodies as Graylog 2.x's web interface sent them.
const (
	countWidget = `{"description":"Requests","type":"SEARCH_RESULT_COUNT","cache_time":10,` +
		`"config":{"timerange":{"type":"relative","range":300},"query":"source:web*","lower_is_better":false,"trend":true}}`
	quickValuesWidget = `{"description":"Status codes","type":"QUICKVALUES","cache_time":30,` +
		`"config":{"timerange":{"type":"keyword","keyword":"last hour"},"field":"http_status","query":"","show_pie_chart":true,"show_data_table":true,"stream_id":"000000000000000000000001"}}`
	fieldChartWidget = `{"description":"Requests","type":"FIELD_CHART","cache_time":10,` +
		`"config":{"timerange":{"type":"relative","range":3600},"field":"took_ms","valuetype":"mean","renderer":"area","interpolation":"linear","interval":"minute","query":""}}`
	positionsBody = `{"positions":[{"id":"{widget}","col":1,"row":1,"height":2,"width":4},{"id":"{widget2}","col":5,"row":1,"height":2,"width":2}]}`
	searchBody    = `{"title":"Errors","query":{"query":"level:3","rangeType":"relative","relative":3600,"fields":"message,source"}}`
)

// viewDashboard is a dashboard a 4.0 client creates, with one widget.
const viewDashboard = `{"type":"DASHBOARD","title":"Made by 4.0","summary":"","description":"new style","search_id":"5f1a2b3c4d5e6f7a8b9c0d1e",` +
	`"properties":[],"requires":{},"state":{"q1":{"selected_fields":null,"titles":{"widget":{"w1":"Slow requests"}},` +
	`"widgets":[{"id":"w1","type":"aggregation","filter":null,"timerange":{"type":"relative","range":600},"query":{"type":"elasticsearch","query_string":"took_ms:>500"},"streams":[],` +
	`"config":{"row_pivots":[{"field":"timestamp","type":"time","config":{"interval":{"type":"timeunit","value":1,"unit":"hours"}}}],"column_pivots":[],"series":[{"config":{"name":null},"function":"max(took_ms)"}],"sort":[],"visualization":"bar","rollup":true}}],` +
	`"widget_mapping":{},"positions":{"w1":{"col":1,"row":1,"height":3,"width":6}},"formatting":null,"display_mode_settings":{}}}}`

var legacySteps = []legacyStep{
	// A 2.4 client builds a dashboard.
	{name: "create-dashboard", release: "2.4", method: "POST", path: "/dashboards", body: `{"title":"Web servers","description":"Nginx and Apache"}`, status: 201, save: "dashboard"},
	{name: "create-dashboard-blank-title", release: "2.4", method: "POST", path: "/dashboards", body: `{"title":" ","description":""}`, status: 400},
	{name: "create-dashboard-forbidden", release: "2.4", method: "POST", path: "/dashboards", body: `{"title":"Mine"}`, as: "reader", status: 403},
	{name: "add-widget-count", release: "2.4", method: "POST", path: "/dashboards/{dashboard}/widgets", body: countWidget, status: 201, save: "widget"},
	{name: "add-widget-quickvalues", release: "2.4", method: "POST", path: "/dashboards/{dashboard}/widgets", body: quickValuesWidget, status: 201, save: "widget2"},
	{name: "add-widget-unknown-type", release: "2.4", method: "POST", path: "/dashboards/{dashboard}/widgets",
		body: `{"description":"x","type":"WORLD_MAP","cache_time":10,"config":{"timerange":{"type":"relative","range":300}}}`, status: 400},
	{name: "add-widget-bad-timerange", release: "2.4", method: "POST", path: "/dashboards/{dashboard}/widgets",
		body: `{"description":"x","type":"SEARCH_RESULT_COUNT","cache_time":10,"config":{"timerange":{"type":"relative"}}}`, status: 400},
	{name: "get-widget", release: "2.4", method: "GET", path: "/dashboards/{dashboard}/widgets/{widget}", status: 200,
		after: func(t *testing.T, _ *legacyEnv, r *nodetest.Response) {
			wantSameJSON(t, r.Get("config").Raw, jsonPath(t, countWidget, "config"))
		}},
	{name: "get-widget-unknown", release: "2.4", method: "GET", path: "/dashboards/{dashboard}/widgets/no-such-widget", status: 404},
	{name: "update-widget", release: "2.4", method: "PUT", path: "/dashboards/{dashboard}/widgets/{widget}", body: fieldChartWidget, status: 204},
	{name: "widget-description", release: "2.4", method: "PUT", path: "/dashboards/{dashboard}/widgets/{widget}/description", body: `{"description":"Response time"}`, status: 204},
	{name: "widget-cachetime", release: "2.4", method: "PUT", path: "/dashboards/{dashboard}/widgets/{widget}/cachetime", body: `{"cache_time":60}`, status: 204},
	{name: "widget-cachetime-negative", release: "2.4", method: "PUT", path: "/dashboards/{dashboard}/widgets/{widget}/cachetime", body: `{"cache_time":-1}`, status: 400},
	{name: "positions", release: "2.4", method: "PUT", path: "/dashboards/{dashboard}/positions", body: positionsBody, status: 204},
	{name: "update-dashboard", release: "2.4", method: "PUT", path: "/dashboards/{dashboard}", body: `{"title":"Web servers (prod)"}`, status: 204},
	{name: "get-dashboard", release: "2.4", method: "GET", path: "/dashboards/{dashboard}", status: 200,
		after: func(t *testing.T, e *legacyEnv, r *nodetest.Response) {
			// What the client wrote, read back.
			if r.Get("title").Str != "Web servers (prod)" || r.Get("description").Str != "Nginx and Apache" ||
				r.Get("widgets.0.description").Str != "Response time" || r.Get("widgets.0.cache_time").Int() != 60 ||
				r.Get("positions."+e.ids["widget2"]+".width").Int() != 2 {
				t.Errorf("dashboard read back: %s", r.Body)
			}
			wantSameJSON(t, r.Get("widgets.0.config").Raw, jsonPath(t, fieldChartWidget, "config"))
			wantSameJSON(t, r.Get("widgets.1.config").Raw, jsonPath(t, quickValuesWidget, "config"))
		}},
	{name: "list-dashboards", release: "2.4", method: "GET", path: "/dashboards", status: 200},
	{name: "widget-value", release: "2.4", method: "GET", path: "/dashboards/{dashboard}/widgets/{widget}/value", status: 200,
		after: func(t *testing.T, _ *legacyEnv, r *nodetest.Response) {
			// A field chart of no messages: no buckets, and its time range.
			if !r.Get("result").IsObject() || len(r.Get("result").Map()) != 0 || !r.Get("computation_time_range.to").Exists() {
				t.Errorf("field chart value: %s", r.Body)
			}
		}},
	{name: "add-widget-count-again", release: "2.4", method: "POST", path: "/dashboards/{dashboard}/widgets", body: countWidget, status: 201, save: "widget3"},
	{name: "widget-value-count", release: "2.4", method: "GET", path: "/dashboards/{dashboard}/widgets/{widget3}/value", status: 200,
		after: func(t *testing.T, _ *legacyEnv, r *nodetest.Response) {
			// No messages stored: a count of 0, with its time range.
			if !r.Get("result.now").Exists() || r.Get("result.now").Int() != 0 || r.Get("result.previous").Int() != 0 ||
				!r.Get("computation_time_range.from").Exists() {
				t.Errorf("count widget value: %s", r.Body)
			}
		}},
	{name: "delete-widget-count-again", release: "2.4", method: "DELETE", path: "/dashboards/{dashboard}/widgets/{widget3}", status: 204},
	{name: "get-dashboard-forbidden", release: "2.4", method: "GET", path: "/dashboards/{dashboard}", as: "reader", status: 403},
	{name: "list-dashboards-reader", release: "2.4", method: "GET", path: "/dashboards", as: "reader", status: 200},
	{name: "get-dashboard-anonymous", release: "2.4", method: "GET", path: "/dashboards/{dashboard}", as: "anonymous", status: 401},
	{name: "get-dashboard-unknown", release: "2.4", method: "GET", path: "/dashboards/5f0000000000000000000000", status: 404},
	{name: "update-dashboard-without-csrf-header", release: "2.5", method: "PUT", path: "/dashboards/{dashboard}", body: `{"title":"x"}`, noCSRF: true, status: 400},

	// 4.0 clients see the dashboard as a view.
	{name: "dashboards-are-views", method: "GET", path: "/dashboards", status: 200,
		after: func(t *testing.T, e *legacyEnv, r *nodetest.Response) {
			if r.Get("views.0.id").Str != e.ids["dashboard"] || r.Get("views.0.summary").Str != "This dashboard was created through the legacy dashboards API." {
				t.Errorf("4.0 dashboards: %s", r.Body)
			}
		}},
	{name: "dashboard-as-view", method: "GET", path: "/views/{dashboard}", status: 200,
		after: func(t *testing.T, e *legacyEnv, r *nodetest.Response) {
			// A 4.0 client can write back what it read.
			var v map[string]any
			if err := json.Unmarshal(r.Body, &v); err != nil {
				t.Fatal(err)
			}
			e.h.Do("PUT", "/views/"+e.ids["dashboard"], v, nodetest.AsRoot()).Want(t, http.StatusOK)
		}},
	{name: "dashboards-are-views", release: "3.3", method: "GET", path: "/dashboards", status: 200},

	// A 3.3 client uses /legacy.
	{name: "list-dashboards", release: "3.3", method: "GET", path: "/legacy/dashboards", status: 200},
	{name: "get-dashboard", release: "3.3", method: "GET", path: "/legacy/dashboards/{dashboard}", status: 200},
	{name: "get-widget", release: "3.3", method: "GET", path: "/legacy/dashboards/{dashboard}/widgets/{widget2}", status: 200},
	{name: "widget-value", release: "3.3", method: "GET", path: "/legacy/dashboards/{dashboard}/widgets/{widget2}/value", status: 200,
		after: func(t *testing.T, _ *legacyEnv, r *nodetest.Response) {
			if r.Get("result.total").Raw != "0" || !r.Get("result.terms").IsObject() {
				t.Errorf("quick values: %s", r.Body)
			}
		}},
	{name: "delete-widget", release: "3.3", method: "DELETE", path: "/legacy/dashboards/{dashboard}/widgets/{widget2}", status: 204},
	{name: "delete-widget", release: "2.4", method: "DELETE", path: "/dashboards/{dashboard}/widgets/{widget}", status: 204,
		after: func(t *testing.T, e *legacyEnv, _ *nodetest.Response) {
			v := e.h.Do("GET", "/views/"+e.ids["dashboard"], nil, nodetest.AsRoot()).Want(t, http.StatusOK)
			if v.Get("state.*.widgets.#").Int() != 0 || len(v.Get("state").Map()) != 1 {
				t.Errorf("view after deleting both widgets: %s", v.Body)
			}
		}},
	{name: "create-dashboard", release: "3.0", method: "POST", path: "/dashboards", body: `{"title":"Databases","description":""}`, status: 201, save: "dashboard2"},
	{name: "update-dashboard", release: "3.0", method: "PUT", path: "/dashboards/{dashboard2}", body: `{"title":"Databases","description":"MySQL"}`, status: 204},
	{name: "add-widget", release: "3.0", method: "POST", path: "/dashboards/{dashboard2}/widgets", body: countWidget, status: 201, save: "widget3"},
	{name: "update-widget", release: "3.0", method: "PUT", path: "/dashboards/{dashboard2}/widgets/{widget3}", body: fieldChartWidget, status: 204},
	{name: "widget-description", release: "3.0", method: "PUT", path: "/dashboards/{dashboard2}/widgets/{widget3}/description", body: `{"description":"Query time"}`, status: 204},
	{name: "widget-cachetime", release: "3.0", method: "PUT", path: "/dashboards/{dashboard2}/widgets/{widget3}/cachetime", body: `{"cache_time":5}`, status: 204},
	{name: "positions", release: "3.0", method: "PUT", path: "/dashboards/{dashboard2}/positions", body: `{"positions":[{"id":"{widget3}","col":2,"row":3,"height":4,"width":5}]}`, status: 204},
	{name: "get-dashboard-after-edits", release: "3.3", method: "GET", path: "/legacy/dashboards/{dashboard2}", status: 200,
		after: func(t *testing.T, e *legacyEnv, r *nodetest.Response) {
			w := e.ids["widget3"]
			if r.Get("description").Str != "MySQL" || r.Get("widgets.0.description").Str != "Query time" || r.Get("widgets.0.cache_time").Int() != 5 ||
				r.Get("widgets.0.type").Str != "FIELD_CHART" || r.Get("positions."+w+".width").Int() != 5 {
				t.Errorf("dashboard after edits: %s", r.Body)
			}
		}},
	// 3.3 kept only reads and deletes under /legacy.
	{name: "create-dashboard-refused", release: "3.3", method: "POST", path: "/legacy/dashboards", body: `{"title":"Databases","description":""}`, status: 405},
	{name: "update-dashboard-refused", release: "3.3", method: "PUT", path: "/legacy/dashboards/{dashboard2}", body: `{"title":"x"}`, status: 405},
	{name: "positions-unknown", release: "3.3", method: "PUT", path: "/legacy/dashboards/{dashboard2}/positions", body: `{"positions":[]}`, status: 404},
	{name: "delete-dashboard", release: "3.3", method: "DELETE", path: "/legacy/dashboards/{dashboard2}", status: 204},

	// A dashboard a 4.0 client made, read by old clients.
	{name: "view-as-dashboard", method: "GET", path: "/legacy/dashboards/{view}", status: 200, save: "view",
		before: func(t *testing.T, e *legacyEnv) string {
			return e.h.Do("POST", "/views", viewDashboard, nodetest.AsRoot()).Want(t, http.StatusOK).Get("id").Str
		}},
	{name: "list-dashboards", method: "GET", path: "/legacy/dashboards", status: 200},
	{name: "list-dashboards-gone", release: "4.0", method: "GET", path: "/legacy/dashboards", status: 404},
	{name: "view-widget-cachetime", release: "2.4", method: "PUT", path: "/dashboards/{view}/widgets/w1/cachetime", body: `{"cache_time":120}`, status: 204,
		after: func(t *testing.T, e *legacyEnv, _ *nodetest.Response) {
			d := e.h.Do("GET", "/dashboards/"+e.ids["view"], nil, nodetest.AsRoot(), nodetest.Header("X-API-Version", "2.4")).Want(t, http.StatusOK)
			if d.Get("widgets.0.cache_time").Int() != 120 || d.Get("widgets.0.type").Str != "FIELD_CHART" {
				t.Errorf("4.0 widget after a legacy edit: %s", d.Body)
			}
		}},

	// Saved searches.
	{name: "create-saved-search", release: "2.4", method: "POST", path: "/search/saved", body: searchBody, status: 201, save: "search",
		after: nameSearchWidgets("search")},
	{name: "create-saved-search-without-query", release: "2.4", method: "POST", path: "/search/saved", body: `{"title":"Errors"}`, status: 400},
	{name: "list-saved-searches", release: "2.4", method: "GET", path: "/search/saved", status: 200},
	{name: "get-saved-search", release: "2.4", method: "GET", path: "/search/saved/{search}", status: 200,
		after: func(t *testing.T, _ *legacyEnv, r *nodetest.Response) {
			wantSameJSON(t, r.Get("query").Raw, jsonPath(t, searchBody, "query"))
		}},
	{name: "update-saved-search", release: "2.4", method: "PUT", path: "/search/saved/{search}",
		body: `{"title":"Errors and warnings","query":{"query":"level:<=4","rangeType":"relative","relative":3600,"fields":"message"}}`, status: 200},
	{name: "get-saved-search-forbidden", release: "2.4", method: "GET", path: "/search/saved/{search}", as: "reader", status: 403},
	{name: "saved-searches-are-views", method: "GET", path: "/search/saved", status: 200},
	{name: "saved-search-as-view", method: "GET", path: "/views/{search}", status: 200},
	{name: "list-saved-searches", release: "3.3", method: "GET", path: "/legacy/search/saved", status: 200},
	{name: "create-saved-search", release: "3.0", method: "POST", path: "/search/saved", body: searchBody, status: 201, save: "search2"},
	{name: "update-saved-search", release: "3.0", method: "PUT", path: "/search/saved/{search2}", body: `{"title":"Errors (3.3)","query":{"query":"level:3"}}`, status: 200},
	{name: "get-saved-search", release: "3.3", method: "GET", path: "/legacy/search/saved/{search2}", status: 200},
	{name: "create-saved-search-refused", release: "3.3", method: "POST", path: "/legacy/search/saved", body: searchBody, status: 405},
	{name: "update-saved-search-refused", release: "3.3", method: "PUT", path: "/legacy/search/saved/{search2}", body: searchBody, status: 405},
	{name: "delete-saved-search", release: "3.3", method: "DELETE", path: "/legacy/search/saved/{search2}", status: 204},
	{name: "delete-saved-search", release: "2.4", method: "DELETE", path: "/search/saved/{search}", status: 204},
	{name: "get-saved-search-deleted", release: "2.4", method: "GET", path: "/search/saved/{search}", status: 404},

	// The end of the 2.4 session.
	{name: "delete-dashboard", release: "2.4", method: "DELETE", path: "/dashboards/{dashboard}", status: 204,
		after: func(t *testing.T, e *legacyEnv, _ *nodetest.Response) {
			e.h.Do("GET", "/views/"+e.ids["dashboard"], nil, nodetest.AsRoot()).Want(t, http.StatusNotFound)
		}},
	{name: "get-dashboard-deleted", release: "2.4", method: "GET", path: "/dashboards/{dashboard}", status: 404},
}

func TestLegacyViewsGoldenExchanges(t *testing.T) {
	e := &legacyEnv{h: nodetest.Start(t), ids: map[string]string{}}
	e.h.CreateUser("reader", "readerpw")
	users := map[string]nodetest.ReqOption{"root": nodetest.AsRoot(), "reader": nodetest.Basic("reader", "readerpw")}
	for _, st := range legacySteps {
		rel := st.release
		if rel == "" {
			rel = "default"
		}
		ok := t.Run(rel+"/"+st.name, func(t *testing.T) {
			if st.before != nil {
				e.ids[st.save] = st.before(t, e)
			}
			var opts []nodetest.ReqOption
			switch st.as {
			case "", "root":
				opts = append(opts, users["root"])
			case "reader":
				opts = append(opts, users["reader"])
			}
			if st.release != "" {
				opts = append(opts, nodetest.Header("X-API-Version", st.release))
			}
			if st.noCSRF {
				opts = append(opts, nodetest.Header("X-Requested-By", ""))
			}
			var body any
			if st.body != "" {
				body = e.expand(st.body)
			}
			r := e.h.Do(st.method, e.expand(st.path), body, opts...)
			if r.Status != st.status {
				t.Fatalf("status %d, want %d: %s", r.Status, st.status, r.Body)
			}
			if st.save != "" && st.before == nil {
				for _, key := range []string{"dashboard_id", "widget_id", "search_id"} {
					if id := r.Get(key).Str; id != "" {
						e.ids[st.save] = id
					}
				}
			}
			compare(t, filepath.Join("..", "fixtures", "compat", rel, "legacy-"+st.name+".golden"), renderLegacy(st, r, e))
			if st.after != nil {
				st.after(t, e, r)
			}
		})
		if !ok {
			break // the steps build on each other
		}
	}
}

// TestLegacyViewsRedirects: 3.3's redirects of the old view list paths.
func TestLegacyViewsRedirects(t *testing.T) {
	h := nodetest.Start(t)
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, c := range []struct {
		name, path, release, want string
		status                    int
	}{
		{"redirect-dashboards", "/views/dashboards", "", "/dashboards", 301},
		{"redirect-saved-searches", "/views/savedSearches?page=2&per_page=10", "", "/search/saved?page=2&per_page=10", 301},
		{"redirect-dashboards", "/views/dashboards", "3.3", "/dashboards", 301},
		{"redirect-dashboards-gone", "/views/dashboards", "4.0", "", 404},
	} {
		rel := c.release
		if rel == "" {
			rel = "default"
		}
		t.Run(rel+"/"+c.name, func(t *testing.T) {
			req, err := http.NewRequest("GET", h.URL+c.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			req.SetBasicAuth(nodetest.RootUser, nodetest.RootPassword)
			if c.release != "" {
				req.Header.Set("X-API-Version", c.release)
			}
			resp, err := noFollow.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != c.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, c.status, b)
			}
			if c.want != "" && resp.Header.Get("Location") != h.URL+c.want {
				t.Errorf("Location %q, want %q", resp.Header.Get("Location"), h.URL+c.want)
			}
			st := legacyStep{name: c.name, release: c.release, method: "GET", path: c.path}
			r := &nodetest.Response{Status: resp.StatusCode, Header: resp.Header, Body: b}
			compare(t, filepath.Join("..", "fixtures", "compat", rel, "legacy-"+c.name+".golden"), renderLegacy(st, r, &legacyEnv{h: h}))
		})
	}
}

var sha256Hex = regexp.MustCompile(`[0-9a-f]{64}`)

var anyUUID = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// renderLegacy writes an exchange as the old client sees it, with the ids
// the steps saved named, other ids and times normalised and the API's
// address replaced.
func renderLegacy(st legacyStep, r *nodetest.Response, e *legacyEnv) string {
	var b strings.Builder
	rel := st.release
	if rel == "" {
		rel = "(default)"
	}
	fmt.Fprintf(&b, "%s /api%s\nX-API-Version: %s\n", st.method, st.path, rel)
	if st.noCSRF {
		b.WriteString("(no X-Requested-By)\n")
	}
	if st.as != "" && st.as != "root" {
		fmt.Fprintf(&b, "As: %s\n", st.as)
	}
	if st.body != "" {
		fmt.Fprintf(&b, "\n%s\n", st.body)
	}
	fmt.Fprintf(&b, "\n%d\n", r.Status)
	for _, k := range []string{"Content-Type", "Location", "Warning", "Www-Authenticate", "X-Api-Version"} {
		for _, v := range r.Header.Values(k) {
			fmt.Fprintf(&b, "%s: %s\n", k, normalise(v, e))
		}
	}
	body := normalise(string(r.Body), e)
	// Keys sorted after the ids are named: Graylog's legacy maps have no
	// order, and maps keyed by random widget ids must compare stably.
	var v any
	if json.Unmarshal([]byte(body), &v) == nil {
		var pretty bytes.Buffer
		enc := json.NewEncoder(&pretty)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if enc.Encode(v) == nil {
			body = strings.TrimSuffix(pretty.String(), "\n")
		}
	}
	fmt.Fprintf(&b, "\n%s\n", body)
	return b.String()
}

// nameSearchWidgets names the widgets of the view that stands for the saved
// search saved as name (its message count and message list), so that
// goldens keyed by their random ids compare stably.
func nameSearchWidgets(name string) func(t *testing.T, e *legacyEnv, r *nodetest.Response) {
	return func(t *testing.T, e *legacyEnv, _ *nodetest.Response) {
		v := e.h.Do("GET", "/views/"+e.ids[name], nil, nodetest.AsRoot()).Want(t, 200)
		for _, w := range v.Get("state.*.widgets").Array() {
			e.ids[name+"-"+w.Get("type").Str] = w.Get("id").Str
		}
	}
}

func normalise(s string, e *legacyEnv) string {
	s = strings.ReplaceAll(s, e.h.URL, "<api>")
	for name, id := range e.ids {
		if id != "" {
			s = strings.ReplaceAll(s, id, "<"+name+">")
		}
	}
	s = sha256Hex.ReplaceAllString(s, "<sha256>")
	s = objectID.ReplaceAllString(s, "<id>")
	s = anyUUID.ReplaceAllString(s, "<uuid>")
	s = tookMS.ReplaceAllString(s, `"took_ms":"<ms>"`)
	return timestamp.ReplaceAllString(s, "<time>")
}

// tookMS matches a widget value's computation time, which varies.
var tookMS = regexp.MustCompile(`"took_ms": ?\d+`)

// jsonPath returns the raw JSON at a gjson path of a document.
func jsonPath(t *testing.T, doc, path string) string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(doc), &m); err != nil {
		t.Fatal(err)
	}
	return string(m[path])
}

// wantSameJSON fails unless two JSON documents are equal as values.
func wantSameJSON(t *testing.T, got, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatalf("got %q: %v", got, err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("want %q: %v", want, err)
	}
	gb, _ := json.Marshal(g)
	wb, _ := json.Marshal(w)
	if !bytes.Equal(gb, wb) {
		t.Errorf("got %s\nwant %s", gb, wb)
	}
}

// A 2.4 client pinned by its access token (so without X-Requested-By)
// builds, rearranges and removes a dashboard; the node restarts midway.
func TestLegacyDashboardSession24(t *testing.T) {
	h := nodetest.Start(t)
	tok := h.Do("POST", "/users/local:admin/tokens/old-cli?api_release=2.4", nil, nodetest.AsRoot()).Want(t, http.StatusOK).Get("token").Str
	do := func(method, path, body string, status int) *nodetest.Response {
		t.Helper()
		var b any
		if body != "" {
			b = body
		}
		r := h.Do(method, path, b, nodetest.Token(tok), nodetest.Header("X-Requested-By", ""))
		if r.Status != status {
			t.Fatalf("%s %s: status %d, want %d: %s", method, path, r.Status, status, r.Body)
		}
		if v := r.Header.Get("X-Api-Version"); v != "2.4" {
			t.Fatalf("%s %s served as %q", method, path, v)
		}
		return r
	}
	created := do("POST", "/dashboards", `{"title":"Ops","description":"On call"}`, 201)
	id := created.Get("dashboard_id").Str
	if !strings.HasSuffix(created.Header.Get("Location"), "/api/dashboards/"+id) {
		t.Errorf("Location %q", created.Header.Get("Location"))
	}
	base := "/dashboards/" + id
	w1 := do("POST", base+"/widgets", countWidget, 201).Get("widget_id").Str
	w2 := do("POST", base+"/widgets", quickValuesWidget, 201).Get("widget_id").Str
	do("PUT", base+"/positions", strings.NewReplacer("{widget}", w1, "{widget2}", w2).Replace(positionsBody), 204)
	do("PUT", base, `{"title":"Ops (24/7)","description":"On call"}`, 204)

	h.Restart()

	list := do("GET", "/dashboards", "", 200)
	if list.Get("total").Int() != 1 || list.Get("dashboards.0.title").Str != "Ops (24/7)" ||
		list.Get("dashboards.0.widgets.#").Int() != 2 || list.Get("dashboards.0.positions."+w2+".col").Int() != 5 {
		t.Fatalf("list after restart: %s", list.Body)
	}
	// Moving a widget keeps the other's place only if the client sends it.
	do("PUT", base+"/positions", `{"positions":[{"id":"`+w1+`","col":3,"row":2,"height":1,"width":1}]}`, 204)
	d := do("GET", base, "", 200)
	if d.Get("positions."+w1+".row").Int() != 2 || d.Get("positions."+w2).Exists() {
		t.Errorf("positions after a move: %s", d.Get("positions").Raw)
	}
	do("DELETE", base+"/widgets/"+w1, "", 204)
	do("GET", base+"/widgets/"+w1, "", 404)
	if d := do("GET", base, "", 200); d.Get("widgets.#").Int() != 1 || d.Get("widgets.0.id").Str != w2 || d.Get("positions."+w1).Exists() {
		t.Errorf("after deleting a widget: %s", d.Body)
	}
	// 4.0 clients see the same dashboard.
	v := h.Do("GET", "/dashboards", nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	if v.Get("total").Int() != 1 || v.Get("views.0.title").Str != "Ops (24/7)" {
		t.Errorf("4.0 list: %s", v.Body)
	}
	do("DELETE", base, "", 204)
	if list := do("GET", "/dashboards", "", 200); list.Get("total").Int() != 0 {
		t.Errorf("list after delete: %s", list.Body)
	}
	if v := h.Do("GET", "/dashboards", nil, nodetest.AsRoot()).Want(t, http.StatusOK); v.Get("total").Int() != 0 {
		t.Errorf("4.0 list after delete: %s", v.Body)
	}
}
