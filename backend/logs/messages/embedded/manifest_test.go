package embedded

import (
	"errors"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/logs/messages"
)

// TestUnsyncedManifestKeepsItsFiles: when the directory sync fails after
// the new manifest took the old one's place, the flush fails but its
// segment stays, as the manifest in place names it: the store opens again
// with everything.
func TestUnsyncedManifestKeepsItsFiles(t *testing.T) {
	dir, ctx := t.TempDir(), t.Context()
	s, err := Open(dir, Options{MergeFactor: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { s.Close() }()
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	write := func(id string) {
		t.Helper()
		if err := s.Write(ctx, "u", []messages.Message{{ID: id, Timestamp: at, Fields: []messages.Field{{Key: "source", Value: id}}}}); err != nil {
			t.Fatal(err)
		}
	}
	write("x")
	if err := s.Flush(ctx, 1); err != nil {
		t.Fatal(err)
	}
	write("y")
	broken := errors.New("directory sync failed")
	syncManifestDir = func(string) error { return broken }
	err = s.Flush(ctx, 2)
	syncManifestDir = syncDir
	if !errors.Is(err, broken) || !errors.Is(err, messages.ErrUnavailable) {
		t.Fatalf("Flush with the directory sync failing: %v", err)
	}
	if cp := s.Checkpoint(); cp != 2 {
		t.Errorf("checkpoint %d after the unsynced flush, want 2", cp)
	}
	s.Close() // as a crash before the flush is retried
	if s, err = Open(dir, Options{MergeFactor: -1}); err != nil {
		t.Fatalf("Open after the failed sync: %v", err)
	}
	for _, id := range []string{"x", "y"} {
		if _, err := s.Get(ctx, "u_0", id); err != nil {
			t.Errorf("%s after reopening: %v", id, err)
		}
	}
	if cp := s.Checkpoint(); cp != 2 {
		t.Errorf("checkpoint %d, want 2", cp)
	}
}
