package pipelines_test

import (
	"context"
	"testing"
)

// The pipeline decorator runs exactly the pipeline it names, whatever the
// message's streams, and returns what rules created without running it.
func TestDecorateRunsOnePipeline(t *testing.T) {
	e := newEnv(t, nil)
	e.rule(t, `rule "tag" when has_field("source") then set_field("tagged", "yes"); create_message("new", "src"); end`)
	e.rule(t, `rule "other" when true then set_field("other", true); end`)
	id := e.pipeline(t, `pipeline "deco" stage 0 match either rule "tag"; end`)
	e.pipeline(t, `pipeline "conn" stage 0 match either rule "other"; end`, defaultStream)
	m := message(field("source", "web-1"))
	m.Streams = []string{defaultStream}
	created := e.in.Decorate(context.Background(), id, &m)
	if v, _ := m.Get("tagged"); v != "yes" {
		t.Errorf("tagged = %v", v)
	}
	if _, ok := m.Get("other"); ok {
		t.Error("the connected pipeline ran too")
	}
	if len(created) != 1 {
		t.Fatalf("created %d messages", len(created))
	}
	if v, _ := created[0].Get("message"); v != "new" {
		t.Errorf("created message = %v", v)
	}
	m2 := message(field("source", "web-1"))
	if got := e.in.Decorate(context.Background(), "missing", &m2); got != nil || len(m2.Fields) != 1 {
		t.Errorf("a missing pipeline changed the message: %v %v", got, m2.Fields)
	}
}
