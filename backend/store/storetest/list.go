package storetest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// listIDs are inserted in this order; List must return them sorted bytewise.
var listIDs = []string{"b", "a", "aa", "B", "10", "9", "a-1", "ü", "a0", "_"}

func listDoc(id string) string { return fmt.Sprintf(`{"id":%q}`, id) }

func testList(t *testing.T, f Factory) {
	h := open(t, f)
	calls := 0
	err := h.s.List(t.Context(), roles, func(string, []byte) error { calls++; return nil })
	if err != nil || calls != 0 {
		t.Errorf("List of a collection never written to: %d calls, %v; want 0, nil", calls, err)
	}

	for _, id := range listIDs {
		h.insert(roles, id, listDoc(id))
	}
	h.insert(users, "0", `{}`) // another collection, not listed
	var ids []string
	err = h.s.List(t.Context(), roles, func(id string, doc []byte) error {
		ids = append(ids, id)
		if string(doc) != listDoc(id) {
			t.Errorf("List: doc of %q = %s, want %s", id, doc, listDoc(id))
		}
		return nil
	})
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	want := slices.Clone(listIDs)
	slices.Sort(want)
	if !slices.Equal(ids, want) {
		t.Errorf("List ids = %q, want %q", ids, want)
	}
}

// testListStop checks that an error from fn stops List and is returned.
func testListStop(t *testing.T, f Factory) {
	h := open(t, f)
	for _, id := range listIDs {
		h.insert(roles, id, listDoc(id))
	}
	errStop := errors.New("stop")
	for _, stopAt := range []int{1, 3, len(listIDs)} {
		calls := 0
		err := h.s.List(t.Context(), roles, func(string, []byte) error {
			calls++
			if calls == stopAt {
				return fmt.Errorf("at %d: %w", calls, errStop)
			}
			return nil
		})
		if !errors.Is(err, errStop) || calls != stopAt {
			t.Errorf("List stopping at %d: %d calls, error %v; want %d calls, %v", stopAt, calls, err, stopAt, errStop)
		}
	}
}

// testListWrites checks that fn may write to the store while List runs, as a
// migration listing and rewriting documents does.
func testListWrites(t *testing.T, f Factory) {
	h := open(t, f)
	for _, id := range listIDs {
		h.insert(roles, id, listDoc(id))
	}
	// Large writes, so that a store that must grow its file does so while
	// List runs.
	big := `{"pad":"` + strings.Repeat("p", 64<<10) + `"}`
	err := h.s.List(t.Context(), roles, func(id string, doc []byte) error {
		if err := h.s.Put(t.Context(), users, id, []byte(big)); err != nil {
			return err
		}
		return h.s.Update(t.Context(), roles, id, replaceWith(`{"seen":true}`))
	})
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	for _, id := range listIDs {
		h.wantDoc(roles, id, `{"seen":true}`)
		h.wantDoc(users, id, big)
	}
}
