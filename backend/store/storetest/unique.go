package storetest

import (
	"context"
	"testing"

	"github.com/loggate/loggate/backend/store"
)

const (
	alice = `{"username":"alice","email":"a@example.org"}`
	bob   = `{"username":"bob","email":"b@example.org"}`
)

// replaceWith returns an Update fn that stores doc.
func replaceWith(doc string) func([]byte) ([]byte, error) {
	return func([]byte) ([]byte, error) { return []byte(doc), nil }
}

// testUniqueConflict checks that a write claiming another document's unique
// value fails with ErrConflict and changes nothing, not even the index of
// the other field it would have claimed.
func testUniqueConflict(t *testing.T, f Factory) {
	tests := []struct {
		name  string
		write func(ctx context.Context, s store.Store) error
	}{
		{"Insert, username taken", func(ctx context.Context, s store.Store) error {
			return s.Insert(ctx, users, "u3", []byte(`{"username":"alice","email":"c@example.org"}`))
		}},
		{"Insert, email taken", func(ctx context.Context, s store.Store) error {
			return s.Insert(ctx, users, "u3", []byte(`{"username":"carol","email":"a@example.org"}`))
		}},
		{"Put new, username taken", func(ctx context.Context, s store.Store) error {
			return s.Put(ctx, users, "u3", []byte(`{"username":"alice","email":"c@example.org"}`))
		}},
		{"Put existing, email taken", func(ctx context.Context, s store.Store) error {
			return s.Put(ctx, users, "u2", []byte(`{"username":"carol","email":"a@example.org"}`))
		}},
		{"Update, username taken", func(ctx context.Context, s store.Store) error {
			return s.Update(ctx, users, "u2", replaceWith(`{"username":"alice","email":"c@example.org"}`))
		}},
		{"Update, email taken", func(ctx context.Context, s store.Store) error {
			return s.Update(ctx, users, "u2", replaceWith(`{"username":"carol","email":"a@example.org"}`))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := open(t, f)
			h.insert(users, "u1", alice)
			h.insert(users, "u2", bob)
			wantErr(t, "write", tt.write(t.Context(), h.s), store.ErrConflict)
			h.wantDoc(users, "u1", alice)
			h.wantDoc(users, "u2", bob)
			h.wantMissing(users, "u3")
			h.wantCount(users, 2)
			h.wantUnique(users, "username", "alice", "u1")
			h.wantUnique(users, "email", "a@example.org", "u1")
			h.wantUnique(users, "username", "bob", "u2")
			h.wantUnique(users, "email", "b@example.org", "u2")
			h.wantNoUnique(users, "username", "carol")
			h.wantNoUnique(users, "email", "c@example.org")
		})
	}
}

// testUniqueAllowed checks writes that keep or share a value legitimately.
func testUniqueAllowed(t *testing.T, f Factory) {
	tests := []struct {
		name  string
		write func(h *harness)
		id    string // holder of username alice afterwards
	}{
		{"Put of the same document", func(h *harness) { h.put(users, "u1", alice) }, "u1"},
		{"Update keeping the value", func(h *harness) {
			h.set(users, "u1", `{"username":"alice","email":"a@example.org","x":1}`)
		}, "u1"},
		{"same value in another collection", func(h *harness) {
			h.insert(roles, "u2", `{"name":"alice","username":"alice"}`)
		}, "u1"},
		{"same value in another indexed field", func(h *harness) {
			h.insert(users, "u2", `{"username":"a@example.org","email":"alice"}`)
		}, "u1"},
		{"values swapped through a free one", func(h *harness) {
			h.insert(users, "u2", bob)
			h.set(users, "u1", `{"username":"tmp"}`)
			h.set(users, "u2", `{"username":"alice"}`)
			h.set(users, "u1", `{"username":"bob"}`)
		}, "u2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := open(t, f)
			h.insert(users, "u1", alice)
			tt.write(h)
			h.wantUnique(users, "username", "alice", tt.id)
		})
	}
}

// testUniqueFreed checks that a value is released when its document lets go
// of it, and can then be claimed by another document.
func testUniqueFreed(t *testing.T, f Factory) {
	tests := []struct {
		name    string
		release func(h *harness)
		moved   string // username u1 has afterwards, if any
	}{
		{"Update to another value", func(h *harness) { h.set(users, "u1", `{"username":"alice2"}`) }, "alice2"},
		{"Update to an empty value", func(h *harness) { h.set(users, "u1", `{"username":""}`) }, ""},
		{"Update removing the field", func(h *harness) { h.set(users, "u1", `{"x":1}`) }, ""},
		{"Put with another value", func(h *harness) { h.put(users, "u1", `{"username":"alice2"}`) }, "alice2"},
		{"Put removing the field", func(h *harness) { h.put(users, "u1", `{}`) }, ""},
		{"Delete", func(h *harness) { h.remove(users, "u1") }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := open(t, f)
			h.insert(users, "u1", alice)
			tt.release(h)
			h.wantNoUnique(users, "username", "alice")
			if tt.moved != "" {
				h.wantUnique(users, "username", tt.moved, "u1")
			}
			h.insert(users, "u2", `{"username":"alice"}`)
			h.wantUnique(users, "username", "alice", "u2")
			// No release keeps the email, so it is free as well.
			h.wantNoUnique(users, "email", "a@example.org")
			h.insert(users, "u3", `{"email":"a@example.org"}`)
			h.wantUnique(users, "email", "a@example.org", "u3")
		})
	}
}

// testUniqueSparse checks that documents without a value are not indexed:
// any number of them coexist, and "" finds nothing.
func testUniqueSparse(t *testing.T, f Factory) {
	h := open(t, f)
	h.insert(users, "u1", `{}`)
	h.insert(users, "u2", `{"username":""}`)
	h.insert(users, "u3", `{"username":"","email":""}`)
	h.put(users, "u4", `{"email":"d@example.org"}`)
	h.insert(users, "u5", `{"other":"x"}`)
	h.set(users, "u5", `{"username":""}`)
	h.wantCount(users, 5)
	h.wantNoUnique(users, "username", "")
	h.wantNoUnique(users, "email", "")
	h.wantUnique(users, "email", "d@example.org", "u4")

	// A document leaving the sparse part is indexed, others stay unindexed.
	h.set(users, "u2", `{"username":"bob"}`)
	h.wantUnique(users, "username", "bob", "u2")
	h.insert(users, "u6", `{"username":""}`)
	h.wantCount(users, 6)
}

func testFindUnique(t *testing.T, f Factory) {
	h := open(t, f)
	h.wantNoUnique(users, "username", "alice") // collection never written to
	doc := `{ "email" : "a@example.org","username":"alice" }`
	h.insert(users, "u1", doc)
	h.insert(users, "u2", bob)
	id, got, err := h.s.FindUnique(t.Context(), users, "username", "alice")
	if err != nil || id != "u1" || string(got) != doc {
		t.Errorf("FindUnique = %q, %s, %v; want u1, %s", id, got, err, doc)
	}
	h.wantUnique(users, "email", "b@example.org", "u2")
	h.wantNoUnique(users, "username", "Alice")
	h.wantNoUnique(users, "username", "alic")
	h.wantNoUnique(users, "email", "alice") // a value of another field
	h.wantNoUnique(roles, "name", "alice")  // a value of another collection
}
