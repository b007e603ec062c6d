package node_test

import (
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"testing"

	"github.com/loggate/loggate/backend/logs/streams"
	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
)

// BenchmarkIngestTCPPipeline is BenchmarkIngestTCP with a pipeline of five
// rules (grok, regex, set_field, to_long, route_to_stream) connected to
// the default stream; compare its msgs/s with BenchmarkIngestTCP's:
//
//	go test -run '^$' -bench 'IngestTCP' -benchtime 200000x ./cmd/loggate/node
func BenchmarkIngestTCPPipeline(b *testing.B) {
	benchIngestWith(b, func(b *testing.B, h *nodetest.Harness) { accessLogPipeline(b, h) }, tcpInput, nil, sendTCP)
}

// accessLogPipeline parses loadMessage's access log lines.
func accessLogPipeline(b testing.TB, h *nodetest.Harness) {
	root := nodetest.AsRoot()
	set := h.Do("GET", "/system/indices/index_sets", nil, root).Want(b, http.StatusOK).Get(`index_sets.#(default==true).id`).String()
	sid := h.Do("POST", "/streams", map[string]any{"title": "Server errors", "index_set_id": set,
		"matching_type": "AND", "rules": []any{}}, root).Want(b, http.StatusCreated).Get("stream_id").String()
	h.Do("POST", "/streams/"+sid+"/resume", nil, root).Want(b, http.StatusNoContent)
	for _, src := range []string{
		`rule "grok" when true then set_fields(grok("%{IPV4:client} - - \"%{WORD:verb} %{NOTSPACE:request} HTTP/%{NUMBER:httpversion}\" %{NUMBER:response}", to_string($message.message))); end`,
		`rule "regex" when true then let m = regex("\" (\\d{3}) (\\d+) ", to_string($message.message)); set_field("size", m["1"]); end`,
		`rule "set" when true then set_field("env", "prod"); end`,
		`rule "long" when has_field("response") then set_field("status", to_long($message.response)); end`,
		`rule "route" when to_long($message.status) >= 500 then route_to_stream(name: "Server errors"); end`,
	} {
		h.Do("POST", "/system/pipelines/rule", map[string]any{"source": src}, root).Want(b, http.StatusOK)
	}
	pid := h.Do("POST", "/system/pipelines/pipeline", map[string]any{"source": "pipeline \"access\"\nstage 0 match either\nrule \"grok\"\nrule \"regex\"\nrule \"set\"\n" +
		"stage 1 match either\nrule \"long\"\nstage 2 match either\nrule \"route\"\nend"}, root).Want(b, http.StatusOK).Get("id").String()
	h.Do("POST", "/system/pipelines/connections/to_stream", map[string]any{"stream_id": streams.DefaultStreamID, "pipeline_ids": []string{pid}}, root).
		Want(b, http.StatusOK)
}

// TestAccessLogPipeline checks that the benchmark's pipeline does its work
// on the benchmark's messages, so that its figure is for work done.
func TestAccessLogPipeline(t *testing.T) {
	// Made before the node starts, so that their timestamps are not
	// ahead of its clock.
	r := rand.New(rand.NewPCG(1, 2))
	var msgs []string
	for i := range 20 {
		msgs = append(msgs, loadMessage(r, i))
	}
	h := nodetest.Start(t)
	accessLogPipeline(t, h)
	_, addr := h.CreateInput(tcpInput)
	conn, err := net.Dial("tcp", addr.String())
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs {
		fmt.Fprintf(conn, "%s\x00", m)
	}
	conn.Close()
	h.WaitProcessed(20)
	res := h.Do("GET", "/search/universal/relative?query=env:prod%20AND%20status:%3E0%20AND%20verb:GET&range=0", nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	if res.Get("total_results").Int() != 20 {
		t.Fatalf("the pipeline parsed %d of 20 messages: %s", res.Get("total_results").Int(), res.Body)
	}
	m := res.Get("messages.0.message")
	if m.Get("client").String() != m.Get("client_ip").String() || m.Get("size").String() == "" || m.Get("status").Int() != m.Get("http_status").Int() {
		t.Errorf("parsed fields differ from the GELF ones: %s", m.Raw)
	}
	errs := h.Do("GET", "/search/universal/relative?query=status:500&range=0", nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	for _, e := range errs.Get("messages.#.message.streams").Array() {
		if len(e.Array()) != 2 {
			t.Errorf("a 500 was not routed: streams %s", e.Raw)
		}
	}
	if errs.Get("total_results").Int() == 0 {
		t.Error("no 500 among the messages; the routing is not exercised")
	}
}
