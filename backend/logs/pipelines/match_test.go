package pipelines_test

import (
	"context"
	"strings"
	"testing"

	"github.com/loggate/loggate/backend/logs/grok"
)

// TestGrokRule runs grok() in rules against the stored patterns: typed
// captures, named captures only, .matches, a pattern computed per message,
// and no fields when nothing matches.
func TestGrokRule(t *testing.T) {
	rules := []string{
		`rule "all" when true then set_fields(fields: grok("%{INT:n:int} %{WORD}", to_string($message.message)), prefix: "a_"); end`,
		`rule "named" when true then set_fields(fields: grok("%{INT:n:int} %{WORD}", to_string($message.message), true), prefix: "b_"); end`,
		`rule "props" when true then let g = grok("%{INT:n} %{WORD:w}", to_string($message.message)); set_field("matched", g.matches); set_field("w", g["w"]); set_field("count", to_string(g)); end`,
		`rule "dynamic" when has_field("pat") then set_fields(fields: grok(to_string($message.pat), to_string($message.message)), prefix: "d_"); end`,
	}
	e := newBenchEnvOf(t, rules, "pipeline \"p\" stage 0 match either rule \"all\" rule \"named\" rule \"props\" rule \"dynamic\" end")
	out := e.process(message(field("message", "42 abc"), field("pat", "%{WORD:word}$")))[0]
	for k, want := range map[string]any{
		"a_n": int64(42), "a_WORD": "abc", "b_n": int64(42), "matched": true, "w": "abc",
		"count": "{n=42, w=abc}", "d_word": "abc",
	} {
		if got := get(out, k); got != want {
			t.Errorf("%s = %#v, want %#v", k, got, want)
		}
	}
	if _, ok := out.Get("b_WORD"); ok {
		t.Error("named captures only captured %{WORD}")
	}
	out = e.process(message(field("message", "no digits")))[0]
	for _, k := range []string{"a_n", "a_WORD", "w", "d_word"} {
		if _, ok := out.Get(k); ok {
			t.Errorf("%s set without a match", k)
		}
	}
	if got := get(out, "matched"); got != false {
		t.Errorf("matched = %#v", got)
	}
}

// TestGrokRuleFollowsPatterns: a rule sees a pattern's new definition
// without being saved again, and a deleted pattern is a run-time error of
// the rule (an unknown one a parse error).
func TestGrokRuleFollowsPatterns(t *testing.T) {
	ctx := context.Background()
	e := newBenchEnvOf(t, nil, "")
	p, err := e.grok.Create(ctx, grok.Pattern{Name: "MY_TOKEN", Pattern: `\d+`})
	if err != nil {
		t.Fatal(err)
	}
	e.rule(t, `rule "tok" when true then set_fields(grok("%{MY_TOKEN:tok}", to_string($message.message))); end`)
	e.pipeline(t, "pipeline \"p\" stage 0 match either rule \"tok\" end", defaultStream)
	msg := message(field("message", "abc 123"))
	if got := get(e.process(msg)[0], "tok"); got != "123" {
		t.Fatalf("tok = %#v", got)
	}
	p.Pattern = `[a-z]+`
	if _, err := e.grok.Update(ctx, p.ID, p); err != nil {
		t.Fatal(err)
	}
	if got := get(e.process(msg)[0], "tok"); got != "abc" {
		t.Errorf("after the update, tok = %#v", got)
	}
	if err := e.grok.Delete(ctx, p.ID); err != nil {
		t.Fatal(err)
	}
	out := e.process(msg)[0]
	if got, _ := get(out, "gl2_processing_error").(string); !strings.Contains(got, "no definition for key 'MY_TOKEN'") {
		t.Errorf("after the delete: gl2_processing_error = %q", got)
	}
	if _, err := e.svc.CreateRule(ctx, nil, `rule "gone" when true then set_fields(grok("%{MY_TOKEN}", "x")); end`); err == nil ||
		!strings.Contains(err.Error(), "MY_TOKEN") {
		t.Errorf("rule with an unknown pattern: %v", err)
	}
}

// TestSetFieldsSources: set_fields takes every map-like value, with prefix
// and suffix; null captures and empty strings are not stored.
func TestSetFieldsSources(t *testing.T) {
	e := newEnv(t, nil)
	e.rule(t, `rule "map" when true then set_fields({a: "1", b: 2}, "m_"); end`)
	e.rule(t, `rule "regex" when true then set_fields(fields: regex("(x)|(\\w+)", "abc"), prefix: "r", suffix: "_s"); end`)
	e.rule(t, `rule "named" when true then set_fields(regex("(\\w+) (\\w+)", "ab cd", ["one", "two"])); end`)
	e.rule(t, `rule "json" when true then set_fields(fields: to_map(parse_json("{\"j\":\"v\",\"e\":\"\"}"))); end`)
	e.pipeline(t, "pipeline \"p\" stage 0 match either rule \"map\" rule \"regex\" rule \"named\" rule \"json\" end", defaultStream)
	out := e.process(message())[0]
	for k, want := range map[string]any{"m_a": "1", "m_b": int64(2), "r1_s": "abc", "one": "ab", "two": "cd", "j": "v"} {
		if got := get(out, k); got != want {
			t.Errorf("%s = %#v, want %#v", k, got, want)
		}
	}
	for _, k := range []string{"r0_s", "e"} {
		if _, ok := out.Get(k); ok {
			t.Errorf("%s stored", k)
		}
	}
}
