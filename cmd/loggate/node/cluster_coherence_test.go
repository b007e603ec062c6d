package node_test

import (
	"net"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/logs/streams"
	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
	"github.com/loggate/loggate/internal/poll"
	"github.com/loggate/loggate/internal/servicetest"
)

// localInput creates a GELF HTTP input that runs on h only (not global:
// two test nodes on one host cannot both bind its port) and returns its
// id and address once it listens.
func localInput(t *testing.T, h *nodetest.Harness) (string, net.Addr) {
	t.Helper()
	port, err := servicetest.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	id := h.Do("POST", "/system/inputs", map[string]any{
		"title": "local", "type": httpInput, "global": false, "node": h.Node.Info.ID,
		"configuration": map[string]any{"bind_address": "127.0.0.1", "port": port},
	}, nodetest.AsRoot()).Want(t, http.StatusCreated).Get("id").String()
	var addr net.Addr
	poll.Until(t, "the local input listening", func() bool {
		var ok bool
		addr, ok = h.Node.Messages.Inputs.Addr(id)
		return ok
	})
	return id, addr
}

// A grok pattern created or changed on one node is what the pipeline rules
// of another node match with, within a second, without anyone calling
// /system/grok on that node.
func TestNodesShareGrokPatternsInPipelines(t *testing.T) {
	st := nodetest.SharedStore(t)
	n1, n2 := nodetest.StartOn(t, st), nodetest.StartOn(t, st)
	root := nodetest.AsRoot()
	pattern := n1.Do("POST", "/system/grok", map[string]any{"name": "SHARED_ID", "pattern": "[a-z]{3}-[0-9]+"}, root).
		Want(t, http.StatusCreated).Get("id").String()
	n1.Do("POST", "/system/pipelines/rule", map[string]any{"source": `rule "ids"
when true
then
  set_fields(grok("%{SHARED_ID:id}", to_string($message.message)));
end`}, root).Want(t, http.StatusOK)
	p := n1.Do("POST", "/system/pipelines/pipeline", map[string]any{"source": "pipeline \"ids\"\nstage 0 match all\nrule \"ids\"\nend"}, root).
		Want(t, http.StatusOK).Get("id").String()
	n1.Do("POST", "/system/pipelines/connections/to_stream", map[string]any{
		"stream_id": streams.DefaultStreamID, "pipeline_ids": []string{p}}, root).Want(t, http.StatusOK)

	simulate := func(msg string) string {
		t.Helper()
		return n2.Do("POST", "/system/pipelines/simulate", map[string]any{"stream_id": streams.DefaultStreamID,
			"message": map[string]any{"_id": "sim-1", "message": msg, "source": "s"}}, root).
			Want(t, http.StatusOK).Get("messages.0.message.id").String()
	}
	n2.Clock.Advance(2 * time.Second)
	if got := simulate("x abc-42 y"); got != "abc-42" {
		t.Errorf("node 2 extracted id %q with the pattern node 1 created, want abc-42", got)
	}
	n1.Do("PUT", "/system/grok/"+pattern, map[string]any{"id": pattern, "name": "SHARED_ID", "pattern": "[a-z]{3}_[0-9]+"}, root).Want(t, http.StatusOK)
	n2.Clock.Advance(2 * time.Second)
	if got := simulate("x abc_42 y"); got != "abc_42" {
		t.Errorf("node 2 extracted id %q with the pattern node 1 changed, want abc_42", got)
	}
}

// A grok extractor another node saved, on a grok pattern it saved just
// before, extracts on this node: the extractor compiles against the
// patterns of the cluster, not only those this node had loaded.
func TestNodesShareGrokPatternsInExtractors(t *testing.T) {
	st := nodetest.SharedStore(t)
	n1, n2 := nodetest.StartOn(t, st), nodetest.StartOn(t, st)
	root := nodetest.AsRoot()
	input, addr := localInput(t, n2)
	n1.Do("POST", "/system/grok", map[string]any{"name": "SHARED_ID", "pattern": "[a-z]{3}-[0-9]+"}, root).Want(t, http.StatusCreated)
	n1.Do("POST", "/system/inputs/"+input+"/extractors", map[string]any{
		"title": "id", "cut_or_copy": "copy", "source_field": "message", "target_field": "",
		"extractor_type": "grok", "extractor_config": map[string]any{"grok_pattern": "%{SHARED_ID:id}", "named_captures_only": true},
		"converters": map[string]any{}, "condition_type": "none", "condition_value": "", "order": 0,
	}, root).Want(t, http.StatusCreated)
	n2.Clock.Advance(2 * time.Second)
	postGELF(t, addr, "web-1", "request abc-42 done", float64(time.Now().Add(-time.Minute).Unix()))
	n2.WaitProcessed(1)
	res := n2.Do("GET", "/search/universal/relative?query=*&range=0", nil, root).Want(t, http.StatusOK)
	if got := res.Get("messages.0.message.id").String(); got != "abc-42" {
		t.Errorf("node 2 extracted id %q, want abc-42: %s", got, res.Body)
	}
}

// Pipelines connected to one stream through two nodes, one right after
// the other (a load balancer in front of the web interface), both stay
// connected: the second node's write does not replace the first's from
// its snapshot of a moment ago.
func TestNodesConnectPipelinesToOneStream(t *testing.T) {
	st := nodetest.SharedStore(t)
	n1, n2 := nodetest.StartOn(t, st), nodetest.StartOn(t, st)
	root := nodetest.AsRoot()
	pipeline := func(name string) string {
		return n1.Do("POST", "/system/pipelines/pipeline", map[string]any{"source": "pipeline \"" + name + "\"\nstage 0 match all\nend"}, root).
			Want(t, http.StatusOK).Get("id").String()
	}
	p0, p1, p2 := pipeline("p0"), pipeline("p1"), pipeline("p2")
	s := streams.DefaultStreamID
	n1.Do("POST", "/system/pipelines/connections/to_stream", map[string]any{"stream_id": s, "pipeline_ids": []string{p0}}, root).Want(t, http.StatusOK)
	n2.Clock.Advance(2 * time.Second)
	n2.Do("GET", "/system/pipelines/connections", nil, root).Want(t, http.StatusOK) // node 2 is up to date

	n1.Do("POST", "/system/pipelines/connections/to_pipeline", map[string]any{"pipeline_id": p1, "stream_ids": []string{s}}, root).Want(t, http.StatusOK)
	n2.Do("POST", "/system/pipelines/connections/to_pipeline", map[string]any{"pipeline_id": p2, "stream_ids": []string{s}}, root).Want(t, http.StatusOK)
	for _, n := range []*nodetest.Harness{n1, n2} {
		n.Clock.Advance(2 * time.Second)
		got := stringsOf(n.Do("GET", "/system/pipelines/connections/"+s, nil, root).Want(t, http.StatusOK).Get("pipeline_ids"))
		slices.Sort(got)
		want := []string{p0, p1, p2}
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("node %s: the default stream's pipelines %v, want %v", n.Node.Info.ID, got, want)
		}
	}

	// A stream with no connection yet, connected through both nodes.
	other := n1.Do("POST", "/streams", map[string]any{"title": "other", "index_set_id": defaultIndexSet(t, n1)}, root).
		Want(t, http.StatusCreated).Get("stream_id").String()
	n2.Clock.Advance(2 * time.Second)
	n2.Do("GET", "/streams/"+other, nil, root).Want(t, http.StatusOK)
	n1.Do("POST", "/system/pipelines/connections/to_pipeline", map[string]any{"pipeline_id": p1, "stream_ids": []string{other}}, root).Want(t, http.StatusOK)
	n2.Do("POST", "/system/pipelines/connections/to_pipeline", map[string]any{"pipeline_id": p2, "stream_ids": []string{other}}, root).Want(t, http.StatusOK)
	n2.Clock.Advance(2 * time.Second)
	got := stringsOf(n2.Do("GET", "/system/pipelines/connections/"+other, nil, root).Want(t, http.StatusOK).Get("pipeline_ids"))
	slices.Sort(got)
	want := []string{p1, p2}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("the new stream's pipelines %v, want %v", got, want)
	}
}

// A stream another node created is known here within a second for every
// use, not only after a request to /streams reloaded the streams: here,
// connecting a pipeline to it.
func TestNodesSeeStreamsOutsideStreamRequests(t *testing.T) {
	st := nodetest.SharedStore(t)
	n1, n2 := nodetest.StartOn(t, st), nodetest.StartOn(t, st)
	root := nodetest.AsRoot()
	p := n1.Do("POST", "/system/pipelines/pipeline", map[string]any{"source": "pipeline \"p\"\nstage 0 match all\nend"}, root).
		Want(t, http.StatusOK).Get("id").String()
	sid := n1.Do("POST", "/streams", map[string]any{"title": "new", "index_set_id": defaultIndexSet(t, n1)}, root).
		Want(t, http.StatusCreated).Get("stream_id").String()
	n2.Clock.Advance(2 * time.Second)
	var last string
	poll.Within(t, 5*time.Second, func() bool {
		r := n2.Do("POST", "/system/pipelines/connections/to_pipeline", map[string]any{"pipeline_id": p, "stream_ids": []string{sid}}, root)
		last = string(r.Body)
		return r.Status == http.StatusOK
	}, func() string { return "node 2 to connect a pipeline to the stream node 1 created: " + last })
}
