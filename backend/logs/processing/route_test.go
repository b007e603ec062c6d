package processing_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/tidwall/sjson"

	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/logs/processing"
	"github.com/loggate/loggate/backend/logs/streams"
)

const inputID = "5fd0e2a1c1d2e3f4a5b6c7d8"

// routed is the message every routing case sends.
func routed() messages.Message {
	return msg("0f8c2a6e-1111-4c1d-9a7b-000000000001",
		messages.FieldSource, "web-1",
		messages.FieldMessage, "GET /api/users took too long: upstream timeout",
		"level", int64(6),
		"took", 1.25,
		messages.FieldSourceInput, inputID,
		"trace_id", "4bf92f3577b34da6")
}

func rule(typ streams.RuleType, field, value string) streams.Rule {
	return streams.Rule{Type: typ, Field: field, Value: value}
}

func inverted(r streams.Rule) streams.Rule {
	r.Inverted = true
	return r
}

// spec is a stream of a routing case. Set is the prefix of the index set
// it writes to, created for it; "" is the default index set.
type spec struct {
	name          string
	or            bool
	rules         []streams.Rule
	disabled      bool
	removeDefault bool
	set           string
}

// TestRoute sends one message through Processor.Run into the embedded
// store and checks the streams it was routed to and the index sets it was
// written to: once into each, the default index set being "default".
func TestRoute(t *testing.T) {
	always := []streams.Rule{rule(streams.RuleAlways, "", "")}
	one := func(rs ...streams.Rule) []spec { return []spec{{name: "s", rules: rs}} }
	cases := []struct {
		name    string
		streams []spec
		// gone are prefixes whose index set is deleted once the streams
		// exist.
		gone []string
		// eventsRule gives the built-in events streams an always rule,
		// straight in the document store, as no API would.
		eventsRule bool
		want       []string // stream names; "default" is the default stream
		wantIn     []string // prefixes; "default" is the default index set's
	}{
		{name: "no streams", want: []string{"default"}, wantIn: []string{"default"}},
		{name: "exact", streams: one(rule(streams.RuleExact, "source", "web-1")),
			want: []string{"s", "default"}, wantIn: []string{"default"}},
		{name: "exact differs", streams: one(rule(streams.RuleExact, "source", "web-10")),
			want: []string{"default"}, wantIn: []string{"default"}},
		{name: "exact on a number's text", streams: one(rule(streams.RuleExact, "level", "6")),
			want: []string{"s", "default"}, wantIn: []string{"default"}},
		{name: "regex", streams: one(rule(streams.RuleRegex, "message", `^GET /api/\w+ `)),
			want: []string{"s", "default"}, wantIn: []string{"default"}},
		{name: "regex differs", streams: one(rule(streams.RuleRegex, "message", `^POST `)),
			want: []string{"default"}, wantIn: []string{"default"}},
		{name: "greater", streams: one(rule(streams.RuleGreater, "level", "5")),
			want: []string{"s", "default"}, wantIn: []string{"default"}},
		{name: "greater is strict", streams: one(rule(streams.RuleGreater, "level", "6")),
			want: []string{"default"}, wantIn: []string{"default"}},
		{name: "smaller", streams: one(rule(streams.RuleSmaller, "took", "1.5")),
			want: []string{"s", "default"}, wantIn: []string{"default"}},
		{name: "smaller differs", streams: one(rule(streams.RuleSmaller, "took", "1.25")),
			want: []string{"default"}, wantIn: []string{"default"}},
		{name: "presence", streams: one(rule(streams.RulePresence, "trace_id", "")),
			want: []string{"s", "default"}, wantIn: []string{"default"}},
		{name: "presence of a missing field", streams: one(rule(streams.RulePresence, "span_id", "")),
			want: []string{"default"}, wantIn: []string{"default"}},
		{name: "contains", streams: one(rule(streams.RuleContains, "message", "timeout")),
			want: []string{"s", "default"}, wantIn: []string{"default"}},
		{name: "contains differs", streams: one(rule(streams.RuleContains, "message", "refused")),
			want: []string{"default"}, wantIn: []string{"default"}},
		{name: "always", streams: one(always...),
			want: []string{"s", "default"}, wantIn: []string{"default"}},
		{name: "match input ignores case", streams: one(rule(streams.RuleMatchInput, "", strings.ToUpper(inputID))),
			want: []string{"s", "default"}, wantIn: []string{"default"}},
		{name: "match input differs", streams: one(rule(streams.RuleMatchInput, "", "5fd0e2a1c1d2e3f4a5b6c7d9")),
			want: []string{"default"}, wantIn: []string{"default"}},
		{name: "inverted exact", streams: one(inverted(rule(streams.RuleExact, "source", "web-2"))),
			want: []string{"s", "default"}, wantIn: []string{"default"}},
		{name: "inverted presence", streams: one(inverted(rule(streams.RulePresence, "trace_id", ""))),
			want: []string{"default"}, wantIn: []string{"default"}},
		{name: "inverted contains of a missing field", streams: one(inverted(rule(streams.RuleContains, "span_id", "x"))),
			want: []string{"s", "default"}, wantIn: []string{"default"}},
		{name: "AND needs every rule",
			streams: []spec{{name: "s", rules: []streams.Rule{
				rule(streams.RuleExact, "source", "web-1"), rule(streams.RuleContains, "message", "refused")}}},
			want: []string{"default"}, wantIn: []string{"default"}},
		{name: "AND of matching rules",
			streams: []spec{{name: "s", rules: []streams.Rule{
				rule(streams.RuleExact, "source", "web-1"), rule(streams.RuleContains, "message", "timeout")}}},
			want: []string{"s", "default"}, wantIn: []string{"default"}},
		{name: "OR needs one rule",
			streams: []spec{{name: "s", or: true, rules: []streams.Rule{
				rule(streams.RuleExact, "source", "web-2"), rule(streams.RuleContains, "message", "timeout")}}},
			want: []string{"s", "default"}, wantIn: []string{"default"}},
		{name: "OR of failing rules",
			streams: []spec{{name: "s", or: true, rules: []streams.Rule{
				rule(streams.RuleExact, "source", "web-2"), rule(streams.RuleContains, "message", "refused")}}},
			want: []string{"default"}, wantIn: []string{"default"}},
		{name: "paused stream gets nothing",
			streams: []spec{{name: "s", rules: always, disabled: true, set: "a"}},
			want:    []string{"default"}, wantIn: []string{"default"}},
		{name: "stream without rules gets nothing",
			streams: []spec{{name: "s", set: "a"}, {name: "s2", or: true, set: "b"}},
			want:    []string{"default"}, wantIn: []string{"default"}},
		{name: "own index set",
			streams: []spec{{name: "s", rules: always, set: "a"}},
			want:    []string{"s", "default"}, wantIn: []string{"a", "default"}},
		{name: "remove matches from the default stream",
			streams: []spec{{name: "s", rules: always, set: "a", removeDefault: true}},
			want:    []string{"s"}, wantIn: []string{"a"}},
		{name: "one removing stream is enough",
			streams: []spec{{name: "s", rules: always, set: "a", removeDefault: true}, {name: "s2", rules: always, set: "b"}},
			want:    []string{"s", "s2"}, wantIn: []string{"a", "b"}},
		{name: "removing stream that does not match keeps the default",
			streams: []spec{{name: "s", rules: one(rule(streams.RuleExact, "source", "web-2"))[0].rules, set: "a", removeDefault: true}},
			want:    []string{"default"}, wantIn: []string{"default"}},
		{name: "two index sets get one copy each",
			streams: []spec{{name: "s", rules: always, set: "a", removeDefault: true}, {name: "s2", rules: always, set: "b", removeDefault: true}},
			want:    []string{"s", "s2"}, wantIn: []string{"a", "b"}},
		{name: "two streams on one index set make one copy",
			streams: []spec{{name: "s", rules: always, set: "a"}, {name: "s2", rules: always, set: "a"}},
			want:    []string{"s", "s2", "default"}, wantIn: []string{"a", "default"}},
		{name: "stream on the default index set makes no second copy",
			streams: []spec{{name: "s", rules: always}, {name: "s2", rules: always}},
			want:    []string{"s", "s2", "default"}, wantIn: []string{"default"}},
		{name: "deleted index set: the default stream's copy remains",
			streams: []spec{{name: "s", rules: always, set: "gone"}},
			gone:    []string{"gone"},
			want:    []string{"s", "default"}, wantIn: []string{"default"}},
		{name: "deleted index set of the only stream: the default index set",
			streams: []spec{{name: "s", rules: always, set: "gone", removeDefault: true}},
			gone:    []string{"gone"},
			want:    []string{"s"}, wantIn: []string{"default"}},
		{name: "deleted index set beside a live one",
			streams: []spec{{name: "s", rules: always, set: "gone", removeDefault: true}, {name: "s2", rules: always, set: "b", removeDefault: true}},
			gone:    []string{"gone"},
			want:    []string{"s", "s2"}, wantIn: []string{"b"}},
		{name: "event streams never match", eventsRule: true,
			want: []string{"default"}, wantIn: []string{"default"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			ctx := context.Background()
			names := map[string]string{streams.DefaultStreamID: "default"}
			sets := map[string]string{}
			for _, sp := range tc.streams {
				st := streams.Stream{Title: sp.name, Rules: sp.rules, Disabled: sp.disabled,
					RemoveMatchesFromDefaultStream: sp.removeDefault, MatchingType: streams.MatchAnd}
				if sp.or {
					st.MatchingType = streams.MatchOr
				}
				if sp.set != "" {
					if sets[sp.set] == "" {
						sets[sp.set] = e.indexSet(sp.set)
					}
					st.IndexSetID = sets[sp.set]
				}
				names[e.stream(st)] = sp.name
			}
			for _, prefix := range tc.gone {
				if err := e.sets.Delete(ctx, sets[prefix], true); err != nil {
					t.Fatal(err)
				}
			}
			if tc.eventsRule {
				for _, id := range []string{streams.EventsStreamID, streams.SystemEventsStreamID} {
					err := e.db.Update(ctx, streams.Collection, id, func(doc []byte) ([]byte, error) {
						return sjson.SetBytes(doc, "rules", []streams.Rule{{ID: "5f0000000000000000000001", Type: streams.RuleAlways, StreamID: id}})
					})
					if err != nil {
						t.Fatal(err)
					}
				}
				if err := e.streams.Reload(ctx); err != nil {
					t.Fatal(err)
				}
			}
			fw := &forwarded{}
			r := e.start(processing.Options{Forwarder: fw})
			m := routed()
			r.flushed(e.journal(m))

			want := slices.Sorted(slices.Values(tc.want))
			var in []string
			for _, h := range e.all() {
				if h.Message.ID != m.ID {
					t.Fatalf("stored %s, only %s was sent", h.Message.ID, m.ID)
				}
				prefix := h.Index[:strings.LastIndexByte(h.Index, '_')]
				if prefix == e.defaultPrefix {
					prefix = "default"
				}
				in = append(in, prefix)
				if got := streamNames(h.Message.Streams, names); !slices.Equal(got, want) {
					t.Errorf("copy in %s has streams %v, want %v", h.Index, got, want)
				}
			}
			slices.Sort(in)
			if wantIn := slices.Sorted(slices.Values(tc.wantIn)); !slices.Equal(in, wantIn) {
				t.Errorf("stored in %v, want once in each of %v", in, wantIn)
			}
			got := fw.all()
			if len(got) != 1 || got[0].ID != m.ID {
				t.Fatalf("forwarded %v, want the message once", ids(got))
			}
			if s := streamNames(got[0].Streams, names); !slices.Equal(s, want) {
				t.Errorf("forwarded with streams %v, want %v", s, want)
			}
		})
	}
}

// streamNames maps stream ids to the names of the case, sorted; an id the
// case did not create stays as it is.
func streamNames(ids []string, names map[string]string) []string {
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if n, ok := names[id]; ok {
			id = n
		}
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}
