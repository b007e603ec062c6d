package forward

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/system/metrics"
)

// MetricPrefix starts the names of a forwarder's metrics, which continue
// with the output id and one of .sent, .dropped, .lost, .invalid,
// .failures, .reconnects (counters) and .queue (a gauge).
const MetricPrefix = "org.graylog2.outputs.GelfOutput."

// DefaultFlushTimeout bounds Close when Options.FlushTimeout is zero.
const DefaultFlushTimeout = 5 * time.Second

// flushEvery bounds the messages buffered for a TCP connection before a
// flush, so that a steady stream still reaches the peer (and the sent
// counter) promptly.
const flushEvery = 256

// errPeerClosed is the failure of a connection the destination closed.
var errPeerClosed = errors.New("connection closed by the destination")

// Options are a Forwarder's dependencies.
type Options struct {
	// ID is the output's id. It names the metrics and is in log lines.
	ID string
	// Metrics registers the forwarder's metrics; nil keeps them private
	// (Stats still reports them).
	Metrics *metrics.Registry
	// Logger reports connection failures and recoveries; nil discards.
	Logger *slog.Logger
	// FlushTimeout bounds how long Close waits for queued messages to be
	// written; DefaultFlushTimeout when zero.
	FlushTimeout time.Duration
}

// Stats are a forwarder's counters.
type Stats struct {
	// Queued is how many messages wait for the connection now.
	Queued int
	// Sent counts messages written to the destination (for TCP: flushed
	// to the socket).
	Sent int64
	// Dropped counts messages refused because the queue was full or the
	// forwarder closed, and those still queued when Close gave up.
	Dropped int64
	// Lost counts messages taken from the queue whose write failed: they
	// are not sent again.
	Lost int64
	// Invalid counts messages that cannot be sent as GELF (ErrInvalid),
	// or over UDP are too large even in 128 chunks.
	Invalid int64
	// Failures counts failed connects and broken connections.
	Failures int64
	// Reconnects counts connections opened after a failure.
	Reconnects int64
	// Connected reports whether a connection is open now.
	Connected bool
}

// Forwarder sends messages to one GELF output's destination. Send may be
// called from any goroutine.
type Forwarder struct {
	cfg          Config
	id           string
	log          *slog.Logger
	dialer       *dialer
	flushTimeout time.Duration

	queue chan *frame
	// quit asks the sender to write out the queue and stop; ctx, cancelled
	// when Close stops waiting, makes it stop at once.
	quit      chan struct{}
	done      chan struct{}
	ctx       context.Context
	abort     context.CancelFunc
	closing   atomic.Bool
	closeOnce sync.Once
	connected atomic.Bool

	sent, dropped, lost, invalid, failures, reconnects *metrics.Counter
}

// frame is a pooled buffer holding one encoded message.
type frame struct{ b []byte }

var frames = sync.Pool{New: func() any { return &frame{b: make([]byte, 0, 1024)} }}

// maxPooledFrame keeps the rare huge message from pinning its buffer.
const maxPooledFrame = 64 << 10

func putFrame(fr *frame) {
	if cap(fr.b) > maxPooledFrame {
		return
	}
	fr.b = fr.b[:0]
	frames.Put(fr)
}

// New starts a forwarder for cfg: it returns at once and connects in the
// background. The error wraps ErrConfig for a configuration that cannot
// work (no hostname, an unreadable trust chain).
func New(cfg Config, opts Options) (*Forwarder, error) {
	switch {
	case cfg.Hostname == "":
		return nil, fmt.Errorf("%w: hostname: is required", ErrConfig)
	case cfg.Port < 1 || cfg.Port > 65535:
		return nil, fmt.Errorf("%w: port: must be between 1 and 65535, got %d", ErrConfig, cfg.Port)
	case cfg.Protocol != TCP && cfg.Protocol != TLS && cfg.Protocol != UDP:
		return nil, fmt.Errorf("%w: protocol: must be TCP, TCP+TLS or UDP, got %q", ErrConfig, cfg.Protocol)
	case cfg.QueueSize < 0 || cfg.QueueSize > MaxQueueSize:
		return nil, fmt.Errorf("%w: queue_size: must be between 1 and %d, got %d", ErrConfig, MaxQueueSize, cfg.QueueSize)
	}
	if cfg.QueueSize == 0 {
		cfg.QueueSize = DefaultQueueSize
	}
	d, err := newDialer(cfg)
	if err != nil {
		return nil, err
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	f := &Forwarder{
		cfg:          cfg,
		id:           opts.ID,
		log:          log.With("output", opts.ID, "destination", cfg.address(), "protocol", string(cfg.Protocol)),
		dialer:       d,
		flushTimeout: opts.FlushTimeout,
		queue:        make(chan *frame, cfg.QueueSize),
		quit:         make(chan struct{}),
		done:         make(chan struct{}),
	}
	if f.flushTimeout <= 0 {
		f.flushTimeout = DefaultFlushTimeout
	}
	f.ctx, f.abort = context.WithCancel(context.Background())
	counter := func(name string) *metrics.Counter {
		if opts.Metrics == nil {
			return new(metrics.Counter)
		}
		return opts.Metrics.Counter(MetricPrefix + opts.ID + "." + name)
	}
	f.sent, f.dropped, f.lost = counter("sent"), counter("dropped"), counter("lost")
	f.invalid, f.failures, f.reconnects = counter("invalid"), counter("failures"), counter("reconnects")
	if opts.Metrics != nil {
		opts.Metrics.Gauge(MetricPrefix+opts.ID+".queue", func() any { return len(f.queue) })
	}
	go f.run()
	return f, nil
}

// Config returns the forwarder's configuration.
func (f *Forwarder) Config() Config { return f.cfg }

// Send encodes m and queues it. It never blocks: when the queue is full, or
// the forwarder is closing, the message is dropped and counted. It reports
// whether m was queued. m is not retained.
func (f *Forwarder) Send(m *messages.Message) bool {
	// A full queue is the common case of an unreachable destination: skip
	// the encoding. The check is racy; the select below decides.
	if f.closing.Load() || len(f.queue) == cap(f.queue) {
		f.dropped.Inc(1)
		return false
	}
	fr := frames.Get().(*frame)
	b, err := AppendEncode(fr.b[:0], m)
	fr.b = b
	if err != nil {
		f.invalid.Inc(1)
		putFrame(fr)
		return false
	}
	select {
	case f.queue <- fr:
		return true
	default:
		f.dropped.Inc(1)
		putFrame(fr)
		return false
	}
}

// Close stops the forwarder. Messages already queued are written if the
// destination takes them within the flush timeout; the rest are dropped
// and counted. A Send racing with Close may have its message neither sent
// nor counted. Close is idempotent.
func (f *Forwarder) Close() {
	f.closeOnce.Do(func() {
		f.closing.Store(true)
		close(f.quit)
		t := time.NewTimer(f.flushTimeout)
		defer t.Stop()
		select {
		case <-f.done:
		case <-t.C:
			f.abort()
			<-f.done
		}
		f.abort()
		for {
			select {
			case fr := <-f.queue:
				f.dropped.Inc(1)
				putFrame(fr)
			default:
				return
			}
		}
	})
}

// Stats returns the forwarder's counters.
func (f *Forwarder) Stats() Stats {
	return Stats{
		Queued:     len(f.queue),
		Sent:       f.sent.Count(),
		Dropped:    f.dropped.Count(),
		Lost:       f.lost.Count(),
		Invalid:    f.invalid.Count(),
		Failures:   f.failures.Count(),
		Reconnects: f.reconnects.Count(),
		Connected:  f.connected.Load(),
	}
}

// run is the sender goroutine: connect, write the queue, and after any
// failure wait reconnect_delay and connect again.
func (f *Forwarder) run() {
	defer close(f.done)
	quit := f.quit // nil once Close asked to stop
	failing := false
	for {
		if quit == nil && len(f.queue) == 0 {
			return
		}
		s, err := f.dialer.dial(f.ctx)
		if err == nil {
			if failing {
				f.reconnects.Inc(1)
				f.log.Info("GELF output reconnected")
				failing = false
			}
			f.connected.Store(true)
			err = f.pump(s, &quit)
			f.connected.Store(false)
			s.close()
			if err == nil {
				return
			}
		}
		if f.ctx.Err() != nil {
			return
		}
		f.failures.Inc(1)
		if !failing {
			f.log.Warn("GELF output cannot send; retrying", "error", err, "reconnect_delay", f.cfg.reconnectDelay())
		} else {
			f.log.Debug("GELF output still cannot send", "error", err)
		}
		failing = true
		if !f.pause(&quit) {
			return
		}
	}
}

// pause waits reconnect_delay. It reports false when the sender should
// stop instead: aborted, or asked to stop with nothing left to send.
func (f *Forwarder) pause(quit *chan struct{}) bool {
	if *quit == nil && len(f.queue) == 0 {
		return false
	}
	t := time.NewTimer(f.cfg.reconnectDelay())
	defer t.Stop()
	for {
		select {
		case <-t.C:
			return true
		case <-f.ctx.Done():
			return false
		case <-*quit:
			*quit = nil
			if len(f.queue) == 0 {
				return false
			}
		}
	}
}

// pump writes queued messages to s until s fails (the error), or until
// Close asked to stop and the queue is empty (nil). Messages taken from
// the queue are never put back: a failed write loses them and those
// written but not yet flushed.
func (f *Forwarder) pump(s sink, quit *chan struct{}) error {
	// A write blocked on a peer that stopped reading ends when Close gives
	// up.
	stop := context.AfterFunc(f.ctx, func() { s.close() })
	defer stop()
	var pending int64
	flush := func() error {
		if pending == 0 {
			return nil
		}
		if err := s.flush(); err != nil {
			f.lost.Inc(pending)
			pending = 0
			return err
		}
		f.sent.Inc(pending)
		pending = 0
		return nil
	}
	for {
		var fr *frame
		select {
		case fr = <-f.queue:
		default:
			if err := flush(); err != nil {
				return err
			}
			if *quit == nil {
				return nil
			}
			select {
			case fr = <-f.queue:
			case <-*quit:
				*quit = nil
				continue
			case <-s.closed():
				return errPeerClosed
			case <-f.ctx.Done():
				return f.ctx.Err()
			}
		}
		err := s.write(fr.b)
		putFrame(fr)
		switch {
		case err == nil:
			pending++
			if pending >= flushEvery {
				if err := flush(); err != nil {
					return err
				}
			}
		case errors.Is(err, errTooLarge):
			f.invalid.Inc(1)
		default:
			f.lost.Inc(pending + 1)
			return err
		}
	}
}
