package bolt

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/loggate/loggate/backend/store"
)

func TestStats(t *testing.T) {
	ctx := context.Background()
	s, err := Open(filepath.Join(t.TempDir(), "db"), []store.Index{{Collection: "a", Field: "name"}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	empty, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 30 {
		if err := s.Insert(ctx, "a", fmt.Sprint(i), []byte(fmt.Sprintf(`{"name":"n%d"}`, i))); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Insert(ctx, "b", "x", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	st, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Collections != 2 || st.Objects != 31 || st.Indexes != 1 {
		t.Errorf("stats = %+v; want 2 collections, 31 objects, 1 index", st)
	}
	if st.DataSize <= empty.DataSize || st.IndexSize <= empty.IndexSize || st.StorageSize < st.DataSize {
		t.Errorf("sizes did not grow sensibly: empty %+v, now %+v", empty, st)
	}
}
