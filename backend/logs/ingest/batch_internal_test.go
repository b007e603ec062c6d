package ingest

import (
	"context"
	"fmt"
	"net"
	"sync"
	"syscall"
	"testing"

	"github.com/loggate/loggate/backend/logs/inputs"
	"github.com/loggate/loggate/internal/poll"
)

// countingJournal counts appends and their records.
type countingJournal struct {
	mu               sync.Mutex
	appends, records int
}

func (j *countingJournal) Append(_ context.Context, recs ...[]byte) (uint64, uint64, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.appends++
	j.records += len(recs)
	return 0, 0, nil
}
func (j *countingJournal) WaitNotFull(context.Context, int) error { return nil }

// TestTCPBatchesWhatIsReceived: what a sender has already sent is
// journaled in batches of Options.BatchSize, not one batch per read buffer
// (an append waits for its fsync, so the batch size bounds a connection's
// rate); and a connection that goes quiet has its batch journaled at once.
func TestTCPBatchesWhatIsReceived(t *testing.T) {
	j := &countingJournal{}
	r := NewRunner(j, nopStates{}, Options{NodeID: "node", BatchSize: 512})
	in := inputs.Input{ID: "in", Type: inputs.GELFTCPType}
	cfg, err := parseConfig(in)
	if err != nil {
		t.Fatal(err)
	}
	inst := r.newInstance(in, cfg, r.opts.Logger)

	// A receive buffer that holds the whole payload unread.
	lc := net.ListenConfig{Control: func(_, _ string, c syscall.RawConn) error {
		return c.Control(func(fd uintptr) { _ = setRecvBuffer(int(fd), 4<<20) })
	}}
	ln, err := lc.Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	server, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()

	// 1000 frames of ~300 bytes: over four read buffers' worth.
	const n = 1000
	var payload []byte
	for i := range n {
		payload = fmt.Appendf(payload, `{"host":"web-1","short_message":"GET /orders/%06d 200","_user":"u-%06d","_path":"/api/v1/orders/%06d","_pad":"%0180d"}`+"\x00", i, i, i, 0)
	}
	h := newTCPConn(inst, remote{})
	h.unread = unreadBytes(server)
	if h.unread == nil {
		t.Skip("no SIOCINQ on this system")
	}
	if _, err := client.Write(payload); err != nil {
		t.Fatal(err)
	}
	poll.Until(t, "the payload received", func() bool { return h.unread() == len(payload) })

	done := make(chan error, 1)
	go func() { done <- h.run(context.Background(), server) }()
	poll.Until(t, "every record journaled", func() bool {
		j.mu.Lock()
		defer j.mu.Unlock()
		return j.records == n
	})
	j.mu.Lock()
	appends := j.appends
	j.mu.Unlock()
	if want := (n + 511) / 512; appends != want {
		t.Errorf("%d appends for %d records, want %d", appends, n, want)
	}
	client.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
