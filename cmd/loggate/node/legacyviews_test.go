package node_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
)

// openView does what Graylog 4.0's interface does to open a view
// (/dashboards/{id} or /search/{id}): it loads the view, then the search
// the view names, then executes that search. It returns the view, and the
// result of each widget's search type by widget id, checking that every
// widget is mapped to a search type of the search.
func openView(t *testing.T, h *nodetest.Harness, id string) (view *nodetest.Response, results map[string]gjson.Result) {
	t.Helper()
	root := nodetest.AsRoot()
	view = h.Do("GET", "/views/"+id, nil, root).Want(t, http.StatusOK)
	searchID := view.Get("search_id").String()
	search := h.Do("GET", "/views/search/"+searchID, nil, root).Want(t, http.StatusOK)
	job := h.Do("POST", "/views/search/"+searchID+"/execute", map[string]any{"parameter_bindings": map[string]any{}}, root).
		Want(t, http.StatusCreated)
	if !job.Get("execution.done").Bool() || job.Get("execution.completed_exceptionally").Bool() || job.Get("errors").Raw != "[]" {
		t.Fatalf("execute %s: %s", searchID, job.Body)
	}
	results = map[string]gjson.Result{}
	for queryID, state := range view.Get("state").Map() {
		query := search.Get(`queries.#(id=="` + queryID + `")`)
		if !query.Exists() {
			t.Fatalf("view %s: state %s has no query in search %s: %s", id, queryID, searchID, search.Body)
		}
		for _, w := range state.Get("widgets").Array() {
			wid := w.Get("id").String()
			typeID := state.Get("widget_mapping." + gjson.Escape(wid) + ".0").String()
			st := query.Get(`search_types.#(id=="` + typeID + `")`)
			if typeID == "" || !st.Exists() {
				t.Fatalf("widget %s (%s) maps to search type %q, not in the search: %s\n%s", wid, w.Get("type"), typeID, view.Body, search.Body)
			}
			if !state.Get("titles.widget." + gjson.Escape(wid)).Exists() {
				t.Errorf("widget %s has no title: %s", wid, state.Raw)
			}
			res := job.Get("results." + gjson.Escape(queryID) + ".search_types." + gjson.Escape(typeID))
			if !res.Exists() {
				t.Fatalf("no result for widget %s's search type %s: %s", wid, typeID, job.Body)
			}
			results[wid] = res
		}
	}
	return view, results
}

// pivotValue returns the value of a series in a pivot result's row keyed
// by key (nil for the rollup row of a pivot without row groups).
func pivotValue(res gjson.Result, series string, key ...string) float64 {
	for _, row := range res.Get("rows").Array() {
		if !sameKey(row.Get("key"), key) {
			continue
		}
		for _, v := range row.Get("values").Array() {
			if k := v.Get("key").Array(); len(k) > 0 && k[len(k)-1].String() == series {
				return v.Get("value").Float()
			}
		}
	}
	return -1
}

func sameKey(k gjson.Result, want []string) bool {
	got := k.Array()
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i].String() != want[i] {
			return false
		}
	}
	return true
}

// TestLegacyViewsOpenInWebInterface creates a dashboard with widgets and a
// saved search as a 2.4 client does, then opens them as Graylog 4.0's
// interface does: every widget has a search type in the view's search,
// whose execution answers values from the messages the node received.
// Legacy edits keep the search in step; deleting the view deletes it.
func TestLegacyViewsOpenInWebInterface(t *testing.T) {
	h := nodetest.Start(t)
	root, v24 := nodetest.AsRoot(), nodetest.Header("X-API-Version", "2.4")
	now := float64(time.Now().Add(-time.Minute).Unix())
	sendGELF(t, h,
		gelfJSON("web-1", "GET /a 200", now, `,"_took_ms":12`),
		gelfJSON("web-1", "GET /b 500", now+1, `,"_took_ms":20`),
		gelfJSON("web-2", "GET /c 200", now+2, `,"_took_ms":7`),
	)

	dash := h.Do("POST", "/dashboards", map[string]any{"title": "web", "description": "web servers"}, root, v24).
		Want(t, http.StatusCreated).Get("dashboard_id").String()
	widget := func(typ string, cfg map[string]any) string {
		cfg["timerange"] = map[string]any{"type": "relative", "range": 3600}
		return h.Do("POST", "/dashboards/"+dash+"/widgets", map[string]any{"description": typ, "type": typ, "cache_time": 10, "config": cfg}, root, v24).
			Want(t, http.StatusCreated).Get("widget_id").String()
	}
	count := widget("SEARCH_RESULT_COUNT", map[string]any{"query": "source:web-1"})
	quick := widget("QUICKVALUES", map[string]any{"field": "source", "query": "", "show_pie_chart": true})
	chart := widget("SEARCH_RESULT_CHART", map[string]any{"interval": "hour", "query": ""})
	field := widget("FIELD_CHART", map[string]any{"field": "took_ms", "valuetype": "max", "interval": "minute", "query": "", "renderer": "line"})
	stats := widget("STATS_COUNT", map[string]any{"field": "took_ms", "stats_function": "total", "query": ""})
	stacked := widget("STACKED_CHART", map[string]any{"interval": "minute", "renderer": "bar",
		"series": []map[string]any{{"query": "", "field": "took_ms", "statistical_function": "count"}}})
	histogram := widget("QUICKVALUES_HISTOGRAM", map[string]any{"field": "source", "interval": "minute", "query": "", "limit": 5})
	gone := widget("SEARCH_RESULT_COUNT", map[string]any{"query": ""})
	// Legacy edits: a widget changed, one deleted, positions set.
	h.Do("PUT", "/dashboards/"+dash+"/widgets/"+stats, map[string]any{"description": "min took", "type": "STATS_COUNT", "cache_time": 10,
		"config": map[string]any{"field": "took_ms", "stats_function": "min", "query": "", "timerange": map[string]any{"type": "relative", "range": 3600}}},
		root, v24).Want(t, http.StatusNoContent)
	h.Do("DELETE", "/dashboards/"+dash+"/widgets/"+gone, nil, root, v24).Want(t, http.StatusNoContent)
	h.Do("PUT", "/dashboards/"+dash+"/positions", map[string]any{"positions": []map[string]any{{"id": count, "col": 1, "row": 1, "width": 2, "height": 2}}},
		root, v24).Want(t, http.StatusNoContent)

	view, res := openView(t, h, dash)
	if len(res) != 7 {
		t.Fatalf("%d widgets opened, want 7: %s", len(res), view.Body)
	}
	if n := view.Get("state.*.widget_mapping." + gjson.Escape(gone)); n.Exists() {
		t.Errorf("the deleted widget is still mapped: %s", view.Body)
	}
	if got := pivotValue(res[count], "count()"); got != 2 {
		t.Errorf("SEARCH_RESULT_COUNT: count() = %v, want 2: %s", got, res[count].Raw)
	}
	if a, b := pivotValue(res[quick], "count()", "web-1"), pivotValue(res[quick], "count()", "web-2"); a != 2 || b != 1 {
		t.Errorf("QUICKVALUES: web-1 %v, web-2 %v, want 2 and 1: %s", a, b, res[quick].Raw)
	}
	if got := res[chart].Get("total").Int(); got != 3 || len(res[chart].Get("rows").Array()) == 0 {
		t.Errorf("SEARCH_RESULT_CHART: total %d, want 3 over time rows: %s", got, res[chart].Raw)
	}
	maxSeen := 0.0
	for _, row := range res[field].Get("rows").Array() {
		for _, v := range row.Get("values").Array() {
			maxSeen = max(maxSeen, v.Get("value").Float())
		}
	}
	if maxSeen != 20 {
		t.Errorf("FIELD_CHART: max(took_ms) peaks at %v, want 20: %s", maxSeen, res[field].Raw)
	}
	if got := pivotValue(res[stats], "min(took_ms)"); got != 7 {
		t.Errorf("STATS_COUNT after its update: min(took_ms) = %v, want 7: %s", got, res[stats].Raw)
	}
	if got := res[stacked].Get("total").Int(); got != 3 {
		t.Errorf("STACKED_CHART: total %d, want 3: %s", got, res[stacked].Raw)
	}
	if got := res[histogram].Get("total").Int(); got != 3 || !strings.Contains(res[histogram].Raw, `"web-2"`) {
		t.Errorf("QUICKVALUES_HISTOGRAM: total %d, want 3 with web-2's column: %s", got, res[histogram].Raw)
	}
	// The 3.x view of the dashboard is what it was.
	legacy := h.Do("GET", "/dashboards/"+dash, nil, root, v24).Want(t, http.StatusOK)
	if legacy.Get("widgets.#").Int() != 7 || legacy.Get("positions."+gjson.Escape(count)+".width").Int() != 2 {
		t.Errorf("legacy dashboard: %s", legacy.Body)
	}

	saved := h.Do("POST", "/search/saved", map[string]any{"title": "web-1 errors", "query": map[string]any{
		"query": "source:web-1", "rangeType": "relative", "relative": 3600, "fields": "message,source,took_ms",
	}}, root, v24).Want(t, http.StatusCreated).Get("search_id").String()
	view, res = openView(t, h, saved)
	if len(res) != 2 {
		t.Fatalf("%d widgets opened, want 2: %s", len(res), view.Body)
	}
	for wid, r := range res {
		switch r.Get("type").String() {
		case "messages":
			if r.Get("total_results").Int() != 2 || r.Get("messages.0.message.source").String() != "web-1" {
				t.Errorf("saved search messages: %s", r.Raw)
			}
			if got := view.Get(`state.*.widgets.#(id=="` + wid + `").config.fields`).Raw; got != `["message","source","took_ms"]` {
				t.Errorf("message list fields %s", got)
			}
		case "pivot":
			if r.Get("total").Int() != 2 {
				t.Errorf("saved search histogram: %s", r.Raw)
			}
		}
	}
	// An update changes what the view's search looks at.
	h.Do("PUT", "/search/saved/"+saved, map[string]any{"title": "web-2", "query": map[string]any{
		"query": "source:web-2", "rangeType": "relative", "relative": 3600,
	}}, root, v24).Want(t, http.StatusOK)
	if _, res = openView(t, h, saved); len(res) != 2 {
		t.Fatalf("after the update %d widgets", len(res))
	}
	for _, r := range res {
		if r.Get("type").String() == "messages" && r.Get("total_results").Int() != 1 {
			t.Errorf("updated saved search messages: %s", r.Raw)
		}
	}

	// Deleting through the legacy API deletes the views' searches.
	for _, c := range []struct{ path, view string }{{"/dashboards/" + dash, dash}, {"/search/saved/" + saved, saved}} {
		searchID := h.Do("GET", "/views/"+c.view, nil, root).Want(t, http.StatusOK).Get("search_id").String()
		h.Do("DELETE", c.path, nil, root, v24).Want(t, http.StatusNoContent)
		h.Do("GET", "/views/search/"+searchID, nil, root).Want(t, http.StatusNotFound)
	}
}

// TestLegacyEditLeavesOthersSearches: a view of bob's may name a search of
// alice's that bob may read; editing the view through the legacy API
// gives it a search of its own. It overwrote alice's: her view showed
// bob's queries, and the search became bob's.
func TestLegacyEditLeavesOthersSearches(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	h.CreateUser("alice", "alicepassword")
	h.CreateUser("bob", "bobpassword")
	alice, bob := nodetest.Basic("alice", "alicepassword"), nodetest.Basic("bob", "bobpassword")

	const sid = "5f1a2b3c4d5e6f7a8b9c0e01"
	h.Do("POST", "/views/search", viewSearch(sid, "source:alice"), alice).Want(t, http.StatusCreated)
	view := h.Do("POST", "/views", map[string]any{"type": "SEARCH", "title": "alice's", "search_id": sid, "state": map[string]any{}},
		alice).Want(t, http.StatusOK).Get("id").String()
	h.Do("POST", "/roles", map[string]any{"name": "Read alice", "permissions": []string{"view:read:" + view}}, root).Want(t, http.StatusCreated)
	h.Do("PUT", "/roles/Read alice/members/bob", nil, root).Want(t, http.StatusNoContent)

	h.Do("POST", "/views/search", viewSearch(sid, "bob"), bob).Want(t, http.StatusForbidden)
	mine := h.Do("POST", "/views", map[string]any{"type": "SEARCH", "title": "bob's", "search_id": sid, "state": map[string]any{}},
		bob).Want(t, http.StatusOK).Get("id").String()
	h.Do("PUT", "/search/saved/"+mine, map[string]any{"title": "bob's", "query": map[string]any{
		"query": "source:bob", "rangeType": "relative", "relative": 3600}}, bob, nodetest.Header("X-API-Version", "2.4")).Want(t, http.StatusOK)

	s := h.Do("GET", "/views/search/"+sid, nil, root).Want(t, http.StatusOK)
	if owner, qs := s.Get("owner").String(), s.Get("queries.0.query.query_string").String(); owner != "alice" || qs != "source:alice" {
		t.Errorf("alice's search is now %q's, querying %q", owner, qs)
	}
	v := h.Do("GET", "/views/"+mine, nil, bob).Want(t, http.StatusOK)
	other := v.Get("search_id").String()
	if other == sid {
		t.Fatalf("bob's view still names alice's search")
	}
	if s := h.Do("GET", "/views/search/"+other, nil, bob).Want(t, http.StatusOK); s.Get("owner").String() != "bob" ||
		s.Get("queries.0.query.query_string").String() != "source:bob" {
		t.Errorf("bob's view's search: %s", s.Body)
	}
}
