package ingest_test

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	gogelf "github.com/Graylog2/go-gelf/gelf"

	"github.com/loggate/loggate/backend/logs/ingest"
	"github.com/loggate/loggate/backend/logs/inputs"
	"github.com/loggate/loggate/backend/logs/journal"
	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/internal/poll"
)

func gelfJSON(i int) string {
	return fmt.Sprintf(`{"version":"1.1","host":"tcp.example","short_message":"message %d","timestamp":1600000000.5,"_seq":%d}`, i, i)
}

func TestTCPRaw(t *testing.T) {
	tests := []struct {
		name   string
		frames []string
		tail   string // written after the frames, without a NUL
		want   int
	}{
		{"one per connection, NUL terminated", []string{gelfJSON(0)}, "", 1},
		{"one per connection, no NUL", nil, gelfJSON(0), 1},
		{"many per connection", []string{gelfJSON(0), gelfJSON(1), gelfJSON(2), gelfJSON(3)}, "", 4},
		{"many, last without NUL", []string{gelfJSON(0), gelfJSON(1)}, gelfJSON(2), 3},
		{"empty frames and trailing newline", []string{"", gelfJSON(0), "", gelfJSON(1)}, "\n", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, nil)
			addr := e.start(input("t1", inputs.GELFTCPType, nil))
			c := dial(t, "tcp", addr)
			var b strings.Builder
			for _, f := range tt.frames {
				b.WriteString(f)
				b.WriteByte(0)
			}
			b.WriteString(tt.tail)
			if _, err := c.Write([]byte(b.String())); err != nil {
				t.Fatal(err)
			}
			c.(*net.TCPConn).CloseWrite()
			ms := e.records(tt.want)
			port := int64(c.LocalAddr().(*net.TCPAddr).Port)
			for i, m := range ms {
				checkCommon(t, m, "t1", true)
				f := fieldsOf(m)
				if f["message"] != fmt.Sprintf("message %d", i) || f["seq"] != int64(i) || f["source"] != "tcp.example" {
					t.Errorf("message %d: fields %v", i, f)
				}
				if f["gl2_remote_port"] != port {
					t.Errorf("gl2_remote_port = %v, want the client's %d", f["gl2_remote_port"], port)
				}
				if m.Timestamp.UnixMilli() != 1600000000500 {
					t.Errorf("timestamp %v", m.Timestamp)
				}
			}
			if got := e.count(inputs.GELFTCPType + ".t1.incomingMessages"); got != int64(tt.want) {
				t.Errorf("incomingMessages = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestTCPGoGelfClient(t *testing.T) {
	e := newEnv(t, nil)
	addr := e.start(input("t1", inputs.GELFTCPType, nil))
	w, err := gogelf.NewTCPWriter(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	const n = 25
	for i := range n {
		err := w.WriteMessage(&gogelf.Message{
			Version: "1.1", Host: "go-gelf", Short: fmt.Sprintf("short %d", i), Full: "full text",
			TimeUnix: 1600000001.25, Level: 3, Facility: "tests",
			Extra: map[string]any{"_n": i, "_tag": "x"},
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for i, m := range e.records(n) {
		checkCommon(t, m, "t1", true)
		f := fieldsOf(m)
		want := map[string]any{"message": fmt.Sprintf("short %d", i), "source": "go-gelf", "full_message": "full text",
			"level": int64(3), "facility": "tests", "n": int64(i), "tag": "x"}
		for k, v := range want {
			if f[k] != v {
				t.Errorf("message %d: %s = %#v, want %#v", i, k, f[k], v)
			}
		}
	}
}

func TestTCPBadFrames(t *testing.T) {
	e := newEnv(t, nil)
	addr := e.start(input("t1", inputs.GELFTCPType, map[string]any{"max_message_size": 200}))
	a := dial(t, "tcp", addr)
	b := dial(t, "tcp", addr)
	oversized := `{"host":"h","short_message":"` + strings.Repeat("z", 300) + `"}`
	// a: invalid JSON, a message without host, an oversized frame, then a
	// good one; the bad frames are skipped, the connection stays open.
	for _, f := range []string{"not json", `{"short_message":"no host"}`, oversized, gelfJSON(1)} {
		if _, err := a.Write(append([]byte(f), 0)); err != nil {
			t.Fatal(err)
		}
	}
	e.records(1)
	if _, err := b.Write(append([]byte(gelfJSON(2)), 0)); err != nil {
		t.Fatal(err)
	}
	e.records(2)
	if _, err := a.Write(append([]byte(gelfJSON(3)), 0)); err != nil {
		t.Fatal(err)
	}
	ms := e.records(3)
	for i, m := range ms {
		if got := fieldsOf(m)["seq"]; got != int64(i+1) {
			t.Errorf("record %d has seq %v", i, got)
		}
	}
	if got := e.count(inputs.GELFTCPType + ".t1.failures"); got != 3 {
		t.Errorf("failures = %d, want 3", got)
	}
	if got := e.count(inputs.GELFTCPType + ".t1.incomingMessages"); got != 6 {
		t.Errorf("incomingMessages = %d, want 6", got)
	}
	if got := e.count(inputs.GELFTCPType + ".t1.open_connections"); got != 2 {
		t.Errorf("open_connections = %d, want 2", got)
	}
}

// TestTCPBackPressure sends far more than the journal holds: the input stops
// reading while the journal is full and resumes as a consumer commits, and
// every message arrives once, in order.
func TestTCPBackPressure(t *testing.T) {
	e := newEnv(t, func(j *journal.Options, _ *ingest.Options) { j.MaxSize = 8 << 10 })
	addr := e.start(input("t1", inputs.GELFTCPType, nil))
	c := dial(t, "tcp", addr)
	const n = 300
	go func() {
		var b []byte
		for i := range n {
			b = append(append(b, gelfJSON(i)...), 0)
		}
		c.Write(b)
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	maxUncommitted := uint64(0)
	for off := uint64(0); off < n; off++ {
		if err := e.j.Wait(ctx, off); err != nil {
			t.Fatalf("waiting for record %d: %v", off, err)
		}
		maxUncommitted = max(maxUncommitted, e.j.End()-off)
		ents, err := e.j.Read(off, 1)
		if err != nil || len(ents) != 1 {
			t.Fatalf("Read(%d): %v %v", off, ents, err)
		}
		var m messages.Message
		if err := m.UnmarshalBinary(ents[0].Data); err != nil {
			t.Fatal(err)
		}
		if got := fieldsOf(m)["seq"]; got != int64(off) {
			t.Fatalf("record %d has seq %v", off, got)
		}
		// Commit in steps so the input sees a full journal several times.
		if off%10 == 9 || off == n-1 {
			if err := e.j.Commit(off); err != nil {
				t.Fatal(err)
			}
		}
	}
	if maxUncommitted >= n/2 {
		t.Errorf("up to %d records were uncommitted; the journal limit did not hold", maxUncommitted)
	}
	if got := e.count(inputs.GELFTCPType + ".t1.rejectedMessages"); got != 0 {
		t.Errorf("rejectedMessages = %d, want 0", got)
	}
}

func TestTCPTLS(t *testing.T) {
	e := newEnv(t, nil)
	addr := e.start(input("t1", inputs.GELFTCPType, map[string]any{"tls_enable": true}))
	c, err := tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write(append([]byte(gelfJSON(7)), 0)); err != nil {
		t.Fatal(err)
	}
	m := e.records(1)[0]
	checkCommon(t, m, "t1", true)
	if got := fieldsOf(m)["seq"]; got != int64(7) {
		t.Errorf("seq = %v", got)
	}
}

// TestTCPLongFramesTakeBudget: a frame longer than the read buffer takes
// decode budget as it is assembled, so senders that stop inside long
// frames hold no more than the budget, whatever their number; a sender
// finding no room waits (back-pressure) and goes on once there is.
func TestTCPLongFramesTakeBudget(t *testing.T) {
	e := newEnv(t, func(_ *journal.Options, o *ingest.Options) {
		o.MaxRecordSize, o.DecodeBudget = 512<<10, 1 // a budget of 1 MiB
	})
	addr := e.start(input("t1", inputs.GELFTCPType, nil))
	const inUse = "org.graylog2.inputs.decode.budget.in-use"
	// Two senders stop 450 KiB into their messages.
	var stalled []net.Conn
	for _, host := range []string{"a", "b"} {
		c := dial(t, "tcp", addr)
		fmt.Fprint(c, gelfOfSize(host, 480<<10)[:450<<10])
		stalled = append(stalled, c)
	}
	poll.Until(t, "the partial frames to take budget", func() bool { return e.count(inUse) >= 2*(384<<10) })

	// A whole 300 KiB message does not fit beside them: its sender waits,
	// and the budget is not exceeded.
	fmt.Fprint(dial(t, "tcp", addr), gelfOfSize("c", 300<<10)+"\x00")
	poll.Until(t, "the third sender to wait", func() bool { return e.count("org.graylog2.inputs.decode.budget.tcp.waits") >= 1 })
	if got := e.count(inUse); got > 1<<20 {
		t.Fatalf("%d bytes of budget in use, above its 1 MiB", got)
	}
	if got := e.j.End(); got != 0 {
		t.Fatalf("journal has %d records while the senders wait", got)
	}

	// One stalled sender goes away: its room is free, and the waiting
	// message goes in.
	stalled[1].Close()
	got := e.records(1)
	if src, _ := got[0].String("source"); len(got) != 1 || src != "c" {
		t.Fatalf("journaled a message of %q, want c", src)
	}
	poll.Until(t, "only the stalled sender's room in use", func() bool { return e.count(inUse) <= 512<<10 })
}

// TestTCPIdleSendersHoldNoReadBuffer: senders that stay connected between
// their messages hold no read buffer while they are quiet, those stopped
// inside a message only its start, and what they send next arrives whole.
// Each used to hold its connection's 64 KiB read buffer, so that quiet
// senders, however many, were a bound of their own.
func TestTCPIdleSendersHoldNoReadBuffer(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("waiting without a buffer needs Linux's socket calls")
	}
	e := newEnv(t, nil)
	addr := e.start(input("t1", inputs.GELFTCPType, nil))
	const n = 200
	before := liveBytes()
	conns := make([]net.Conn, n)
	for i := range conns {
		conns[i] = dial(t, "tcp", addr)
		fmt.Fprint(conns[i], gelfJSON(i)+"\x00")
	}
	e.records(n)
	// Half of the senders stop inside their next message.
	const cut = 40
	for i := 0; i < n; i += 2 {
		fmt.Fprint(conns[i], gelfJSON(n + i)[:cut])
	}
	// Goroutine stacks count too: a quiet connection's goroutine and
	// state come to about 12 KiB, its read buffer alone was 64 KiB.
	const bound = 16 << 10
	var perConn int64
	poll.Within(t, poll.Timeout, func() bool {
		perConn = (liveBytes() - before) / n
		return perConn < bound
	}, func() string {
		return fmt.Sprintf("quiet connections to hold less than %d bytes each; they hold %d", bound, perConn)
	})
	t.Logf("a quiet connection holds %d bytes", perConn)
	// What the stopped senders sent of their messages is in the budget.
	const inUse = "org.graylog2.inputs.decode.budget.in-use"
	if got := e.count(inUse); got != n/2*cut {
		t.Errorf("decode budget in use = %d, want the %d bytes of the stopped messages", got, n/2*cut)
	}

	for i := 0; i < n; i += 2 {
		fmt.Fprint(conns[i], gelfJSON(n + i)[cut:]+"\x00")
	}
	seen := map[int64]bool{}
	for _, m := range e.records(n + n/2)[n:] {
		seen[fieldsOf(m)["seq"].(int64)] = true
	}
	for i := 0; i < n; i += 2 {
		if !seen[int64(n+i)] {
			t.Errorf("message %d, sent around a wait, is missing", n+i)
		}
	}
	poll.Until(t, "the budget given back", func() bool { return e.count(inUse) == 0 })
}

// liveBytes is what the heap and the goroutine stacks hold after a full
// collection; twice, as pooled objects survive one.
func liveBytes() int64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc + ms.StackInuse)
}
