package lastuse_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/loggate/loggate/backend/access/lastuse"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/backend/store/bolt"
)

func TestRecorder(t *testing.T) {
	t0 := time.Unix(1000, 0)
	written := map[string]time.Time{}
	fail := map[string]error{"gone": store.ErrNotFound, "down": errors.New("store down")}
	r := lastuse.New(func(_ context.Context, id string, at time.Time) error {
		if err := fail[id]; err != nil {
			return err
		}
		written[id] = at
		return nil
	})
	r.Touch("a", t0.Add(2*time.Second))
	r.Touch("a", t0.Add(time.Second)) // older: ignored
	r.Touch("gone", t0)
	r.Touch("down", t0)
	r.Touch("forgotten", t0)
	r.Forget("forgotten")
	if last, ok := r.Last("a"); !ok || !last.Equal(t0.Add(2*time.Second)) {
		t.Errorf("Last(a) = %v, %v", last, ok)
	}
	if err := r.Flush(context.Background()); err == nil {
		t.Error("a failed write must be reported")
	}
	if !written["a"].Equal(t0.Add(2*time.Second)) || len(written) != 1 {
		t.Errorf("written %v", written)
	}
	if _, ok := r.Last("down"); !ok {
		t.Error("a failed write must be kept for the next flush")
	}
	if _, ok := r.Last("gone"); ok {
		t.Error("the use of something deleted must be dropped")
	}
	delete(fail, "down")
	if err := r.Flush(context.Background()); err != nil || !written["down"].Equal(t0) {
		t.Errorf("retry: %v, %v", err, written)
	}
}

func TestStoreField(t *testing.T) {
	st, err := bolt.Open(filepath.Join(t.TempDir(), "db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	if err := st.Insert(ctx, "c", "x", []byte(`{"id":"x","last_access":"2020-01-01T00:00:00Z","other":1}`)); err != nil {
		t.Fatal(err)
	}
	w := lastuse.StoreField(st, "c", "last_access")
	for _, c := range []struct {
		at   time.Time
		want string
	}{
		{time.Date(2019, 1, 1, 0, 0, 0, 0, time.UTC), "2020-01-01T00:00:00Z"},       // older: kept
		{time.Date(2021, 2, 3, 4, 5, 6, 7e6, time.UTC), "2021-02-03T04:05:06.007Z"}, // newer: written
	} {
		if err := w(ctx, "x", c.at); err != nil {
			t.Fatal(err)
		}
		doc, _ := st.Get(ctx, "c", "x")
		if got := gjson.GetBytes(doc, "last_access").String(); got != c.want || gjson.GetBytes(doc, "other").Int() != 1 {
			t.Errorf("after %v: %s", c.at, doc)
		}
	}
	if err := w(ctx, "missing", time.Now()); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("missing document: %v", err)
	}
}

// A use being written stays visible until it is stored.
func TestUseVisibleWhileWritten(t *testing.T) {
	at := time.Unix(5000, 0)
	var r *lastuse.Recorder
	seen := false
	r = lastuse.New(func(_ context.Context, id string, got time.Time) error {
		last, ok := r.Last(id)
		seen = ok && last.Equal(got)
		return nil
	})
	r.Touch("s", at)
	if err := r.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !seen {
		t.Error("the use was invisible while being written")
	}
	if _, ok := r.Last("s"); ok {
		t.Error("a written use is still reported as pending")
	}
}

// TestForgetDuringFlush deletes things while their uses are being written,
// from another goroutine, as deleting a session does while the recorder's
// Run flushes: under -race, a Flush that ranges over the map Forget deletes
// from is reported. (A use may still be written just as its thing is
// forgotten: the store's update then finds the document gone, or the
// delete that follows removes it.)
func TestForgetDuringFlush(t *testing.T) {
	const n = 2000
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprint("s", i)
	}
	var (
		written int
		start   = make(chan struct{})
	)
	r := lastuse.New(func(context.Context, string, time.Time) error {
		if written++; written == 1 {
			close(start)
		}
		return nil
	})
	at := time.Unix(5000, 0)
	for _, id := range ids {
		r.Touch(id, at)
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		<-start
		for _, id := range ids {
			r.Forget(id)
		}
	})
	if err := r.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	for _, id := range ids {
		if _, ok := r.Last(id); ok {
			t.Fatalf("%s is still pending after Forget", id)
		}
	}
	if written == 0 {
		t.Error("nothing written")
	}
}
