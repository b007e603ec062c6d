package messagestest

import (
	"slices"
	"testing"

	"github.com/loggate/loggate/backend/logs/messages"
)

// testDurable checks that flushed messages, indices and the checkpoint
// outlive a reopen.
func testDurable(t *testing.T, f Factory) {
	if f.Reopen == nil {
		t.Skip("Factory.Reopen is nil")
	}
	h := open(t, f)
	if cp := h.s.Checkpoint(); cp != 0 {
		t.Errorf("Checkpoint of a new store = %d, want 0", cp)
	}
	h.write("du", corpus[:2]...)
	h.flush(5)
	h.write("du", corpus[2])
	if _, err := h.s.Rotate(t.Context(), "du"); err != nil {
		t.Fatal(err)
	}
	h.write("du", corpus[3])
	h.write("du", msg("m1", 1, nil, "source", "replaced")) // m1 is in du_0: a new copy
	h.flush(9)
	h.s = f.Reopen(t, h.s)
	if cp := h.s.Checkpoint(); cp != 9 {
		t.Errorf("Checkpoint after reopen = %d, want 9", cp)
	}
	h.wantIDs("everything", messages.Query{}, "m1", "m1", "m2", "m3", "m4")
	h.wantIDs("query", messages.Query{Query: parse(t, "message:foo")}, "m1", "m4")
	if got := names(h.indices("du")); !slices.Equal(got, []string{"du_0", "du_1"}) {
		t.Errorf("Indices after reopen = %v", got)
	}
	// Writes go on in the reopened write index, replacing flushed copies.
	h.write("du", msg("m4", 4, nil, "source", "again"))
	h.wantIDs("replaced after reopen", messages.Query{Query: parse(t, "source:again")}, "m4")
	h.wantIDs("one m4", messages.Query{Query: parse(t, "_id:m4")}, "m4")
	h.flush(10)
	h.s = f.Reopen(t, h.s)
	h.wantIDs("one m4 after reopen", messages.Query{Query: parse(t, "_id:m4")}, "m4")
	if err := h.s.Delete(t.Context(), "du_0"); err != nil {
		t.Fatal(err)
	}
	h.s = f.Reopen(t, h.s)
	if got := names(h.indices("du")); !slices.Equal(got, []string{"du_1"}) {
		t.Errorf("Indices after delete and reopen = %v", got)
	}
}

// testCrash checks that what was written after the last Flush is lost in
// a crash, with the checkpoint of that Flush, and nothing else.
func testCrash(t *testing.T, f Factory) {
	if f.Crash == nil {
		t.Skip("Factory.Crash is nil")
	}
	h := open(t, f)
	h.write("cr", corpus[:2]...)
	h.flush(3)
	h.write("cr", corpus[2:]...)
	h.write("cr", msg("m1", 1, nil, "source", "replaced"))
	h.s = f.Crash(t, h.s)
	if cp := h.s.Checkpoint(); cp != 3 {
		t.Errorf("Checkpoint after crash = %d, want 3", cp)
	}
	h.wantIDs("flushed only", messages.Query{}, "m1", "m2")
	h.wantIDs("old m1", messages.Query{Query: parse(t, "source:web-1")}, "m1")
	// The journal replays what was lost; the store takes it as new.
	h.write("cr", corpus[2:]...)
	h.flush(4)
	h.s = f.Crash(t, h.s)
	h.wantIDs("after replay", messages.Query{}, "m1", "m2", "m3", "m4")
	if cp := h.s.Checkpoint(); cp != 4 {
		t.Errorf("Checkpoint = %d, want 4", cp)
	}
}
