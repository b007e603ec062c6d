package store_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"

	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/backend/store/bolt"
)

func TestChangeCounter(t *testing.T) {
	ctx := context.Background()
	st, err := bolt.Open(filepath.Join(t.TempDir(), "db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if v, err := store.Version(ctx, st, "streams"); v != 0 || err != nil {
		t.Fatalf("fresh version %d, %v", v, err)
	}
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			if _, err := store.Bump(ctx, st, "streams"); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if v, _ := store.Version(ctx, st, "streams"); v != 20 {
		t.Errorf("after 20 concurrent bumps: %d", v)
	}
	if v, _ := store.Version(ctx, st, "grok"); v != 0 {
		t.Errorf("another collection's counter moved: %d", v)
	}
}
