package upstream

import (
	"io"
	"net"
	"testing"
	"time"
)

// TestIdlePool checks what put keeps: connections idle for longer than
// idleConnTTL are closed, and the oldest goes when the pool is full.
func TestIdlePool(t *testing.T) {
	type pipe struct {
		c    *conn
		peer net.Conn
	}
	newConn := func(idleFor time.Duration) pipe {
		a, b := net.Pipe()
		t.Cleanup(func() { a.Close(); b.Close() })
		return pipe{&conn{nc: a, used: time.Now().Add(-idleFor)}, b}
	}
	// A closed pipe reads EOF at once; an open one would block, so it
	// gets a deadline instead of hanging the test.
	closed := func(p pipe) bool {
		_ = p.peer.SetReadDeadline(time.Now().Add(time.Second))
		_, err := p.peer.Read(make([]byte, 1))
		return err == io.EOF
	}
	tests := []struct {
		name    string
		idle    []time.Duration // how long each pooled connection has been idle, oldest first
		dropped int             // how many of the oldest put closes
	}{
		{"fresh", []time.Duration{time.Minute, time.Second}, 0},
		{"expired", []time.Duration{2 * idleConnTTL, idleConnTTL + time.Second, time.Minute}, 2},
		{"full", make([]time.Duration, maxIdleConns), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := &inline{}
			var pooled []pipe
			for _, d := range tt.idle {
				p := newConn(d)
				pooled = append(pooled, p)
				in.idle = append(in.idle, p.c)
			}
			added := newConn(0)
			in.put(added.c)
			if want := len(tt.idle) - tt.dropped + 1; len(in.idle) != want || in.idle[len(in.idle)-1] != added.c {
				t.Fatalf("%d pooled, last %p; want %d, the one put last", len(in.idle), in.idle[len(in.idle)-1], want)
			}
			for i, p := range pooled[:tt.dropped] {
				if !closed(p) {
					t.Errorf("connection %d idle for %v kept open", i, tt.idle[i])
				}
			}
			if tt.dropped < len(pooled) && in.idle[0] != pooled[tt.dropped].c {
				t.Error("the oldest connection kept is not first")
			}
			in.closeIdle()
			if !closed(added) || len(in.idle) != 0 {
				t.Error("closeIdle left a connection open")
			}
		})
	}
}
