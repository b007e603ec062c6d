// Package redistest runs a real redis-server for tests: one private child
// process per test, on a free loopback port, with nothing persisted.
//
// When redis-server is not installed the test is skipped with a message
// saying so, or fails when LOGGATE_REQUIRE_SERVICES=1 (as in CI), so that a
// missing server never passes silently.
package redistest

import (
	"context"
	"net"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/loggate/loggate/internal/servicetest"
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
	srv    servicetest.Server
}

// Start starts a redis-server for tb and stops it when tb ends. It skips tb
// (or fails it, with LOGGATE_REQUIRE_SERVICES=1) when redis-server is not on
// PATH.
func Start(tb testing.TB) *Server {
	tb.Helper()
	bin := servicetest.Find(tb, "redis-server", "apt-get install redis-server", func() (string, error) {
		return exec.LookPath("redis-server")
	})
	s := &Server{tb: tb, bin: bin, dir: tb.TempDir()}
	// Registered after TempDir so the server is killed before its directory
	// is removed, and before launching so a half-started server is killed too.
	tb.Cleanup(s.cleanup)

	err := servicetest.Retry(func() error {
		var err error
		if s.port, err = servicetest.FreePort(); err != nil {
			return err
		}
		return s.launch()
	})
	if err != nil {
		tb.Fatalf("redistest: %v", err)
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
func (s *Server) Stop() { s.srv.Stop() }

// Restart stops the server if it is running and starts an empty one on the
// same port.
func (s *Server) Restart() {
	s.tb.Helper()
	if err := s.srv.Restart(); err != nil {
		s.tb.Fatalf("redistest: restart: %v", err)
	}
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
	s.srv = servicetest.Server{
		Name: "redis-server", Addr: s.addr(), Log: filepath.Join(s.dir, "redis.log"),
		Cmd: func() *exec.Cmd {
			return exec.Command(s.bin, "--bind", "127.0.0.1", "--port", strconv.Itoa(s.port),
				"--save", "", "--appendonly", "no", "--daemonize", "no", "--dir", s.dir)
		},
		Ready: s.answers,
	}
	return s.srv.Launch()
}

// answers reports whether the server answers as process pid: checking the
// pid guards against another server that already held the port answering
// while ours fails to bind.
func (s *Server) answers(pid int) error {
	c := redis.NewClient(&redis.Options{
		Addr: s.addr(), MaxRetries: -1, DialTimeout: 250 * time.Millisecond,
		ReadTimeout: time.Second, PoolSize: 1,
	})
	defer c.Close()
	info, err := c.Info(context.Background(), "server").Result()
	if err != nil {
		return err
	}
	if !hasLine(info, "process_id:"+strconv.Itoa(pid)) {
		return servicetest.ErrNotOurs
	}
	return nil
}

func hasLine(text, line string) bool {
	for l := range strings.Lines(text) {
		if strings.TrimRight(l, "\r\n") == line {
			return true
		}
	}
	return false
}
