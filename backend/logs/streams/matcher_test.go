package streams_test

import (
	"encoding/json"
	"maps"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/logs/streams"
)

// one returns a stream with a single rule.
func one(typ streams.RuleType, field, value string, inverted bool) *streams.Stream {
	return &streams.Stream{MatchingType: streams.MatchAnd, Rules: []streams.Rule{{ID: "r", Type: typ, Field: field, Value: value, Inverted: inverted}}}
}

func TestRuleMatchers(t *testing.T) {
	type msg = map[string]any
	cases := []struct {
		name string
		s    *streams.Stream
		msg  msg
		want bool
	}{
		{"exact", one(streams.RuleExact, "source", "web-1", false), msg{"source": "web-1"}, true},
		{"exact trims the field", one(streams.RuleExact, "source", "web-1", false), msg{"source": "\tweb-1 \n"}, true},
		{"exact is exact", one(streams.RuleExact, "source", "web-1", false), msg{"source": "web-12"}, false},
		{"exact is case-sensitive", one(streams.RuleExact, "source", "web-1", false), msg{"source": "WEB-1"}, false},
		{"exact missing", one(streams.RuleExact, "source", "web-1", false), msg{}, false},
		{"exact missing inverted", one(streams.RuleExact, "source", "web-1", true), msg{}, true},
		{"exact inverted", one(streams.RuleExact, "source", "web-1", true), msg{"source": "web-1"}, false},
		{"exact empty string is absent", one(streams.RuleExact, "source", "", false), msg{"source": ""}, false},
		{"exact blank inverted", one(streams.RuleExact, "source", "x", true), msg{"source": "  "}, true},
		{"exact nil is absent", one(streams.RuleExact, "source", "x", true), msg{"source": nil}, true},
		// A float64 is a Double (GELF's 200.0), whose text is "200.0".
		{"exact integral float64", one(streams.RuleExact, "status", "200.0", false), msg{"status": 200.0}, true},
		{"exact integral float64 is no Long", one(streams.RuleExact, "status", "200", false), msg{"status": 200.0}, false},
		{"regex on a timestamp", one(streams.RuleRegex, "timestamp", `^2023-11-14T22:13:20\.000Z$`, false),
			msg{"timestamp": time.Date(2023, 11, 14, 22, 13, 20, 0, time.UTC)}, true},
		{"exact int64", one(streams.RuleExact, "status", "200", false), msg{"status": int64(200)}, true},
		{"exact int", one(streams.RuleExact, "status", "-7", false), msg{"status": -7}, true},
		{"exact uint8", one(streams.RuleExact, "status", "7", false), msg{"status": uint8(7)}, true},
		{"exact float64", one(streams.RuleExact, "took", "1.5", false), msg{"took": 1.5}, true},
		{"exact large float64", one(streams.RuleExact, "n", "1.0E20", false), msg{"n": 1e20}, true},
		{"exact JSON integer", one(streams.RuleExact, "status", "200", false), msg{"status": json.Number("200")}, true},
		{"exact JSON decimal is a Double", one(streams.RuleExact, "status", "200.0", false), msg{"status": json.Number("200.0")}, true},
		{"exact JSON decimal is not the integer", one(streams.RuleExact, "status", "200", false), msg{"status": json.Number("200.0")}, false},
		{"exact JSON exponent", one(streams.RuleExact, "n", "1.0E-5", false), msg{"n": json.Number("1e-5")}, true},
		{"exact bool", one(streams.RuleExact, "ok", "true", false), msg{"ok": true}, true},

		{"regex finds", one(streams.RuleRegex, "message", "err(or)?", false), msg{"message": "an error occurred"}, true},
		{"regex anchored", one(streams.RuleRegex, "message", "^web-\\d+$", false), msg{"message": "web-12"}, true},
		{"regex misses", one(streams.RuleRegex, "message", "^web-\\d+$", false), msg{"message": "web-x"}, false},
		{"regex dot matches newline", one(streams.RuleRegex, "message", "a.b", false), msg{"message": "a\nb"}, true},
		{"regex inverted", one(streams.RuleRegex, "message", "err", true), msg{"message": "fine"}, true},
		{"regex missing inverted", one(streams.RuleRegex, "message", "err", true), msg{}, true},
		{"regex on a number", one(streams.RuleRegex, "status", "^5\\d\\d$", false), msg{"status": int64(503)}, true},
		{"regex that does not compile", one(streams.RuleRegex, "message", "(", false), msg{"message": "("}, false},
		{"regex that does not compile, inverted", one(streams.RuleRegex, "message", "(", true), msg{"message": "("}, false},

		{"greater", one(streams.RuleGreater, "took", "100", false), msg{"took": 150.0}, true},
		{"greater string field", one(streams.RuleGreater, "took", "100", false), msg{"took": "150"}, true},
		{"greater equal", one(streams.RuleGreater, "took", "100", false), msg{"took": 100}, false},
		{"greater exponent", one(streams.RuleGreater, "took", "1e3", false), msg{"took": int64(1001)}, true},
		{"greater hex", one(streams.RuleGreater, "took", "0x10p0", false), msg{"took": 17}, true},
		{"greater JSON number", one(streams.RuleGreater, "took", "1.5", false), msg{"took": json.Number("1.75")}, true},
		{"greater non-numeric field", one(streams.RuleGreater, "took", "100", false), msg{"took": "slow"}, false},
		{"greater non-numeric field inverted", one(streams.RuleGreater, "took", "100", true), msg{"took": "slow"}, false},
		{"greater bool field", one(streams.RuleGreater, "took", "0", false), msg{"took": true}, false},
		{"greater missing inverted", one(streams.RuleGreater, "took", "100", true), msg{}, false},
		{"greater inverted", one(streams.RuleGreater, "took", "100", true), msg{"took": 50}, true},
		{"greater non-numeric rule", one(streams.RuleGreater, "took", "ten", true), msg{"took": 50}, false},
		{"smaller", one(streams.RuleSmaller, "took", "100", false), msg{"took": 99.5}, true},
		{"smaller negative", one(streams.RuleSmaller, "took", "-1", false), msg{"took": "-2"}, true},
		{"smaller equal", one(streams.RuleSmaller, "took", "100", false), msg{"took": "100"}, false},
		{"smaller inverted", one(streams.RuleSmaller, "took", "100", true), msg{"took": 100}, true},
		{"smaller field with a suffix", one(streams.RuleSmaller, "took", "100", false), msg{"took": "5d"}, true},

		{"presence", one(streams.RulePresence, "error", "", false), msg{"error": "x"}, true},
		{"presence number", one(streams.RulePresence, "error", "", false), msg{"error": 0}, true},
		{"presence false bool", one(streams.RulePresence, "error", "", false), msg{"error": false}, true},
		{"presence blank", one(streams.RulePresence, "error", "", false), msg{"error": "   "}, false},
		{"presence missing", one(streams.RulePresence, "error", "", false), msg{}, false},
		{"presence missing inverted", one(streams.RulePresence, "error", "", true), msg{}, true},
		{"presence inverted", one(streams.RulePresence, "error", "", true), msg{"error": "x"}, false},

		{"contains", one(streams.RuleContains, "message", "disk", false), msg{"message": "the disk is full"}, true},
		{"contains is case-sensitive", one(streams.RuleContains, "message", "disk", false), msg{"message": "DISK"}, false},
		{"contains missing inverted", one(streams.RuleContains, "message", "disk", true), msg{}, true},
		{"contains inverted", one(streams.RuleContains, "message", "disk", true), msg{"message": "disk"}, false},
		{"contains number", one(streams.RuleContains, "n", "234", false), msg{"n": 12345}, true},

		{"always", one(streams.RuleAlways, "", "", false), msg{}, true},
		{"always ignores inverted", one(streams.RuleAlways, "", "", true), msg{}, true},

		{"input", one(streams.RuleMatchInput, "gl2_source_input", "abc", false), msg{"gl2_source_input": " ABC "}, true},
		{"input uses its field whatever the rule says", one(streams.RuleMatchInput, "other", "abc", false), msg{"gl2_source_input": "abc", "other": "x"}, true},
		{"input other", one(streams.RuleMatchInput, "gl2_source_input", "abc", false), msg{"gl2_source_input": "abd"}, false},
		{"input missing inverted", one(streams.RuleMatchInput, "gl2_source_input", "abc", true), msg{}, true},
		{"input inverted", one(streams.RuleMatchInput, "gl2_source_input", "abc", true), msg{"gl2_source_input": "abc"}, false},

		{"unknown type is skipped", one(streams.RuleType(42), "a", "b", true), msg{"a": "b"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.s.Matches(c.msg); got != c.want {
				t.Errorf("Matches = %v, want %v", got, c.want)
			}
			matched, perRule := streams.Match(c.s, c.msg)
			if matched != c.want {
				t.Errorf("Match = %v, want %v", matched, c.want)
			}
			if c.s.Rules[0].Type.Valid() && perRule["r"] != c.want {
				t.Errorf("rule result %v, want %v", perRule, c.want)
			}
		})
	}
}

func TestMatchingTypes(t *testing.T) {
	rules := []streams.Rule{
		{ID: "a", Type: streams.RuleExact, Field: "source", Value: "web-1"},
		{ID: "b", Type: streams.RuleContains, Field: "message", Value: "disk"},
		{ID: "c", Type: streams.RuleType(0), Field: "x", Value: "y"},
	}
	cases := []struct {
		name    string
		mt      streams.MatchingType
		rules   []streams.Rule
		msg     map[string]any
		want    bool
		perRule map[string]bool
	}{
		{"AND all", streams.MatchAnd, rules, map[string]any{"source": "web-1", "message": "disk full"}, true, map[string]bool{"a": true, "b": true}},
		{"AND one", streams.MatchAnd, rules, map[string]any{"source": "web-1"}, false, map[string]bool{"a": true, "b": false}},
		{"OR one", streams.MatchOr, rules, map[string]any{"message": "disk full"}, true, map[string]bool{"a": false, "b": true}},
		{"OR none", streams.MatchOr, rules, map[string]any{}, false, map[string]bool{"a": false, "b": false}},
		{"AND without rules", streams.MatchAnd, nil, map[string]any{}, false, map[string]bool{}},
		{"OR without rules", streams.MatchOr, nil, map[string]any{}, false, map[string]bool{}},
		{"AND of skipped rules only", streams.MatchAnd, rules[2:], map[string]any{"x": "y"}, false, map[string]bool{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := &streams.Stream{MatchingType: c.mt, Rules: c.rules}
			matched, perRule := streams.Match(s, c.msg)
			if matched != c.want || s.Matches(c.msg) != c.want {
				t.Errorf("matched %v, want %v", matched, c.want)
			}
			if !maps.Equal(perRule, c.perRule) {
				t.Errorf("per rule %v, want %v", perRule, c.perRule)
			}
		})
	}
}

func TestMatchDoesNotAllocate(t *testing.T) {
	s := &streams.Stream{MatchingType: streams.MatchAnd, Rules: []streams.Rule{
		{ID: "1", Type: streams.RulePresence, Field: "source"},
		{ID: "2", Type: streams.RuleExact, Field: "facility", Value: "nginx"},
		{ID: "3", Type: streams.RuleMatchInput, Value: "5f00000000000000000000c1"},
		{ID: "4", Type: streams.RuleGreater, Field: "took_ms", Value: "100"},
		{ID: "5", Type: streams.RuleContains, Field: "message", Value: "GET"},
		{ID: "6", Type: streams.RuleRegex, Field: "message", Value: `HTTP/1\.[01]" 5\d\d`},
	}}
	msg := benchMessage()
	m := streams.Compile(s)
	if !m.Match(msg) {
		t.Fatal("the benchmark message should match")
	}
	if raceEnabled {
		t.Skip("the race detector drops pooled regexp machines at random")
	}
	if n := testing.AllocsPerRun(100, func() { m.Match(msg) }); n != 0 {
		t.Errorf("Match allocates %v times per message", n)
	}
}

// benchMessage is a typical access-log message.
func benchMessage() map[string]any {
	return map[string]any{
		"message":          `10.0.0.7 - - [04/Mar/2021:05:06:07 +0000] "GET /api/users HTTP/1.1" 503 512 "-" "curl/7.68.0"`,
		"source":           "web-1.example.org",
		"timestamp":        "2021-03-04T05:06:07.890Z",
		"facility":         "nginx",
		"level":            6.0,
		"took_ms":          "250",
		"http_status":      503.0,
		"gl2_source_input": "5f00000000000000000000c1",
		"gl2_source_node":  "a3f6c1d2-0000-4000-8000-000000000001",
		"client":           "10.0.0.7",
	}
}
