package gelf_test

import (
	"encoding/binary"
	"errors"
	"net/netip"
	"runtime"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/logs/gelf"
)

var (
	sender  = netip.MustParseAddrPort("192.0.2.1:40000")
	sender2 = netip.MustParseAddrPort("192.0.2.2:40000")
)

// clock is a manual clock for the Chunker.
type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }

func chunk(id uint64, seq, count byte, data string) []byte {
	b := []byte{0x1e, 0x0f, 0, 0, 0, 0, 0, 0, 0, 0, seq, count}
	binary.BigEndian.PutUint64(b[2:10], id)
	return append(b, data...)
}

func newChunker(t *testing.T, opts gelf.Options) (*gelf.Chunker, *clock) {
	t.Helper()
	clk := &clock{t: receiveTime}
	opts.Now = clk.now
	return gelf.NewChunker(opts), clk
}

// step is one datagram fed to a Chunker and what Add must answer.
type step struct {
	datagram []byte
	from     netip.AddrPort
	advance  time.Duration // clock moves before the datagram
	payload  string
	complete bool
	invalid  bool
}

func TestChunker(t *testing.T) {
	tests := []struct {
		name  string
		opts  gelf.Options
		steps []step
		stats gelf.ChunkerStats
	}{
		{name: "not chunked passes through", steps: []step{
			{datagram: []byte(`{"a":1}`), payload: `{"a":1}`, complete: true},
		}},
		{name: "single chunk", steps: []step{
			{datagram: chunk(1, 0, 1, "whole"), payload: "whole", complete: true},
		}, stats: gelf.ChunkerStats{TotalChunks: 1, CompleteMessages: 1}},
		{name: "in order", steps: []step{
			{datagram: chunk(1, 0, 3, "a")},
			{datagram: chunk(1, 1, 3, "b")},
			{datagram: chunk(1, 2, 3, "c"), payload: "abc", complete: true},
		}, stats: gelf.ChunkerStats{TotalChunks: 3, CompleteMessages: 1}},
		{name: "out of order", steps: []step{
			{datagram: chunk(7, 2, 3, "c")},
			{datagram: chunk(7, 0, 3, "a")},
			{datagram: chunk(7, 1, 3, "b"), payload: "abc", complete: true},
		}, stats: gelf.ChunkerStats{TotalChunks: 3, CompleteMessages: 1}},
		{name: "empty last chunk", steps: []step{
			{datagram: chunk(1, 0, 2, "ab")},
			{datagram: chunk(1, 1, 2, ""), payload: "ab", complete: true},
		}, stats: gelf.ChunkerStats{TotalChunks: 2, CompleteMessages: 1}},
		{name: "duplicate counted and ignored", steps: []step{
			{datagram: chunk(1, 0, 2, "a")},
			{datagram: chunk(1, 0, 2, "X")},
			{datagram: chunk(1, 1, 2, "b"), payload: "ab", complete: true},
		}, stats: gelf.ChunkerStats{TotalChunks: 2, CompleteMessages: 1, DuplicateChunks: 1}},
		{name: "interleaved messages", steps: []step{
			{datagram: chunk(1, 0, 2, "a")},
			{datagram: chunk(2, 0, 2, "x")},
			{datagram: chunk(2, 1, 2, "y"), payload: "xy", complete: true},
			{datagram: chunk(1, 1, 2, "b"), payload: "ab", complete: true},
		}, stats: gelf.ChunkerStats{TotalChunks: 4, CompleteMessages: 2}},
		{name: "same id from two senders kept apart", steps: []step{
			{datagram: chunk(1, 0, 2, "a"), from: sender},
			{datagram: chunk(1, 1, 2, "Y"), from: sender2},
			{datagram: chunk(1, 1, 2, "b"), from: sender, payload: "ab", complete: true},
		}, stats: gelf.ChunkerStats{TotalChunks: 3, CompleteMessages: 1, WaitingMessages: 1, WaitingBytes: 1}},
		{name: "sender port may change", steps: []step{
			{datagram: chunk(1, 0, 2, "a"), from: netip.MustParseAddrPort("192.0.2.1:1")},
			{datagram: chunk(1, 1, 2, "b"), from: netip.MustParseAddrPort("[::ffff:192.0.2.1]:2"), payload: "ab", complete: true},
		}, stats: gelf.ChunkerStats{TotalChunks: 2, CompleteMessages: 1}},
		{name: "missing chunk expires", steps: []step{
			{datagram: chunk(1, 0, 3, "a")},
			{datagram: chunk(1, 1, 3, "b"), advance: 4 * time.Second},
			{datagram: chunk(1, 2, 3, "c"), advance: 1001 * time.Millisecond},
		}, stats: gelf.ChunkerStats{TotalChunks: 3, ExpiredMessages: 1, ExpiredChunks: 2, WaitingMessages: 1, WaitingBytes: 1}},
		{name: "last chunk exactly at the timeout", steps: []step{
			{datagram: chunk(1, 0, 2, "a")},
			{datagram: chunk(1, 1, 2, "b"), advance: 5 * time.Second, payload: "ab", complete: true},
		}, stats: gelf.ChunkerStats{TotalChunks: 2, CompleteMessages: 1}},
		{name: "custom timeout", opts: gelf.Options{ChunkTimeout: time.Second}, steps: []step{
			{datagram: chunk(1, 0, 2, "a")},
			{datagram: chunk(1, 1, 2, "b"), advance: 2 * time.Second},
		}, stats: gelf.ChunkerStats{TotalChunks: 2, ExpiredMessages: 1, ExpiredChunks: 1, WaitingMessages: 1, WaitingBytes: 1}},
		{name: "128 chunks", steps: append(manyChunks(9, 127), step{datagram: chunk(9, 127, 128, "z"), payload: string(make([]byte, 127)) + "z", complete: true}),
			stats: gelf.ChunkerStats{TotalChunks: 128, CompleteMessages: 1}},
		{name: "more than 128 chunks refused", steps: []step{{datagram: chunk(1, 0, 129, "a"), invalid: true}}, stats: gelf.ChunkerStats{InvalidChunks: 1}},
		{name: "zero count refused", steps: []step{{datagram: chunk(1, 0, 0, "a"), invalid: true}}, stats: gelf.ChunkerStats{InvalidChunks: 1}},
		{name: "sequence beyond count refused", steps: []step{{datagram: chunk(1, 3, 3, "a"), invalid: true}}, stats: gelf.ChunkerStats{InvalidChunks: 1}},
		{name: "short header refused", steps: []step{{datagram: []byte{0x1e, 0x0f, 1, 2, 3}, invalid: true}}, stats: gelf.ChunkerStats{InvalidChunks: 1}},
		{name: "bad magic is not a chunk", steps: []step{{datagram: []byte{0x1e, 0x0e, 1}, payload: "\x1e\x0e\x01", complete: true}}},
		{name: "inconsistent count refused", steps: []step{
			{datagram: chunk(1, 0, 2, "a")},
			{datagram: chunk(1, 1, 3, "b"), invalid: true},
		}, stats: gelf.ChunkerStats{TotalChunks: 1, InvalidChunks: 1, WaitingMessages: 1, WaitingBytes: 1}},
		{name: "oldest evicted at the message bound", opts: gelf.Options{MaxChunkedMessages: 2}, steps: []step{
			{datagram: chunk(1, 0, 2, "a")},
			{datagram: chunk(2, 0, 2, "b")},
			{datagram: chunk(3, 0, 2, "c")},
			{datagram: chunk(1, 1, 2, "a")}, // message 1 is gone: starts over
			{datagram: chunk(3, 1, 2, "c"), payload: "cc", complete: true},
		}, stats: gelf.ChunkerStats{TotalChunks: 5, CompleteMessages: 1, EvictedMessages: 2, WaitingMessages: 1, WaitingBytes: 1}},
		{name: "oldest evicted at the byte bound", opts: gelf.Options{MaxChunkedBytes: 4}, steps: []step{
			{datagram: chunk(1, 0, 2, "aa")},
			{datagram: chunk(2, 0, 2, "bb")},
			{datagram: chunk(2, 1, 2, "b"), payload: "bbb", complete: true},
		}, stats: gelf.ChunkerStats{TotalChunks: 3, CompleteMessages: 1, EvictedMessages: 1}},
		{name: "message larger than the byte bound refused", opts: gelf.Options{MaxChunkedBytes: 3}, steps: []step{
			{datagram: chunk(1, 0, 2, "aa")},
			{datagram: chunk(1, 1, 2, "bb"), invalid: true},
			{datagram: chunk(2, 0, 2, "cccc"), invalid: true},
		}, stats: gelf.ChunkerStats{TotalChunks: 1, InvalidChunks: 2, WaitingMessages: 1, WaitingBytes: 2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, clk := newChunker(t, tc.opts)
			for i, s := range tc.steps {
				clk.advance(s.advance)
				from := s.from
				if !from.IsValid() {
					from = sender
				}
				payload, complete, err := c.Add(s.datagram, from)
				if s.invalid != errors.Is(err, gelf.ErrInvalid) || (!s.invalid && err != nil) {
					t.Fatalf("step %d: err = %v, want invalid %v", i, err, s.invalid)
				}
				if complete != s.complete || string(payload) != s.payload {
					t.Fatalf("step %d: got %q, %v; want %q, %v", i, payload, complete, s.payload, s.complete)
				}
			}
			if got := c.Stats(); got != tc.stats {
				t.Errorf("stats = %+v\nwant    %+v", got, tc.stats)
			}
		})
	}
}

func manyChunks(id uint64, n int) []step {
	steps := make([]step, n)
	for i := range steps {
		steps[i] = step{datagram: chunk(id, byte(i), 128, "\x00")}
	}
	return steps
}

func TestChunkerExpireTicker(t *testing.T) {
	c, clk := newChunker(t, gelf.Options{})
	for id := range uint64(3) {
		if _, _, err := c.Add(chunk(id, 0, 2, "x"), sender); err != nil {
			t.Fatal(err)
		}
		clk.advance(2 * time.Second)
	}
	// First chunks at 0 s, 2 s and 4 s; now is 6 s.
	if n := c.Expire(clk.now()); n != 1 {
		t.Errorf("Expire at 6s dropped %d, want 1", n)
	}
	if n := c.Expire(clk.now().Add(10 * time.Second)); n != 2 {
		t.Errorf("Expire at 16s dropped %d, want 2", n)
	}
	want := gelf.ChunkerStats{TotalChunks: 3, ExpiredMessages: 3, ExpiredChunks: 3}
	if got := c.Stats(); got != want {
		t.Errorf("stats = %+v, want %+v", got, want)
	}
}

func TestChunkerCopiesDatagram(t *testing.T) {
	c, _ := newChunker(t, gelf.Options{})
	buf := chunk(1, 0, 2, "ab")
	if _, _, err := c.Add(buf, sender); err != nil {
		t.Fatal(err)
	}
	copy(buf[12:], "zz") // the UDP reader reuses its buffer
	payload, complete, err := c.Add(chunk(1, 1, 2, "c"), sender)
	if err != nil || !complete || string(payload) != "abc" {
		t.Fatalf("got %q, %v, %v; want abc", payload, complete, err)
	}
}

func TestChunkerQueueCompaction(t *testing.T) {
	// Many completed messages must not grow the expiry queue without bound.
	c, clk := newChunker(t, gelf.Options{MaxChunkedMessages: 8})
	for id := range uint64(10000) {
		if _, _, err := c.Add(chunk(id, 0, 2, "a"), sender); err != nil {
			t.Fatal(err)
		}
		if _, done, err := c.Add(chunk(id, 1, 2, "b"), sender); err != nil || !done {
			t.Fatalf("message %d: done %v, err %v", id, done, err)
		}
		clk.advance(time.Millisecond)
	}
	if s := c.Stats(); s.CompleteMessages != 10000 || s.WaitingMessages != 0 || s.WaitingBytes != 0 {
		t.Errorf("stats = %+v", s)
	}
}

func TestChunkerConcurrent(t *testing.T) {
	c := gelf.NewChunker(gelf.Options{})
	const senders, messages = 4, 200
	done := make(chan int, senders)
	for s := range senders {
		go func() {
			from := netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 0, 0, byte(s)}), 1)
			n := 0
			for id := range uint64(messages) {
				for seq := range byte(3) {
					if _, complete, err := c.Add(chunk(id, 2-seq, 3, "x"), from); err != nil {
						t.Error(err)
					} else if complete {
						n++
					}
				}
			}
			done <- n
		}()
	}
	total := 0
	for range senders {
		total += <-done
	}
	if total != senders*messages {
		t.Errorf("completed %d messages, want %d", total, senders*messages)
	}
	if s := c.Stats(); s.CompleteMessages != senders*messages || s.WaitingMessages != 0 {
		t.Errorf("stats = %+v", s)
	}
}

// TestChunkerQueueBehindIncompleteHead: messages completed behind an older
// incomplete one (which a sender can keep there, renewing it before it
// expires) do not pile up in memory.
func TestChunkerQueueBehindIncompleteHead(t *testing.T) {
	c, _ := newChunker(t, gelf.Options{})
	if _, _, err := c.Add(chunk(0, 0, 2, "stuck"), sender); err != nil {
		t.Fatal(err)
	}
	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	const n = 200000
	base := heap()
	for id := range uint64(n) {
		c.Add(chunk(id+1, 0, 2, "a"), sender)
		if _, done, err := c.Add(chunk(id+1, 1, 2, "b"), sender); err != nil || !done {
			t.Fatalf("message %d: done %v, err %v", id, done, err)
		}
	}
	if grown := int64(heap()) - int64(base); grown > 1<<20 {
		t.Errorf("%d messages completed behind an incomplete one hold %d KiB", n, grown>>10)
	}
	if s := c.Stats(); s.WaitingMessages != 1 || s.CompleteMessages != n {
		t.Errorf("stats = %+v", s)
	}
	// The one left still completes.
	if p, done, err := c.Add(chunk(0, 1, 2, "!"), sender); err != nil || !done || string(p) != "stuck!" {
		t.Errorf("the first message: %q, %v, %v", p, done, err)
	}
	runtime.KeepAlive(c)
}
