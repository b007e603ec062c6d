package messagestest

import (
	"slices"
	"testing"

	"github.com/loggate/loggate/backend/logs/messages"
)

// testBigIntegers checks that integers beyond 2^53, which a float64 cannot
// tell apart, are matched, ranged and sorted exactly, as Elasticsearch's
// long fields are: ids and counters in logs reach them.
func testBigIntegers(t *testing.T, f Factory) {
	h := open(t, f)
	const base = 1 << 53 // 9007199254740992
	h.write("bi",
		msg("b1", 1, nil, "n", int64(base+1), "k", "x"),
		msg("b2", 2, nil, "n", int64(base), "k", "x"),
		msg("b3", 3, nil, "n", int64(base+2), "k", "x"),
		msg("b4", 4, nil, "n", int64(-base-1), "k", "x"),
		msg("b5", 5, nil, "n", int64(-base), "k", "x"),
		msg("b6", 6, nil, "n", int64(9223372036854775807), "k", "x"),
		msg("b7", 7, nil, "n", int64(9223372036854775806), "k", "x"),
	)
	tests := []struct {
		q    string
		want []string
	}{
		{"n:9007199254740993", []string{"b1"}},
		{"n:9007199254740992", []string{"b2"}},
		{"n:9007199254740994", []string{"b3"}},
		{"n:\\-9007199254740993", []string{"b4"}},
		{"n:9223372036854775806", []string{"b7"}},
		{"n:9223372036854775807", []string{"b6"}},
		{"n:[9007199254740993 TO *]", []string{"b1", "b3", "b6", "b7"}},
		{"n:{9007199254740992 TO 9007199254740994}", []string{"b1"}},
		{"n:[9007199254740992 TO 9007199254740993}", []string{"b2"}},
		{"n:>9007199254740993", []string{"b3", "b6", "b7"}},
		{"n:<=9007199254740993", []string{"b1", "b2", "b4", "b5"}},
		{"n:<\\-9007199254740992", []string{"b4"}},
		{"n:[9223372036854775807 TO *]", []string{"b6"}},
		{"n:{9223372036854775806 TO *]", []string{"b6"}},
	}
	sorts := []struct {
		sort messages.Sort
		want []string
	}{
		{messages.Sort{Field: "n", Asc: true}, []string{"b4", "b5", "b2", "b1", "b3", "b7", "b6"}},
		{messages.Sort{Field: "n"}, []string{"b6", "b7", "b3", "b1", "b2", "b5", "b4"}},
	}
	for pass, name := range []string{"buffered", "flushed"} {
		if pass == 1 {
			h.flush(1)
		}
		for _, tt := range tests {
			h.wantIDs(name+" "+tt.q, messages.Query{Query: parse(t, tt.q)}, tt.want...)
		}
		for _, tt := range sorts {
			r := h.search(messages.Query{Sort: tt.sort, Limit: 10})
			if got := ids(r); !slices.Equal(got, tt.want) {
				t.Errorf("%s, sort %+v: %v, want %v", name, tt.sort, got, tt.want)
			}
		}
	}
}
