package notifications_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/store/bolt"
	"github.com/loggate/loggate/backend/system/notifications"
	"github.com/loggate/loggate/internal/testclock"
)

func open(t *testing.T) (*bolt.Store, *testclock.Clock) {
	t.Helper()
	st, err := bolt.Open(filepath.Join(t.TempDir(), "db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st, testclock.New(time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC))
}

func types(t *testing.T, s *notifications.Service) map[string]string {
	t.Helper()
	ns, err := s.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, n := range ns {
		out[n.Type+"/"+n.Key] = n.NodeID
	}
	return out
}

// A condition's notification is raised once, with the time it began, and
// cleared only by the node that raised it.
func TestRaiseOnceClearByOwner(t *testing.T) {
	st, clock := open(t)
	ctx := context.Background()
	a := notifications.NewService(st, "node-a", clock.Now)
	b := notifications.NewService(st, "node-b", clock.Now)
	n := notifications.Notification{Type: notifications.TypeJournalUtilization}
	if isNew, err := a.Raise(ctx, n); err != nil || !isNew {
		t.Fatalf("first raise: %v %v", isNew, err)
	}
	clock.Advance(time.Minute)
	if isNew, err := b.Raise(ctx, n); err != nil || isNew {
		t.Fatalf("second raise: %v %v, want it kept as it was", isNew, err)
	}
	ns, _ := a.List(ctx)
	if len(ns) != 1 || ns[0].NodeID != "node-a" || !ns[0].Timestamp.Equal(clock.Now().Add(-time.Minute)) || ns[0].Severity != notifications.SeverityUrgent {
		t.Fatalf("list: %+v", ns)
	}
	if cleared, err := b.Clear(ctx, n.Type, ""); err != nil || cleared {
		t.Errorf("another node cleared node-a's notification: %v %v", cleared, err)
	}
	if cleared, err := a.Clear(ctx, n.Type, ""); err != nil || !cleared {
		t.Errorf("owner's clear: %v %v", cleared, err)
	}
	if got := types(t, a); len(got) != 0 {
		t.Errorf("after clearing: %v", got)
	}
}

// The watcher raises what holds, clears what ends, leaves conditions of a
// shared type alone, and keeps a condition whose check fails as it was.
func TestWatcher(t *testing.T) {
	st, clock := open(t)
	ctx := context.Background()
	s := notifications.NewService(st, "node-a", clock.Now)
	failed := []string{"in1", "in2"}
	var checkErr error
	w := notifications.NewWatcher(s,
		notifications.Condition{Type: notifications.TypeInputFailedToStart, Check: func(context.Context) ([]notifications.Notification, error) {
			var out []notifications.Notification
			for _, id := range failed {
				out = append(out, notifications.Notification{Key: id})
			}
			return out, checkErr
		}},
		notifications.Condition{Type: notifications.TypeGeneric, KeyPrefix: "left-", Check: func(context.Context) ([]notifications.Notification, error) {
			return nil, nil
		}},
	)
	if _, err := s.Raise(ctx, notifications.Notification{Type: notifications.TypeGeneric, Key: "rotation"}); err != nil {
		t.Fatal(err)
	}
	if err := w.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"input_failed_to_start/in1": "node-a", "input_failed_to_start/in2": "node-a", "generic/rotation": "node-a"}
	if got := types(t, s); len(got) != len(want) || got["input_failed_to_start/in1"] == "" || got["input_failed_to_start/in2"] == "" || got["generic/rotation"] == "" {
		t.Fatalf("after the first tick: %v, want %v", got, want)
	}
	failed = []string{"in2"}
	if err := w.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	if got := types(t, s); got["input_failed_to_start/in1"] != "" || got["input_failed_to_start/in2"] == "" || got["generic/rotation"] == "" {
		t.Fatalf("after in1 recovered: %v", got)
	}
	failed, checkErr = nil, errors.New("inputs unreadable")
	if err := w.Tick(ctx); err == nil {
		t.Fatal("a failing check is not reported")
	}
	if got := types(t, s); got["input_failed_to_start/in2"] == "" {
		t.Errorf("a failing check cleared what it could not see: %v", got)
	}
}

// DELETE /system/notifications/{type} dismisses every notification of the
// type, whoever raised it.
func TestDismiss(t *testing.T) {
	st, clock := open(t)
	ctx := context.Background()
	a := notifications.NewService(st, "node-a", clock.Now)
	b := notifications.NewService(st, "node-b", clock.Now)
	for _, n := range []struct {
		s        *notifications.Service
		typ, key string
	}{{a, "generic", "left-x"}, {b, "generic", "rotation"}, {a, "es_unavailable", ""}} {
		if _, err := n.s.Raise(ctx, notifications.Notification{Type: n.typ, Key: n.key}); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Dismiss(ctx, "generic", ""); err != nil {
		t.Fatal(err)
	}
	if got := types(t, a); len(got) != 1 || got["es_unavailable/"] == "" {
		t.Errorf("after dismissing generic: %v", got)
	}
}
