package forward

import (
	"crypto/tls"
	"net"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/system/metrics"
	"github.com/loggate/loggate/internal/poll"
)

func TestForwardTCP(t *testing.T) {
	rcv := listen(t, "", nil)
	f := start(t, tcpConfig(rcv.port()))
	// One connection carries every case, in order.
	for _, tc := range fieldCases {
		if !f.Send(msg(tc.name, messages.Field{Key: tc.key, Value: tc.value})) {
			t.Fatalf("%s: not queued", tc.name)
		}
	}
	for _, tc := range fieldCases {
		t.Run(tc.name, func(t *testing.T) {
			got := rcv.next()
			if got.Message != tc.name || got.Source != "web-01" {
				t.Fatalf("got message %q from %q, want %q", got.Message, got.Source, tc.name)
			}
			v, ok := got.Field(tc.wantKey)
			switch {
			case tc.want == nil && ok:
				t.Errorf("field %q received as %#v", tc.wantKey, v)
			case tc.want != nil && !reflect.DeepEqual(v, tc.want):
				t.Errorf("field %q = %#v, want %#v", tc.wantKey, v, tc.want)
			}
		})
	}
	poll.Until(t, "sent counter", func() bool { return f.Stats().Sent == int64(len(fieldCases)) })
	if s := f.Stats(); s.Dropped != 0 || s.Lost != 0 || s.Failures != 0 || !s.Connected {
		t.Errorf("stats %+v", s)
	}
}

func TestForwardTLS(t *testing.T) {
	cert, chain := selfSigned(t)
	serverTLS := &tls.Config{Certificates: []tls.Certificate{cert}}
	for _, tc := range []struct {
		name      string
		verify    bool
		chain     string
		delivered bool
	}{
		{"verified with the trust chain", true, chain, true},
		{"verification without the chain", true, "", false},
		{"verification off", false, "", true},
		{"verification off ignores the chain", false, chain, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rcv := listen(t, "", serverTLS)
			cfg := tcpConfig(rcv.port())
			cfg.Protocol, cfg.TLSVerify, cfg.TLSTrustCertChain = TLS, tc.verify, tc.chain
			f := startFlush(t, cfg, 10*time.Millisecond)
			f.Send(msg("over TLS"))
			if tc.delivered {
				if got := rcv.next(); got.Message != "over TLS" {
					t.Errorf("got %q", got.Message)
				}
				poll.Until(t, "sent", func() bool { return f.Stats().Sent == 1 })
				if s := f.Stats(); s.Failures != 0 {
					t.Errorf("stats %+v", s)
				}
				return
			}
			// Each refused handshake is a failure followed by a retry.
			poll.Until(t, "failed handshakes", func() bool { return f.Stats().Failures >= 3 })
			s := f.Stats()
			if s.Sent != 0 || s.Queued != 1 || s.Connected {
				t.Errorf("stats %+v, want the message still queued", s)
			}
			select {
			case m := <-rcv.msgs:
				t.Errorf("received %q through an unverified connection", m.Message)
			default:
			}
		})
	}
}

func TestReconnect(t *testing.T) {
	rcv := listen(t, "", nil)
	port := rcv.port()
	cfg := tcpConfig(port)
	cfg.QueueSize = 8
	f := start(t, cfg)

	f.Send(msg("before"))
	if got := rcv.next(); got.Message != "before" {
		t.Fatalf("got %q", got.Message)
	}
	rcv.stop()
	// The forwarder notices the closed connection without writing.
	poll.Until(t, "the broken connection", func() bool { s := f.Stats(); return s.Failures >= 1 && !s.Connected })

	// While the destination is down, the queue holds 8 and drops the rest.
	for i := range 20 {
		f.Send(msg("while down " + itoa(i)))
	}
	if s := f.Stats(); s.Dropped != 12 || s.Queued != 8 {
		t.Fatalf("stats while down %+v, want 8 queued and 12 dropped", s)
	}

	rcv2 := listen(t, "127.0.0.1:"+itoa(port), nil)
	for i := range 8 {
		if got := rcv2.next(); got.Message != "while down "+itoa(i) {
			t.Fatalf("message %d after reconnect: %q", i, got.Message)
		}
	}
	f.Send(msg("after"))
	if got := rcv2.next(); got.Message != "after" {
		t.Fatalf("got %q", got.Message)
	}
	poll.Until(t, "sent counter", func() bool { return f.Stats().Sent == 10 })
	s := f.Stats()
	if s.Reconnects != 1 || s.Lost != 0 || !s.Connected {
		t.Errorf("stats %+v, want one reconnect and nothing lost", s)
	}
}

func TestUnreachableNeverBlocks(t *testing.T) {
	cfg := tcpConfig(freePort(t)) // connection refused
	f := startFlush(t, cfg, 10*time.Millisecond)
	const n = 100_000
	queued := 0
	for range n {
		if f.Send(msg("nobody listens")) {
			queued++
		}
	}
	s := f.Stats()
	if queued != cfg.QueueSize || s.Queued != cfg.QueueSize || s.Dropped != n-int64(cfg.QueueSize) {
		t.Errorf("queued %d, stats %+v; want %d queued and %d dropped", queued, s, cfg.QueueSize, n-cfg.QueueSize)
	}
	poll.Until(t, "connection failures", func() bool { return f.Stats().Failures >= 2 })
	if s := f.Stats(); s.Sent != 0 || s.Connected {
		t.Errorf("stats %+v", s)
	}
}

// A destination that accepts but never reads blocks the sender's writes;
// Send must still return at once and Close within its timeout, every
// message accounted for.
func TestStuckDestination(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			accepted <- c
		}
	}()
	cfg := tcpConfig(ln.Addr().(*net.TCPAddr).Port)
	f, err := New(cfg, Options{ID: "stuck", FlushTimeout: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	conn := <-accepted
	defer conn.Close()

	// Send until the queue stays full: the sender is stuck in a write.
	// Each Send returns at once all along, or the loop would not end.
	big := msg(strings.Repeat("x", 16<<10))
	n := int64(0)
	poll.Until(t, "a full queue", func() bool {
		for range 1000 {
			f.Send(big)
			n++
		}
		return f.Stats().Queued == cfg.QueueSize
	})
	f.Close()
	s := f.Stats()
	if total := s.Sent + s.Dropped + s.Lost; total != n || s.Queued != 0 {
		t.Errorf("stats %+v: sent+dropped+lost = %d, want %d", s, total, n)
	}
	if s.Dropped == 0 {
		t.Errorf("stats %+v: nothing dropped", s)
	}
}

func TestCloseFlushesQueue(t *testing.T) {
	rcv := listen(t, "", nil)
	f := start(t, tcpConfig(rcv.port()))
	const n = 300
	for i := range n {
		f.Send(msg("m" + itoa(i)))
	}
	f.Close()
	s := f.Stats()
	if s.Sent != n || s.Dropped != 0 || s.Queued != 0 {
		t.Errorf("stats after Close %+v, want all %d sent", s, n)
	}
	for i := range n {
		if got := rcv.next(); got.Message != "m"+itoa(i) {
			t.Fatalf("message %d: %q", i, got.Message)
		}
	}
	if f.Send(msg("late")) {
		t.Error("Send after Close queued")
	}
	if got := f.Stats().Dropped; got != 1 {
		t.Errorf("dropped %d after a late Send, want 1", got)
	}
	f.Close() // idempotent
}

func TestCloseGivesUpOnUnreachable(t *testing.T) {
	f, err := New(tcpConfig(freePort(t)), Options{FlushTimeout: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		f.Send(msg("x"))
	}
	f.Close()
	if s := f.Stats(); s.Dropped != 3 || s.Queued != 0 {
		t.Errorf("stats %+v, want the 3 queued dropped", s)
	}
}

func TestInvalidCounted(t *testing.T) {
	f := startFlush(t, tcpConfig(freePort(t)), 10*time.Millisecond)
	if f.Send(&messages.Message{Fields: []messages.Field{{Key: "message", Value: "no source"}}}) {
		t.Error("message without source queued")
	}
	if s := f.Stats(); s.Invalid != 1 || s.Queued != 0 {
		t.Errorf("stats %+v", s)
	}
}

func TestMetricsRegistered(t *testing.T) {
	reg := metrics.New(time.Now)
	f, err := New(tcpConfig(freePort(t)), Options{ID: "out1", Metrics: reg, FlushTimeout: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	f.Send(msg("x"))
	f.Send(&messages.Message{})
	f.Close()
	for name, want := range map[string]int64{"dropped": 1, "invalid": 1, "sent": 0} {
		if got := reg.Counter(MetricPrefix + "out1." + name).Count(); got != want {
			t.Errorf("%s = %d, want %d", name, got, want)
		}
	}
	if _, ok := reg.MarshalMetric(MetricPrefix + "out1.queue"); !ok {
		t.Error("queue gauge not registered")
	}
}
