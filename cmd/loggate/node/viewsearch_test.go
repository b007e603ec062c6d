package node_test

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
	"github.com/loggate/loggate/router/routertest"
)

// viewSearch is the search the 4.0 search page creates: a histogram (pivot
// "chart", row_groups time/auto, series count()) and the message list
// (limit 150, newest first), over the last five minutes, with a stream
// filter when streams are given.
func viewSearch(id, query string, streams ...string) map[string]any {
	var filter any
	if len(streams) > 0 {
		var fs []any
		for _, s := range streams {
			fs = append(fs, map[string]any{"type": "stream", "id": s})
		}
		filter = map[string]any{"type": "or", "filters": fs}
	}
	return map[string]any{
		"id": id, "parameters": []any{},
		"queries": []any{map[string]any{
			"id": "q1", "query": map[string]any{"type": "elasticsearch", "query_string": query},
			"timerange": map[string]any{"type": "relative", "range": 300}, "filter": filter,
			"search_types": []any{
				map[string]any{"id": "chart", "type": "pivot", "name": "chart", "rollup": true, "sort": []any{}, "column_groups": []any{},
					"row_groups": []any{map[string]any{"type": "time", "field": "timestamp", "interval": map[string]any{"type": "auto", "scaling": 1.0}}},
					"series":     []any{map[string]any{"type": "count", "id": "count()"}}},
				map[string]any{"id": "messages", "type": "messages", "limit": 150, "offset": 0,
					"sort": []any{map[string]any{"field": "timestamp", "order": "DESC"}}},
				map[string]any{"id": "alerts", "type": "events"},
			},
		}},
	}
}

// sendGELF posts GELF messages to an HTTP input and waits until the node
// has processed them.
func sendGELF(t *testing.T, h *nodetest.Harness, msgs ...string) {
	t.Helper()
	_, addr := h.CreateInput(httpInput)
	for _, m := range msgs {
		resp, err := http.Post("http://"+addr.String()+"/gelf", "application/json", bytes.NewReader([]byte(m)))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusAccepted {
			t.Fatalf("POST /gelf: %d", resp.StatusCode)
		}
	}
	h.WaitProcessed(uint64(len(msgs)))
}

// TestViewsSearchLifecycle drives the search page's calls against stored
// messages: create, metadata, execute, status, with a stream filter, an
// execution state's overrides, a query error, and who may see what.
func TestViewsSearchLifecycle(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	web1 := h.Do("POST", "/streams", map[string]any{
		"title": "web-1", "index_set_id": defaultIndexSet(t, h), "matching_type": "AND",
		"rules": []map[string]any{{"field": "source", "type": 1, "value": "web-1", "inverted": false}},
	}, root).Want(t, http.StatusCreated).Get("stream_id").String()
	h.Do("POST", "/streams/"+web1+"/resume", nil, root).Want(t, http.StatusNoContent)
	now := float64(time.Now().Add(-time.Minute).Unix())
	sendGELF(t, h,
		gelfJSON("web-1", "GET /a 200", now, `,"_took_ms":12`),
		gelfJSON("web-1", "GET /b 500", now+1, `,"_took_ms":20.5`),
		gelfJSON("web-2", "GET /c 200", now+2, `,"_took_ms":7`),
	)

	// Create: 201, the search as stored, owned by its creator.
	const sid = "5f1a2b3c4d5e6f7a8b9c0d1f"
	res := h.Do("POST", "/views/search", viewSearch(sid, ""), root).Want(t, http.StatusCreated)
	if res.Get("id").String() != sid || res.Get("owner").String() != "admin" || res.Get("queries.0.search_types.#").Int() != 3 {
		t.Fatalf("created %s", res.Body)
	}
	if loc := res.Header.Get("Location"); !strings.HasSuffix(loc, "/api/views/search/"+sid) {
		t.Errorf("Location %q", loc)
	}
	got := h.Do("GET", "/views/search/"+sid, nil, root).Want(t, http.StatusOK)
	if !routertest.SameJSON(t, got.Body, res.Body) {
		t.Errorf("GET %s\nPOST %s", got.Body, res.Body)
	}

	// Metadata of the body.
	md := h.Do("POST", "/views/search/metadata", viewSearch(sid, "source:$host$ AND $host$"), root).Want(t, http.StatusOK)
	if md.Get("query_metadata.q1.used_parameters_names").Raw != `["host"]` || md.Get("declared_parameters").Raw != `{}` {
		t.Errorf("metadata %s", md.Body)
	}

	// Execute: a job with every search type's result, kept for its status.
	job := h.Do("POST", "/views/search/"+sid+"/execute", map[string]any{"parameter_bindings": map[string]any{}}, root).Want(t, http.StatusCreated)
	jobID := job.Get("id").String()
	if job.Get("search_id").String() != sid || job.Get("owner").String() != "admin" || !job.Get("execution.done").Bool() ||
		job.Get("execution.completed_exceptionally").Bool() || job.Get("errors").Raw != "[]" || job.Get("results.q1.state").String() != "COMPLETED" {
		t.Fatalf("job %s", job.Body)
	}
	if loc := job.Header.Get("Location"); !strings.HasSuffix(loc, "/api/views/search/status/"+jobID) {
		t.Errorf("Location %q", loc)
	}
	types := job.Get("results.q1.search_types")
	if n := types.Get("messages.total_results").Int(); n != 3 || types.Get("messages.messages.0.message.message").String() != "GET /c 200" {
		t.Errorf("messages %s", types.Get("messages").Raw)
	}
	if types.Get("chart.type").String() != "pivot" || types.Get("chart.total").Int() != 3 {
		t.Errorf("chart %s", types.Get("chart").Raw)
	}
	if types.Get("alerts").Raw != `{"events":[],"id":"alerts","name":null,"type":"events"}` {
		t.Errorf("events %s", types.Get("alerts").Raw)
	}
	status := h.Do("GET", "/views/search/status/"+jobID, nil, root).Want(t, http.StatusOK)
	if !bytes.Equal(status.Body, job.Body) {
		t.Errorf("status %s\njob %s", status.Body, job.Body)
	}

	// A stream's search page filters by its stream.
	const streamSearch = "5f1a2b3c4d5e6f7a8b9c0d20"
	h.Do("POST", "/views/search", viewSearch(streamSearch, "", web1), root).Want(t, http.StatusCreated)
	job = h.Do("POST", "/views/search/"+streamSearch+"/execute", map[string]any{"parameter_bindings": map[string]any{}}, root).Want(t, http.StatusCreated)
	if n := job.Get("results.q1.search_types.messages.total_results").Int(); n != 2 {
		t.Errorf("stream search found %d, want 2: %s", n, job.Body)
	}

	// A dashboard's override: its query and range, one search type, a page.
	job = h.Do("POST", "/views/search/"+sid+"/execute", map[string]any{"parameter_bindings": map[string]any{}, "global_override": map[string]any{
		"query":     map[string]any{"type": "elasticsearch", "query_string": "source:web-1"},
		"timerange": map[string]any{"type": "relative", "range": 3600}, "keep_search_types": []string{"messages"},
		"search_types": map[string]any{"messages": map[string]any{"limit": 1, "offset": 1}},
	}}, root).Want(t, http.StatusCreated)
	types = job.Get("results.q1.search_types")
	if types.Get("@keys").Raw != `["messages"]` || types.Get("messages.total_results").Int() != 2 ||
		types.Get("messages.messages.#").Int() != 1 || types.Get("messages.messages.0.message.message").String() != "GET /a 200" {
		t.Errorf("overridden %s", types.Raw)
	}

	// A query the user got wrong fails in the job, as Graylog reports it.
	const broken = "5f1a2b3c4d5e6f7a8b9c0d21"
	h.Do("POST", "/views/search", viewSearch(broken, "source:("), root).Want(t, http.StatusCreated)
	job = h.Do("POST", "/views/search/"+broken+"/execute", map[string]any{"parameter_bindings": map[string]any{}}, root).Want(t, http.StatusCreated)
	if job.Get("results.q1.state").String() != "FAILED" || job.Get("errors.0.query_id").String() != "q1" ||
		job.Get("errors.0.description").String() == "" || !job.Get("execution.done").Bool() {
		t.Errorf("failed job %s", job.Body)
	}

	// Someone else: the search and the job are not theirs.
	h.CreateUser("bob", "bobpassword")
	bob := nodetest.Basic("bob", "bobpassword")
	h.Do("GET", "/views/search/"+sid, nil, bob).WantError(t, http.StatusForbidden, "User bob does not have permission to load search "+sid)
	h.Do("POST", "/views/search/"+sid+"/execute", map[string]any{"parameter_bindings": map[string]any{}}, bob).Want(t, http.StatusForbidden)
	h.Do("GET", "/views/search/status/"+jobID, nil, bob).WantError(t, http.StatusNotFound, "No such search job")
	h.Do("POST", "/views/search", viewSearch(sid, "bob's"), bob).WantError(t, http.StatusForbidden, "already exists and user is not permitted to overwrite it")
	h.Do("GET", "/views/search/5f1a2b3c4d5e6f7a8b9c0dff", nil, bob).WantError(t, http.StatusNotFound, "Search with id 5f1a2b3c4d5e6f7a8b9c0dff does not exist")
	// Nor can bob make admin's search his by naming it in a view of his.
	h.Do("POST", "/views", map[string]any{"type": "SEARCH", "title": "borrowed", "search_id": sid, "state": map[string]any{}},
		bob).WantError(t, http.StatusBadRequest, "Search "+sid+" not available")
	h.Do("GET", "/views/search/"+sid, nil, bob).Want(t, http.StatusForbidden)
	// A stream bob may not read is refused when the search is created.
	denied := h.Do("POST", "/views/search", viewSearch("5f1a2b3c4d5e6f7a8b9c0d30", "", web1), bob).Want(t, http.StatusForbidden)
	if denied.Get("type").String() != "MissingStreamPermission" || denied.Get("streams").Raw != `["`+web1+`"]` {
		t.Errorf("denied %s", denied.Body)
	}

	// Bob with a role reading web-1: his own search sees web-1's messages
	// only, and a view he may read opens its search to him.
	view := h.Do("POST", "/views", map[string]any{"id": "5f1a2b3c4d5e6f7a8b9c0d40", "type": "SEARCH", "title": "Errors",
		"search_id": sid, "state": map[string]any{}}, root).Want(t, http.StatusOK).Get("id").String()
	h.Do("POST", "/roles", map[string]any{"name": "Web readers", "permissions": []string{"streams:read:" + web1, "view:read:" + view}}, root).Want(t, http.StatusCreated)
	h.Do("PUT", "/roles/Web readers/members/bob", nil, root).Want(t, http.StatusNoContent)
	const bobs = "5f1a2b3c4d5e6f7a8b9c0d31"
	h.Do("POST", "/views/search", viewSearch(bobs, ""), bob).Want(t, http.StatusCreated)
	job = h.Do("POST", "/views/search/"+bobs+"/execute", map[string]any{"parameter_bindings": map[string]any{}}, bob).Want(t, http.StatusCreated)
	if job.Get("owner").String() != "bob" || job.Get("results.q1.search_types.messages.total_results").Int() != 2 {
		t.Errorf("bob's job %s", job.Body)
	}
	h.Do("GET", "/views/search/status/"+job.Get("id").String(), nil, root).Want(t, http.StatusNotFound)
	h.Do("GET", "/views/search/"+sid, nil, bob).Want(t, http.StatusOK)
	h.Do("GET", "/views/"+view, nil, bob).Want(t, http.StatusOK)

	// Literal paths of POST-only routes are not search ids.
	h.Do("GET", "/views/search/sync", nil, root).Want(t, http.StatusMethodNotAllowed)
	h.Do("GET", "/views/search/metadata", nil, root).Want(t, http.StatusMethodNotAllowed)
}

// TestViewsFieldsAndFunctions: the field types of the streams a caller
// may read, from the stored messages, and the aggregation functions; both
// are no longer taken for view ids.
func TestViewsFieldsAndFunctions(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	now := float64(time.Now().Add(-time.Minute).Unix())
	sendGELF(t, h, gelfJSON("web-1", "GET /a 200", now, `,"_took_ms":12,"_path":"/a"`), gelfJSON("web-1", "GET /b", now, `,"_took_ms":12.5`))

	fields := h.Do("GET", "/views/fields", nil, root).Want(t, http.StatusOK)
	for name, want := range map[string]string{
		"source":    `{"type":"string","properties":["enumerable"],"index_names":["graylog_0"]}`,
		"message":   `{"type":"string","properties":["full-text-search"],"index_names":["graylog_0"]}`,
		"took_ms":   `{"type":"double","properties":["numeric","enumerable"],"index_names":["graylog_0"]}`,
		"path":      `{"type":"string","properties":["enumerable"],"index_names":["graylog_0"]}`,
		"timestamp": `{"type":"date","properties":["enumerable"],"index_names":["graylog_0"]}`,
		"level":     `{"type":"long","properties":["numeric","enumerable"],"index_names":["graylog_0"]}`,
	} {
		if got := fields.Get(fmt.Sprintf(`#(name==%q).type`, name)).Raw; got != want {
			t.Errorf("%s: %s, want %s", name, got, want)
		}
	}
	// After a restart the node samples what is stored.
	h.Restart()
	again := h.Do("GET", "/views/fields", nil, root).Want(t, http.StatusOK)
	if again.Get("#").Int() != fields.Get("#").Int() {
		t.Errorf("after restart %s\nbefore %s", again.Body, fields.Body)
	}

	// Someone who reads no stream sees no fields, and may not ask for a
	// stream's.
	h.CreateUser("bob", "bobpassword")
	bob := nodetest.Basic("bob", "bobpassword")
	if n := h.Do("GET", "/views/fields", nil, bob).Want(t, http.StatusOK).Get("#").Int(); n != 0 {
		t.Errorf("bob sees %d fields", n)
	}
	const all = "000000000000000000000001"
	if h.Do("POST", "/views/fields", map[string]any{"streams": []string{all}}, bob).Want(t, http.StatusForbidden).Get("type").String() != "MissingStreamPermission" {
		t.Error("not a MissingStreamPermission")
	}
	if n := h.Do("POST", "/views/fields", map[string]any{"streams": []string{all}}, root).Want(t, http.StatusOK).Get("#").Int(); n != fields.Get("#").Int() {
		t.Errorf("POST answered %d fields", n)
	}

	fns := h.Do("GET", "/views/functions", nil, bob).Want(t, http.StatusOK)
	if fns.Get("count").Raw != `{"type":"count","description":"Count"}` || len(fns.Get("@keys").Array()) != 11 {
		t.Errorf("functions %s", fns.Body)
	}
}

// TestViewsReopenedByClientID: both interfaces save a view under their own
// id and open it by that id.
func TestViewsReopenedByClientID(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	const id = "5f1a2b3c4d5e6f7a8b9c0d50"
	body := map[string]any{"id": id, "type": "DASHBOARD", "title": "Web", "search_id": "5f1a2b3c4d5e6f7a8b9c0d1f",
		"state": map[string]any{"q1": map[string]any{"widgets": []any{map[string]any{"id": "w1", "type": "aggregation",
			"config": map[string]any{"row_pivots": []any{}, "series": []any{map[string]any{"function": "count()"}}}}}}}}
	h.Do("POST", "/views", body, root).Want(t, http.StatusOK)
	v := h.Do("GET", "/views/"+id, nil, root).Want(t, http.StatusOK)
	cfg := v.Get("state.q1.widgets.0.config")
	if cfg.Get("visualization_config").Raw != "null" || cfg.Get("formatting_settings").Raw != "null" {
		t.Errorf("config %s", cfg.Raw)
	}
	h.Do("POST", "/views", body, root).WantError(t, http.StatusConflict, "View "+id+" already exists")
}

// TestAlertsPage: the calls of the alerts page answer empty, in 4.0's
// shapes.
func TestAlertsPage(t *testing.T) {
	h := nodetest.Start(t)
	h.CreateUser("bob", "bobpassword")
	bob := nodetest.Basic("bob", "bobpassword")
	defs := h.Do("GET", "/events/definitions?page=1&per_page=10&query=", nil, bob).Want(t, http.StatusOK)
	if !routertest.SameJSON(t, defs.Body, []byte(`{"total":0,"count":0,"page":1,"per_page":10,"query":"","grand_total":0,"event_definitions":[],"context":{"scheduler":{}}}`)) {
		t.Errorf("definitions %s", defs.Body)
	}
	notes := h.Do("GET", "/events/notifications", nil, bob).Want(t, http.StatusOK)
	if !routertest.SameJSON(t, notes.Body, []byte(`{"total":0,"count":0,"page":1,"per_page":50,"query":"","grand_total":0,"notifications":[]}`)) {
		t.Errorf("notifications %s", notes.Body)
	}
	res := h.Do("POST", "/events/search", map[string]any{"query": "", "page": 1, "per_page": 25, "filter": map[string]any{"alerts": "only"},
		"timerange": map[string]any{"type": "relative", "range": 86400}}, bob).Want(t, http.StatusOK)
	res.Body = bytes.Replace(res.Body, []byte(`"duration":`+res.Get("duration").Raw), []byte(`"duration":0`), 1)
	want := `{"events":[],"used_indices":[],"total_events":0,"duration":0,"context":{"event_definitions":{},"streams":{}},` +
		`"parameters":{"page":1,"per_page":25,"timerange":{"type":"relative","range":86400},"query":"",` +
		`"filter":{"alerts":"only","event_definitions":[]},"sort_by":"timestamp","sort_direction":"desc"}}`
	if !routertest.SameJSON(t, res.Body, []byte(want)) {
		t.Errorf("search %s", res.Body)
	}
	h.Do("POST", "/events/search", map[string]any{"filter": map[string]any{"alerts": "sometimes"}}, bob).WantError(t, http.StatusBadRequest, "Invalid filter.alerts")
	h.Do("GET", "/events/definitions", nil).Want(t, http.StatusUnauthorized)
}

// TestDeletedOwnerLeavesNoHeir: views and searches are owned by username;
// when their owner is deleted they lose their owner, so that a new user of
// the same name does not inherit them. They stay for those with
// permissions on them.
func TestDeletedOwnerLeavesNoHeir(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	h.CreateUser("bob", "bob-one")
	bob := nodetest.Basic("bob", "bob-one")
	const sid = "5f1a2b3c4d5e6f7a8b9c0d51"
	h.Do("POST", "/views/search", viewSearch(sid, ""), bob).Want(t, http.StatusCreated)
	id := h.Do("POST", "/views", map[string]any{"type": "SEARCH", "title": "bob's own", "search_id": sid, "state": map[string]any{}},
		bob).Want(t, http.StatusOK).Get("id").String()
	h.Do("GET", "/views/"+id, nil, bob).Want(t, http.StatusOK)

	h.Do("DELETE", "/users/bob", nil, root).Want(t, http.StatusNoContent)
	h.CreateUser("bob", "bob-two")
	heir := nodetest.Basic("bob", "bob-two")
	// The new bob is answered as any other user without permissions.
	h.CreateUser("carol", "carol-pw")
	carol := nodetest.Basic("carol", "carol-pw")
	for _, path := range []string{"/views/" + id, "/views/search/" + sid} {
		want := h.Do("GET", path, nil, carol).Status
		if got := h.Do("GET", path, nil, heir).Status; got != want || got == http.StatusOK {
			t.Errorf("GET %s as the new bob: %d, as carol %d", path, got, want)
		}
	}
	h.Do("DELETE", "/views/"+id, nil, heir).WantError(t, http.StatusForbidden, "")
	if got := h.Do("GET", "/views", nil, heir).Want(t, http.StatusOK).Get("views.#.id").Raw; strings.Contains(got, id) {
		t.Errorf("the new bob lists the old bob's view: %s", got)
	}

	v := h.Do("GET", "/views/"+id, nil, root).Want(t, http.StatusOK)
	if owner := v.Get("owner"); owner.Type != gjson.Null {
		t.Errorf("owner of a deleted user's view: %s", owner.Raw)
	}
	h.Do("GET", "/views/search/"+sid, nil, root).Want(t, http.StatusOK)
}

// TestExecutedSearchSize: the queries of one executed search share its
// bounds: message lists asking for more than 20,000 messages together
// fail the query that goes over, in the job, as Graylog reports a query's
// error; the queries before it are answered.
func TestExecutedSearchSize(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	const sid = "5f1a2b3c4d5e6f7a8b9c0d61"
	query := func(id string) map[string]any {
		return map[string]any{
			"id": id, "query": map[string]any{"type": "elasticsearch", "query_string": ""},
			"timerange": map[string]any{"type": "relative", "range": 300}, "filter": nil,
			"search_types": []any{map[string]any{"id": "m", "type": "messages", "limit": 10000, "offset": 0}},
		}
	}
	body := map[string]any{"id": sid, "parameters": []any{}, "queries": []any{query("q1"), query("q2"), query("q3")}}
	h.Do("POST", "/views/search", body, root).Want(t, http.StatusCreated)
	job := h.Do("POST", "/views/search/"+sid+"/execute", map[string]any{"parameter_bindings": map[string]any{}}, root).Want(t, http.StatusCreated)
	failed := 0
	for _, q := range []string{"q1", "q2", "q3"} {
		if job.Get("results."+q+".state").String() == "FAILED" {
			failed++
		}
	}
	if failed != 1 || !strings.Contains(job.Get("errors.0.description").String(), "at most 20000 messages together") {
		t.Errorf("%d queries failed; job errors %s", failed, job.Get("errors").Raw)
	}
}

// TestViewsSearchFilterAnd: an "and" of stream filters finds the messages
// in each of the streams, as Graylog's filter clauses do; an "or" those
// in any of them.
func TestViewsSearchFilterAnd(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	stream := func(title string, rule map[string]any) string {
		id := h.Do("POST", "/streams", map[string]any{
			"title": title, "index_set_id": defaultIndexSet(t, h), "matching_type": "AND", "rules": []map[string]any{rule},
		}, root).Want(t, http.StatusCreated).Get("stream_id").String()
		h.Do("POST", "/streams/"+id+"/resume", nil, root).Want(t, http.StatusNoContent)
		return id
	}
	web := stream("web-1", map[string]any{"field": "source", "type": 1, "value": "web-1", "inverted": false})
	errs := stream("errors", map[string]any{"field": "message", "type": 6, "value": "500", "inverted": false})
	now := float64(time.Now().Add(-time.Minute).Unix())
	sendGELF(t, h,
		gelfJSON("web-1", "GET /a 200", now, ""),
		gelfJSON("web-1", "GET /b 500", now+1, ""),
		gelfJSON("web-2", "GET /c 500", now+2, ""))
	count := func(kind string) int64 {
		filter := map[string]any{"type": kind, "filters": []any{
			map[string]any{"type": "stream", "id": web}, map[string]any{"type": "stream", "id": errs}}}
		r := h.Do("POST", "/views/search/sync", map[string]any{"queries": []any{map[string]any{
			"id": "q1", "query": map[string]any{"type": "elasticsearch", "query_string": ""},
			"timerange": map[string]any{"type": "relative", "range": 0}, "filter": filter,
			"search_types": []any{map[string]any{"id": "m1", "type": "messages", "limit": 10, "offset": 0}},
		}}}, root).Want(t, http.StatusOK)
		return r.Get("results.q1.search_types.m1.total_results").Int()
	}
	if and, or := count("and"), count("or"); and != 1 || or != 3 {
		t.Errorf("and of the two streams: %d messages, or: %d; want 1 and 3", and, or)
	}
}
