package ingest

import (
	"bufio"
	"context"
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/loggate/loggate/backend/logs/gelf"
	"github.com/loggate/loggate/backend/logs/inputs"
	"github.com/loggate/loggate/backend/logs/messages"
)

func TestJavaHostAddress(t *testing.T) {
	tests := []struct{ in, want string }{
		{"127.0.0.1", "127.0.0.1"},
		{"::ffff:10.1.2.3", "10.1.2.3"},
		{"::1", "0:0:0:0:0:0:0:1"},
		{"2001:db8::ff00:42:8329", "2001:db8:0:0:0:ff00:42:8329"},
		{"fe80::1%eth0", "fe80:0:0:0:0:0:0:1%eth0"},
	}
	for _, tt := range tests {
		if got := javaHostAddress(netip.MustParseAddr(tt.in)); got != tt.want {
			t.Errorf("javaHostAddress(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestFrameReady(t *testing.T) {
	tests := []struct {
		buffered string
		max      int
		want     bool
		rest     string // what stays buffered
	}{
		{"", 10, false, ""},
		{"abc", 10, false, "abc"},
		{"abc\x00", 10, true, "abc\x00"},
		{"\x00\x00abc\x00de", 10, true, "abc\x00de"},
		{"\x00\x00", 10, false, ""},
		{"abcdefghijkl\x00", 10, false, "abcdefghijkl\x00"}, // oversized: the Framer would read on
	}
	for _, tt := range tests {
		br := bufio.NewReaderSize(strings.NewReader(tt.buffered), 64)
		br.Peek(len(tt.buffered))
		if got := frameReady(br, tt.max); got != tt.want {
			t.Errorf("frameReady(%q) = %v, want %v", tt.buffered, got, tt.want)
		}
		rest, _ := br.Peek(br.Buffered())
		if string(rest) != tt.rest {
			t.Errorf("frameReady(%q) left %q, want %q", tt.buffered, rest, tt.rest)
		}
	}
}

func TestULIDsMonotonic(t *testing.T) {
	u := newULIDs()
	now := time.Date(2021, 1, 1, 0, 0, 0, 0, time.UTC)
	prev := ""
	// The same millisecond, then a clock step back: ids still increase.
	for i := range 1000 {
		at := now
		if i >= 500 {
			at = now.Add(-time.Hour)
		}
		id := u.next(at).String()
		if id <= prev {
			t.Fatalf("id %d %s is not above %s", i, id, prev)
		}
		prev = id
	}
}

// TestPutUUID writes a version 1 UUID in the text form of UUID.String,
// as the _id of every message.
func TestPutUUID(t *testing.T) {
	var text [36]byte
	seen := map[string]bool{}
	for range 100 {
		s := string(putUUID(&text))
		u, err := uuid.Parse(s)
		if err != nil || u.String() != s || u.Version() != 1 || seen[s] {
			t.Fatalf("%q: %v (version %d, seen %v)", s, err, u.Version(), seen[s])
		}
		seen[s] = true
	}
}

// discardJournal accepts everything, for benchmarks of the encoding alone.
type discardJournal struct{}

func (discardJournal) Append(context.Context, ...[]byte) (uint64, uint64, error) { return 0, 0, nil }
func (discardJournal) WaitNotFull(context.Context, int) error                    { return nil }

type nopStates struct{}

func (nopStates) Set(string, string, string) {}
func (nopStates) Forget(string)              {}

// tcpEncoder is a GELF TCP input's instance on a journal that discards,
// its encoder and a sender.
func tcpEncoder(tb testing.TB) (*instance, encoder, remote) {
	tb.Helper()
	r := NewRunner(discardJournal{}, nopStates{}, Options{NodeID: "node"})
	in := inputs.Input{ID: "in", Type: inputs.GELFTCPType}
	cfg, err := parseConfig(in)
	if err != nil {
		tb.Fatal(err)
	}
	inst := r.newInstance(in, cfg, r.opts.Logger)
	return inst, encoder{inst: inst}, newRemote(netip.MustParseAddrPort("10.0.0.1:40000"))
}

// TestDecodeEncodeAllocations: an input turns a GELF payload into its
// journal record without allocating: the text is not copied, values are
// not boxed, the ids are written in place. Every message of every input
// takes this path.
func TestDecodeEncodeAllocations(t *testing.T) {
	inst, enc, rem := tcpEncoder(t)
	payload := []byte(`{"version":"1.1","host":"app-1","short_message":"GET \"/a\" 200","timestamp":1600000000.123,"level":6,"_user_id":42,"_took":12.5,"_gl2_remote_ip":"forged"}`)
	var dec gelf.Decoder
	var bt batch
	add := func() {
		gm, err := dec.Decode(payload, inst.gelf)
		if err != nil {
			t.Fatal(err)
		}
		if bt.len() == 64 {
			bt.reset()
		}
		bt.add(&enc, gm, rem)
	}
	add()
	var m messages.Message
	if err := m.UnmarshalBinary(bt.records()[0]); err != nil {
		t.Fatal(err)
	}
	if v, _ := m.Get("message"); v != `GET "/a" 200` || len(m.Fields) != 10 {
		t.Fatalf("record %+v", m)
	}
	if v, _ := m.Get(messages.FieldRemoteIP); v != "10.0.0.1" {
		t.Fatalf("gl2_remote_ip %v", v)
	}
	bt.reset()
	if n := testing.AllocsPerRun(200, add); n > 0 {
		t.Errorf("%.2f allocations per message", n)
	}
}

// BenchmarkDecodeEncode is the per-message CPU cost of an input without the
// sockets and the journal: GELF decoding, the added fields, the record.
func BenchmarkDecodeEncode(b *testing.B) {
	inst, enc, rem := tcpEncoder(b)
	payload := fmt.Appendf(nil, `{"version":"1.1","host":"app-server-17.example.org","short_message":"GET /api/orders/1 200 12ms","full_message":"request completed","timestamp":1600000000.123,"level":6,"facility":"http","_request_id":"9f8e7d6c-00000001","_user_id":42,"_path":"/api/orders","_status":200,"_duration_ms":12.5,"_env":"production"}`)
	var bt batch
	var dec gelf.Decoder
	b.ReportAllocs()
	b.SetBytes(int64(len(payload)))
	for i := 0; b.Loop(); i++ {
		gm, err := dec.Decode(payload, inst.gelf)
		if err != nil {
			b.Fatal(err)
		}
		bt.add(&enc, gm, rem)
		if bt.len() == 512 {
			bt.reset()
		}
	}
	var m messages.Message
	if err := m.UnmarshalBinary(bt.records()[0]); err != nil && bt.len() > 0 {
		b.Fatal(err)
	}
}
