package messagestest

import (
	"slices"
	"testing"

	"github.com/loggate/loggate/backend/logs/messages"
)

func testGet(t *testing.T, f Factory) {
	h := open(t, f)
	h.write("g", corpus[:2]...)
	h.flush(1)
	h.write("g", corpus[2:]...)
	for _, m := range corpus {
		hit, err := h.s.Get(t.Context(), "g_0", m.ID)
		if err != nil {
			t.Fatalf("Get(%s): %v", m.ID, err)
		}
		if hit.Index != "g_0" {
			t.Errorf("Get(%s).Index = %q", m.ID, hit.Index)
		}
		wantMessage(t, hit.Message, m)
	}
	_, err := h.s.Get(t.Context(), "g_0", "nope")
	wantErr(t, "Get of an unknown id", err, messages.ErrNotFound)
	_, err = h.s.Get(t.Context(), "g_7", "m1")
	wantErr(t, "Get from an unknown index", err, messages.ErrNotFound)
	_, err = h.s.Get(t.Context(), "other_0", "m1")
	wantErr(t, "Get from another series", err, messages.ErrNotFound)
}

func testRotate(t *testing.T, f Factory) {
	h := open(t, f)
	h.write("ro", corpus[:2]...)
	name, err := h.s.Rotate(t.Context(), "ro")
	if err != nil || name != "ro_1" {
		t.Fatalf("Rotate = %q, %v; want ro_1", name, err)
	}
	h.write("ro", corpus[2:]...)
	list := h.indices("ro")
	if got := names(list); !slices.Equal(got, []string{"ro_0", "ro_1"}) {
		t.Fatalf("Indices = %v", got)
	}
	if list[0].Write || !list[1].Write || list[0].Count != 2 || list[1].Count != 2 {
		t.Errorf("Indices = %+v; want ro_0 (2, read only), ro_1 (2, write)", list)
	}
	if !list[0].Begin.Equal(corpus[0].Timestamp) || !list[0].End.Equal(corpus[1].Timestamp) {
		t.Errorf("ro_0 Begin, End = %v, %v", list[0].Begin, list[0].End)
	}
	for _, m := range corpus[2:] {
		if _, err := h.s.Get(t.Context(), "ro_1", m.ID); err != nil {
			t.Errorf("Get(ro_1, %s): %v", m.ID, err)
		}
		_, err := h.s.Get(t.Context(), "ro_0", m.ID)
		wantErr(t, "Get of a new message from the old index", err, messages.ErrNotFound)
	}
	h.wantIDs("both indices searched", messages.Query{Query: parse(t, "level:3")}, "m1", "m3")
	r := h.search(messages.Query{Query: parse(t, "_id:m1"), Limit: 1})
	if len(r.Hits) != 1 || r.Hits[0].Index != "ro_0" {
		t.Errorf("hit of m1 = %+v, want in ro_0", r.Hits)
	}
	if !slices.Contains(names(r.Indices), "ro_0") {
		t.Errorf("Result.Indices = %v, want ro_0 among them", names(r.Indices))
	}
	// A message already in the old index is not replaced by a write to
	// the new one: only the write index deduplicates.
	h.write("ro", corpus[0])
	h.wantIDs("m1 in both", messages.Query{Query: parse(t, "_id:m1")}, "m1", "m1")
	if name, err := h.s.Rotate(t.Context(), "ro"); err != nil || name != "ro_2" {
		t.Errorf("second Rotate = %q, %v; want ro_2", name, err)
	}
	h.flush(3)
	if got := names(h.indices("ro")); !slices.Equal(got, []string{"ro_0", "ro_1", "ro_2"}) {
		t.Errorf("Indices after flush = %v", got)
	}
}

func testDelete(t *testing.T, f Factory) {
	h := open(t, f)
	h.write("de", corpus[:2]...)
	h.flush(1)
	h.write("de", corpus[2])
	if _, err := h.s.Rotate(t.Context(), "de"); err != nil {
		t.Fatal(err)
	}
	h.write("de", corpus[3])
	h.write("keep", corpus[0])

	wantErr(t, "Delete of the write index", h.s.Delete(t.Context(), "de_1"), messages.ErrWriteIndex)
	wantErr(t, "Delete of an unknown index", h.s.Delete(t.Context(), "de_9"), messages.ErrNotFound)
	if err := h.s.Delete(t.Context(), "de_0"); err != nil {
		t.Fatalf("Delete(de_0): %v", err)
	}
	h.wantIDs("after delete", messages.Query{Prefixes: []string{"de"}}, "m4")
	h.wantIDs("other series untouched", messages.Query{Prefixes: []string{"keep"}}, "m1")
	if got := names(h.indices("de")); !slices.Equal(got, []string{"de_1"}) {
		t.Errorf("Indices = %v, want [de_1]", got)
	}
	wantErr(t, "second Delete", h.s.Delete(t.Context(), "de_0"), messages.ErrNotFound)
	_, err := h.s.Get(t.Context(), "de_0", "m1")
	wantErr(t, "Get from a deleted index", err, messages.ErrNotFound)
	h.flush(2)
	h.wantIDs("after flush", messages.Query{Prefixes: []string{"de"}}, "m4")
}
