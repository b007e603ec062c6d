package messagestest

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/logs/messages"
)

func testTimeRange(t *testing.T, f Factory) {
	h := open(t, f)
	h.write("tr", corpus...)
	at := func(sec int) time.Time { return t0.Add(time.Duration(sec) * time.Second) }
	tests := []struct {
		name     string
		from, to time.Time
		want     []string
	}{
		{"both inclusive", at(2), at(3), []string{"m2", "m3"}},
		{"open start", time.Time{}, at(2), []string{"m1", "m2"}},
		{"open end", at(3), time.Time{}, []string{"m3", "m4"}},
		{"one millisecond", at(4), at(4), []string{"m4"}},
		{"between messages", at(2).Add(time.Millisecond), at(3).Add(-time.Millisecond), nil},
		{"before everything", at(-100), at(-50), nil},
	}
	for _, tt := range tests {
		h.wantIDs(tt.name, messages.Query{From: tt.from, To: tt.to}, tt.want...)
		h.wantIDs(tt.name+" with query", messages.Query{From: tt.from, To: tt.to, Query: parse(t, "level:3")},
			intersect(tt.want, []string{"m1", "m3"})...)
	}
}

func intersect(a, b []string) []string {
	var out []string
	for _, x := range a {
		if slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

func testStreams(t *testing.T, f Factory) {
	h := open(t, f)
	h.write("st", corpus...)
	h.wantIDs("s1", messages.Query{Streams: []string{"s1"}}, "m1", "m3")
	h.wantIDs("s1 or s2", messages.Query{Streams: []string{"s1", "s2"}}, "m1", "m2", "m3")
	h.wantIDs("unknown", messages.Query{Streams: []string{"nope"}})
	h.wantIDs("s2 and query", messages.Query{Streams: []string{"s2"}, Query: parse(t, "level:3")}, "m3")
}

func testSort(t *testing.T, f Factory) {
	h := open(t, f)
	h.write("so", corpus...)
	tests := []struct {
		sort messages.Sort
		want []string
	}{
		{messages.Sort{}, []string{"m4", "m3", "m2", "m1"}},
		{messages.Sort{Field: "timestamp"}, []string{"m4", "m3", "m2", "m1"}},
		{messages.Sort{Asc: true}, []string{"m1", "m2", "m3", "m4"}},
		{messages.Sort{Field: "took"}, []string{"m3", "m1", "m4", "m2"}},
		{messages.Sort{Field: "took", Asc: true}, []string{"m2", "m4", "m1", "m3"}},
		{messages.Sort{Field: "user", Asc: true}, []string{"m1", "m4", "m2", "m3"}},
		{messages.Sort{Field: "user"}, []string{"m3", "m2", "m4", "m1"}},
		// missing values sort last in both directions
		{messages.Sort{Field: "host", Asc: true}, []string{"m4", "m1", "m2", "m3"}},
		{messages.Sort{Field: "host"}, []string{"m4", "m3", "m2", "m1"}},
	}
	for pass := range 2 {
		if pass == 1 {
			h.flush(1)
		}
		for _, tt := range tests {
			r := h.search(messages.Query{Sort: tt.sort, Limit: 10})
			if got := ids(r); !slices.Equal(got, tt.want) {
				t.Errorf("pass %d, sort %+v: %v, want %v", pass, tt.sort, got, tt.want)
			}
		}
	}
}

// testPaging pages through messages with many equal timestamps and keys,
// across the write buffer, flushed segments and two indices: every
// message must come exactly once, in order, and Total must not depend on
// the page.
func testPaging(t *testing.T, f Factory) {
	h := open(t, f)
	const n = 61
	var all []messages.Message
	for i := range n {
		all = append(all, msg(fmt.Sprintf("id-%03d", (i*37)%n), float64(i%5), nil,
			"bucket", int64(i%3), "name", fmt.Sprint("n", i%4)))
	}
	h.write("pg", all[:20]...)
	h.flush(1)
	if _, err := h.s.Rotate(t.Context(), "pg"); err != nil {
		t.Fatal(err)
	}
	h.write("pg", all[20:40]...)
	h.flush(2)
	h.write("pg", all[40:]...)
	sorts := []messages.Sort{{}, {Asc: true}, {Field: "bucket"}, {Field: "name", Asc: true}}
	for _, so := range sorts {
		full := h.search(messages.Query{Sort: so, Limit: n})
		if len(full.Hits) != n {
			t.Fatalf("sort %+v: %d hits, want %d", so, len(full.Hits), n)
		}
		var paged []string
		for off := 0; off < n+7; off += 7 {
			r := h.search(messages.Query{Sort: so, Offset: off, Limit: 7})
			if r.Total != n {
				t.Errorf("sort %+v offset %d: Total %d, want %d", so, off, r.Total, n)
			}
			paged = append(paged, ids(r)...)
		}
		if !slices.Equal(paged, ids(full)) {
			t.Errorf("sort %+v: pages %v\nwant %v", so, paged, ids(full))
		}
		seen := map[string]bool{}
		for _, id := range paged {
			if seen[id] {
				t.Errorf("sort %+v: %s twice", so, id)
			}
			seen[id] = true
		}
	}
	r := h.search(messages.Query{Limit: 0})
	if r.Total != n || len(r.Hits) != 0 {
		t.Errorf("Limit 0: Total %d, %d hits; want %d, 0", r.Total, len(r.Hits), n)
	}
	if len(r.Indices) != 2 {
		t.Errorf("Result.Indices = %v, want pg_0 and pg_1", names(r.Indices))
	}
}

func testWindow(t *testing.T, f Factory) {
	h := open(t, f)
	h.write("w", corpus...)
	tests := []struct {
		offset, limit, window int
		ok                    bool
	}{
		{9990, 10, 0, true},
		{9990, 11, 0, false},
		{0, 10001, 0, false},
		{0, 5, 5, true},
		{0, 6, 5, false},
		{3, 3, 5, false},
		{20000, 10, 30000, true},
	}
	for _, tt := range tests {
		_, err := h.s.Search(t.Context(), messages.Query{Offset: tt.offset, Limit: tt.limit, Window: tt.window})
		if tt.ok && err != nil {
			t.Errorf("offset %d limit %d window %d: %v", tt.offset, tt.limit, tt.window, err)
		}
		if !tt.ok {
			wantErr(t, fmt.Sprintf("offset %d limit %d window %d", tt.offset, tt.limit, tt.window), err, messages.ErrResultWindow)
		}
	}
}
