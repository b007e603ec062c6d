package messagestest

import (
	"testing"

	"github.com/loggate/loggate/backend/logs/messages"
)

// testCloseIndex checks Graylog's closed indices: a closed index keeps its
// messages but no search, scan or Get finds them, the write index cannot
// be closed, the state outlives a restart, and reopening brings the
// messages back with the reopened mark, which closing again clears.
func testCloseIndex(t *testing.T, f Factory) {
	h := open(t, f)
	h.write("cl", corpus[:2]...)
	h.flush(1)
	h.write("cl", corpus[2]) // unflushed when closed: closing keeps it too
	if _, err := h.s.Rotate(t.Context(), "cl"); err != nil {
		t.Fatal(err)
	}
	h.write("cl", corpus[3])
	h.write("other", corpus[0])

	wantErr(t, "CloseIndex of the write index", h.s.CloseIndex(t.Context(), "cl_1"), messages.ErrWriteIndex)
	wantErr(t, "CloseIndex of an unknown index", h.s.CloseIndex(t.Context(), "cl_9"), messages.ErrNotFound)
	wantErr(t, "ReopenIndex of an unknown index", h.s.ReopenIndex(t.Context(), "cl_9"), messages.ErrNotFound)
	for range 2 { // closing a closed index does nothing
		if err := h.s.CloseIndex(t.Context(), "cl_0"); err != nil {
			t.Fatalf("CloseIndex(cl_0): %v", err)
		}
	}
	h.wantClosed("after close", "cl", "cl_0")
	h.wantIDs("search skips the closed index", messages.Query{}, "m4", "m1")
	h.wantIDs("search of the series", messages.Query{Prefixes: []string{"cl"}, Query: parse(t, "level:3")})
	if r := h.search(messages.Query{Prefixes: []string{"cl"}}); len(r.Indices) != 1 || r.Indices[0].Name != "cl_1" {
		t.Errorf("Result.Indices = %v, want [cl_1]", names(r.Indices))
	}
	if got, _ := h.scan(messages.Query{Prefixes: []string{"cl"}}); len(got) != 1 || got[0] != "m4" {
		t.Errorf("Scan = %v, want [m4]", got)
	}
	_, err := h.s.Get(t.Context(), "cl_0", "m1")
	wantErr(t, "Get from a closed index", err, messages.ErrNotFound)
	h.flush(2)

	if f.Reopen != nil {
		h.s = f.Reopen(t, h.s)
		h.wantClosed("after restart", "cl", "cl_0")
		h.wantIDs("search after restart", messages.Query{Prefixes: []string{"cl"}}, "m4")
	}

	if err := h.s.ReopenIndex(t.Context(), "cl_0"); err != nil {
		t.Fatalf("ReopenIndex(cl_0): %v", err)
	}
	list := h.indices("cl")
	if len(list) != 2 || list[0].Closed || !list[0].Reopened || list[0].Count != 3 || list[1].Reopened {
		t.Errorf("Indices after reopen = %+v; want cl_0 open, reopened, 3 messages", list)
	}
	h.wantIDs("search after reopen", messages.Query{Prefixes: []string{"cl"}}, "m1", "m2", "m3", "m4")
	if hit, err := h.s.Get(t.Context(), "cl_0", "m1"); err != nil || hit.Index != "cl_0" {
		t.Errorf("Get(cl_0, m1) after reopen = %+v, %v", hit, err)
	}
	if f.Reopen != nil {
		h.flush(3)
		h.s = f.Reopen(t, h.s)
		if list := h.indices("cl"); !list[0].Reopened || list[0].Closed {
			t.Errorf("Indices after reopen and restart = %+v; want cl_0 reopened", list)
		}
	}

	// Closing again clears the mark; a closed index can be deleted.
	if err := h.s.CloseIndex(t.Context(), "cl_0"); err != nil {
		t.Fatalf("second CloseIndex(cl_0): %v", err)
	}
	h.wantClosed("closed again", "cl", "cl_0")
	if err := h.s.Delete(t.Context(), "cl_0"); err != nil {
		t.Fatalf("Delete of a closed index: %v", err)
	}
	if got := names(h.indices("cl")); len(got) != 1 || got[0] != "cl_1" {
		t.Errorf("Indices after delete = %v", got)
	}
}

// wantClosed checks that name is the only closed index of its series, not
// marked reopened, and reported without figures.
func (h *harness) wantClosed(what, prefix, name string) {
	h.t.Helper()
	for _, ix := range h.indices(prefix) {
		closed := ix.Name == name
		if ix.Closed != closed || (closed && (ix.Reopened || ix.Count != 0 || ix.Size != 0 || !ix.Begin.IsZero() || !ix.End.IsZero())) {
			h.t.Errorf("%s: index %+v; want closed %v, no figures when closed", what, ix, closed)
		}
	}
}
