package upstream

import (
	"context"
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

// TestIdlePoolGet checks that get hands out the most recent idle
// connection, and dials instead of reusing one idle for longer than
// idleConnTTL, closing every one as old.
func TestIdlePoolGet(t *testing.T) {
	var dialled []net.Conn
	in := &inline{dial: func(context.Context) (net.Conn, error) {
		a, b := net.Pipe()
		t.Cleanup(func() { a.Close(); b.Close() })
		dialled = append(dialled, a)
		return a, nil
	}}
	pipe := func(idleFor time.Duration) (*conn, net.Conn) {
		a, b := net.Pipe()
		t.Cleanup(func() { a.Close(); b.Close() })
		return &conn{nc: a, used: time.Now().Add(-idleFor)}, b
	}
	old, oldPeer := pipe(2 * idleConnTTL)
	recent, _ := pipe(time.Second)
	in.idle = []*conn{old, recent}
	if c, reused, err := in.get(t.Context(), false); err != nil || !reused || c != recent {
		t.Fatalf("get = %p, %v, %v; want the most recent idle connection", c, reused, err)
	}
	c, reused, err := in.get(t.Context(), false)
	if err != nil || reused || len(dialled) != 1 || c.nc != dialled[0] {
		t.Fatalf("get = %v, %v; want a dialled connection, not one idle for %v", reused, err, 2*idleConnTTL)
	}
	_ = oldPeer.SetReadDeadline(time.Now().Add(time.Second))
	if _, err := oldPeer.Read(make([]byte, 1)); err != io.EOF || len(in.idle) != 0 {
		t.Errorf("the expired connection was not closed (%v) or is still pooled (%d)", err, len(in.idle))
	}
}

// blockedReader reads from a pipe nothing is written to, saying when a
// Read has started; closing the pipe ends it.
type blockedReader struct {
	nc      net.Conn
	reading chan struct{}
}

func (r *blockedReader) Read(p []byte) (int, error) {
	close(r.reading)
	return r.nc.Read(p)
}

func (r *blockedReader) Close() error { return r.nc.Close() }

// TestCloseDuringRead closes a body from another goroutine while a Read
// waits for the upstream: Close must not wait for the Read, and the Read
// must end with an error.
func TestCloseDuringRead(t *testing.T) {
	for _, gz := range []bool{false, true} {
		t.Run(map[bool]string{false: "plain", true: "gzip"}[gz], func(t *testing.T) {
			a, b := net.Pipe()
			t.Cleanup(func() { a.Close(); b.Close() })
			src := &blockedReader{nc: a, reading: make(chan struct{})}
			var rc io.ReadCloser = &body{in: &inline{}, c: &conn{nc: a}, src: src, stop: func() bool { return true }, ctx: t.Context()}
			if gz {
				rc = &gunzip{body: rc}
			}
			done := make(chan error)
			go func() {
				_, err := rc.Read(make([]byte, 10))
				done <- err
			}()
			<-src.reading
			_ = rc.Close()
			if err := <-done; err == nil {
				t.Error("the Read ended without an error")
			}
			if _, err := rc.Read(make([]byte, 10)); err == nil {
				t.Error("Read after Close succeeded")
			}
		})
	}
}
