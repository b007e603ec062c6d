package lookup_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/logs/lookup"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/backend/store/bolt"
	"github.com/loggate/loggate/backend/store/mongo"
	"github.com/loggate/loggate/internal/testclock"
)

var epoch = time.Date(2021, 3, 4, 5, 6, 7, 0, time.UTC)

// stores are the document stores the contract runs on: the embedded one
// always, MongoDB when LOGGATE_TEST_MONGODB_URI names a server (each test
// in its own database).
func stores(t *testing.T) map[string]func(t *testing.T) store.Store {
	out := map[string]func(t *testing.T) store.Store{"embedded": func(t *testing.T) store.Store { return embedded(t) }}
	base := os.Getenv("LOGGATE_TEST_MONGODB_URI")
	if base == "" {
		t.Log("SKIPPED (MongoDB): set LOGGATE_TEST_MONGODB_URI=mongodb://… to run the contract on MongoDB too")
		return out
	}
	out["mongodb"] = func(t *testing.T) store.Store {
		u, err := url.Parse(base)
		if err != nil {
			t.Fatalf("LOGGATE_TEST_MONGODB_URI: %v", err)
		}
		b := make([]byte, 6)
		_, _ = rand.Read(b)
		u.Path = "/loggate_lookup_" + hex.EncodeToString(b)
		st, err := mongo.Open(context.Background(), u.String(), lookup.Indexes)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = st.Close() })
		return st
	}
	return out
}

// embedded opens an embedded store, closed when the test ends.
func embedded(t testing.TB) store.Store {
	st, err := bolt.Open(filepath.Join(t.TempDir(), "db"), lookup.Indexes)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// newService starts a service on st with a test clock.
func newService(t testing.TB, st store.Store, clock *testclock.Clock) *lookup.Service {
	t.Helper()
	s, err := lookup.NewService(t.Context(), st, lookup.Options{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// writeFile writes a file and gives it a modification time of its own,
// so that a rewrite within the same clock tick is seen.
func writeFile(t testing.TB, path, text string, mtime time.Time) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, mtime, mtime); err != nil {
		t.Fatal(err)
	}
}
