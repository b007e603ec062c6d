package storetest

import (
	"errors"
	"testing"

	"github.com/loggate/loggate/backend/store"
)

// odd is a document whose bytes a store must not normalise: spacing, key
// order, a \u escape next to its literal character, a float's trailing zero.
const odd = `{ "z":1.50,"a" : "\u00fcü",  "n":null ,"l":[ ] }`

func testGet(t *testing.T, f Factory) {
	h := open(t, f)
	h.wantMissing(roles, "r1") // collection never written to
	h.insert(roles, "r1", odd)
	h.wantDoc(roles, "r1", odd)
	h.wantMissing(roles, "r2")
	h.wantMissing(roles, "R1")
}

func testInsert(t *testing.T, f Factory) {
	h := open(t, f)
	h.insert(roles, "r1", `{"v":1}`)
	err := h.s.Insert(t.Context(), roles, "r1", []byte(`{"v":2}`))
	wantErr(t, "Insert of an existing id", err, store.ErrConflict)
	h.wantDoc(roles, "r1", `{"v":1}`)
	h.wantCount(roles, 1)
}

func testPut(t *testing.T, f Factory) {
	h := open(t, f)
	h.put(roles, "r1", `{"v":1}`)
	h.wantDoc(roles, "r1", `{"v":1}`)
	h.put(roles, "r1", odd)
	h.wantDoc(roles, "r1", odd)
	h.wantCount(roles, 1)
}

func testUpdate(t *testing.T, f Factory) {
	errFn := errors.New("fn failed")
	tests := []struct {
		name    string
		fn      func(doc []byte) ([]byte, error)
		wantErr error
		want    string
	}{
		{"replace", func([]byte) ([]byte, error) { return []byte(odd), nil }, nil, odd},
		{"append to the argument", func(doc []byte) ([]byte, error) {
			return append(doc[:len(doc)-1], `,"w":2}`...), nil
		}, nil, `{"v":1,"w":2}`},
		{"fn error", func([]byte) ([]byte, error) { return nil, errFn }, errFn, `{"v":1}`},
		{"fn error after writing to its argument", func(doc []byte) ([]byte, error) {
			copy(doc, "XXXX")
			return doc, errFn
		}, errFn, `{"v":1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := open(t, f)
			h.insert(roles, "r1", `{"v":1}`)
			var got []byte
			err := h.s.Update(t.Context(), roles, "r1", func(doc []byte) ([]byte, error) {
				got = append([]byte(nil), doc...)
				return tt.fn(doc)
			})
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("Update: error %v, want %v", err, tt.wantErr)
			}
			if string(got) != `{"v":1}` {
				t.Errorf("fn got %s, want the stored document", got)
			}
			h.wantDoc(roles, "r1", tt.want)
		})
	}

	t.Run("missing", func(t *testing.T) {
		h := open(t, f)
		h.insert(roles, "r1", `{"v":1}`)
		for _, coll := range []string{roles, "never-written"} {
			called := false
			err := h.s.Update(t.Context(), coll, "r2", func([]byte) ([]byte, error) {
				called = true
				return []byte(`{"v":2}`), nil
			})
			wantErr(t, "Update of a missing document in "+coll, err, store.ErrNotFound)
			if called {
				t.Errorf("Update in %s called fn for a missing document", coll)
			}
			h.wantMissing(coll, "r2")
		}
	})
}

func testDelete(t *testing.T, f Factory) {
	h := open(t, f)
	h.insert(roles, "r1", `{"v":1}`)
	h.insert(roles, "r2", `{"v":2}`)
	h.remove(roles, "r1")
	h.wantMissing(roles, "r1")
	h.wantDoc(roles, "r2", `{"v":2}`)
	h.wantCount(roles, 1)
	wantErr(t, "second Delete", h.s.Delete(t.Context(), roles, "r1"), store.ErrNotFound)
	wantErr(t, "Delete in a collection never written to", h.s.Delete(t.Context(), "never-written", "r2"), store.ErrNotFound)
	h.insert(roles, "r1", `{"v":3}`) // a deleted id can be inserted again
	h.wantDoc(roles, "r1", `{"v":3}`)
}

func testCount(t *testing.T, f Factory) {
	h := open(t, f)
	h.wantCount(roles, 0)
	ids := []string{"a", "b", "c", "d"}
	for i, id := range ids {
		h.insert(roles, id, `{}`)
		h.wantCount(roles, i+1)
	}
	h.put(roles, "a", `{"v":1}`) // a replacement adds nothing
	h.wantCount(roles, len(ids))
	h.remove(roles, "b")
	h.wantCount(roles, len(ids)-1)
}

// testCollections checks that collections share nothing: ids, documents,
// counts, lists and unique values.
func testCollections(t *testing.T, f Factory) {
	h := open(t, f)
	h.insert(users, "x", `{"username":"alice"}`)
	h.insert(roles, "x", `{"name":"alice","username":"alice"}`)
	h.insert("other", "x", `{"username":"alice"}`)
	h.insert("other", "y", `{"username":"alice"}`) // not indexed in "other"
	h.wantDoc(users, "x", `{"username":"alice"}`)
	h.wantDoc(roles, "x", `{"name":"alice","username":"alice"}`)
	h.wantCount(users, 1)
	h.wantCount("other", 2)

	h.remove(roles, "x")
	h.wantMissing(roles, "x")
	h.wantDoc(users, "x", `{"username":"alice"}`)
	h.wantDoc("other", "x", `{"username":"alice"}`)
	h.wantNoUnique(roles, "name", "alice")
	h.wantUnique(users, "username", "alice", "x")

	var ids []string
	err := h.s.List(t.Context(), users, func(id string, _ []byte) error {
		ids = append(ids, id)
		return nil
	})
	if err != nil || len(ids) != 1 || ids[0] != "x" {
		t.Errorf("List(users) = %q, %v; want [x]", ids, err)
	}
}
