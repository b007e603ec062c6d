package users

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/loggate/loggate/backend/access/roles"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/backend/store/bolt"
)

// racingStore lets another node create the user a FindUnique of it has
// just not found, as when two nodes of a cluster start at once.
type racingStore struct {
	store.Store
	other func()
}

func (r *racingStore) FindUnique(ctx context.Context, coll, field, value string) (string, []byte, error) {
	id, doc, err := r.Store.FindUnique(ctx, coll, field, value)
	if errors.Is(err, store.ErrNotFound) && coll == Collection && field == "username" && r.other != nil {
		other := r.other
		r.other = nil
		other()
	}
	return id, doc, err
}

// Two nodes starting at once both ensure the Sidecar user: the one whose
// creation loses starts all the same, the user there once with its roles,
// as Graylog's ensureUser does not stop a start either.
func TestEnsureBuiltinRace(t *testing.T) {
	ctx := context.Background()
	bst, err := bolt.Open(filepath.Join(t.TempDir(), "db"), append(slices.Clone(Indexes), roles.Indexes...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bst.Close() })
	rs, err := roles.NewService(ctx, bst)
	if err != nil {
		t.Fatal(err)
	}
	root := Root{Username: "admin"}
	other := NewService(Options{Store: bst, Roles: rs, Root: root})
	racing := &racingStore{Store: bst}
	racing.other = func() {
		if err := other.EnsureBuiltin(ctx, SidecarUser); err != nil {
			t.Errorf("other node: %v", err)
		}
	}
	mine := NewService(Options{Store: racing, Roles: rs, Root: root})
	if err := mine.EnsureBuiltin(ctx, SidecarUser); err != nil {
		t.Fatalf("the node that lost the race: %v", err)
	}
	if n, err := mine.Count(ctx); err != nil || n != 1 {
		t.Errorf("users: %d, %v", n, err)
	}
	u, err := mine.ByName(ctx, SidecarUser.Username)
	if err != nil || !u.ServiceAccount || len(u.RoleIDs) != 2 {
		t.Errorf("graylog-sidecar: %+v, %v", u, err)
	}
}
