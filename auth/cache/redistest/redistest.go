// Package redistest runs a real redis-server for tests: one private child
// process per test, on a free loopback port, with nothing persisted.
//
// When redis-server is not installed the test is skipped with a message
// saying so, or fails when LOGGATE_REQUIRE_SERVICES=1 (as in CI), so that a
// missing server never passes silently.
package redistest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

const (
	// launchAttempts bounds retries when another process takes the port
	// between freePort and redis-server binding it.
	launchAttempts = 5
	readyTimeout   = 5 * time.Second
	pollInterval   = 10 * time.Millisecond
)

// Server is a redis-server child process owned by one test. Its methods must
// be called from the test's goroutine.
type Server struct {
	// Addr is the server's host:port; it stays the same across Restart.
	Addr string

	tb     testing.TB
	bin    string
	dir    string
	port   int
	client *redis.Client
	cmd    *exec.Cmd
	exited chan struct{} // closed when cmd has exited
}

// Start starts a redis-server for tb and stops it when tb ends. It skips tb
// (or fails it, with LOGGATE_REQUIRE_SERVICES=1) when redis-server is not on
// PATH.
func Start(tb testing.TB) *Server {
	tb.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("LOGGATE_REQUIRE_SERVICES") == "1" {
			tb.Fatalf("redis-server is not installed (apt-get install redis-server) and LOGGATE_REQUIRE_SERVICES=1: %v", err)
		}
		tb.Skip("SKIPPED: redis-server is not installed (apt-get install redis-server); Redis tests did not run")
	}
	s := &Server{tb: tb, bin: bin, dir: tb.TempDir()}
	// Registered after TempDir so the server is killed before its directory
	// is removed, and before launching so a half-started server is killed too.
	tb.Cleanup(s.cleanup)

	for attempt := 1; ; attempt++ {
		if s.port, err = freePort(); err == nil {
			if err = s.launch(); err == nil {
				break
			}
		}
		if attempt == launchAttempts {
			tb.Fatalf("redistest: %v", err)
		}
	}
	s.Addr = s.addr()
	s.client = redis.NewClient(&redis.Options{Addr: s.Addr})
	return s
}

// Client returns a client of the server, shared by every caller and closed
// when the test ends. It reconnects by itself after Restart.
func (s *Server) Client() *redis.Client { return s.client }

// Stop kills the server and waits for it to exit. Stopping a stopped server
// does nothing.
func (s *Server) Stop() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Kill() // fails only if it has exited already
	<-s.exited
	s.cmd = nil
}

// Restart stops the server if it is running and starts an empty one on the
// same port.
func (s *Server) Restart() {
	s.tb.Helper()
	s.Stop()
	var err error
	// The port may be briefly unavailable, or taken by another process,
	// in which case every attempt fails and so does the test.
	for range launchAttempts {
		if err = s.launch(); err == nil {
			return
		}
	}
	s.tb.Fatalf("redistest: restart: %v", err)
}

func (s *Server) cleanup() {
	if s.client != nil {
		_ = s.client.Close()
	}
	s.Stop()
}

func (s *Server) addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)) }

// launch starts redis-server on s.port and waits until it answers.
func (s *Server) launch() error {
	logPath := filepath.Join(s.dir, "redis.log")
	log, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer log.Close() // the child has its own descriptor
	cmd := exec.Command(s.bin,
		"--bind", "127.0.0.1", "--port", strconv.Itoa(s.port),
		"--save", "", "--appendonly", "no", "--daemonize", "no", "--dir", s.dir)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start redis-server: %w", err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	s.cmd, s.exited = cmd, exited

	if err := s.waitReady(); err != nil {
		s.Stop()
		out, _ := os.ReadFile(logPath)
		return fmt.Errorf("redis-server on %s: %w\n%s", s.addr(), err, out)
	}
	return nil
}

// waitReady polls the server until it answers as the process just started:
// checking the pid guards against another server that already held the port
// answering while ours fails to bind.
func (s *Server) waitReady() error {
	c := redis.NewClient(&redis.Options{
		Addr: s.addr(), MaxRetries: -1, DialTimeout: 250 * time.Millisecond,
		ReadTimeout: time.Second, PoolSize: 1,
	})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	want := "process_id:" + strconv.Itoa(s.cmd.Process.Pid)
	var lastErr error
	for {
		info, err := c.Info(ctx, "server").Result()
		switch {
		case err == nil && hasLine(info, want):
			return nil
		case err == nil:
			return errors.New("another server answered on the port")
		}
		lastErr = err
		select {
		case <-s.exited:
			return fmt.Errorf("exited early: %v", s.cmd.ProcessState)
		case <-ctx.Done():
			return fmt.Errorf("not ready after %v: %w", readyTimeout, lastErr)
		case <-time.After(pollInterval):
		}
	}
}

func hasLine(text, line string) bool {
	for l := range strings.Lines(text) {
		if strings.TrimRight(l, "\r\n") == line {
			return true
		}
	}
	return false
}

// freePort returns a loopback port that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
