package streams

import (
	"encoding/json"
	"testing"

	"github.com/loggate/loggate/router/api"
)

func FuzzCreateRequest(f *testing.F) {
	for _, s := range []string{
		`{"title":"T","index_set_id":"x"}`,
		`{"title":"T","index_set_id":"x","matching_type":"OR","rules":[{"type":2,"field":"m","value":"a+"}]}`,
		`{"title":"","matching_type":"and"}`,
		`{"title":"T","index_set_id":"x","rules":[{"type":3,"field":"n","value":"0x1p3"},{"type":7}]}`,
		`{"rules":[{"type":9}]}`, `{"title":null}`, `[]`, `{`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var req createRequest
		if err := api.DecodeBytes(body, &req, true); err != nil {
			return // DecodeBytes has its own fuzz target
		}
		st, err := req.stream("user")
		if err != nil {
			if api.ErrorCode(err) != api.Invalid {
				t.Fatalf("%s: error %v is not a 400", body, err)
			}
			return
		}
		if st.Title == "" || st.IndexSetID == "" || !st.Disabled || st.MatchingType != MatchAnd && st.MatchingType != MatchOr {
			t.Fatalf("%s: accepted %+v", body, st)
		}
		for _, r := range st.Rules {
			if !r.Type.Valid() {
				t.Fatalf("%s: accepted rule type %d", body, r.Type)
			}
			if r.Type == RuleRegex {
				if _, err := compileRegex(r.Value); err != nil {
					t.Fatalf("%s: accepted regex %q: %v", body, r.Value, err)
				}
			}
		}
		Compile(st).Match(map[string]any{"message": string(body)})
	})
}

func FuzzRule(f *testing.F) {
	f.Add(1, "source", "web-1", false, "web-1")
	f.Add(2, "message", `^a.*b$`, true, "a\nb")
	f.Add(3, "n", "1e3", false, "1001")
	f.Add(4, "n", "-0x1p4", true, "x")
	f.Add(5, "error", "", false, " ")
	f.Add(6, "m", "disk", false, "disk full")
	f.Add(7, "", "", true, "")
	f.Add(8, "gl2_source_input", "ABC", false, "abc")
	f.Fuzz(func(t *testing.T, typ int, field, value string, inverted bool, fieldValue string) {
		rr := ruleRequest{Type: typ, Field: &field, Value: &value, Inverted: inverted}
		r, err := rr.rule()
		if err != nil {
			if api.ErrorCode(err) != api.Invalid {
				t.Fatalf("error %v is not a 400", err)
			}
			return
		}
		r.ID = "r"
		msgs := []map[string]any{
			{field: fieldValue, GL2SourceInput: fieldValue},
			{field: json.Number("12.5"), GL2SourceInput: 7.0},
			{},
		}
		for _, msg := range msgs {
			got, per := Match(&Stream{Rules: []Rule{r}}, msg)
			if got != per["r"] || got != (&Stream{Rules: []Rule{r}}).Matches(msg) {
				t.Fatalf("Match %v, per rule %v disagree", got, per)
			}
			r.Inverted = !r.Inverted
			flipped := (&Stream{Rules: []Rule{r}}).Matches(msg)
			r.Inverted = !r.Inverted
			switch r.Type {
			case RuleAlways:
				if !got || !flipped {
					t.Fatal("ALWAYS_MATCH did not match")
				}
			case RuleGreater, RuleSmaller:
				if got && flipped {
					t.Fatalf("%v matched both ways on %v", r, msg)
				}
			default:
				if got == flipped {
					t.Fatalf("inverting %v did not flip the result on %v", r, msg)
				}
			}
		}
	})
}

func FuzzTestMessage(f *testing.F) {
	for _, s := range []string{
		`{"message":{"source":"web-1","level":3,"took":"150","ok":true}}`,
		`{"message":{"n":1e400,"m":null,"x":[1,{"a":2}]}}`,
		`{"message":{}}`, `{"message":null}`, `{"message":[]}`, `{}`,
	} {
		f.Add([]byte(s))
	}
	st := &Stream{MatchingType: MatchOr, Rules: []Rule{
		{ID: "1", Type: RuleExact, Field: "source", Value: "web-1"},
		{ID: "2", Type: RuleRegex, Field: "x", Value: `\d`},
		{ID: "3", Type: RuleGreater, Field: "n", Value: "100"},
		{ID: "4", Type: RuleSmaller, Field: "level", Value: "4"},
		{ID: "5", Type: RulePresence, Field: "m"},
		{ID: "6", Type: RuleContains, Field: "ok", Value: "ru"},
		{ID: "7", Type: RuleMatchInput, Value: "abc"},
	}}
	st.derive()
	f.Fuzz(func(t *testing.T, body []byte) {
		var b struct {
			Message map[string]json.RawMessage `json:"message"`
		}
		if err := api.DecodeBytes(body, &b, false); err != nil {
			return
		}
		msg, err := testMessage(b.Message)
		if err != nil {
			if api.ErrorCode(err) != api.Invalid {
				t.Fatalf("%s: error %v is not a 400", body, err)
			}
			return
		}
		matched, per := Match(st, msg)
		some := false
		for _, ok := range per {
			some = some || ok
		}
		if matched != some || len(per) != len(st.Rules) || st.Matches(msg) != matched {
			t.Fatalf("%s: matched %v, per rule %v", body, matched, per)
		}
	})
}
