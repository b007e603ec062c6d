package lang_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/loggate/loggate/backend/logs/pipelines/lang"
	"github.com/loggate/loggate/internal/golden"
)

// testFunctions is a small library with the shapes that matter to the
// checker: required and optional parameters, typed ones, a prepared one.
type testFunctions map[string]*lang.Function

func (f testFunctions) Function(name string) (*lang.Function, bool) {
	fn, ok := f[name]
	return fn, ok
}

var fns = testFunctions{
	"to_string": {Name: "to_string", Return: lang.TString, Params: []lang.Param{{Name: "value", Type: lang.TObject}, {Name: "default", Type: lang.TString, Optional: true}},
		Call: func(_ *lang.Context, a lang.Args) (any, error) { s, _ := lang.ToString(a.Get(0)); return s, nil }},
	"set_field": {Name: "set_field", Return: lang.TVoid, Params: []lang.Param{{Name: "field", Type: lang.TString}, {Name: "value", Type: lang.TObject}},
		Call: func(c *lang.Context, a lang.Args) (any, error) {
			c.Message.SetField(a.String(0, ""), a.Get(1))
			return nil, nil
		}},
	"odd": {Name: "odd", Return: lang.TBoolean, Params: []lang.Param{{Name: "a", Type: lang.TString, Optional: true}, {Name: "b", Type: lang.TString}},
		Call: func(*lang.Context, lang.Args) (any, error) { return true, nil }},
	"regexish": {Name: "regexish", Return: lang.TBoolean, Params: []lang.Param{{Name: "pattern", Type: lang.TString,
		Prepare: func(v any) (any, error) {
			if v == "(" {
				return nil, errors.New("missing closing )")
			}
			return v, nil
		}}},
		Call: func(*lang.Context, lang.Args) (any, error) { return true, nil }},
}

// TestParseErrors keeps the errors of broken rules and pipelines, in
// Graylog's shape, in a golden file.
func TestParseErrors(t *testing.T) {
	sources := []string{
		`rule "a" when true then end`, // fine: no errors
		`rule "a" when true then set_field("x", 1) end`,
		`rule "a" when true then unknown_fn(); end`,
		`rule "a" when x == 1 then end`,
		`rule "a"
when
  true
then
  set_field("x");
end`,
		`rule "a" when true then set_field("x", 1, 2); end`,
		`rule "a" when odd("x", "y") then end`,
		`rule "a" when true then set_field($message.x, 1); end`,
		`rule "a" when $message.x > 5 then end`,
		`rule "a" when to_string($message.x) > 5 then end`,
		`rule "a" when not $message.x then end`,
		`rule "a" when true then let s = "a" - "b"; end`,
		`rule "a" when regexish("(") then end`,
		`rule "a" when 1[0] == 1 then end`,
		`rule "a" when [1][true] == 1 then end`,
		`rule "a" when true then end extra`,
		`rule "a" when "unterminated then end`,
		`rule "a" when true # then end`,
		`rule "a" when true then let let = 1; end`,
		`rule "a" when a -1 then end`,
		`pipeline "p" end`,
		`pipeline "p" stage x match all end`,
		`pipeline "p" stage 0 match some end`,
		`pipeline "p" stage 0 match all rule "a" rule "b"; stage 1 match either end`, // fine
	}
	var out bytes.Buffer
	for _, src := range sources {
		var err error
		if bytes.HasPrefix([]byte(src), []byte("pipeline")) {
			_, err = lang.ParsePipeline(src)
		} else {
			_, err = lang.ParseRule(src, fns)
		}
		var errs lang.Errors
		if err != nil && !errors.As(err, &errs) {
			t.Fatalf("%q: error %v is not Errors", src, err)
		}
		out.WriteString(src + "\n=> ")
		enc := json.NewEncoder(&out)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(errs); err != nil {
			t.Fatal(err)
		}
		out.WriteString("\n")
	}
	golden.Check(t, "testdata/parse_errors.golden", out.Bytes())
}

// TestPipelineStages reads stages, rule references and match modes.
func TestPipelineStages(t *testing.T) {
	p, err := lang.ParsePipeline("pipeline \"My P\"\nstage 0 match ALL\nrule \"a\";\nrule \"b\"\nstage -2 match either\nend")
	if err != nil {
		t.Fatal(err)
	}
	want := lang.Pipeline{Name: "My P", Stages: []lang.Stage{{Number: 0, MatchAll: true, Rules: []string{"a", "b"}}, {Number: -2}}}
	if p.Name != want.Name || len(p.Stages) != 2 || !p.Stages[0].MatchAll || p.Stages[1].Number != -2 || len(p.Stages[0].Rules) != 2 || p.Stages[0].Rules[1] != "b" {
		t.Errorf("got %+v", p)
	}
}

// FuzzParseRule: the parser never panics and either compiles a rule or
// names errors with a place in the source.
func FuzzParseRule(f *testing.F) {
	for _, s := range []string{
		`rule "a" when true then set_field("x", to_string($message.y)); end`,
		`rule "b" when $message.x == "a" && !(1 < 2) then let v = {a: [1, 2.5, "x"]}; end`,
		`pipeline "p" stage 0 match all rule "a"; end`,
		`rule "c" when ` + "`weird-field`" + ` == 1 then end`,
		"rule \"d\" /* c */ when true // x\nthen end",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		r, err := lang.ParseRule(src, fns)
		if err == nil && r == nil {
			t.Fatal("no rule and no error")
		}
		var errs lang.Errors
		if err != nil && (!errors.As(err, &errs) || len(errs) == 0) {
			t.Fatalf("error %v is not a list of parse errors", err)
		}
		for _, e := range errs {
			if e.Line < 1 || e.Position < 0 || e.Reason == "" && e.Type != "syntax_error" {
				t.Fatalf("bad error %+v", e)
			}
		}
		_, _ = lang.ParsePipeline(src)
		if r != nil {
			c := lang.NewContext(&lang.Message{Message: newMessage()}, nil)
			if ok, err := r.Matches(c); err == nil && ok {
				_ = r.Execute(c)
			}
		}
	})
}

// TestNestingIsBounded: a source nesting far beyond what rules do is a
// syntax error. A few MiB of it (under http_max_body_size) used to
// overflow the stack, which no recover catches and which ends the
// process. A chain of operators or accesses is bounded too: each link is
// a level of the tree that evaluation walks. Rules nesting as real ones
// do still parse.
func TestNestingIsBounded(t *testing.T) {
	const deep = 1 << 14
	for name, cond := range map[string]string{
		"parentheses": strings.Repeat("(", deep) + "true" + strings.Repeat(")", deep),
		"lists":       strings.Repeat("[", deep) + strings.Repeat("]", deep) + " == []",
		"negations":   strings.Repeat("!", deep) + "true",
		"signs":       strings.Repeat("-", deep) + "1 == 1",
		"operators":   strings.Repeat("1 + ", deep) + "1 == 1",
		"conjunction": strings.Repeat("true && ", deep) + "true",
		"accesses":    "to_string($message.a" + strings.Repeat(".a", deep) + ") == \"\"",
		"indexes":     "to_string([1]" + strings.Repeat("[0]", deep) + ") == \"\"",
	} {
		_, err := lang.ParseRule(`rule "deep" when `+cond+` then end`, fns)
		var errs lang.Errors
		if !errors.As(err, &errs) || len(errs) == 0 || !strings.Contains(errs[0].Reason, "nested more than") {
			t.Errorf("%s nested %d deep: %v, want a syntax error", name, deep, err)
		}
	}
	fine := strings.Repeat("(", 100) + strings.Repeat("1 + ", 300) + "1" + strings.Repeat(")", 100) + " > 1 && !!!true"
	if _, err := lang.ParseRule(`rule "fine" when `+fine+` then end`, fns); err != nil {
		t.Errorf("a rule nesting 100 deep with a 300-term sum: %v", err)
	}
}
