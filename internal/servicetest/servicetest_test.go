package servicetest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// recorder stands in for a testing.TB to observe Skip and Fatalf, which end
// the calling goroutine as the real ones do.
type recorder struct {
	testing.TB
	skipped, failed string
}

func (r *recorder) Helper() {}

func (r *recorder) Skip(args ...any) {
	r.skipped = fmt.Sprint(args...)
	runtime.Goexit()
}

func (r *recorder) Skipf(format string, args ...any) {
	r.skipped = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.failed = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func TestFindMissing(t *testing.T) {
	missing := func() (string, error) { return "", errors.New("not found") }
	for _, tc := range []struct {
		require            string
		wantSkip, wantFail bool
	}{
		{"", true, false},
		{"0", true, false},
		{"1", false, true},
	} {
		t.Run("LOGGATE_REQUIRE_SERVICES="+tc.require, func(t *testing.T) {
			t.Setenv("LOGGATE_REQUIRE_SERVICES", tc.require)
			r := &recorder{TB: t}
			done := make(chan struct{})
			go func() {
				defer close(done)
				Find(r, "fakedb", "apt-get install fakedb", missing)
			}()
			<-done
			if (r.skipped != "") != tc.wantSkip || (r.failed != "") != tc.wantFail {
				t.Errorf("skipped %q, failed %q", r.skipped, r.failed)
			}
			if msg := r.skipped + r.failed; msg == "" || !strings.Contains(msg, "apt-get install fakedb") {
				t.Errorf("the message does not say how to install it: %q", msg)
			}
		})
	}
	if got := Find(t, "sh", "", func() (string, error) { return "/bin/sh", nil }); got != "/bin/sh" {
		t.Errorf("Find = %q", got)
	}
}

func TestProcess(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("SKIPPED: no sleep binary")
	}
	p, err := Start(exec.Command(sleep, "60"), filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	if p.Pid() <= 0 || p.State() != nil {
		t.Fatalf("pid %d, state %v", p.Pid(), p.State())
	}
	p.Stop()
	select {
	case <-p.Exited():
	default:
		t.Fatal("Stop returned before the child exited")
	}
	p.Stop() // again: nothing happens
	var none *Process
	none.Stop()

	calls := 0
	if err := Retry(func() error { calls++; return errors.New("busy") }); err == nil || calls != LaunchAttempts {
		t.Errorf("Retry: %v after %d calls", err, calls)
	}
	if port, err := FreePort(); err != nil || port <= 0 {
		t.Errorf("FreePort = %d, %v", port, err)
	}
}

// TestServerLaunchFails: a server that exits, or another server answering
// on its port, fails the launch at once with the log quoted, not after the
// ready timeout.
func TestServerLaunchFails(t *testing.T) {
	for _, tt := range []struct {
		name  string
		cmd   string
		ready error
		want  string
	}{
		{"exits", "echo starting; exit 3", errors.New("not yet"), "exited early"},
		{"not ours", "echo starting; sleep 30", fmt.Errorf("pid mismatch: %w", ErrNotOurs), "another server answered"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			log := filepath.Join(t.TempDir(), "log")
			s := &Server{
				Name: "fake", Addr: "nowhere", Log: log,
				Cmd: func() *exec.Cmd { return exec.Command("sh", "-c", tt.cmd) },
				Ready: func(int) error {
					// Once the server has said something, so that the
					// error can quote it.
					if b, _ := os.ReadFile(log); len(b) == 0 {
						return errors.New("silent")
					}
					return tt.ready
				},
			}
			start := time.Now()
			err := s.Launch()
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "starting") {
				t.Fatalf("Launch = %v, want %q and the log", err, tt.want)
			}
			if took := time.Since(start); took >= ReadyTimeout {
				t.Fatalf("Launch failed only after %v", took)
			}
			s.Stop() // stopped already: a no-op
		})
	}
}
