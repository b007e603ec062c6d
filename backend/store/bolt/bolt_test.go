package bolt_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	berrors "go.etcd.io/bbolt/errors"

	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/backend/store/bolt"
	"github.com/loggate/loggate/backend/store/storetest"
)

// mustOpen opens a store in a new directory, closed when the test ends.
func mustOpen(tb testing.TB, indexes []store.Index) *bolt.Store {
	tb.Helper()
	return mustOpenPath(tb, filepath.Join(tb.TempDir(), "loggate.db"), indexes)
}

func mustOpenPath(tb testing.TB, path string, indexes []store.Index) *bolt.Store {
	tb.Helper()
	s, err := bolt.Open(path, indexes)
	if err != nil {
		tb.Fatalf("Open: %v", err)
	}
	tb.Cleanup(func() { _ = s.Close() })
	return s
}

func TestContract(t *testing.T) {
	storetest.Run(t, storetest.Factory{
		Open: func(t *testing.T, indexes []store.Index) store.Store {
			t.Helper()
			s, err := bolt.Open(filepath.Join(t.TempDir(), "loggate.db"), indexes)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			return s
		},
		Reopen: func(t *testing.T, s store.Store, indexes []store.Index) store.Store {
			t.Helper()
			path := s.(*bolt.Store).Path()
			if err := s.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			s, err := bolt.Open(path, indexes)
			if err != nil {
				t.Fatalf("reopen: %v", err)
			}
			return s
		},
	})
}

func TestOpenLocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "loggate.db")
	first := mustOpenPath(t, path, nil)

	// bbolt locks with flock, which also excludes a second open in the
	// same process.
	_, err := bolt.OpenTimeout(path, nil, 50*time.Millisecond)
	if err == nil {
		t.Fatal("second Open of a locked file succeeded")
	}
	if !errors.Is(err, berrors.ErrTimeout) {
		t.Errorf("error %v, want it to wrap bbolt's ErrTimeout", err)
	}
	for _, want := range []string{path, "another loggate may be running"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}

	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	second, err := bolt.OpenTimeout(path, nil, 50*time.Millisecond)
	if err != nil {
		t.Fatalf("Open after the first store closed: %v", err)
	}
	_ = second.Close()
}

func TestFileModeAndSize(t *testing.T) {
	s := mustOpen(t, nil)
	path := s.Path()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if mode := fi.Mode().Perm(); mode != 0o600 {
		t.Errorf("file mode %o, want 600", mode)
	}
	before, err := s.Size()
	if err != nil || before != fi.Size() {
		t.Fatalf("Size = %d, %v; want %d", before, err, fi.Size())
	}
	big := fmt.Appendf(nil, `{"blob":%q}`, strings.Repeat("x", 1<<20))
	if err := s.Insert(t.Context(), "blobs", "b", big); err != nil {
		t.Fatal(err)
	}
	after, err := s.Size()
	if err != nil || after < before+int64(len(big)) {
		t.Errorf("Size after a %d-byte insert = %d, %v; was %d", len(big), after, err, before)
	}
}

// TestClosed checks that a request racing shutdown gets ErrUnavailable.
func TestClosed(t *testing.T) {
	s := mustOpen(t, nil)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	_, err := s.Get(t.Context(), "c", "a")
	if !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("Get after Close: %v, want ErrUnavailable", err)
	}
	err = s.Put(t.Context(), "c", "a", []byte(`{}`))
	if !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("Put after Close: %v, want ErrUnavailable", err)
	}
}

func TestInvalidWrites(t *testing.T) {
	s := mustOpen(t, nil)
	if err := s.Insert(t.Context(), "c", "a", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		write func() error
	}{
		{"Insert, empty collection", func() error { return s.Insert(t.Context(), "", "b", []byte(`{}`)) }},
		{"Insert, empty id", func() error { return s.Insert(t.Context(), "c", "", []byte(`{}`)) }},
		{"Insert, empty document", func() error { return s.Insert(t.Context(), "c", "b", nil) }},
		{"Put, collection with a slash", func() error { return s.Put(t.Context(), "c/d", "b", []byte(`{}`)) }},
		{"Put, empty document", func() error { return s.Put(t.Context(), "c", "a", []byte{}) }},
		{"Update to an empty document", func() error {
			return s.Update(t.Context(), "c", "a", func([]byte) ([]byte, error) { return nil, nil })
		}},
	}
	for _, tt := range tests {
		if err := tt.write(); err == nil {
			t.Errorf("%s: no error", tt.name)
		}
	}
	if n, err := s.Count(t.Context(), "c"); n != 1 || err != nil {
		t.Errorf("Count = %d, %v; want 1", n, err)
	}
	if doc, err := s.Get(t.Context(), "c", "a"); string(doc) != `{}` || err != nil {
		t.Errorf("Get = %s, %v; want {}", doc, err)
	}
}

func TestOpenInvalidIndex(t *testing.T) {
	for _, idx := range []store.Index{{Collection: "", Field: "f"}, {Collection: "c/d", Field: "f"}, {Collection: "c", Field: ""}} {
		s, err := bolt.Open(filepath.Join(t.TempDir(), "loggate.db"), []store.Index{idx})
		if err == nil {
			_ = s.Close()
			t.Errorf("Open with index %+v: no error", idx)
		}
	}
}

func TestIndexedValues(t *testing.T) {
	idx := []store.Index{{Collection: "c", Field: "name"}, {Collection: "c", Field: "a.b"}}
	tests := []struct {
		name string
		docs []string // all must be accepted together
		find string   // field whose value "x" must belong to the first doc
	}{
		{"non-string values are not indexed", []string{`{"name":1}`, `{"name":1}`, `{"name":true}`, `{"name":{"x":1}}`}, ""},
		{"escaped string", []string{`{"name":"\u0078"}`}, "name"},
		{"dotted field is a top-level key", []string{`{"a.b":"x"}`, `{"a":{"b":"x"}}`, `{"a":{"b":"x"}}`}, "a.b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustOpen(t, idx)
			for i, doc := range tt.docs {
				if err := s.Insert(t.Context(), "c", fmt.Sprint(i), []byte(doc)); err != nil {
					t.Fatalf("Insert %s: %v", doc, err)
				}
			}
			if tt.find == "" {
				return
			}
			id, _, err := s.FindUnique(t.Context(), "c", tt.find, "x")
			if err != nil || id != "0" {
				t.Errorf("FindUnique(%s, x) = %q, %v; want 0", tt.find, id, err)
			}
		})
	}
}

func TestFindUniqueUndeclared(t *testing.T) {
	s := mustOpen(t, []store.Index{{Collection: "c", Field: "name"}})
	_, _, err := s.FindUnique(t.Context(), "c", "other", "x")
	if err == nil || errors.Is(err, store.ErrNotFound) {
		t.Errorf("FindUnique on an undeclared field: %v, want an error other than ErrNotFound", err)
	}
}

// TestIndexRedeclared checks that an index dropped from the declarations and
// declared again reflects the writes made meanwhile.
func TestIndexRedeclared(t *testing.T) {
	path := filepath.Join(t.TempDir(), "loggate.db")
	idx := []store.Index{{Collection: "c", Field: "name"}}
	reopen := func(s *bolt.Store, indexes []store.Index) (*bolt.Store, error) {
		t.Helper()
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		return bolt.Open(path, indexes)
	}
	s := mustOpenPath(t, path, idx)
	if err := s.Insert(t.Context(), "c", "1", []byte(`{"name":"alice"}`)); err != nil {
		t.Fatal(err)
	}
	s, err := reopen(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Put(t.Context(), "c", "1", []byte(`{"name":"bob"}`)); err != nil {
		t.Fatal(err)
	}
	if err := s.Insert(t.Context(), "c", "2", []byte(`{"name":"alice"}`)); err != nil {
		t.Fatalf("Insert of a value only an undeclared index holds: %v", err)
	}
	s, err = reopen(s, idx)
	if err != nil {
		t.Fatal(err)
	}
	for value, want := range map[string]string{"alice": "2", "bob": "1"} {
		if id, _, err := s.FindUnique(t.Context(), "c", "name", value); id != want || err != nil {
			t.Errorf("FindUnique(%s) = %q, %v; want %q", value, id, err, want)
		}
	}

	// Values duplicated while the index was not declared prevent the build.
	s, err = reopen(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Put(t.Context(), "c", "1", []byte(`{"name":"alice"}`)); err != nil {
		t.Fatal(err)
	}
	s, err = reopen(s, idx)
	if !errors.Is(err, store.ErrConflict) || !strings.Contains(err.Error(), `"alice"`) {
		t.Errorf("Open with an index over duplicate values: %v, want ErrConflict naming the value", err)
	}
	if err == nil {
		_ = s.Close()
	}
}

// TestListBatches checks List across several read transactions.
func TestListBatches(t *testing.T) {
	s := mustOpen(t, nil)
	n := 2*bolt.ListBatch + 1
	ids, docs := make([]string, n), make([][]byte, n)
	for i := range n {
		ids[i] = fmt.Sprintf("%05d", i)
		docs[i] = fmt.Appendf(nil, `{"i":%d}`, i)
	}
	if err := s.InsertMany("c", ids, docs); err != nil {
		t.Fatal(err)
	}
	i := 0
	err := s.List(t.Context(), "c", func(id string, doc []byte) error {
		if i < n && (id != ids[i] || string(doc) != string(docs[i])) {
			t.Errorf("List item %d = %s %s, want %s %s", i, id, doc, ids[i], docs[i])
		}
		i++
		return nil
	})
	if err != nil || i != n {
		t.Errorf("List: %d documents, %v; want %d", i, err, n)
	}
}

// TestLongUniqueValue checks that a unique value longer than bbolt's key
// limit (32 KiB; a role name is as long as its request body allows) is
// indexed like any other, as MongoDB indexes it, rather than failing every
// write of the document.
func TestLongUniqueValue(t *testing.T) {
	s := mustOpen(t, []store.Index{{Collection: "c", Field: "name"}})
	long := strings.Repeat("n", 40000)
	doc := fmt.Appendf(nil, `{"name":%q}`, long)
	if err := s.Insert(t.Context(), "c", "1", doc); err != nil {
		t.Fatalf("Insert with a %d-byte unique value: %v", len(long), err)
	}
	if id, got, err := s.FindUnique(t.Context(), "c", "name", long); id != "1" || string(got) != string(doc) || err != nil {
		t.Errorf("FindUnique of the long value = %q, %v; want 1", id, err)
	}
	if err := s.Insert(t.Context(), "c", "2", doc); !errors.Is(err, store.ErrConflict) {
		t.Errorf("Insert of a taken long value: %v, want ErrConflict", err)
	}
	other := long[:len(long)-1] + "m"
	if _, _, err := s.FindUnique(t.Context(), "c", "name", other); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("FindUnique of another long value: %v, want ErrNotFound", err)
	}
	if err := s.Put(t.Context(), "c", "2", fmt.Appendf(nil, `{"name":%q}`, other)); err != nil {
		t.Fatalf("Put of another long value: %v", err)
	}
	if err := s.Delete(t.Context(), "c", "1"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.FindUnique(t.Context(), "c", "name", long); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("FindUnique after Delete: %v, want ErrNotFound", err)
	}
	if err := s.Insert(t.Context(), "c", "3", doc); err != nil {
		t.Errorf("Insert of a freed long value: %v", err)
	}
}
