package ingest_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	gogelf "github.com/Graylog2/go-gelf/gelf"

	"github.com/loggate/loggate/backend/logs/ingest"
	"github.com/loggate/loggate/backend/logs/inputs"
	"github.com/loggate/loggate/backend/logs/journal"
)

// chunks splits payload into n GELF chunks of message id.
func chunks(id uint64, payload []byte, n int) [][]byte {
	var out [][]byte
	size := (len(payload) + n - 1) / n
	for i := range n {
		c := []byte{0x1e, 0x0f}
		c = binary.BigEndian.AppendUint64(c, id)
		c = append(c, byte(i), byte(n))
		lo, hi := min(i*size, len(payload)), min((i+1)*size, len(payload))
		out = append(out, append(c, payload[lo:hi]...))
	}
	return out
}

func send(t testing.TB, c net.Conn, datagrams ...[]byte) {
	t.Helper()
	for _, d := range datagrams {
		if _, err := c.Write(d); err != nil {
			t.Fatal(err)
		}
	}
}

func udpMessage(i int) []byte {
	return fmt.Appendf(nil, `{"host":"udp.example","short_message":"udp %d","_seq":%d}`, i, i)
}

func TestUDPDatagrams(t *testing.T) {
	big := fmt.Appendf(nil, `{"host":"udp.example","short_message":"udp 0","_seq":0,"_pad":"%s"}`, strings.Repeat("p", 5000))
	tests := []struct {
		name      string
		datagrams [][]byte
	}{
		{"plain", [][]byte{udpMessage(0)}},
		{"gzip", [][]byte{compress(t, "gzip", udpMessage(0))}},
		{"zlib", [][]byte{compress(t, "zlib", udpMessage(0))}},
		{"chunked in order", chunks(1, big, 4)},
		{"chunked out of order", reorder(chunks(2, big, 4), 3, 1, 0, 2)},
		{"chunked gzip", chunks(3, compress(t, "gzip", big), 2)},
		{"single chunk", chunks(4, udpMessage(0), 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, nil)
			c := dial(t, "udp", e.start(input("u1", inputs.GELFUDPType, nil)))
			send(t, c, tt.datagrams...)
			m := e.records(1)[0]
			checkCommon(t, m, "u1", true)
			f := fieldsOf(m)
			if f["message"] != "udp 0" || f["source"] != "udp.example" || f["seq"] != int64(0) {
				t.Errorf("fields %v", f)
			}
			if f["gl2_remote_port"] != int64(c.LocalAddr().(*net.UDPAddr).Port) {
				t.Errorf("gl2_remote_port = %v, want %d", f["gl2_remote_port"], c.LocalAddr().(*net.UDPAddr).Port)
			}
		})
	}
}

func reorder(cs [][]byte, order ...int) [][]byte {
	out := make([][]byte, 0, len(cs))
	for _, i := range order {
		out = append(out, cs[i])
	}
	return out
}

func TestUDPGoGelfClient(t *testing.T) {
	for _, ct := range []gogelf.CompressType{gogelf.CompressGzip, gogelf.CompressZlib, gogelf.CompressNone} {
		t.Run(fmt.Sprint(ct), func(t *testing.T) {
			e := newEnv(t, nil)
			w, err := gogelf.NewUDPWriter(e.start(input("u1", inputs.GELFUDPType, nil)))
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			w.CompressionType = ct
			// Random text does not compress, so the large message is
			// chunked whatever the compression.
			large := randomText(20000)
			msgs := []*gogelf.Message{
				{Version: "1.1", Host: "go-gelf", Short: "small", TimeUnix: 1600000000, Level: 6, Extra: map[string]any{"_k": "v"}},
				{Version: "1.1", Host: "go-gelf", Short: "large", Full: large, TimeUnix: 1600000000, Level: 6},
			}
			for _, m := range msgs {
				if err := w.WriteMessage(m); err != nil {
					t.Fatal(err)
				}
			}
			got := e.records(2)
			if f := fieldsOf(got[0]); f["message"] != "small" || f["k"] != "v" || f["level"] != int64(6) {
				t.Errorf("small message: %v", f)
			}
			if f := fieldsOf(got[1]); f["message"] != "large" || f["full_message"] != large {
				t.Errorf("large message: %.80v", f)
			}
			if n := e.count(inputs.GELFUDPType + ".u1.complete-messages"); n != 1 {
				t.Errorf("complete-messages = %d, want 1 (the large one was chunked)", n)
			}
		})
	}
}

func randomText(n int) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := make([]byte, n)
	x := uint32(2463534242)
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = alphabet[x%uint32(len(alphabet))]
	}
	return string(b)
}

// TestUDPChunkFailures sends a message that fails to reassemble, then a
// plain sentinel message: one reader goroutine handles datagrams in order,
// so once the sentinel is journaled the earlier datagrams were handled.
func TestUDPChunkFailures(t *testing.T) {
	payload := udpMessage(0)
	cs := chunks(9, payload, 3)
	tests := []struct {
		name     string
		run      func(e *env, c net.Conn)
		records  int // before the sentinel
		metric   string
		want     int64
		failures int64
	}{
		{"duplicate chunk", func(e *env, c net.Conn) { send(e.t, c, cs[0], cs[0], cs[1], cs[2]) }, 1, "duplicate-chunks", 1, 0},
		{"expired", func(e *env, c net.Conn) {
			sendThenWait(e, c, cs[0], cs[1])
			e.clock.Advance(6 * time.Second)
			send(e.t, c, cs[2])
		}, 1, "expired-messages", 1, 0},
		{"within the window", func(e *env, c net.Conn) {
			sendThenWait(e, c, cs[0], cs[1])
			e.clock.Advance(4 * time.Second)
			send(e.t, c, cs[2])
		}, 2, "expired-messages", 0, 0},
		{"bad chunk header", func(e *env, c net.Conn) { send(e.t, c, []byte{0x1e, 0x0f, 1, 2}) }, 0, "total-chunks", 0, 1},
		{"too many chunks", func(e *env, c net.Conn) {
			bad := append([]byte(nil), cs[0]...)
			bad[11] = 129
			send(e.t, c, bad)
		}, 0, "total-chunks", 0, 1},
		{"invalid json", func(e *env, c net.Conn) { send(e.t, c, []byte("{nope")) }, 0, "total-chunks", 0, 1},
		{"missing host", func(e *env, c net.Conn) { send(e.t, c, []byte(`{"short_message":"x"}`)) }, 0, "total-chunks", 0, 1},
		{"bad gzip", func(e *env, c net.Conn) { send(e.t, c, []byte{0x1f, 0x8b, 0, 0, 0}) }, 0, "total-chunks", 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, nil)
			c := dial(t, "udp", e.start(input("u1", inputs.GELFUDPType, nil)))
			tt.run(e, c)
			send(t, c, udpMessage(1))
			ms := e.records(tt.records + 1)
			if got := fieldsOf(ms[len(ms)-1])["seq"]; got != int64(1) {
				t.Fatalf("last record has seq %v, want the sentinel", got)
			}
			if n := e.j.End(); n != uint64(tt.records+1) {
				t.Errorf("%d records, want %d", n, tt.records+1)
			}
			prefix := inputs.GELFUDPType + ".u1."
			if got := e.count(prefix + tt.metric); got != tt.want {
				t.Errorf("%s = %d, want %d", tt.metric, got, tt.want)
			}
			if got := e.count(prefix + "failures"); got != tt.failures {
				t.Errorf("failures = %d, want %d", got, tt.failures)
			}
		})
	}
}

// sendThenWait sends datagrams and a sentinel, and waits until the
// sentinel is journaled: then the datagrams have been handled, at the
// clock's current time.
func sendThenWait(e *env, c net.Conn, datagrams ...[]byte) {
	e.t.Helper()
	send(e.t, c, datagrams...)
	n := e.j.End()
	send(e.t, c, udpMessage(5))
	e.records(int(n) + 1)
}

// TestUDPJournalFull fills the journal: a datagram then is dropped and
// counted; once space is committed, messages are journaled again.
func TestUDPJournalFull(t *testing.T) {
	logs := newLogSink()
	e := newEnv(t, func(j *journal.Options, o *ingest.Options) {
		j.MaxSize = 4096
		o.Logger = slog.New(logs)
	})
	c := dial(t, "udp", e.start(input("u1", inputs.GELFUDPType, nil)))
	filler := make([]byte, 200)
	for i := 0; ; i++ {
		_, _, err := e.j.Append(context.Background(), filler)
		if errors.Is(err, journal.ErrFull) {
			break
		}
		if err != nil || i > 100 {
			t.Fatalf("filling the journal: %v after %d records", err, i)
		}
	}
	filled := e.j.End()
	send(t, c, udpMessage(0))
	// The sentinel below needs room: make it only once the drop is logged.
	logs.wait(t, "journal refuses messages")
	if err := e.j.Commit(filled - 1); err != nil {
		t.Fatal(err)
	}
	send(t, c, udpMessage(1))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := e.j.Wait(ctx, filled); err != nil {
		t.Fatal(err)
	}
	ents, err := e.j.Read(filled, 10)
	if err != nil || len(ents) != 1 {
		t.Fatalf("after the commit: %d records, %v; want the sentinel only", len(ents), err)
	}
	if got := e.count(inputs.GELFUDPType + ".u1.rejectedMessages"); got != 1 {
		t.Errorf("rejectedMessages = %d, want 1", got)
	}
}

// TestUDPStopDropsPendingChunks: stopping or deleting a UDP input frees
// the chunks of its incomplete messages. Its metrics gauges keep its
// chunk reassembly reachable, so without this up to MaxChunkedBytes
// (64 MiB) that any sender put there stayed in memory for good once the
// input was deleted (no expiry runs for a stopped input).
func TestUDPStopDropsPendingChunks(t *testing.T) {
	for _, how := range []string{"stop", "delete"} {
		t.Run(how, func(t *testing.T) {
			e := newEnv(t, nil)
			in := input("u1", inputs.GELFUDPType, nil)
			c := dial(t, "udp", e.start(in))
			var firsts [][]byte
			for id := range uint64(10) {
				firsts = append(firsts, chunks(100+id, []byte(strings.Repeat("x", 3000)), 3)[0])
			}
			sendThenWait(e, c, firsts...)
			waiting := inputs.GELFUDPType + ".u1.waiting-messages"
			if got := e.count(waiting); got != 10 {
				t.Fatalf("waiting-messages = %d before the stop, want 10", got)
			}
			switch how {
			case "stop":
				if !e.runner.Stop(in.ID) {
					t.Fatal("Stop reported the input unknown")
				}
			case "delete":
				e.runner.Apply(context.Background(), nil)
				// Its metrics go too, and with them what kept the
				// chunks reachable.
				if _, ok := e.metrics.MarshalMetric(waiting); ok {
					t.Errorf("%s is still registered after the delete", waiting)
				}
				return
			}
			if got := e.count(waiting); got != 0 {
				t.Errorf("waiting-messages = %d after the %s, want 0: the chunks are still held", got, how)
			}
		})
	}
}
