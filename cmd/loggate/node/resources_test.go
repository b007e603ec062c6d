package node_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
)

// configState reads back every configuration resource a client can create,
// in a form that can be compared across a restart.
func configState(t *testing.T, h *nodetest.Harness) map[string]string {
	t.Helper()
	root := nodetest.AsRoot()
	get := func(path, gj string) string {
		return h.Do("GET", path, nil, root).Want(t, http.StatusOK).Get(gj).Raw
	}
	return map[string]string{
		"streams":    get("/streams", "streams"),
		"outputs":    get("/system/outputs", "outputs"),
		"inputs":     get("/system/inputs", "inputs"),
		"grok":       get("/system/grok", "patterns"),
		"index sets": get("/system/indices/index_sets", "index_sets"),
		"views":      get("/views?per_page=1000", "views"),
		"default":    get("/system/indices/index_sets", `index_sets.#(default==true).id`),
	}
}

// Everything created through the configuration API survives a restart.
func TestConfigurationSurvivesRestart(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()

	is := h.Do("POST", "/system/indices/index_sets", map[string]any{
		"title": "Web", "description": "web servers", "index_prefix": "web", "shards": 1, "replicas": 0,
		"rotation_strategy_class":  "org.graylog2.indexer.rotation.strategies.TimeBasedRotationStrategy",
		"rotation_strategy":        map[string]any{"type": "org.graylog2.indexer.rotation.strategies.TimeBasedRotationStrategyConfig", "rotation_period": "P1D"},
		"retention_strategy_class": "org.graylog2.indexer.retention.strategies.DeletionRetentionStrategy",
		"retention_strategy":       map[string]any{"type": "org.graylog2.indexer.retention.strategies.DeletionRetentionStrategyConfig", "max_number_of_indices": 7},
		"index_analyzer":           "standard", "index_optimization_max_num_segments": 1, "index_optimization_disabled": false,
		"field_type_refresh_interval": 5000, "writable": true,
	}, root).Want(t, http.StatusOK).Get("id").String()
	h.Do("PUT", "/system/indices/index_sets/"+is+"/default", nil, root).Want(t, http.StatusOK)

	sid := h.Do("POST", "/streams", map[string]any{
		"title": "nginx errors", "index_set_id": is, "matching_type": "OR",
		"rules": []map[string]any{{"type": 1, "field": "source", "value": "web-1", "inverted": false}},
	}, root).Want(t, http.StatusCreated).Get("stream_id").String()
	h.Do("POST", "/streams/"+sid+"/rules", map[string]any{"type": 2, "field": "message", "value": "^ERROR", "inverted": true}, root).Want(t, http.StatusCreated)
	h.Do("POST", "/streams/"+sid+"/resume", nil, root).Want(t, http.StatusNoContent)

	oid := h.Do("POST", "/system/outputs", map[string]any{
		"title": "forward", "type": "org.graylog2.outputs.GelfOutput",
		"configuration": map[string]any{"hostname": "gelf.example.org", "port": 12202, "protocol": "UDP"},
	}, root).Want(t, http.StatusCreated).Get("id").String()
	h.Do("POST", "/streams/"+sid+"/outputs", map[string]any{"outputs": []string{oid}}, root).Want(t, http.StatusAccepted)

	h.Do("POST", "/system/inputs", map[string]any{
		"title": "gelf http", "type": "org.graylog2.inputs.gelf.http.GELFHttpInput", "global": true,
		"configuration": map[string]any{"bind_address": "127.0.0.1", "port": 12201},
	}, root).Want(t, http.StatusCreated)
	h.Do("POST", "/system/grok", map[string]any{"name": "LOGGATE_REQ", "pattern": "%{WORD:method} %{NUMBER:status}"}, root).Want(t, http.StatusCreated)
	h.Do("POST", "/views", map[string]any{
		"type": "DASHBOARD", "title": "Ops", "summary": "", "description": "", "search_id": "5f9c0e1a2b3c4d5e6f708192",
		"properties": []string{}, "requires": map[string]any{}, "state": map[string]any{},
	}, root).Want(t, http.StatusOK)

	before := configState(t, h)
	if !strings.Contains(before["streams"], "nginx errors") || !strings.Contains(before["streams"], "^ERROR") ||
		!strings.Contains(before["streams"], "gelf.example.org") || before["default"] != `"`+is+`"` {
		t.Fatalf("not created as asked: %v", before)
	}
	h.Restart()
	after := configState(t, h)
	for k, v := range before {
		if after[k] != v {
			t.Errorf("%s changed across a restart:\nbefore %s\nafter  %s", k, v, after[k])
		}
	}
}

// The deprecated cluster stats count what the services hold.
func TestClusterStats(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	base := h.Do("GET", "/system/cluster/stats", nil, root).Want(t, http.StatusOK)
	is := h.Do("GET", "/system/indices/index_sets", nil, root).Get(`index_sets.#(default==true).id`).String()
	for i := range 3 {
		sid := h.Do("POST", "/streams", map[string]any{"title": fmt.Sprint("s", i), "index_set_id": is}, root).Want(t, http.StatusCreated).Get("stream_id").String()
		for range i {
			h.Do("POST", "/streams/"+sid+"/rules", map[string]any{"type": 5, "field": "source"}, root).Want(t, http.StatusCreated)
		}
	}
	h.Do("POST", "/system/outputs", map[string]any{"title": "o", "type": "org.graylog2.outputs.GelfOutput",
		"configuration": map[string]any{"hostname": "h", "port": 12201, "protocol": "TCP"}}, root).Want(t, http.StatusCreated)
	h.Do("POST", "/system/inputs", map[string]any{"title": "i", "type": "org.graylog2.inputs.gelf.udp.GELFUDPInput", "global": true,
		"configuration": map[string]any{"bind_address": "127.0.0.1", "port": 12201}}, root).Want(t, http.StatusCreated)
	h.CreateUser("carol", "pw")

	st := h.Do("GET", "/system/cluster/stats", nil, root).Want(t, http.StatusOK)
	wants := []struct {
		path string
		want int64
	}{
		{"stream_count", base.Get("stream_count").Int() + 3},
		{"stream_rule_count", base.Get("stream_rule_count").Int() + 3},
		{"output_count", 1},
		{"output_count_by_type.org\\.graylog2\\.outputs\\.GelfOutput", 1},
		{"input_count", 1},
		{"global_input_count", 1},
		{"user_count", base.Get("user_count").Int() + 1},
		{"elasticsearch.nodes_stats.total", 1},
	}
	for _, w := range wants {
		if got := st.Get(w.path).Int(); got != w.want {
			t.Errorf("%s = %d, want %d (%s)", w.path, got, w.want, st.Body)
		}
	}
	mongo := h.Do("GET", "/system/cluster/stats/mongo", nil, root).Want(t, http.StatusOK)
	if mongo.Get("database_stats.objects").Int() <= base.Get("mongo.database_stats.objects").Int() ||
		mongo.Get("server_status.storage_engine.name").String() != "bbolt" || mongo.Get("database_stats.storage_size").Int() <= 0 {
		t.Errorf("document store stats: %s", mongo.Body)
	}
	es := h.Do("GET", "/system/cluster/stats/elasticsearch", nil, root).Want(t, http.StatusOK)
	if es.Get("status").String() != "Green" || !es.Get("indices_stats.index_count").Exists() {
		t.Errorf("search stats: %s", es.Body)
	}
	// Authentication only, as in Graylog.
	h.Do("GET", "/system/cluster/stats", nil).WantError(t, http.StatusUnauthorized, "")
	h.Do("GET", "/system/cluster/stats", nil, nodetest.Basic("carol", "pw")).Want(t, http.StatusOK)
}

// Every paginated listing of the configuration API answers bad paging the
// same way: one implementation.
func TestPaginationRefusesBadValues(t *testing.T) {
	h := nodetest.Start(t)
	for _, path := range []string{"/users/paginated", "/streams/paginated", "/system/grok/paginated", "/views", "/dashboards", "/search/saved"} {
		for _, q := range []string{"per_page=-1", "page=0", "page=x", "sort=nope", "order=up"} {
			r := h.Do("GET", path+"?"+q, nil, nodetest.AsRoot())
			if r.Status != http.StatusBadRequest || r.Get("type").String() != "ApiError" {
				t.Errorf("GET %s?%s = %d %s; want 400 ApiError", path, q, r.Status, r.Body)
			}
		}
		// Known values work.
		h.Do("GET", path+"?page=1&per_page=5&order=desc", nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	}
}

// per_page=0 is every item on one page, as Graylog 4.0's web interface asks
// for the roles (/authz/roles?page=1&per_page=0) and other listings.
func TestPaginationPerPageZeroIsAll(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	for i := range 3 {
		h.Do("POST", "/roles", map[string]any{"name": fmt.Sprintf("role-%d", i), "permissions": []string{"streams:read"}}, root).Want(t, http.StatusCreated)
	}
	for _, c := range []struct{ path, items, perPage string }{
		{"/authz/roles", "roles", "per_page"}, {"/users/paginated", "users", "per_page"},
		{"/streams/paginated", "streams", "pagination.per_page"}, {"/system/grok/paginated", "patterns", "per_page"},
		{"/system/authentication/services/backends", "backends", "per_page"},
	} {
		all := h.Do("GET", c.path+"?page=1&per_page=0", nil, root).Want(t, http.StatusOK)
		total := all.Get("total").Int()
		if n := all.Get(c.items + ".#").Int(); n != total || !all.Get(c.perPage).Exists() || all.Get(c.perPage).Int() != 0 {
			t.Errorf("GET %s?per_page=0: %d of %d items, per_page %s: %s", c.path, n, total, all.Get(c.perPage).Raw, all.Body)
		}
		if one := h.Do("GET", c.path+"?page=1&per_page=1", nil, root).Want(t, http.StatusOK); total > 1 && one.Get(c.items+".#").Int() != 1 {
			t.Errorf("GET %s?per_page=1: %s", c.path, one.Body)
		}
	}
}

// The built-in configuration exists from the first start and is not
// duplicated by later starts.
func TestFirstStartSeeds(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	count := func() []int64 {
		return []int64{
			h.Do("GET", "/streams", nil, root).Get("total").Int(),
			h.Do("GET", "/system/indices/index_sets", nil, root).Get("total").Int(),
			int64(len(h.Do("GET", "/system/grok", nil, root).Get("patterns").Array())),
		}
	}
	first := count()
	if def := h.Do("GET", "/streams/000000000000000000000001", nil, root).Want(t, http.StatusOK); def.Get("title").String() != "All messages" || !def.Get("is_default").Bool() {
		t.Errorf("default stream: %s", def.Body)
	}
	if first[2] == 0 {
		t.Error("no default grok patterns")
	}
	h.Restart()
	if again := count(); !slices.Equal(first, again) {
		t.Errorf("counts after restart %v, first start %v", again, first)
	}
}

// The listings 4.0 deprecated are served with Deprecation, and a Link to
// their successor where 4.0 names one.
func TestDeprecatedListings(t *testing.T) {
	h := nodetest.Start(t)
	for path, successor := range map[string]string{
		"/users":                              "/users/paginated",
		"/streams":                            "/streams/paginated",
		"/system/grok":                        "/system/grok/paginated",
		"/system/cluster/stats":               "",
		"/system/cluster/stats/elasticsearch": "",
		"/system/cluster/stats/mongo":         "",
	} {
		r := h.Do("GET", path, nil, nodetest.AsRoot()).Want(t, http.StatusOK)
		link := r.Header.Get("Link")
		if r.Header.Get("Deprecation") != "true" {
			t.Errorf("GET %s: no Deprecation header", path)
		}
		switch {
		case successor == "" && link != "":
			t.Errorf("GET %s: Link %q, want none", path, link)
		case successor != "" && link != "<"+h.URL+successor+`>; rel="successor-version"`:
			t.Errorf("GET %s: Link %q, want the successor %s", path, link, successor)
		}
	}
	if r := h.Do("GET", "/users/paginated", nil, nodetest.AsRoot()); r.Header.Get("Deprecation") != "" {
		t.Error("a current listing says it is deprecated")
	}
}

// Deprecated routes whose successor has path values name it by its URI;
// clients of a release without the successor are not pointed at it.
func TestDeprecationSuccessors(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	jane := h.CreateUser("jane", "secret123")
	is := h.Do("GET", "/system/indices/index_sets", nil, root).Get(`index_sets.#(default==true).id`).String()
	link := func(path string) string { return "<" + h.URL + path + `>; rel="successor-version"` }
	for _, c := range []struct {
		release, method, path string
		status                int
		deprecated            bool
		link                  string
	}{
		{"", "GET", "/users/jane", 200, true, link("/users/id/" + jane)},
		{"", "GET", "/users/nobody", 404, true, ""},
		{"", "GET", "/system/deflector", 200, true, link("/system/deflector/" + is)},
		{"", "POST", "/system/deflector/cycle", 204, true, link("/system/deflector/" + is + "/cycle")},
		{"", "POST", "/cluster/deflector/cycle", 204, true, link("/cluster/deflector/" + is + "/cycle")},
		{"4.0", "GET", "/streams", 200, true, link("/streams/paginated")},
		// 3.3 had no /streams/paginated, /users/paginated, /users/id/…
		{"3.3", "GET", "/streams", 200, false, ""},
		{"3.3", "GET", "/users", 200, false, ""},
		{"3.3", "GET", "/system/grok", 200, false, ""},
		{"3.3", "GET", "/users/jane", 200, false, ""},
		{"3.3", "GET", "/system/cluster/stats", 200, true, ""},
		// Index sets, and their deflectors, came with 2.2.
		{"2.1", "GET", "/system/deflector", 200, false, ""},
		{"2.2", "GET", "/system/deflector", 200, true, link("/system/deflector/" + is)},
	} {
		r := h.Do(c.method, c.path, nil, root, nodetest.Header("X-API-Version", c.release)).Want(t, c.status)
		if got := r.Header.Get("Deprecation") == "true"; got != c.deprecated || r.Header.Get("Link") != c.link {
			t.Errorf("%s %s as %q: Deprecation %q, Link %q; want deprecated %v, Link %q",
				c.method, c.path, c.release, r.Header.Get("Deprecation"), r.Header.Get("Link"), c.deprecated, c.link)
		}
	}
}

// TestSuccessorLinkEscapesIDs: the deprecated POST of a stream rule names
// its successor with the path's ids escaped, so that any id, a control
// character included, gives a well-formed answer.
func TestSuccessorLinkEscapesIDs(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	r := h.Do("POST", "/streams/%00x/rules/a%20b", map[string]any{}, root)
	if r.Status < 400 || r.Status >= 500 {
		t.Fatalf("status %d: %s", r.Status, r.Body)
	}
	if want := "<" + h.URL + `/streams/%00x/rules/a%20b>; rel="successor-version"`; r.Header.Get("Link") != want {
		t.Errorf("Link %q, want %q", r.Header.Get("Link"), want)
	}
}

// TestOutputCreateNeedsStreamEdit: an output created with streams is
// attached to them only for a caller who may attach outputs to each
// (streams:edit:<id>, stream_outputs:create), as POST /streams/{id}/outputs
// asks. outputs:create alone attached an output to any stream, whose
// messages it then forwarded to a host of the caller's choosing.
func TestOutputCreateNeedsStreamEdit(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	secret := h.Do("POST", "/streams", map[string]any{"title": "secret", "index_set_id": defaultIndexSet(t, h),
		"rules": []map[string]any{{"field": "source", "type": 1, "value": "hr", "inverted": false}}}, root).Want(t, http.StatusCreated).Get("stream_id").String()
	h.Do("POST", "/roles", map[string]any{"name": "Output makers", "permissions": []string{"outputs:create", "outputs:read"}}, root).Want(t, http.StatusCreated)
	h.CreateUser("mallory", "password1234", "Reader", "Output makers")
	mallory := nodetest.Basic("mallory", "password1234")
	body := func(streams ...string) map[string]any {
		return map[string]any{"title": "exfil", "type": "org.graylog2.outputs.GelfOutput",
			"configuration": map[string]any{"hostname": "attacker.example.org", "port": 12201, "protocol": "UDP"}, "streams": streams}
	}
	h.Do("POST", "/system/outputs", body(secret), mallory).Want(t, http.StatusForbidden)
	h.Do("POST", "/system/outputs", body("5fc3a1e2b1f1a4a1c3e7d9f1"), mallory).Want(t, http.StatusForbidden) // unknown: the same
	if outs := h.Do("GET", "/streams/"+secret, nil, root).Want(t, http.StatusOK).Get("outputs.#").Int(); outs != 0 {
		t.Fatalf("%d outputs attached to a stream the caller may not edit", outs)
	}
	if n := h.Do("GET", "/system/outputs", nil, root).Want(t, http.StatusOK).Get("total").Int(); n != 0 {
		t.Errorf("%d outputs stored by refused requests", n)
	}
	h.Do("POST", "/system/outputs", body(), mallory).Want(t, http.StatusCreated)
	h.Do("POST", "/system/outputs", body(secret), root).Want(t, http.StatusCreated)
	if outs := h.Do("GET", "/streams/"+secret, nil, root).Want(t, http.StatusOK).Get("outputs.#").Int(); outs != 1 {
		t.Errorf("an administrator's output with streams: %d attached, want 1", outs)
	}
}

// indexSetBody is a writable index set of prefix, deleting old indices.
func indexSetBody(title, prefix string) map[string]any {
	return map[string]any{
		"title": title, "description": title, "index_prefix": prefix, "shards": 1, "replicas": 0,
		"rotation_strategy_class":  "org.graylog2.indexer.rotation.strategies.MessageCountRotationStrategy",
		"rotation_strategy":        map[string]any{"type": "org.graylog2.indexer.rotation.strategies.MessageCountRotationStrategyConfig", "max_docs_per_index": 20000000},
		"retention_strategy_class": "org.graylog2.indexer.retention.strategies.DeletionRetentionStrategy",
		"retention_strategy":       map[string]any{"type": "org.graylog2.indexer.retention.strategies.DeletionRetentionStrategyConfig", "max_number_of_indices": 20},
		"index_analyzer":           "standard", "index_optimization_max_num_segments": 1, "index_optimization_disabled": false,
		"field_type_refresh_interval": 5000, "writable": true,
	}
}

// TestStreamIndexSetIDCase: a stream given its index set's id in upper case
// writes to that index set, and the index set cannot be deleted while the
// stream uses it. The id was stored as given: routing did not find it and
// wrote to the default index set, and the in-use check passed it.
func TestStreamIndexSetIDCase(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	set := h.Do("POST", "/system/indices/index_sets", indexSetBody("Web", "web"), root).Want(t, http.StatusOK).Get("id").String()
	st := h.Do("POST", "/streams", map[string]any{
		"title": "web", "index_set_id": strings.ToUpper(set), "remove_matches_from_default_stream": true,
		"rules": []map[string]any{{"field": "source", "type": 1, "value": "web-1", "inverted": false}},
	}, root).Want(t, http.StatusCreated).Get("stream_id").String()
	h.Do("POST", "/streams/"+st+"/resume", nil, root).Want(t, http.StatusNoContent)
	if got := h.Do("GET", "/streams/"+st, nil, root).Want(t, http.StatusOK).Get("index_set_id").String(); got != set {
		t.Errorf("stored index_set_id %q, want %q", got, set)
	}
	_, addr := h.CreateInput(httpInput)
	postGELF(t, addr, "web-1", "GET /", 1700000000)
	h.WaitProcessed(1)
	if n := h.Do("GET", "/system/indices/index_sets/"+set+"/stats", nil, root).Want(t, http.StatusOK).Get("documents").Int(); n != 1 {
		t.Errorf("the stream's index set holds %d documents, want 1", n)
	}
	h.Do("DELETE", "/system/indices/index_sets/"+set, nil, root).Want(t, http.StatusConflict)
}

// TestStreamRuleOnGELFDouble: a stream rule reads a GELF decimal (5.0) as
// Graylog's Double does, "5.0", as testMatch says; routing read it as "5".
func TestStreamRuleOnGELFDouble(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	sid := h.Do("POST", "/streams", map[string]any{
		"title": "slow", "index_set_id": defaultIndexSet(t, h),
		"rules": []map[string]any{{"field": "duration", "type": 1, "value": "5.0", "inverted": false}},
	}, root).Want(t, http.StatusCreated).Get("stream_id").String()
	h.Do("POST", "/streams/"+sid+"/resume", nil, root).Want(t, http.StatusNoContent)
	if tm := h.Do("POST", "/streams/"+sid+"/testMatch", map[string]any{"message": map[string]any{"duration": json.RawMessage("5.0")}}, root).
		Want(t, http.StatusOK); !tm.Get("matches").Bool() {
		t.Fatalf("testMatch: %s", tm.Body)
	}
	_, addr := h.CreateInput(httpInput)
	resp, err := http.Post("http://"+addr.String()+"/gelf", "application/json", strings.NewReader(gelfJSON("web-5", "slow request", 1700000000, `,"_duration":5.0`)))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	h.WaitProcessed(1)
	res := h.Do("GET", "/search/universal/relative?query=source:web-5&range=0", nil, root).Want(t, http.StatusOK)
	if !strings.Contains(res.Get("messages.0.message.streams").Raw, sid) {
		t.Errorf("routed to %s, not to %s", res.Get("messages.0.message.streams").Raw, sid)
	}
}

// TestIndexSetDeleteDeletesIndices: deleting an index set deletes its
// messages unless delete_indices=false, as Graylog's cleanup job does. They
// were kept: the disk space was never given back, and a new index set of
// the same prefix started with every message of the deleted one.
func TestIndexSetDeleteDeletesIndices(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	_, addr := h.CreateInput(httpInput)
	sent := uint64(0)
	for _, c := range []struct {
		prefix, query string
		keep          bool
	}{{"hr", "", false}, {"ops", "?delete_indices=false", true}} {
		set := h.Do("POST", "/system/indices/index_sets", indexSetBody(c.prefix, c.prefix), root).Want(t, http.StatusOK).Get("id").String()
		sid := h.Do("POST", "/streams", map[string]any{
			"title": c.prefix, "index_set_id": set, "remove_matches_from_default_stream": true,
			"rules": []map[string]any{{"field": "source", "type": 1, "value": c.prefix + "-1", "inverted": false}},
		}, root).Want(t, http.StatusCreated).Get("stream_id").String()
		h.Do("POST", "/streams/"+sid+"/resume", nil, root).Want(t, http.StatusNoContent)
		postGELF(t, addr, c.prefix+"-1", "salary list", 1700000000)
		sent++
		h.WaitProcessed(sent)
		h.Do("POST", "/system/deflector/"+set+"/cycle", nil, root) // a second index
		postGELF(t, addr, c.prefix+"-1", "salary list 2", 1700000001)
		sent++
		h.WaitProcessed(sent)
		if n := h.Do("GET", "/system/indices/index_sets/"+set+"/stats", nil, root).Want(t, http.StatusOK).Get("documents").Int(); n != 2 {
			t.Fatalf("%s holds %d documents before the delete, want 2", c.prefix, n)
		}
		h.Do("PUT", "/streams/"+sid, map[string]any{"index_set_id": defaultIndexSet(t, h)}, root).Want(t, http.StatusOK)
		h.Do("DELETE", "/system/indices/index_sets/"+set+c.query, nil, root).Want(t, http.StatusNoContent)

		again := h.Do("POST", "/system/indices/index_sets", indexSetBody(c.prefix+" again", c.prefix), root).Want(t, http.StatusOK).Get("id").String()
		st := h.Do("GET", "/system/indices/index_sets/"+again+"/stats", nil, root).Want(t, http.StatusOK)
		if kept := st.Get("documents").Int(); kept != 0 && !c.keep || kept != 2 && c.keep {
			t.Errorf("%s%s: a new index set of its prefix holds %s", c.prefix, c.query, st.Body)
		}
		if found := h.Do("GET", "/search/universal/relative?query=source:"+c.prefix+"-1&range=0", nil, root).Want(t, http.StatusOK).Get("total_results").Int(); found != 0 && !c.keep {
			t.Errorf("%s: %d messages still found", c.prefix, found)
		}
	}
}
