package ingest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/loggate/loggate/backend/system/metrics"
)

// DefaultDecodeBudget is the node-wide budget of bytes being decoded at
// once when Options.DecodeBudget is not set.
const DefaultDecodeBudget = 64 << 20

// The budget's metrics (documented in the README).
const (
	metricBudget      = "org.graylog2.inputs.decode.budget.bytes"
	metricBudgetInUse = "org.graylog2.inputs.decode.budget.in-use"
	metricHTTPRefused = "org.graylog2.inputs.decode.budget.http.refused"
	metricTCPWaits    = "org.graylog2.inputs.decode.budget.tcp.waits"
	metricUDPDropped  = "org.graylog2.inputs.decode.budget.udp.dropped"
)

var (
	// errBudget is returned while the budget has no room: the payload is
	// refused for now (HTTP 503), waited for (TCP) or dropped (UDP).
	errBudget = errors.New("the node is decoding as much as it may at once")
	// errOverBudget is returned for a payload that needs more than the
	// whole budget: it could never be decoded.
	errOverBudget = errors.New("the message needs more memory to decode than the node's decode budget")
)

// budget bounds the bytes being decoded at once by all of a node's inputs:
// request bodies, decompressed output and message text. A payload takes
// its bytes while it is decoded and gives them back once its record is
// built, so memory does not grow with the number of senders, whatever
// their payloads inflate to.
type budget struct {
	limit int64
	used  atomic.Int64

	// waiters counts the acquire calls waiting; release wakes them only
	// when there are some, so the usual path takes no lock.
	waiters atomic.Int64
	mu      sync.Mutex
	wake    chan struct{} // closed by the next release

	httpRefused *metrics.Counter
	tcpWaits    *metrics.Counter
	udpDropped  *metrics.Counter
}

func newBudget(limit int64, reg *metrics.Registry) *budget {
	b := &budget{
		limit:       limit,
		httpRefused: reg.Counter(metricHTTPRefused),
		tcpWaits:    reg.Counter(metricTCPWaits),
		udpDropped:  reg.Counter(metricUDPDropped),
	}
	reg.Gauge(metricBudget, func() any { return b.limit })
	reg.Gauge(metricBudgetInUse, func() any { return b.used.Load() })
	return b
}

// tryAcquire takes n bytes if they are free.
func (b *budget) tryAcquire(n int64) bool {
	for {
		u := b.used.Load()
		if u+n > b.limit {
			return false
		}
		if b.used.CompareAndSwap(u, u+n) {
			return true
		}
	}
}

// acquire takes n bytes, waiting until they are free. The caller holds
// none while it waits, so waiters cannot block each other for good.
func (b *budget) acquire(ctx context.Context, n int64) error {
	if n > b.limit {
		return errOverBudget
	}
	if b.tryAcquire(n) {
		return nil
	}
	b.tcpWaits.Inc(1)
	for {
		b.mu.Lock()
		b.waiters.Add(1)
		if b.wake == nil {
			b.wake = make(chan struct{})
		}
		wake := b.wake
		b.mu.Unlock()
		// Checked again once registered: a release before that did not
		// know there was anyone to wake.
		ok := b.tryAcquire(n)
		if !ok {
			select {
			case <-wake:
			case <-ctx.Done():
			}
		}
		b.waiters.Add(-1)
		switch {
		case ok:
			return nil
		case ctx.Err() != nil:
			return ctx.Err()
		case b.tryAcquire(n):
			return nil
		}
	}
}

func (b *budget) release(n int64) {
	if n == 0 {
		return
	}
	b.used.Add(-n)
	if b.waiters.Load() > 0 {
		b.mu.Lock()
		if b.wake != nil {
			close(b.wake)
			b.wake = nil
		}
		b.mu.Unlock()
	}
}

// lease is what one payload holds of the budget while it is decoded; it is
// the gelf.Budget of that decoding. Not safe for concurrent use: each
// request, connection or UDP reader has its own.
type lease struct {
	b    *budget
	held int64 // taken from the budget
	used int64 // asked for by the decoding
}

// Grow takes n more bytes without waiting.
func (l *lease) Grow(n int) error {
	l.used += int64(n)
	need := l.used - l.held
	if need <= 0 {
		return nil
	}
	if l.used > l.b.limit {
		return fmt.Errorf("%w (%d bytes)", errOverBudget, l.b.limit)
	}
	if !l.b.tryAcquire(need) {
		return errBudget
	}
	l.held += need
	return nil
}

// tryHold takes n bytes up front if they are free, for a decoding to use
// later.
func (l *lease) tryHold(n int64) bool {
	if !l.b.tryAcquire(n) {
		return false
	}
	l.held += n
	return true
}

// reserve takes n bytes up front, waiting for them: a TCP connection that
// found the budget full decodes its frame again once it holds enough for
// the worst case, so it never waits while holding part of the budget.
func (l *lease) reserve(ctx context.Context, n int64) error {
	n = min(n, l.b.limit)
	if err := l.b.acquire(ctx, n); err != nil {
		return err
	}
	l.held += n
	return nil
}

// release gives back everything the lease holds.
func (l *lease) release() {
	l.b.release(l.held)
	l.held, l.used = 0, 0
}
