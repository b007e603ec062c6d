package embedded_test

import (
	"sync"
	"testing"

	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/logs/messages/embedded"
	"github.com/loggate/loggate/backend/logs/messages/messagestest"
)

// mustOpen opens a store in dir, closed when the test ends unless the
// test closed it.
func mustOpen(tb testing.TB, dir string, opts embedded.Options) *embedded.Store {
	tb.Helper()
	s, err := embedded.Open(dir, opts)
	if err != nil {
		tb.Fatalf("Open: %v", err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// factory runs the contract suite; Close does not flush, so closing and
// reopening is a crash as far as unflushed messages go.
func factory() messagestest.Factory {
	var dirs sync.Map // messages.Store → its directory
	reopen := func(t *testing.T, s messages.Store) messages.Store {
		t.Helper()
		d, _ := dirs.Load(s)
		dir := d.(string)
		if err := s.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
		ns := mustOpen(t, dir, embedded.Options{})
		dirs.Store(ns, dir)
		return ns
	}
	return messagestest.Factory{
		Open: func(t *testing.T) messages.Store {
			dir := t.TempDir()
			s := mustOpen(t, dir, embedded.Options{})
			dirs.Store(s, dir)
			return s
		},
		Reopen: reopen,
		Crash:  reopen,
	}
}

func TestContract(t *testing.T) {
	messagestest.Run(t, factory())
}
