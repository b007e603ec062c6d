package storetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/loggate/loggate/backend/store"
)

// Sized so that the suite stays fast on a store that fsyncs every write.
const (
	workers    = 8
	increments = 25
)

// testConcurrentUpdate checks that Update is atomic: no increment is lost.
func testConcurrentUpdate(t *testing.T, f Factory) {
	h := open(t, f)
	h.insert(roles, "counter", `{"n":0}`)
	increment := func(doc []byte) ([]byte, error) {
		var c struct{ N int }
		if err := json.Unmarshal(doc, &c); err != nil {
			return nil, err
		}
		return fmt.Appendf(nil, `{"n":%d}`, c.N+1), nil
	}
	var wg sync.WaitGroup
	errs := make(chan error, workers*increments)
	for range workers {
		wg.Go(func() {
			for range increments {
				errs <- h.s.Update(t.Context(), roles, "counter", increment)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("Update: %v", err)
		}
	}
	h.wantDoc(roles, "counter", fmt.Sprintf(`{"n":%d}`, workers*increments))
}

// testConcurrentInsert checks that of concurrent inserts claiming the same
// id, or the same unique value, exactly one wins.
func testConcurrentInsert(t *testing.T, f Factory) {
	tests := []struct {
		name string
		id   func(i int) string
		want func(h *harness, winner int)
	}{
		{"same id", func(int) string { return "u" }, func(h *harness, winner int) {
			h.wantDoc(users, "u", userDoc(winner))
			h.wantCount(users, 1)
		}},
		{"same unique value", func(i int) string { return fmt.Sprint("u", i) }, func(h *harness, winner int) {
			h.wantUnique(users, "username", "alice", fmt.Sprint("u", winner))
			h.wantCount(users, 1)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := open(t, f)
			var wg sync.WaitGroup
			errs := make([]error, workers)
			for i := range workers {
				wg.Go(func() {
					errs[i] = h.s.Insert(t.Context(), users, tt.id(i), []byte(userDoc(i)))
				})
			}
			wg.Wait()
			winner := -1
			for i, err := range errs {
				switch {
				case err == nil && winner < 0:
					winner = i
				case err == nil:
					t.Errorf("inserts %d and %d both succeeded", winner, i)
				case !errors.Is(err, store.ErrConflict):
					t.Errorf("insert %d: error %v, want ErrConflict", i, err)
				}
			}
			if winner < 0 {
				t.Fatal("no insert succeeded")
			}
			tt.want(h, winner)
		})
	}
}

// userDoc is the document inserted by worker i: all claim username alice.
func userDoc(i int) string { return fmt.Sprintf(`{"username":"alice","worker":%d}`, i) }
