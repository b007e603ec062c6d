package forward

import (
	"math/rand/v2"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/logs/gelf"
	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/internal/poll"
)

// udpReceiver is a GELF UDP input: it reassembles chunks and decodes.
type udpReceiver struct {
	conn     *net.UDPConn
	msgs     chan gelf.Message
	chunked  chan int // the size of every datagram that was a chunk
	finished chan struct{}
}

func listenUDP(t *testing.T) *udpReceiver {
	t.Helper()
	conn, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	if err := conn.SetReadBuffer(4 << 20); err != nil {
		t.Fatal(err)
	}
	r := &udpReceiver{conn: conn, msgs: make(chan gelf.Message, 64), chunked: make(chan int, 1024), finished: make(chan struct{})}
	chunker := gelf.NewChunker(gelf.Options{})
	go func() {
		defer close(r.finished)
		buf := make([]byte, 65536)
		for {
			n, from, err := conn.ReadFromUDPAddrPort(buf)
			if err != nil {
				return
			}
			if gelf.IsChunked(buf[:n]) {
				r.chunked <- n
			}
			payload, complete, err := chunker.Add(buf[:n], from)
			if err != nil || !complete {
				continue
			}
			if m, err := gelf.Decode(payload, gelf.Options{}); err == nil {
				r.msgs <- m
			}
		}
	}()
	t.Cleanup(func() { conn.Close(); <-r.finished })
	return r
}

func TestForwardUDP(t *testing.T) {
	rcv := listenUDP(t)
	cfg := tcpConfig(rcv.conn.LocalAddr().(*net.UDPAddr).Port)
	cfg.Protocol = UDP
	f := start(t, cfg)

	// Random text compresses poorly, so the large message needs chunks.
	rnd := rand.New(rand.NewPCG(1, 2))
	var sb strings.Builder
	for sb.Len() < 20_000 {
		sb.WriteByte(byte('a' + rnd.IntN(26)))
	}
	large := sb.String()
	for _, tc := range []struct {
		name    string
		text    string
		chunked bool
	}{
		{"one datagram", "small message", false},
		{"chunked", large, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f.Send(msg(tc.text, messages.Field{Key: "n", Value: int64(7)}))
			var got gelf.Message
			select {
			case got = <-rcv.msgs:
			case <-time.After(waitTimeout):
				t.Fatal("nothing received")
			}
			if got.Message != tc.text || got.Source != "web-01" || field(t, got, "n") != int64(7) {
				t.Errorf("got message of %d bytes from %q, fields %v", len(got.Message), got.Source, got.Fields)
			}
			chunks := 0
			for len(rcv.chunked) > 0 {
				if n := <-rcv.chunked; n > chunkHeaderLen+chunkSize {
					t.Errorf("chunk of %d bytes", n)
				}
				chunks++
			}
			if tc.chunked != (chunks > 1) {
				t.Errorf("%d chunks", chunks)
			}
		})
	}
}

func TestUDPTooLarge(t *testing.T) {
	rcv := listenUDP(t)
	cfg := tcpConfig(rcv.conn.LocalAddr().(*net.UDPAddr).Port)
	cfg.Protocol = UDP
	f := start(t, cfg)
	rnd := rand.New(rand.NewPCG(3, 4))
	b := make([]byte, 400_000) // > 128 chunks even compressed
	for i := range b {
		b[i] = byte(' ' + 1 + rnd.IntN(94))
	}
	f.Send(msg(string(b)))
	f.Send(msg("small after"))
	select {
	case got := <-rcv.msgs:
		if got.Message != "small after" {
			t.Errorf("got message of %d bytes", len(got.Message))
		}
	case <-time.After(waitTimeout):
		t.Fatal("nothing received")
	}
	poll.Until(t, "counters", func() bool { s := f.Stats(); return s.Invalid == 1 && s.Sent == 1 })
	if s := f.Stats(); s.Failures != 0 {
		t.Errorf("stats %+v: an oversized message is not a connection failure", s)
	}
}
