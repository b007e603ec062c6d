package mongo_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"testing"

	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/backend/store/mongo"
	"github.com/loggate/loggate/backend/store/storetest"
)

// serverURI returns the URI of the MongoDB server to test against, or skips
// the test loudly; with LOGGATE_REQUIRE_MONGODB=1 it fails instead.
func serverURI(tb testing.TB) string {
	tb.Helper()
	uri := os.Getenv("LOGGATE_TEST_MONGODB_URI")
	if uri == "" {
		const msg = "SKIPPED: set LOGGATE_TEST_MONGODB_URI=mongodb://… to run the MongoDB store against a real server"
		if os.Getenv("LOGGATE_REQUIRE_MONGODB") == "1" {
			tb.Fatal("LOGGATE_REQUIRE_MONGODB=1 but LOGGATE_TEST_MONGODB_URI is not set: set it to mongodb://… to run the MongoDB store against a real server")
		}
		tb.Skip(msg)
	}
	return uri
}

// newDatabase returns the name of a database of the test's own, dropped
// when the test ends.
func newDatabase(tb testing.TB) string {
	tb.Helper()
	name := "loggate_test_" + rand.Text()[:12]
	tb.Cleanup(func() {
		// The test's context is cancelled when cleanups run.
		ctx := context.Background()
		s, err := mongo.Open(ctx, serverURI(tb), nil, mongo.WithDatabase(name))
		if err != nil {
			tb.Errorf("open %s to drop it: %v", name, err)
			return
		}
		defer s.Close()
		if err := s.Drop(ctx); err != nil {
			tb.Errorf("drop %s: %v", name, err)
		}
	})
	return name
}

// mustOpen opens a store in a database of the test's own, closed when the
// test ends.
func mustOpen(tb testing.TB, indexes []store.Index) *mongo.Store {
	tb.Helper()
	uri := serverURI(tb)
	s, err := mongo.Open(tb.Context(), uri, indexes, mongo.WithDatabase(newDatabase(tb)))
	if err != nil {
		tb.Fatalf("Open: %v", err)
	}
	tb.Cleanup(func() { _ = s.Close() })
	return s
}

func TestContract(t *testing.T) {
	uri := serverURI(t)
	storetest.Run(t, storetest.Factory{
		Open: func(t *testing.T, indexes []store.Index) store.Store {
			t.Helper()
			s, err := mongo.Open(t.Context(), uri, indexes, mongo.WithDatabase(newDatabase(t)))
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			return s
		},
		Reopen: func(t *testing.T, s store.Store, indexes []store.Index) store.Store {
			t.Helper()
			db := s.(*mongo.Store).Database()
			if err := s.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			s, err := mongo.Open(t.Context(), uri, indexes, mongo.WithDatabase(db))
			if err != nil {
				t.Fatalf("reopen: %v", err)
			}
			return s
		},
	})
}

func TestListBatches(t *testing.T) {
	s := mustOpen(t, nil)
	n := 2*mongo.ListBatch + 3
	for i := range n {
		if err := s.Insert(t.Context(), "c", fmt.Sprintf("%05d", i), fmt.Appendf(nil, `{"i":%d}`, i)); err != nil {
			t.Fatal(err)
		}
	}
	next := 0
	err := s.List(t.Context(), "c", func(id string, doc []byte) error {
		if want := fmt.Sprintf("%05d", next); id != want || string(doc) != fmt.Sprintf(`{"i":%d}`, next) {
			t.Errorf("List call %d: %s %s, want id %s", next, id, doc, want)
		}
		next++
		return nil
	})
	if err != nil || next != n {
		t.Errorf("List: %d calls, %v; want %d, nil", next, err, n)
	}
}
