package store_test

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/backend/store/bolt"
)

func TestChangeCounter(t *testing.T) {
	ctx := context.Background()
	st := openBolt(t)
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

// TestFreshnessLoad: a write by another node while memory loads makes the
// next Stale say so (the counter is read before the load), a load that
// fails records nothing, and a load that succeeds after the write is
// current.
func TestFreshnessLoad(t *testing.T) {
	ctx := context.Background()
	st := openBolt(t)
	// A zero interval: Stale asks the store every time.
	f := store.NewFreshness(st, "grok", 0, time.Now)
	stale := func() bool {
		t.Helper()
		s, err := f.Stale(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	writeDuring := func(context.Context) error {
		_, err := store.Bump(ctx, st, "grok")
		return err
	}
	if err := f.Load(ctx, writeDuring); err != nil {
		t.Fatal(err)
	}
	if !stale() {
		t.Error("a write during the load was missed")
	}
	failed := errors.New("disk gone")
	if err := f.Load(ctx, func(context.Context) error { return failed }); !errors.Is(err, failed) {
		t.Fatalf("failing load: %v", err)
	}
	if !stale() {
		t.Error("a failed load was recorded as loaded")
	}
	if err := f.Load(ctx, func(context.Context) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if stale() {
		t.Error("stale right after a load with no write since")
	}
}

func openBolt(t *testing.T) *bolt.Store {
	t.Helper()
	st, err := bolt.Open(filepath.Join(t.TempDir(), "db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}
