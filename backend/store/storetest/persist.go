package storetest

import (
	"slices"
	"testing"

	"github.com/loggate/loggate/backend/store"
)

// skipWithoutReopen skips persistence tests for implementations that cannot
// reopen their data.
func skipWithoutReopen(t *testing.T, f Factory) {
	t.Helper()
	if f.Reopen == nil {
		t.Skip("Factory.Reopen is nil: the implementation cannot reopen its data, persistence is not tested")
	}
}

// testPersistence checks that every kind of write outlives a reopen,
// including the unique indexes it maintained.
func testPersistence(t *testing.T, f Factory) {
	skipWithoutReopen(t, f)
	h := open(t, f)
	h.insert(users, "u1", alice)
	h.insert(users, "u2", bob)
	h.put(users, "u3", `{"username":"carol"}`)
	h.set(users, "u2", `{"username":"bobby","email":"b@example.org"}`)
	h.remove(users, "u3")
	h.insert(roles, "r1", odd)

	h.reopen(f, indexes)
	h.wantDoc(users, "u1", alice)
	h.wantDoc(users, "u2", `{"username":"bobby","email":"b@example.org"}`)
	h.wantMissing(users, "u3")
	h.wantDoc(roles, "r1", odd)
	h.wantCount(users, 2)
	h.wantCount(roles, 1)
	h.wantUnique(users, "username", "alice", "u1")
	h.wantUnique(users, "username", "bobby", "u2")
	h.wantUnique(users, "email", "b@example.org", "u2")
	h.wantNoUnique(users, "username", "bob")
	h.wantNoUnique(users, "username", "carol")

	err := h.s.Insert(t.Context(), users, "u4", []byte(`{"username":"alice"}`))
	wantErr(t, "Insert of a value taken before the reopen", err, store.ErrConflict)
	h.insert(users, "u4", `{"username":"bob"}`)
	h.insert(users, "u5", `{"username":"carol"}`)
	h.wantUnique(users, "username", "bob", "u4")

	h.reopen(f, indexes)
	h.wantUnique(users, "username", "bob", "u4")
	h.wantUnique(users, "username", "carol", "u5")
	h.wantCount(users, 4)
}

// testPersistenceNewIndex checks that an index declared on reopen covers the
// documents stored before.
func testPersistenceNewIndex(t *testing.T, f Factory) {
	skipWithoutReopen(t, f)
	h := open(t, f)
	h.insert(roles, "r1", `{"name":"a","title":"Admin"}`)
	h.insert(roles, "r2", `{"name":"b","title":"Reader"}`)
	h.insert(roles, "r3", `{"name":"c"}`)

	h.reopen(f, append(slices.Clone(indexes), store.Index{Collection: roles, Field: "title"}))
	h.wantUnique(roles, "title", "Admin", "r1")
	h.wantUnique(roles, "title", "Reader", "r2")
	h.wantUnique(roles, "name", "c", "r3")
	err := h.s.Insert(t.Context(), roles, "r4", []byte(`{"name":"d","title":"Admin"}`))
	wantErr(t, "Insert of a value of the new index", err, store.ErrConflict)
	h.insert(roles, "r4", `{"name":"d","title":"Writer"}`)
	h.wantUnique(roles, "title", "Writer", "r4")
}
