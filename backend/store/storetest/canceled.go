package storetest

import (
	"context"
	"errors"
	"testing"
)

// testCanceled checks that every method refuses a cancelled context with
// context.Canceled, and that writes then change nothing.
func testCanceled(t *testing.T, f Factory) {
	h := open(t, f)
	h.insert(users, "u1", alice)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()

	called := false
	fn := func(string, []byte) error { called = true; return nil }
	tests := []struct {
		name string
		call func() error
	}{
		{"Get", func() error { _, err := h.s.Get(ctx, users, "u1"); return err }},
		{"Insert", func() error { return h.s.Insert(ctx, users, "u2", []byte(bob)) }},
		{"Put new", func() error { return h.s.Put(ctx, users, "u2", []byte(bob)) }},
		{"Put existing", func() error { return h.s.Put(ctx, users, "u1", []byte(bob)) }},
		{"Update", func() error {
			return h.s.Update(ctx, users, "u1", func([]byte) ([]byte, error) {
				called = true
				return []byte(bob), nil
			})
		}},
		{"Delete", func() error { return h.s.Delete(ctx, users, "u1") }},
		{"FindUnique", func() error { _, _, err := h.s.FindUnique(ctx, users, "username", "alice"); return err }},
		{"List", func() error { return h.s.List(ctx, users, fn) }},
		{"Count", func() error { _, err := h.s.Count(ctx, users); return err }},
	}
	for _, tt := range tests {
		if err := tt.call(); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: error %v, want context.Canceled", tt.name, err)
		}
	}
	if called {
		t.Error("a callback ran despite the cancelled context")
	}
	h.wantDoc(users, "u1", alice)
	h.wantMissing(users, "u2")
	h.wantCount(users, 1)
	h.wantUnique(users, "username", "alice", "u1")
	h.wantNoUnique(users, "username", "bob")
}
