package poll

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// recorder is a testing.TB that keeps what Fatalf says instead of ending
// the test, so that the failure path can be checked.
type recorder struct {
	testing.TB
	failed string
}

func (r *recorder) Helper() {}

func (r *recorder) Fatalf(format string, args ...any) {
	r.failed = format
	if len(args) > 0 {
		r.failed = strings.ReplaceAll(format, "%s", args[0].(string))
	}
}

func TestUntilReturnsOnceTheConditionHolds(t *testing.T) {
	var calls atomic.Int32
	Until(t, "three checks", func() bool { return calls.Add(1) >= 3 })
	if n := calls.Load(); n != 3 {
		t.Errorf("the condition was checked %d times, want 3", n)
	}
}

func TestWithinFailsWithTheStateAtTheEnd(t *testing.T) {
	r := &recorder{TB: t}
	state := "before"
	Within(r, 5*time.Millisecond, func() bool { state = "checked"; return r.failed != "" }, func() string { return "a change, state " + state })
	if r.failed != "timed out waiting for a change, state checked" {
		t.Errorf("failure: %q", r.failed)
	}
}
