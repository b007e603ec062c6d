package pipelines_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/logs/pipelines/lang"
)

func get(m messages.Message, key string) any {
	v, _ := m.Get(key)
	return v
}

// TestStageSlices: all pipelines' stage n run before any stage n+1; a
// stage that does not pass stops its pipeline only.
func TestStageSlices(t *testing.T) {
	e := newEnv(t, nil)
	e.rule(t, `rule "a" when true then set_field("trail", concat(to_string($message.trail), "a")); end`)
	e.rule(t, `rule "b" when true then set_field("trail", concat(to_string($message.trail), "b")); end`)
	e.rule(t, `rule "c" when true then set_field("trail", concat(to_string($message.trail), "c")); end`)
	e.rule(t, `rule "never" when false then set_field("never", true); end`)
	// p1: stage 0 a, stage 2 c. p2: stage 1 b, then a stage that fails
	// (match all with a rule that never matches), then c, which never runs.
	e.pipeline(t, "pipeline \"p1\" stage 0 match all rule \"a\" stage 2 match either rule \"c\" end", defaultStream)
	e.pipeline(t, "pipeline \"p2\" stage 1 match all rule \"b\" stage 3 match all rule \"b\" rule \"never\" stage 4 match all rule \"c\" end", defaultStream)
	out := e.process(message())
	if len(out) != 1 {
		t.Fatalf("%d messages", len(out))
	}
	// stage 3 of p2: b's condition matched, never's did not: match all
	// fails, but b's action ran (actions of matched rules run either way).
	if got := get(out[0], "trail"); got != "abcb" {
		t.Errorf("trail = %v, want abcb", got)
	}
	if _, ok := out[0].Get("never"); ok {
		t.Error("a rule that never matches ran")
	}
}

// TestMatchEitherAndMissingRules: an unknown rule never matches; either
// passes with one match, all does not.
func TestMatchEitherAndMissingRules(t *testing.T) {
	e := newEnv(t, nil)
	e.rule(t, `rule "yes" when true then end`)
	e.rule(t, `rule "tag" when true then set_field("tagged", true); end`)
	e.pipeline(t, "pipeline \"either\" stage 0 match either rule \"yes\" rule \"gone\" stage 1 match either rule \"tag\" end", defaultStream)
	e.pipeline(t, "pipeline \"all\" stage 0 match all rule \"yes\" rule \"gone\" stage 1 match either rule \"tag\" rule \"tag2\" end", defaultStream)
	out := e.process(message())
	if get(out[0], "tagged") != true {
		t.Errorf("either with one match did not go on: %+v", out[0].Fields)
	}
	e2 := newEnv(t, nil)
	e2.rule(t, `rule "yes" when true then end`)
	e2.rule(t, `rule "tag" when true then set_field("tagged", true); end`)
	e2.pipeline(t, "pipeline \"all\" stage 0 match all rule \"yes\" rule \"gone\" stage 1 match either rule \"tag\" end", defaultStream)
	if _, ok := e2.process(message())[0].Get("tagged"); ok {
		t.Error("match all with an unknown rule went on")
	}
}

// TestRoutingMidPipeline: a message routed to a stream runs that stream's
// pipelines after the round, once.
func TestRoutingMidPipeline(t *testing.T) {
	e := newEnv(t, nil)
	e.rule(t, `rule "route" when true then route_to_stream(name: "Errors", remove_from_default: true); route_to_stream(id: "s3"); end`)
	e.rule(t, `rule "count" when true then set_field("runs", to_long($message.runs) + 1); route_to_stream(id: "s1"); end`)
	e.pipeline(t, "pipeline \"main\" stage 0 match all rule \"route\" end", defaultStream)
	e.pipeline(t, "pipeline \"errors\" stage 0 match all rule \"count\" end", "s1")
	out := e.process(message())
	if got := out[0].Streams; !slices.Equal(got, []string{"s1"}) {
		t.Errorf("streams = %v, want [s1] (removed from the default one, s3 paused)", got)
	}
	if got := get(out[0], "runs"); got != int64(1) {
		t.Errorf("the Errors pipeline ran %v times, want once", got)
	}
}

// TestDropCreateClone: drop_message removes the message; created and
// cloned messages are processed in the next round.
func TestDropCreateClone(t *testing.T) {
	e := newEnv(t, nil)
	e.rule(t, `rule "spawn" when has_field("spawn") then
  let m = create_message("created", "src", parse_unix_milliseconds(0));
  route_to_stream(id: "s1", message: m);
  let c = clone_message();
  remove_field("spawn", c);
  set_field("copy", true, "", "", c);
  drop_message();
end`)
	e.rule(t, `rule "seen" when true then set_field("seen_on_s1", true); end`)
	e.pipeline(t, "pipeline \"main\" stage 0 match all rule \"spawn\" end", defaultStream)
	e.pipeline(t, "pipeline \"s1\" stage 0 match all rule \"seen\" end", "s1")
	out := e.process(message(field("spawn", true), field("message", "orig")))
	if len(out) != 2 {
		t.Fatalf("%d messages out: %+v", len(out), out)
	}
	created, clone := out[0], out[1]
	if get(created, "message") != "created" || get(created, "source") != "src" || get(created, "seen_on_s1") != true || !created.Timestamp.Equal(time.UnixMilli(0)) {
		t.Errorf("created: %+v", created)
	}
	if get(clone, "copy") != true || get(clone, "message") != "orig" || clone.ID == "m1" || !slices.Equal(clone.Streams, []string{defaultStream}) {
		t.Errorf("clone: %+v", clone)
	}
	if e.reg.Meter("org.graylog.plugins.pipelineprocessor.processors.PipelineInterpreter.filteredOutMessages").Count() != 1 {
		t.Error("the drop is not counted")
	}
}

// TestRuntimeErrors: an action that fails records gl2_processing_error,
// stops the rest of the stage's actions, counts, and the message goes on.
func TestRuntimeErrors(t *testing.T) {
	e := newEnv(t, nil)
	e.rule(t, "rule \"bad\"\nwhen true\nthen\n  set_field(\"before\", 1);\n  set_field(\"x\", base64_decode(\"!!\"));\n  set_field(\"after\", 1);\nend")
	e.rule(t, `rule "later" when true then set_field("later", 1); end`)
	e.rule(t, `rule "next stage" when true then set_field("next", 1); end`)
	e.pipeline(t, "pipeline \"p\" stage 0 match all rule \"bad\" rule \"later\" stage 1 match all rule \"next stage\" end", defaultStream)
	out := e.process(message())
	m := out[0]
	want := "For rule 'bad': In call to function 'base64_decode' at 5:17 an exception was thrown: illegal base64 data at input byte 0"
	if got := get(m, lang.FieldProcessingError); got != want {
		t.Errorf("gl2_processing_error = %q, want %q", got, want)
	}
	if get(m, "before") != int64(1) || get(m, "after") != nil || get(m, "later") != nil || get(m, "next") != int64(1) {
		t.Errorf("fields: %+v", m.Fields)
	}
	if e.reg.Meter("org.graylog.plugins.pipelineprocessor.processors.PipelineInterpreter.errors").Count() != 1 {
		t.Error("the error is not counted")
	}
}

// TestChangesReachOtherNodes: a second service on the same store sees a
// change within a second.
func TestChangesReachOtherNodes(t *testing.T) {
	a := newEnv(t, nil)
	b := newEnv(t, a.st)
	a.rule(t, `rule "tag" when true then set_field("tag", "yes"); end`)
	a.pipeline(t, "pipeline \"p\" stage 0 match all rule \"tag\" end", defaultStream)
	if _, ok := b.process(message())[0].Get("tag"); ok {
		t.Fatal("node b saw the change at once; the test proves nothing")
	}
	b.clock.Advance(time.Second)
	if get(b.process(message())[0], "tag") != "yes" {
		t.Error("node b did not see the change after a second")
	}
	if len(b.svc.Rules()) != 1 {
		t.Error("node b's listing is stale")
	}
}

// TestStoredErrors: a rule that stops parsing (here, stored directly with
// a function this build lacks) is listed with its errors and never
// matches.
func TestStoredErrors(t *testing.T) {
	e := newEnv(t, nil)
	doc := []byte(`{"title":"old","description":null,"source":"rule \"old\" when no_such_function(\"t\", \"k\") == 1 then end","created_at":null,"modified_at":null}`)
	if err := e.st.Insert(context.Background(), "pipeline_processor_rules", "5fc3a1e2b1f1a4a1c3e7d9f0", doc); err != nil {
		t.Fatal(err)
	}
	if err := e.svc.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	rs := e.svc.Rules()
	if len(rs) != 1 || len(rs[0].Errors) != 1 || rs[0].Errors[0].Type != "undeclared_function" {
		t.Errorf("rules: %+v", rs)
	}
}

// TestOptionalArgumentsNotGiven: an optional argument a call does not give
// is absent, whatever an earlier call at the same place gave.
func TestOptionalArgumentsNotGiven(t *testing.T) {
	e := newEnv(t, nil)
	e.rule(t, `rule "r" when true then let a = regex("(\\w+)", "x", ["verb"]); let b = regex("(\\w+) (\\w+)", "y z"); `+
		`set_field("verb", a["verb"]); set_field("second", b["1"]); end`)
	e.pipeline(t, "pipeline \"p\" stage 0 match all rule \"r\" end", defaultStream)
	for range 2 {
		out := e.process(message())[0]
		if get(out, "verb") != "x" || get(out, "second") != "z" {
			t.Fatalf("fields %+v, want verb and second", out.Fields)
		}
	}
}
