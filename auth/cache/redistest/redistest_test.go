package redistest_test

import (
	"context"
	"testing"
	"time"

	"github.com/loggate/loggate/auth/cache/redistest"
)

func TestStartStopRestart(t *testing.T) {
	srv := redistest.Start(t)
	rdb := srv.Client()
	ping := func() error { return rdb.Ping(t.Context()).Err() }

	if err := ping(); err != nil {
		t.Fatalf("PING after Start = %v", err)
	}
	if err := rdb.Set(t.Context(), "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	addr := srv.Addr

	srv.Stop()
	// The deadline cuts short the client's dial retries; a live server
	// would answer well within it.
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	if err := rdb.Ping(ctx).Err(); err == nil {
		t.Fatal("PING after Stop succeeded")
	}
	srv.Stop() // stopping twice is harmless

	srv.Restart()
	if srv.Addr != addr {
		t.Errorf("Addr after Restart = %s, want %s", srv.Addr, addr)
	}
	if err := ping(); err != nil {
		t.Fatalf("PING after Restart = %v", err)
	}
	if n, err := rdb.Exists(t.Context(), "k").Result(); err != nil || n != 0 {
		t.Errorf("EXISTS k after Restart = %d, %v; want 0: nothing may persist", n, err)
	}
}

// TestServersAreSeparate checks that two servers started by one test do not
// share a port or data.
func TestServersAreSeparate(t *testing.T) {
	a, b := redistest.Start(t), redistest.Start(t)
	if a.Addr == b.Addr {
		t.Fatalf("both servers on %s", a.Addr)
	}
	if err := a.Client().Set(t.Context(), "k", "a", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if n, err := b.Client().Exists(t.Context(), "k").Result(); err != nil || n != 0 {
		t.Errorf("EXISTS k on b = %d, %v; want 0", n, err)
	}
}
