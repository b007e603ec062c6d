package messagestest

import (
	"math"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/logs/messages"
)

// testRoundTrip checks that every value type, _id, timestamp and streams
// come back from Search and Get exactly as written.
func testRoundTrip(t *testing.T, f Factory) {
	h := open(t, f)
	tests := []messages.Message{
		msg("5b0e2f57-8c4e-4a9e-9b41-2f8e4c7a1d01", 0.123, []string{"000000000000000000000001", "s2"},
			"source", "web-1", "message", "GET / 200", "level", int64(6), "big", int64(math.MaxInt64),
			"neg", int64(-42), "ratio", 0.25, "ok", true, "bad", false, "utf8", "grüße ✓", "empty", ""),
		msg("not-a-uuid:1", 1.999, nil, "source", "Db-1", "message", "x"),
		msg("5B0E2F57-8C4E-4A9E-9B41-2F8E4C7A1D02", -3600, []string{"s3"}, "source", "h"),
	}
	h.write("rt", tests...)
	for pass := range 2 {
		r := h.search(messages.Query{Limit: 10, Sort: messages.Sort{Asc: true}})
		if len(r.Hits) != len(tests) {
			t.Fatalf("pass %d: %d hits, want %d", pass, len(r.Hits), len(tests))
		}
		want := slices.Clone(tests)
		slices.SortFunc(want, func(a, b messages.Message) int { return a.Timestamp.Compare(b.Timestamp) })
		for i, hit := range r.Hits {
			wantMessage(t, hit.Message, want[i])
			if hit.Index != "rt_0" {
				t.Errorf("hit %d index %q, want rt_0", i, hit.Index)
			}
			got, err := h.s.Get(t.Context(), "rt_0", want[i].ID)
			if err != nil {
				t.Fatalf("Get(%s): %v", want[i].ID, err)
			}
			wantMessage(t, got.Message, want[i])
		}
		h.flush(1) // the second pass reads flushed data
	}
}

// wantMessage compares messages with fields in any order.
func wantMessage(t *testing.T, got, want messages.Message) {
	t.Helper()
	norm := func(m messages.Message) messages.Message {
		m.Fields = slices.Clone(m.Fields)
		slices.SortFunc(m.Fields, func(a, b messages.Field) int {
			if a.Key < b.Key {
				return -1
			}
			if a.Key > b.Key {
				return 1
			}
			return 0
		})
		if len(m.Streams) == 0 {
			m.Streams = nil
		}
		m.Timestamp = m.Timestamp.UTC().Truncate(time.Millisecond)
		return m
	}
	if g, w := norm(got), norm(want); !reflect.DeepEqual(g, w) {
		t.Errorf("message %s:\n got %#v\nwant %#v", want.ID, g, w)
	}
}

func testWriteCreatesIndex(t *testing.T, f Factory) {
	h := open(t, f)
	if list := h.indices("fresh"); len(list) != 0 {
		t.Fatalf("Indices of an unused prefix = %v, want none", names(list))
	}
	h.write("fresh", msg("a", 1, nil, "source", "x"), msg("b", 2, nil, "source", "y"))
	list := h.indices("fresh")
	if len(list) != 1 {
		t.Fatalf("Indices = %v, want [fresh_0]", names(list))
	}
	ix := list[0]
	if ix.Name != "fresh_0" || ix.Prefix != "fresh" || ix.Number != 0 || !ix.Write || ix.Count != 2 {
		t.Errorf("index = %+v, want fresh_0, number 0, write, count 2", ix)
	}
	if !ix.Begin.Equal(t0.Add(time.Second)) || !ix.End.Equal(t0.Add(2*time.Second)) {
		t.Errorf("Begin, End = %v, %v; want %v, %v", ix.Begin, ix.End, t0.Add(time.Second), t0.Add(2*time.Second))
	}
}

func testPrefixIsolation(t *testing.T, f Factory) {
	h := open(t, f)
	h.write("one", msg("a", 1, nil, "source", "x"))
	h.write("two", msg("b", 1, nil, "source", "x"))
	h.wantIDs("prefix one", messages.Query{Prefixes: []string{"one"}}, "a")
	h.wantIDs("prefix two", messages.Query{Prefixes: []string{"two"}}, "b")
	h.wantIDs("both", messages.Query{Prefixes: []string{"one", "two"}}, "a", "b")
	h.wantIDs("all", messages.Query{}, "a", "b")
	h.wantIDs("unknown prefix", messages.Query{Prefixes: []string{"three"}})
	if n := names(h.indices("one")); !slices.Equal(n, []string{"one_0"}) {
		t.Errorf("Indices(one) = %v", n)
	}
}

// testReplay checks that writing an ID again replaces the message, before
// and after a Flush and within one batch.
func testReplay(t *testing.T, f Factory) {
	h := open(t, f)
	h.write("rp", msg("a", 1, nil, "v", "1"), msg("b", 1, nil, "v", "1"))
	h.write("rp", msg("a", 1, nil, "v", "2"))
	h.flush(1)
	h.write("rp", msg("b", 1, nil, "v", "2"), msg("c", 1, nil, "v", "1"), msg("c", 1, nil, "v", "2"))
	h.write("rp", msg("a", 1, nil, "v", "3"))
	r := h.search(messages.Query{Limit: 10})
	if r.Total != 3 || len(r.Hits) != 3 {
		t.Fatalf("after replays: Total %d, ids %v; want a, b, c once", r.Total, ids(r))
	}
	want := map[string]string{"a": "3", "b": "2", "c": "2"}
	for _, hit := range r.Hits {
		if v, _ := hit.Message.String("v"); v != want[hit.Message.ID] {
			t.Errorf("%s: v = %s, want %s", hit.Message.ID, v, want[hit.Message.ID])
		}
	}
	h.flush(2)
	h.wantIDs("v:2 after flush", messages.Query{Query: parse(t, "v:2")}, "b", "c")
	h.wantIDs("v:3 after flush", messages.Query{Query: parse(t, "v:3")}, "a")
	if list := h.indices("rp"); len(list) != 1 || list[0].Count != 3 {
		t.Errorf("Indices = %+v, want one index with 3 messages", list)
	}
}
