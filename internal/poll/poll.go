// Package poll lets tests wait for a condition the code under test makes
// observable (a stored record, a notification, a closed connection)
// instead of sleeping for an amount of time: the wait ends as soon as
// the condition holds, and a condition that never holds fails the test
// with what was awaited rather than hanging it.
package poll

import (
	"testing"
	"time"
)

// Timeout is how long Until waits: long enough for a loaded 2-core
// machine, short enough that a broken test fails rather than hangs.
const Timeout = 10 * time.Second

// interval is the pause between two checks of the condition.
const interval = time.Millisecond

// Until checks cond until it holds, failing the test with what after
// Timeout.
func Until(t testing.TB, what string, cond func() bool) {
	t.Helper()
	Within(t, Timeout, cond, func() string { return what })
}

// Within checks cond until it holds, failing the test after d with
// failure's text, which is computed then so that it can show the state
// that did not change.
func Within(t testing.TB, d time.Duration, cond func() bool, failure func() string) {
	t.Helper()
	deadline := time.Now().Add(d)
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", failure())
		}
		<-tick.C
	}
}
