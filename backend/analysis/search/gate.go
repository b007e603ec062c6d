package search

import (
	"context"
	"net/http"
	"runtime"
	"strconv"
	"time"

	"github.com/loggate/loggate/router/api"
)

// Defaults of the search bound, as VictoriaLogs bounds its queries
// (-search.maxConcurrentRequests, -search.maxQueueDuration).
const (
	DefaultMaxQueueDuration = 10 * time.Second
)

// DefaultWriteStall is how long a client may leave one write of an answer
// blocked, not reading, while its search holds a place.
const DefaultWriteStall = time.Minute

// DefaultMaxConcurrent is how many searches and aggregations run at once
// by default: twice the processors, at least 4.
func DefaultMaxConcurrent() int { return max(4, 2*runtime.GOMAXPROCS(0)) }

// gate bounds how many searches, exports and aggregations run at once, so
// that what they hold (a page of messages each) bounds the memory of the
// node; a request waits for a place up to wait, then is answered 503.
type gate struct {
	slots chan struct{}
	wait  time.Duration
}

func newGate(n int, wait time.Duration) *gate {
	if n <= 0 {
		n = DefaultMaxConcurrent()
	}
	if wait <= 0 {
		wait = DefaultMaxQueueDuration
	}
	return &gate{slots: make(chan struct{}, n), wait: wait}
}

type admittedKey struct{}

// admit takes a place for the request of ctx, waiting up to the queue
// duration, and returns the context that holds it and the function that
// gives it back. A context that holds a place already (an aggregation
// inside a sync search) is admitted at once: nested work would otherwise
// wait for itself.
func (g *gate) admit(ctx context.Context) (context.Context, func(), error) {
	if ctx.Value(admittedKey{}) != nil {
		return ctx, func() {}, nil
	}
	release := func() { <-g.slots }
	select {
	case g.slots <- struct{}{}:
		return context.WithValue(ctx, admittedKey{}, true), release, nil
	default:
	}
	t := time.NewTimer(g.wait)
	defer t.Stop()
	select {
	case g.slots <- struct{}{}:
		return context.WithValue(ctx, admittedKey{}, true), release, nil
	case <-ctx.Done():
		return ctx, nil, ctx.Err()
	case <-t.C:
		retry := strconv.Itoa(int((g.wait + time.Second - 1) / time.Second))
		return ctx, nil, &api.Error{Code: api.Unavailable,
			Message: "Too many concurrent searches: " + strconv.Itoa(cap(g.slots)) + " are running and this one waited " +
				g.wait.String() + " for a place (search_max_concurrent, search_max_queue_duration); try again later.",
			Header: http.Header{"Retry-After": {retry}}}
	}
}

// admitWriting takes a place for a request that writes its answer while
// holding it, and bounds how long the client may leave one write of that
// answer blocked: a client that stops reading would otherwise keep the
// place for good, and search_max_concurrent such clients would stop every
// search of the node. A write blocked longer than the stall fails, which
// drops the connection and cancels the returned context, so that the
// search stops too. done gives the place back.
func (h *Handler) admitWriting(ctx context.Context, w http.ResponseWriter) (_ http.ResponseWriter, _ context.Context, done func(), err error) {
	ctx, release, err := h.svc.gate.admit(ctx)
	if err != nil {
		return w, ctx, nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	stall := h.svc.opts.WriteStall
	if stall <= 0 {
		stall = DefaultWriteStall
	}
	g := &stallGuard{ResponseWriter: w, rc: http.NewResponseController(w), stall: stall, cancel: cancel}
	return g, ctx, func() {
		// The connection's next answers have no deadline of ours.
		_ = g.rc.SetWriteDeadline(time.Time{})
		cancel()
		release()
	}, nil
}

// stallGuard sets a write deadline of stall before each write to the
// client, and cancels the search when a write fails.
type stallGuard struct {
	http.ResponseWriter
	rc     *http.ResponseController
	stall  time.Duration
	cancel context.CancelFunc
}

func (g *stallGuard) Write(b []byte) (int, error) {
	_ = g.rc.SetWriteDeadline(time.Now().Add(g.stall))
	n, err := g.ResponseWriter.Write(b)
	if err != nil {
		g.cancel()
	}
	return n, err
}

func (g *stallGuard) FlushError() error {
	_ = g.rc.SetWriteDeadline(time.Now().Add(g.stall))
	err := g.rc.Flush()
	if err != nil {
		g.cancel()
	}
	return err
}

func (g *stallGuard) Unwrap() http.ResponseWriter { return g.ResponseWriter }
