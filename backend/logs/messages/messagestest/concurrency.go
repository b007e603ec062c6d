package messagestest

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/loggate/loggate/backend/logs/messages"
)

// testConcurrent writes, flushes and searches at once; run it with -race.
func testConcurrent(t *testing.T, f Factory) {
	h := open(t, f)
	const writers, batches, batch = 3, 20, 10
	var wg sync.WaitGroup
	errs := make(chan error, writers+2)
	for w := range writers {
		wg.Go(func() {
			for b := range batches {
				var msgs []messages.Message
				for i := range batch {
					msgs = append(msgs, msg(fmt.Sprintf("w%d-%d-%d", w, b, i), float64(b), []string{"s1"},
						"source", fmt.Sprint("host-", w), "n", int64(i)))
				}
				if err := h.s.Write(context.Background(), "cc", msgs); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	stop := make(chan struct{})
	var readers sync.WaitGroup
	readers.Go(func() {
		for cp := uint64(1); ; cp++ {
			select {
			case <-stop:
				return
			default:
			}
			if err := h.s.Flush(context.Background(), cp); err != nil {
				errs <- err
				return
			}
		}
	})
	readers.Go(func() {
		last := int64(0)
		for {
			select {
			case <-stop:
				return
			default:
			}
			r, err := h.s.Search(context.Background(), messages.Query{Query: parse(t, "n:[0 TO *]"), Limit: 20})
			if err != nil {
				errs <- err
				return
			}
			if r.Total < last {
				errs <- fmt.Errorf("total went down from %d to %d", last, r.Total)
				return
			}
			last = r.Total
		}
	})
	wg.Wait()
	close(stop)
	readers.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	r := h.search(messages.Query{Limit: 0})
	if r.Total != writers*batches*batch {
		t.Errorf("Total = %d, want %d", r.Total, writers*batches*batch)
	}
	h.wantIDs("one writer's batch", messages.Query{Query: parse(t, "source:host-1 AND n:3")},
		func() []string {
			var out []string
			for b := range batches {
				out = append(out, fmt.Sprintf("w1-%d-3", b))
			}
			return out
		}()...)
}

// testCanceled checks that every method refuses a cancelled context and
// that a refused Write changes nothing.
func testCanceled(t *testing.T, f Factory) {
	h := open(t, f)
	h.write("ca", corpus[0])
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	tests := []struct {
		name string
		call func() error
	}{
		{"Write", func() error { return h.s.Write(ctx, "ca", corpus[1:2]) }},
		{"Flush", func() error { return h.s.Flush(ctx, 1) }},
		{"Search", func() error { _, err := h.s.Search(ctx, messages.Query{}); return err }},
		{"Get", func() error { _, err := h.s.Get(ctx, "ca_0", "m1"); return err }},
		{"Indices", func() error { _, err := h.s.Indices(ctx, "ca"); return err }},
		{"Rotate", func() error { _, err := h.s.Rotate(ctx, "ca"); return err }},
		{"Delete", func() error { return h.s.Delete(ctx, "ca_0") }},
	}
	for _, tt := range tests {
		wantErr(t, tt.name, tt.call(), context.Canceled)
	}
	h.wantIDs("nothing written", messages.Query{}, "m1")
	if got := names(h.indices("ca")); len(got) != 1 {
		t.Errorf("Indices = %v, want only ca_0", got)
	}
	if cp := h.s.Checkpoint(); cp != 0 {
		t.Errorf("Checkpoint = %d, want 0", cp)
	}
}
