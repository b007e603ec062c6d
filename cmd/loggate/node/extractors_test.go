package node_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
)

// TestExtractorsEndToEnd: GELF → an extractor with a converter and a
// static field → stream routing on the extracted field → search finds the
// fields; then the Message Filter Chain disabled in
// /system/messageprocessors/config stops both, on a running node.
func TestExtractorsEndToEnd(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	input, addr := h.CreateInput(httpInput)
	base := "/system/inputs/" + input
	h.Do("POST", base+"/extractors", map[string]any{
		"title": "took", "cut_or_copy": "copy", "source_field": "message", "target_field": "took_ms",
		"extractor_type": "regex", "extractor_config": map[string]any{"regex_value": `took (\d+) ms`},
		"converters": map[string]any{"numeric": map[string]any{}}, "condition_type": "string", "condition_value": "took", "order": 0,
	}, root).Want(t, http.StatusCreated)
	h.Do("POST", base+"/extractors", map[string]any{
		"title": "kv", "cut_or_copy": "copy", "source_field": "message", "target_field": "kv",
		"extractor_type": "copy_input", "extractor_config": map[string]any{},
		"converters": map[string]any{"tokenizer": map[string]any{}}, "condition_type": "regex", "condition_value": "user=", "order": 1,
	}, root).Want(t, http.StatusCreated)
	h.Do("POST", base+"/staticfields", map[string]any{"key": "env", "value": "prod"}, root).Want(t, http.StatusCreated)
	if got := h.Do("GET", base, nil, root).Want(t, http.StatusOK).Get("static_fields").Raw; got != `{"env":"prod"}` {
		t.Errorf("input static_fields %s", got)
	}
	slow := h.Do("POST", "/streams", map[string]any{
		"title": "slow", "index_set_id": defaultIndexSet(t, h), "matching_type": "AND",
		"rules": []map[string]any{{"field": "took_ms", "type": 3, "value": "100", "inverted": false}},
	}, root).Want(t, http.StatusCreated).Get("stream_id").String()
	h.Do("POST", "/streams/"+slow+"/resume", nil, root).Want(t, http.StatusNoContent)

	now := float64(time.Now().Add(-time.Minute).Unix())
	postGELF(t, addr, "web-1", "GET / took 250 ms user=alice", now)
	postGELF(t, addr, "web-1", "GET / took 5 ms", now+1)
	h.WaitProcessed(2)

	res := h.Do("GET", "/search/universal/relative?query=took_ms:250&range=0", nil, root).Want(t, http.StatusOK)
	m := res.Get("messages.0.message")
	if res.Get("total_results").Int() != 1 || m.Get("took_ms").Raw != "250" || m.Get("env").String() != "prod" || m.Get("user").String() != "alice" {
		t.Fatalf("extracted message: %s", res.Body)
	}
	if !strings.Contains(m.Get("streams").Raw, slow) {
		t.Errorf("routed to %s, want the slow stream", m.Get("streams").Raw)
	}
	res = h.Do("GET", "/search/universal/relative?query=*&range=0&filter=streams:"+slow, nil, root).Want(t, http.StatusOK)
	if res.Get("total_results").Int() != 1 {
		t.Errorf("slow stream holds %d messages, want 1", res.Get("total_results").Int())
	}
	list := h.Do("GET", base+"/extractors", nil, root).Want(t, http.StatusOK)
	if list.Get(`extractors.#(title=="took").metrics.condition_hits`).Int() != 2 || list.Get(`extractors.#(title=="kv").metrics.condition_misses`).Int() != 1 {
		t.Errorf("metrics: %s", list.Body)
	}

	// Disabling the filter chain applies within a second: messages sent
	// from then on are neither extracted nor given the static field.
	cfg := h.Do("GET", "/system/messageprocessors/config", nil, root).Want(t, http.StatusOK)
	h.Do("PUT", "/system/messageprocessors/config", map[string]any{
		"processor_order":     cfg.Get("processor_order").Value(),
		"disabled_processors": []string{"org.graylog2.messageprocessors.MessageFilterChainProcessor"},
	}, root).Want(t, http.StatusOK)
	deadline := time.Now().Add(10 * time.Second)
	for n := uint64(3); ; n++ {
		tag := fmt.Sprintf("after-%d", n)
		postGELF(t, addr, "web-1", tag+" took 300 ms", now+2)
		h.WaitProcessed(n)
		m := h.Do("GET", "/search/universal/relative?query=message:"+tag+"&range=0", nil, root).Want(t, http.StatusOK).Get("messages.0.message")
		if !m.Get("took_ms").Exists() && !m.Get("env").Exists() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the filter chain still runs: %s", m.Raw)
		}
	}
}
