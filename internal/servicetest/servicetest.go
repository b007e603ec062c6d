// Package servicetest runs the real servers tests talk to (redis-server,
// slapd, …) as child processes owned by one test each: finding the binary,
// or skipping loudly when it is missing; a free loopback port; starting,
// stopping and restarting with retries when another process takes the port.
// What "ready" means is each server's own business (redistest, slapdtest).
package servicetest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"testing"
)

// LaunchAttempts bounds retries when another process takes a port between
// FreePort and the server binding it.
const LaunchAttempts = 5

// Find returns the binary lookup finds. When there is none it skips tb with
// a message saying what did not run and how to install it — or fails tb
// when LOGGATE_REQUIRE_SERVICES=1 (as in CI), so that a missing server never
// passes silently.
func Find(tb testing.TB, name, install string, lookup func() (string, error)) string {
	tb.Helper()
	bin, err := lookup()
	if err == nil {
		return bin
	}
	if os.Getenv("LOGGATE_REQUIRE_SERVICES") == "1" {
		tb.Fatalf("%s is not installed (%s) and LOGGATE_REQUIRE_SERVICES=1: %v", name, install, err)
	}
	tb.Skipf("SKIPPED: %s is not installed (%s); its tests did not run", name, install)
	return ""
}

// FreePort returns a loopback port that was free a moment ago.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Retry calls launch up to LaunchAttempts times until it succeeds, and
// returns the last error.
func Retry(launch func() error) error {
	var err error
	for range LaunchAttempts {
		if err = launch(); err == nil {
			return nil
		}
	}
	return err
}

// Process is a server's child process.
type Process struct {
	cmd    *exec.Cmd
	exited chan struct{} // closed when cmd has exited
}

// Start starts cmd with its output written to logPath (truncated). The
// kernel kills the child if the test binary dies without its cleanups (a
// panic, a -timeout), where it offers that.
func Start(cmd *exec.Cmd, logPath string) (*Process, error) {
	log, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer log.Close() // the child has its own descriptor
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", cmd.Path, err)
	}
	p := &Process{cmd: cmd, exited: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// Pid is the child's process id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Exited is closed when the child has exited.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// State describes how the child exited; nil before.
func (p *Process) State() *os.ProcessState { return p.cmd.ProcessState }

// Stop kills the child and waits for it to exit. Stopping a nil or stopped
// process does nothing.
func (p *Process) Stop() {
	if p == nil {
		return
	}
	_ = p.cmd.Process.Kill() // fails only if it has exited already
	<-p.exited
}
