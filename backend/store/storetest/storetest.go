// Package storetest is the contract suite of store.Store: every
// implementation runs Run from its own tests, so that callers can rely on the
// same behaviour from every store (the embedded bbolt store today, MongoDB next).
package storetest

import (
	"errors"
	"testing"

	"github.com/loggate/loggate/backend/store"
)

// Factory opens stores of the implementation under test. Run calls it from
// parallel subtests and closes every store it gets.
type Factory struct {
	// Open returns an empty store with the given unique indexes.
	Open func(t *testing.T, indexes []store.Index) store.Store
	// Reopen closes s and opens its data again with the given indexes, as a
	// restarted loggate would. If nil, the persistence tests are skipped.
	Reopen func(t *testing.T, s store.Store, indexes []store.Index) store.Store
}

// Collections and indexes the suite works with. users has two unique
// indexes, to check that a write rejected by one leaves the other untouched.
const (
	users = "users"
	roles = "roles"
)

var indexes = []store.Index{
	{Collection: users, Field: "username"},
	{Collection: users, Field: "email"},
	{Collection: roles, Field: "name"},
}

// Run runs the contract suite against the stores f opens.
func Run(t *testing.T, f Factory) {
	tests := []struct {
		name string
		run  func(*testing.T, Factory)
	}{
		{"Get", testGet},
		{"Insert", testInsert},
		{"Put", testPut},
		{"Update", testUpdate},
		{"Delete", testDelete},
		{"Count", testCount},
		{"Collections", testCollections},
		{"UniqueConflict", testUniqueConflict},
		{"UniqueAllowed", testUniqueAllowed},
		{"UniqueFreed", testUniqueFreed},
		{"UniqueSparse", testUniqueSparse},
		{"FindUnique", testFindUnique},
		{"List", testList},
		{"ListStop", testListStop},
		{"ListWrites", testListWrites},
		{"ConcurrentUpdate", testConcurrentUpdate},
		{"ConditionalUpdate", testConditionalUpdate},
		{"ConcurrentInsert", testConcurrentInsert},
		{"Isolation", testIsolation},
		{"Canceled", testCanceled},
		{"Persistence", testPersistence},
		{"PersistenceNewIndex", testPersistenceNewIndex},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.run(t, f)
		})
	}
}

// harness is one open store and the test using it.
type harness struct {
	t *testing.T
	s store.Store
}

// open returns a harness over a new store, closed when the test ends.
func open(t *testing.T, f Factory) *harness {
	t.Helper()
	h := &harness{t: t, s: f.Open(t, indexes)}
	t.Cleanup(func() {
		if err := h.s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return h
}

// reopen replaces the harness's store with a reopened one.
func (h *harness) reopen(f Factory, idx []store.Index) {
	h.t.Helper()
	skipWithoutReopen(h.t, f)
	h.s = f.Reopen(h.t, h.s, idx)
}

func (h *harness) insert(coll, id, doc string) {
	h.t.Helper()
	if err := h.s.Insert(h.t.Context(), coll, id, []byte(doc)); err != nil {
		h.t.Fatalf("Insert(%s, %s): %v", coll, id, err)
	}
}

func (h *harness) put(coll, id, doc string) {
	h.t.Helper()
	if err := h.s.Put(h.t.Context(), coll, id, []byte(doc)); err != nil {
		h.t.Fatalf("Put(%s, %s): %v", coll, id, err)
	}
}

// set replaces a document through Update.
func (h *harness) set(coll, id, doc string) {
	h.t.Helper()
	err := h.s.Update(h.t.Context(), coll, id, func([]byte) ([]byte, error) { return []byte(doc), nil })
	if err != nil {
		h.t.Fatalf("Update(%s, %s): %v", coll, id, err)
	}
}

func (h *harness) remove(coll, id string) {
	h.t.Helper()
	if err := h.s.Delete(h.t.Context(), coll, id); err != nil {
		h.t.Fatalf("Delete(%s, %s): %v", coll, id, err)
	}
}

// wantDoc checks that the document is stored with exactly these bytes.
func (h *harness) wantDoc(coll, id, want string) {
	h.t.Helper()
	got, err := h.s.Get(h.t.Context(), coll, id)
	if err != nil {
		h.t.Fatalf("Get(%s, %s): %v", coll, id, err)
	}
	if string(got) != want {
		h.t.Errorf("Get(%s, %s) = %s, want %s", coll, id, got, want)
	}
}

func (h *harness) wantMissing(coll, id string) {
	h.t.Helper()
	got, err := h.s.Get(h.t.Context(), coll, id)
	if !errors.Is(err, store.ErrNotFound) {
		h.t.Errorf("Get(%s, %s) = %s, %v; want ErrNotFound", coll, id, got, err)
	}
}

// wantUnique checks that value of field belongs to document id.
func (h *harness) wantUnique(coll, field, value, id string) {
	h.t.Helper()
	gotID, doc, err := h.s.FindUnique(h.t.Context(), coll, field, value)
	if err != nil {
		h.t.Fatalf("FindUnique(%s, %s, %q): %v", coll, field, value, err)
	}
	if gotID != id {
		h.t.Errorf("FindUnique(%s, %s, %q) id = %q, want %q", coll, field, value, gotID, id)
	}
	stored, err := h.s.Get(h.t.Context(), coll, id)
	if err != nil {
		h.t.Fatalf("Get(%s, %s): %v", coll, id, err)
	}
	if string(doc) != string(stored) {
		h.t.Errorf("FindUnique(%s, %s, %q) doc = %s, want %s", coll, field, value, doc, stored)
	}
}

func (h *harness) wantNoUnique(coll, field, value string) {
	h.t.Helper()
	id, _, err := h.s.FindUnique(h.t.Context(), coll, field, value)
	if !errors.Is(err, store.ErrNotFound) {
		h.t.Errorf("FindUnique(%s, %s, %q) = %q, %v; want ErrNotFound", coll, field, value, id, err)
	}
}

func (h *harness) wantCount(coll string, want int) {
	h.t.Helper()
	n, err := h.s.Count(h.t.Context(), coll)
	if err != nil {
		h.t.Fatalf("Count(%s): %v", coll, err)
	}
	if n != want {
		h.t.Errorf("Count(%s) = %d, want %d", coll, n, want)
	}
}

// wantErr checks that err matches target with errors.Is.
func wantErr(t *testing.T, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Errorf("%s: error %v, want %v", what, err, target)
	}
}
