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

// errClaimed aborts a claim that finds the document claimed already.
var errClaimed = errors.New("claimed already")

// testConditionalUpdate checks that Update is a compare-and-set: of
// concurrent writers that each change a document only if it is still in the
// state they read (a scheduler claiming a trigger), exactly one succeeds and
// the others get fn's error with nothing written.
func testConditionalUpdate(t *testing.T, f Factory) {
	h := open(t, f)
	h.insert(roles, "trigger", `{"owner":""}`)
	wins := make(chan int, workers)
	var wg sync.WaitGroup
	for i := range workers {
		wg.Go(func() {
			err := h.s.Update(t.Context(), roles, "trigger", func(doc []byte) ([]byte, error) {
				var tr struct{ Owner string }
				if err := json.Unmarshal(doc, &tr); err != nil {
					return nil, err
				}
				if tr.Owner != "" {
					return nil, errClaimed
				}
				return fmt.Appendf(nil, `{"owner":"w%d"}`, i), nil
			})
			switch {
			case err == nil:
				wins <- i
			case !errors.Is(err, errClaimed):
				t.Errorf("Update: %v", err)
			}
		})
	}
	wg.Wait()
	close(wins)
	var winners []int
	for w := range wins {
		winners = append(winners, w)
	}
	if len(winners) != 1 {
		t.Fatalf("%d claims succeeded, want 1", len(winners))
	}
	h.wantDoc(roles, "trigger", fmt.Sprintf(`{"owner":"w%d"}`, winners[0]))
}
