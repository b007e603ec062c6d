package node_test

import (
	"bytes"
	"fmt"
	"net/http"
	"testing"

	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
)

// Decorators stored through the API decorate a node's search answers:
// the syslog mapper, then a pipeline decorator that reads its field; the
// stored messages keep their fields.
func TestDecoratorsThroughANode(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	avail := h.Do("GET", "/search/decorators/available", nil, root).Want(t, http.StatusOK)
	for _, typ := range []string{"SyslogSeverityMapperDecorator", "FormatStringDecorator", "LinkFieldDecorator", "LookupTableDecorator"} {
		if !avail.Get("org\\.graylog2\\.decorators\\." + typ + ".requested_configuration").IsObject() {
			t.Errorf("%s not available: %s", typ, avail.Body)
		}
	}
	h.Do("POST", "/system/pipelines/rule", map[string]any{"description": "",
		"source": `rule "shout" when has_field("severity") then set_field("shout", concat(to_string($message.severity), "!")); end`,
	}, root).Want(t, http.StatusOK)
	p := h.Do("POST", "/system/pipelines/pipeline", map[string]any{"description": "",
		"source": "pipeline \"deco\"\nstage 0 match either\nrule \"shout\"\nend",
	}, root).Want(t, http.StatusOK)
	pid := p.Get("id").String()
	if !h.Do("GET", "/search/decorators/available", nil, root).Get(
		"org\\.graylog\\.plugins\\.pipelineprocessor\\.PipelineProcessorMessageDecorator.requested_configuration.pipeline.additional_info.values." + pid).Exists() {
		t.Error("the pipeline is not offered")
	}
	for _, d := range []map[string]any{
		{"type": "org.graylog.plugins.pipelineprocessor.PipelineProcessorMessageDecorator", "config": map[string]any{"pipeline": pid}, "stream": nil, "order": 1},
		{"type": "org.graylog2.decorators.SyslogSeverityMapperDecorator", "config": map[string]any{"source_field": "level", "target_field": "severity"}, "stream": nil, "order": 0},
		{"type": "org.graylog2.decorators.LinkFieldDecorator", "config": map[string]any{"link_field": "url"}, "stream": nil, "order": 2},
	} {
		h.Do("POST", "/search/decorators", d, root).Want(t, http.StatusOK)
	}
	_, addr := h.CreateInput("org.graylog2.inputs.gelf.http.GELFHttpInput")
	for i := 0; i < 2; i++ {
		body := fmt.Sprintf(`{"version":"1.1","host":"web-%d","short_message":"hello","level":%d,"_url":"https://example.org/x"}`, i, 3+i)
		resp, err := http.Post("http://"+addr.String()+"/gelf", "application/json", bytes.NewBufferString(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	h.WaitProcessed(2)
	res := h.Do("GET", "/search/universal/relative?query=*&range=0&sort=source:asc", nil, root).Want(t, http.StatusOK)
	want := [][2]string{{"Error (3)", "Error (3)!"}, {"Warning (4)", "Warning (4)!"}}
	for i, w := range want {
		m := res.Get(fmt.Sprintf("messages.%d", i))
		if m.Get("message.severity").String() != w[0] || m.Get("message.shout").String() != w[1] ||
			m.Get("message.url.type").String() != "a" || m.Get("message.url.href").String() != "https://example.org/x" {
			t.Errorf("message %d: %s", i, m.Raw)
		}
		if m.Get("decoration_stats.added_fields.shout").String() != w[1] || m.Get("decoration_stats.changed_fields.url").String() != "https://example.org/x" {
			t.Errorf("stats %d: %s", i, m.Get("decoration_stats").Raw)
		}
	}
	if got := res.Get("decoration_stats").Raw; got != `{"added_fields":["severity","shout"],"changed_fields":["url"],"removed_fields":[]}` {
		t.Errorf("answer stats: %s", got)
	}
	plain := h.Do("GET", "/search/universal/relative?query=*&range=0&decorate=false", nil, root).Want(t, http.StatusOK)
	if plain.Get("messages.0.message.severity").Exists() || plain.Get("messages.0.message.url").String() != "https://example.org/x" {
		t.Errorf("undecorated: %s", plain.Get("messages.0").Raw)
	}
	if n := h.Do("GET", "/search/universal/relative?query=_exists_:shout&range=0", nil, root).Get("total_results").Int(); n != 0 {
		t.Errorf("%d stored messages were changed", n)
	}
}
