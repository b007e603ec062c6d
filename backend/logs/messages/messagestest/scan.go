package messagestest

import (
	"fmt"
	"slices"
	"testing"

	"github.com/loggate/loggate/backend/logs/messages"
)

// scan returns the ids a Scan of q walks, and its result.
func (h *harness) scan(q messages.Query) ([]string, messages.Result) {
	h.t.Helper()
	c, err := h.s.Scan(h.t.Context(), q)
	if err != nil {
		h.t.Fatalf("Scan(%+v): %v", q, err)
	}
	defer func() {
		if err := c.Close(); err != nil {
			h.t.Errorf("Close: %v", err)
		}
	}()
	var got []string
	for {
		hit, ok := c.Next()
		if !ok {
			break
		}
		if hit.Index == "" {
			h.t.Errorf("Scan(%+v): hit %s without its index", q, hit.Message.ID)
		}
		got = append(got, hit.Message.ID)
	}
	if err := c.Err(); err != nil {
		h.t.Fatalf("Scan(%+v): %v", q, err)
	}
	return got, c.Result()
}

// testScan walks more messages than a scan page (1,000 on Elasticsearch),
// with many equal timestamps and keys, across the write buffer, flushed
// segments and two indices, in every sort order: a scan gives what one
// Search of everything gives, in the same order, past the result window,
// from an offset and up to a limit.
func testScan(t *testing.T, f Factory) {
	h := open(t, f)
	const n = 2503
	var all []messages.Message
	for i := range n {
		streams := []string{"s1"}
		if i%4 == 0 {
			streams = append(streams, "s2")
		}
		all = append(all, msg(fmt.Sprintf("id-%04d", (i*37)%n), float64(i%50), streams,
			"bucket", int64(i%3), "name", fmt.Sprint("n", i%7), "level", int64(i%5)))
	}
	h.write("sc", all[:900]...)
	h.flush(1)
	if _, err := h.s.Rotate(t.Context(), "sc"); err != nil {
		t.Fatal(err)
	}
	h.write("sc", all[900:1800]...)
	h.flush(2)
	h.write("sc", all[1800:]...)
	for _, tc := range []struct {
		name string
		q    messages.Query
	}{
		{"time desc", messages.Query{}},
		{"time asc", messages.Query{Sort: messages.Sort{Asc: true}}},
		{"field", messages.Query{Sort: messages.Sort{Field: "bucket"}}},
		{"keyword asc", messages.Query{Sort: messages.Sort{Field: "name", Asc: true}}},
		{"query and stream", messages.Query{Query: parse(t, "level:[1 TO 3]"), Streams: []string{"s2"}}},
		{"time range", messages.Query{From: t0.Add(10e9), To: t0.Add(20e9), Sort: messages.Sort{Asc: true}}},
	} {
		want := tc.q
		want.Limit, want.Window = n, n
		full := h.search(want)
		q := tc.q
		q.Window = 10 // the window does not limit a scan
		got, res := h.scan(q)
		if !slices.Equal(got, ids(full)) {
			t.Errorf("%s: scan of %d hits differs from the search of %d", tc.name, len(got), len(full.Hits))
		}
		if res.Total != full.Total || len(res.Hits) != 0 || !slices.Equal(names(res.Indices), names(full.Indices)) {
			t.Errorf("%s: result total %d, %d hits, indices %v; want %d, 0, %v", tc.name, res.Total, len(res.Hits),
				names(res.Indices), full.Total, names(full.Indices))
		}
		q.Offset, q.Limit = 995, 1010
		got, _ = h.scan(q)
		if wantIDs := ids(full)[min(995, len(full.Hits)):min(2005, len(full.Hits))]; !slices.Equal(got, wantIDs) {
			t.Errorf("%s: offset 995 limit 1010: %d hits, want %d", tc.name, len(got), len(wantIDs))
		}
	}
	got, res := h.scan(messages.Query{Query: parse(t, "name:nothing")})
	if len(got) != 0 || res.Total != 0 {
		t.Errorf("no match: %v, total %d", got, res.Total)
	}
}
