package node_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/logs/streams"
	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
	"github.com/tidwall/gjson"
)

// TestPipelinesEndToEnd sends GELF messages through pipelines connected to
// the default stream: a rule parses the message, one routes errors to a
// stream whose own pipeline then runs for it, one fails at run time. The
// search finds what the rules set, and the simulator answers what
// processing stored.
func TestPipelinesEndToEnd(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()

	errorsStream := h.Do("POST", "/streams", map[string]any{
		"title": "Errors", "index_set_id": defaultIndexSet(t, h), "matching_type": "AND", "rules": []any{},
	}, root).Want(t, http.StatusCreated).Get("stream_id").String()
	h.Do("POST", "/streams/"+errorsStream+"/resume", nil, root).Want(t, http.StatusNoContent)

	rule := func(src string) string {
		t.Helper()
		res := h.Do("POST", "/system/pipelines/rule", map[string]any{"title": "ignored", "description": "d", "source": src}, root).Want(t, http.StatusOK)
		if res.Get("errors").Type.String() != "Null" || res.Get("created_at").String() == "" {
			t.Fatalf("created rule: %s", res.Body)
		}
		return res.Get("id").String()
	}
	rule(`rule "parse access line"
when has_field("message")
then
  let m = regex("^(\\w+) (\\S+) (\\d+)$", to_string($message.message));
  set_field("verb", m["0"]);
  set_field("status", to_long(m["2"]));
  set_fields(grok("%{WORD:method} %{NOTSPACE:path}", to_string($message.message)));
end`)
	rule(`rule "route errors"
when to_long($message.status) >= 500
then
  route_to_stream(name: "Errors");
end`)
	rule(`rule "divide"
when true
then
  let x = 10 / to_long($message.zero);
  set_field("never", x);
end`)
	rule(`rule "mark errors"
when true
then
  set_field("alerted", true);
end`)
	main := h.Do("POST", "/system/pipelines/pipeline", map[string]any{"source": `pipeline "main"
stage 0 match either
rule "parse access line"
stage 1 match all
rule "route errors"
rule "divide"
end`}, root).Want(t, http.StatusOK)
	if got := main.Get("stages.#.stage").Raw; got != "[0,1]" || main.Get("title").String() != "main" {
		t.Fatalf("pipeline: %s", main.Body)
	}
	onErrors := h.Do("POST", "/system/pipelines/pipeline", map[string]any{"source": "pipeline \"on errors\"\nstage 0 match all\nrule \"mark errors\"\nend"}, root).
		Want(t, http.StatusOK).Get("id").String()
	h.Do("POST", "/system/pipelines/connections/to_stream", map[string]any{
		"stream_id": streams.DefaultStreamID, "pipeline_ids": []string{main.Get("id").String()}}, root).Want(t, http.StatusOK)
	h.Do("POST", "/system/pipelines/connections/to_pipeline", map[string]any{
		"pipeline_id": onErrors, "stream_ids": []string{errorsStream}}, root).Want(t, http.StatusOK)
	conn := h.Do("GET", "/system/pipelines/connections/"+errorsStream, nil, root).Want(t, http.StatusOK)
	if got := conn.Get("pipeline_ids").Raw; got != `["`+onErrors+`"]` {
		t.Fatalf("connection: %s", conn.Body)
	}

	_, addr := h.CreateInput(httpInput)
	base := float64(time.Now().Add(-time.Minute).Unix())
	postGELF(t, addr, "web-1", "GET /index.html 200", base+1)
	postGELF(t, addr, "web-1", "POST /api 503", base+2)
	h.WaitProcessed(2)

	res := h.Do("GET", "/search/universal/relative?query=status:503&range=0", nil, root).Want(t, http.StatusOK)
	if res.Get("total_results").Int() != 1 {
		t.Fatalf("status:503 found %s", res.Body)
	}
	stored := res.Get("messages.0.message")
	for field, want := range map[string]string{"verb": `"POST"`, "status": "503", "method": `"POST"`, "path": `"/api"`, "alerted": "true",
		// Stream matching runs after the pipelines and puts the default
		// stream last.
		"streams": `["` + errorsStream + `","` + streams.DefaultStreamID + `"]`} {
		if got := stored.Get(field).Raw; got != want {
			t.Errorf("%s = %s, want %s in %s", field, got, want, stored.Raw)
		}
	}
	wantErr := "For rule 'divide': At 4:10 an exception was thrown: / by zero"
	if got := stored.Get("gl2_processing_error").String(); got != wantErr {
		t.Errorf("gl2_processing_error = %q, want %q", got, wantErr)
	}
	res = h.Do("GET", "/search/universal/relative?query=*&range=0&filter=streams:"+errorsStream, nil, root).Want(t, http.StatusOK)
	if res.Get("total_results").Int() != 1 {
		t.Errorf("the Errors stream holds %s", res.Body)
	}
	ok := h.Do("GET", "/search/universal/relative?query=status:200&range=0", nil, root).Want(t, http.StatusOK).Get("messages.0.message")
	if ok.Get("alerted").Exists() || ok.Get("verb").String() != "GET" {
		t.Errorf("the 200 message: %s", ok.Raw)
	}

	// The simulator, on the default stream, answers what was stored.
	sim := h.Do("POST", "/system/pipelines/simulate", map[string]any{
		"stream_id": streams.DefaultStreamID,
		"message":   map[string]any{"_id": "sim-1", "message": "POST /api 503", "source": "web-1"},
	}, root).Want(t, http.StatusOK)
	simulated := sim.Get("messages.0.message")
	for _, f := range []string{"verb", "status", "method", "path", "alerted", "gl2_processing_error"} {
		if simulated.Get(f).Raw != stored.Get(f).Raw {
			t.Errorf("simulated %s = %s, stored %s", f, simulated.Get(f).Raw, stored.Get(f).Raw)
		}
	}
	// Streams are a set in Graylog: stream matching, after the pipelines,
	// puts the default stream last.
	simStreams, storedStreams := stringsOf(simulated.Get("streams")), stringsOf(stored.Get("streams"))
	slices.Sort(simStreams)
	slices.Sort(storedStreams)
	if !slices.Equal(simStreams, storedStreams) {
		t.Errorf("simulated streams %v, stored %v", simStreams, storedStreams)
	}
	trace := sim.Get("simulation_trace.#.message").String()
	for _, want := range []string{"Message sim-1 running [main", "Evaluation satisfied Rule 'route errors'", "Completed Stage 1 for Pipeline 'main'"} {
		if !strings.Contains(trace, want) {
			t.Errorf("trace lacks %q: %s", want, trace)
		}
	}
	h.Do("POST", "/system/pipelines/simulate", map[string]any{"stream_id": streams.DefaultStreamID, "message": map[string]any{"message": "x"}}, root).
		WantError(t, http.StatusInternalServerError, "message id cannot be null")
}

// TestPipelineRulesAPI checks the shapes and statuses of the rule and
// pipeline resources as Graylog 4.0 answers them.
func TestPipelineRulesAPI(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()

	// A parse error is a 400 whose body is the list of errors.
	res := h.Do("POST", "/system/pipelines/rule", map[string]any{"source": "rule \"x\"\nwhen true\nthen\n  no_such_function(\"t\", \"k\");\nend"}, root).Want(t, http.StatusBadRequest)
	want := `[{"type":"undeclared_function","line":4,"position_in_line":2,"reason":"Unknown function no_such_function in line 4 pos 2"}]`
	if string(res.Body) != want {
		t.Errorf("parse error body %s, want %s", res.Body, want)
	}
	res = h.Do("POST", "/system/pipelines/rule", map[string]any{"source": `rule "x" when regex("(?<=a)b", "ab").matches then end`}, root).Want(t, http.StatusBadRequest)
	if res.Get("0.type").String() != "invalid_function_argument" || !strings.Contains(res.Get("0.reason").String(), "RE2") {
		t.Errorf("a pattern RE2 cannot run: %s", res.Body)
	}
	// errors is response-only.
	h.Do("POST", "/system/pipelines/rule", map[string]any{"source": `rule "x" when true end`, "errors": nil}, root).Want(t, http.StatusBadRequest)

	id := h.Do("POST", "/system/pipelines/rule", map[string]any{"title": "other", "source": `rule "x" when true end`}, root).Want(t, http.StatusOK).Get("id").String()
	got := h.Do("GET", "/system/pipelines/rule/"+id, nil, root).Want(t, http.StatusOK)
	if got.Get("title").String() != "x" || got.Get("description").Type.String() != "Null" {
		t.Errorf("rule: %s", got.Body)
	}
	upd := h.Do("PUT", "/system/pipelines/rule/"+id, map[string]any{"id": id, "title": "x", "description": "y", "source": `rule "renamed" when false end`}, root).Want(t, http.StatusOK)
	if upd.Get("title").String() != "renamed" || upd.Get("created_at").String() != got.Get("created_at").String() {
		t.Errorf("updated rule: %s", upd.Body)
	}
	if got := h.Do("POST", "/system/pipelines/rule/multiple", map[string]any{"rules": []string{"renamed", "nope"}}, root).Want(t, http.StatusOK).Get("#.id").Raw; got != `["`+id+`"]` {
		t.Errorf("multiple: %s", got)
	}
	parsed := h.Do("POST", "/system/pipelines/rule/parse", map[string]any{"source": `rule "p" when true end`}, root).Want(t, http.StatusOK)
	if parsed.Get("id").Type.String() != "Null" || parsed.Get("title").String() != "p" {
		t.Errorf("parse: %s", parsed.Body)
	}
	if n := len(h.Do("GET", "/system/pipelines/rule", nil, root).Want(t, http.StatusOK).Get("@this").Array()); n != 1 {
		t.Errorf("%d rules stored", n)
	}
	h.Do("DELETE", "/system/pipelines/rule/"+id, nil, root).Want(t, http.StatusNoContent)
	h.Do("GET", "/system/pipelines/rule/"+id, nil, root).WantError(t, http.StatusNotFound, "No rule with id "+id)

	// The function listing names exactly the functions rules may call.
	fns := h.Do("GET", "/system/pipelines/rule/functions", nil, root).Want(t, http.StatusOK)
	if fns.Get(`#(name=="set_field").params.0.type`).String() != "java.lang.String" || fns.Get(`#(name=="no_such_function")`).Exists() {
		t.Errorf("functions: %s", fns.Get("#.name").Raw)
	}
	if got := fns.Get(`#(name=="parse_cef")`); got.Get("params.#.name").Raw != `["cef_string","use_full_names"]` || got.Get("params.#.optional").Raw != `[false,false]` {
		t.Errorf("parse_cef: %s", got.Raw)
	}
	if got := fns.Get(`#(name=="flex_parse_date")`); got.Get("params.#.name").Raw != `["value","default","timezone"]` || got.Get("return_type").String() != "org.joda.time.DateTime" {
		t.Errorf("flex_parse_date: %s", got.Raw)
	}

	ps := h.Do("POST", "/system/pipelines/pipeline/parse", map[string]any{"source": "pipeline \"p\"\nstage 0 match all\nend", "stages": []any{}}, root).Want(t, http.StatusOK)
	if ps.Get("stages").Raw != `[{"stage":0,"match_all":true,"rules":[]}]` {
		t.Errorf("pipeline parse: %s", ps.Body)
	}
	h.Do("GET", "/system/pipelines/connections/"+streams.DefaultStreamID, nil, root).
		WantError(t, http.StatusNotFound, "No pipeline connections with for stream "+streams.DefaultStreamID)
	h.Do("POST", "/system/pipelines/connections/to_stream", map[string]any{"stream_id": "5fc3a1e2b1f1a4a1c3e7d9f0", "pipeline_ids": []string{}}, root).Want(t, http.StatusNotFound)
	m := h.Do("PUT", "/system/pipelines/rule/config/metrics", map[string]any{"metrics_enabled": true}, root).Want(t, http.StatusOK)
	if m.Get("metrics_enabled").Raw != "true" {
		t.Errorf("metrics config: %s", m.Body)
	}

	// Pipeline permissions are not a reader's.
	h.CreateUser("reader", "readerpass1", "Reader")
	h.Do("GET", "/system/pipelines/rule", nil, nodetest.Basic("reader", "readerpass1")).Want(t, http.StatusForbidden)
	if got := h.Do("GET", "/system/pipelines/pipeline", nil, nodetest.Basic("reader", "readerpass1")).Want(t, http.StatusOK).Body; string(got) != "[]" {
		t.Errorf("a reader sees pipelines: %s", got)
	}
}

// TestPipelinesOldPaths: go-graylog's 2.x client calls the plugin paths
// and names the All messages stream "default".
func TestPipelinesOldPaths(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	const old = "/plugins/org.graylog.plugins.pipelineprocessor/system/pipelines"
	res := h.Do("POST", old+"/pipeline", map[string]any{"source": "pipeline \"p\"\nstage 0 match all\nend"}, root, nodetest.Header("X-API-Version", "2.4")).
		Want(t, http.StatusOK)
	if !strings.Contains(res.Header.Get("Warning"), "removed in 3.0") {
		t.Errorf("Warning = %q", res.Header.Get("Warning"))
	}
	pid := res.Get("id").String()
	conn := h.Do("POST", old+"/connections/to_stream", map[string]any{"stream_id": "default", "pipeline_ids": []string{pid}}, root).Want(t, http.StatusOK)
	if conn.Get("stream_id").String() != "default" {
		t.Errorf("to_stream answered %s", conn.Body)
	}
	if got := h.Do("GET", "/system/pipelines/connections/"+streams.DefaultStreamID, nil, root).Want(t, http.StatusOK).Get("pipeline_ids.0").String(); got != pid {
		t.Errorf("the 4.0 path sees %q", got)
	}
	if got := h.Do("GET", old+"/connections/default", nil, root).Want(t, http.StatusOK).Get("stream_id").String(); got != "default" {
		t.Errorf("GET connections/default: stream_id %q", got)
	}
	if got := h.Do("GET", old+"/connections", nil, root).Want(t, http.StatusOK).Get("0.stream_id").String(); got != "default" {
		t.Errorf("GET connections: stream_id %q", got)
	}
}

func stringsOf(r gjson.Result) []string {
	var out []string
	for _, v := range r.Array() {
		out = append(out, v.String())
	}
	return out
}

// TestConcurrentToPipelineKeepsEveryConnection: pipelines connected to one
// stream at once by concurrent to_pipeline requests all stay connected.
// Each request used to read the stream's pipelines, then write back its
// own list, so that the last one won.
func TestConcurrentToPipelineKeepsEveryConnection(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	const n = 8
	ids := make([]string, n)
	for i := range ids {
		ids[i] = h.Do("POST", "/system/pipelines/pipeline", map[string]any{
			"source": fmt.Sprintf("pipeline \"p%d\"\nstage 0 match either\nend", i)}, root).Want(t, http.StatusOK).Get("id").String()
	}
	var wg sync.WaitGroup
	status := make([]int, n)
	for i, id := range ids {
		wg.Go(func() {
			status[i] = h.Do("POST", "/system/pipelines/connections/to_pipeline", map[string]any{
				"pipeline_id": id, "stream_ids": []string{streams.DefaultStreamID}}, root).Status
		})
	}
	wg.Wait()
	for i, s := range status {
		if s != http.StatusOK {
			t.Fatalf("to_pipeline %d: status %d", i, s)
		}
	}
	got := h.Do("GET", "/system/pipelines/connections/"+streams.DefaultStreamID, nil, root).Want(t, http.StatusOK)
	if n := len(got.Get("pipeline_ids").Array()); n != len(ids) {
		t.Errorf("%d of %d pipelines connected after concurrent to_pipeline: %s", n, len(ids), got.Body)
	}
}

// TestConnectPipelineAnswersListedStreams: as Graylog's, POST
// /system/pipelines/connections/to_pipeline answers the connections of every
// stream listed, changed or not, and the ones the pipeline left, always as a
// list: the interface's connection form, saved unchanged, calls forEach on
// the answer.
func TestConnectPipelineAnswersListedStreams(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	pid := h.Do("POST", "/system/pipelines/pipeline", map[string]any{"source": "pipeline \"p\"\nstage 0 match either\nend"}, root).
		Want(t, http.StatusOK).Get("id").String()
	connect := func(streamIDs ...string) *nodetest.Response {
		return h.Do("POST", "/system/pipelines/connections/to_pipeline", map[string]any{"pipeline_id": pid, "stream_ids": streamIDs}, root).
			Want(t, http.StatusOK)
	}
	if got := connect().Body; string(got) != "[]" {
		t.Errorf("connecting to no stream, unconnected: %s, want []", got)
	}
	connect(streams.DefaultStreamID)
	again := connect(streams.DefaultStreamID, streams.DefaultStreamID)
	if again.Get("#").Int() != 1 || again.Get("0.stream_id").String() != streams.DefaultStreamID ||
		again.Get("0.pipeline_ids").Raw != `["`+pid+`"]` || again.Get("0.id").String() == "" {
		t.Errorf("connecting again to the same stream: %s", again.Body)
	}
	left := connect()
	if left.Get("#").Int() != 1 || left.Get("0.stream_id").String() != streams.DefaultStreamID || left.Get("0.pipeline_ids").Raw != "[]" {
		t.Errorf("leaving the stream: %s", left.Body)
	}
}
