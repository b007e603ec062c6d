package servicetest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"time"
)

// Readiness bounds: how long a launched server has to answer, and how often
// it is asked.
const (
	ReadyTimeout = 5 * time.Second
	PollInterval = 5 * time.Millisecond
)

// ErrNotOurs, wrapped by a Ready check, means another server answered on
// the port: waiting longer will not help, a launch on other ports might.
var ErrNotOurs = errors.New("another server answered on the port")

// Server is a server child process that a test stops and starts again on
// the same ports with the same data.
type Server struct {
	// Name and Addr name the server in errors.
	Name, Addr string
	// Log is the file the server's output goes to; it is quoted in errors.
	Log string
	// Cmd returns the command to run, fresh for every launch.
	Cmd func() *exec.Cmd
	// Ready reports nil once the server answers as the process pid, and
	// not another process that held the port (an error wrapping
	// ErrNotOurs ends the wait).
	Ready func(pid int) error

	proc *Process // nil while stopped
}

// Launch starts the server and waits until it is ready. On failure the
// process is killed and the error quotes the server's log.
func (s *Server) Launch() error {
	proc, err := Start(s.Cmd(), s.Log)
	if err != nil {
		return err
	}
	s.proc = proc
	if err := s.waitReady(); err != nil {
		s.Stop()
		out, _ := os.ReadFile(s.Log)
		return fmt.Errorf("%s on %s: %w\n%s", s.Name, s.Addr, err, out)
	}
	return nil
}

func (s *Server) waitReady() error {
	deadline := time.Now().Add(ReadyTimeout)
	tick := time.NewTicker(PollInterval)
	defer tick.Stop()
	for {
		err := s.Ready(s.proc.Pid())
		switch {
		case err == nil:
			return nil
		case errors.Is(err, ErrNotOurs):
			return err
		}
		select {
		case <-s.proc.Exited():
			return fmt.Errorf("exited early: %v", s.proc.State())
		case <-tick.C:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not ready after %v: %w", ReadyTimeout, err)
		}
	}
}

// Stop kills the server and waits for it to exit; its data stays for
// Restart. Stopping a stopped server does nothing.
func (s *Server) Stop() {
	s.proc.Stop()
	s.proc = nil
}

// Restart stops the server if it is running and launches it again. The port
// may be briefly unavailable, or taken by another process, in which case
// every attempt fails.
func (s *Server) Restart() error {
	s.Stop()
	return Retry(s.Launch)
}
