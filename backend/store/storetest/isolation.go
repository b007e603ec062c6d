package storetest

import (
	"context"
	"strings"
	"testing"

	"github.com/loggate/loggate/backend/store"
)

var padded = `{"pad":"` + strings.Repeat("p", 8<<10) + `"}`

// scribble overwrites b and appends to it, as a careless caller might.
func scribble(b []byte) {
	for i := range b {
		b[i] = 'X'
	}
	_ = append(b, "XXXXXXXX"...)
}

// testIsolation checks that the store shares no memory with its callers:
// neither the slices it is given nor those it returns.
func testIsolation(t *testing.T, f Factory) {
	const doc = `{"username":"alice"}`
	tests := []struct {
		name string
		// touch gets the store holding users u1, u2 and u3 and overwrites
		// slices the store has seen.
		touch func(t *testing.T, ctx context.Context, s store.Store)
		// writes: touch stored roles/r1 = {"v":1}.
		writes bool
	}{
		{"Insert argument", func(t *testing.T, ctx context.Context, s store.Store) {
			b := []byte(`{"v":1}`)
			if err := s.Insert(ctx, roles, "r1", b); err != nil {
				t.Fatal(err)
			}
			scribble(b)
		}, true},
		{"Put argument", func(t *testing.T, ctx context.Context, s store.Store) {
			b := []byte(`{"v":1}`)
			if err := s.Put(ctx, roles, "r1", b); err != nil {
				t.Fatal(err)
			}
			scribble(b)
		}, true},
		{"Update result", func(t *testing.T, ctx context.Context, s store.Store) {
			b := []byte(`{"v":1}`)
			if err := s.Insert(ctx, roles, "r1", []byte(`{}`)); err != nil {
				t.Fatal(err)
			}
			if err := s.Update(ctx, roles, "r1", func([]byte) ([]byte, error) { return b, nil }); err != nil {
				t.Fatal(err)
			}
			scribble(b)
		}, true},
		{"Get result", func(t *testing.T, ctx context.Context, s store.Store) {
			b, err := s.Get(ctx, users, "u1")
			if err != nil {
				t.Fatal(err)
			}
			scribble(b)
		}, false},
		{"FindUnique result", func(t *testing.T, ctx context.Context, s store.Store) {
			_, b, err := s.FindUnique(ctx, users, "username", "alice")
			if err != nil {
				t.Fatal(err)
			}
			scribble(b)
		}, false},
		{"List documents", func(t *testing.T, ctx context.Context, s store.Store) {
			err := s.List(ctx, users, func(_ string, b []byte) error {
				scribble(b)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}, false},
		{"Update argument", func(t *testing.T, ctx context.Context, s store.Store) {
			err := s.Update(ctx, users, "u1", func(b []byte) ([]byte, error) {
				scribble(b)
				return []byte(doc), nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := open(t, f)
			h.insert(users, "u1", doc)
			h.insert(users, "u2", `{}`)
			// Big enough not to fit in a page with the others, so that a
			// store handing out its own memory cannot go unnoticed.
			h.insert(users, "u3", padded)
			tt.touch(t, t.Context(), h.s)
			h.wantDoc(users, "u1", doc)
			h.wantDoc(users, "u2", `{}`)
			h.wantDoc(users, "u3", padded)
			h.wantUnique(users, "username", "alice", "u1")
			if tt.writes {
				h.wantDoc(roles, "r1", `{"v":1}`)
			}
		})
	}
}
