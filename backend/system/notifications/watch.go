package notifications

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Condition is one kind of trouble a node watches for.
type Condition struct {
	// Type is the notification type the condition raises.
	Type string
	// KeyPrefix, when not "", narrows the condition to the keys of Type that
	// start with it, so that conditions sharing a type (generic) leave each
	// other's notifications alone.
	KeyPrefix string
	// Check returns the notifications of Type that hold now: none when all
	// is well, one per Key when the trouble has several subjects (each
	// failed input). Type is filled in.
	Check func(ctx context.Context) ([]Notification, error)
}

// Watcher raises the notifications of its conditions while they hold and
// clears them when they end.
type Watcher struct {
	s          *Service
	conditions []Condition
}

// NewWatcher returns a watcher of conditions for s.
func NewWatcher(s *Service, conditions ...Condition) *Watcher {
	return &Watcher{s: s, conditions: conditions}
}

// Tick checks every condition once. A failing check leaves that condition's
// notifications as they are; the others are still checked.
func (w *Watcher) Tick(ctx context.Context) error {
	var errs []error
	for _, c := range w.conditions {
		if err := w.tick(ctx, c); err != nil {
			errs = append(errs, fmt.Errorf("notification %s: %w", c.Type, err))
		}
	}
	return errors.Join(errs...)
}

func (w *Watcher) tick(ctx context.Context, c Condition) error {
	holding, err := c.Check(ctx)
	if err != nil {
		return err
	}
	held := map[string]bool{}
	for _, n := range holding {
		n.Type = c.Type
		held[n.Key] = true
		if _, err := w.s.Raise(ctx, n); err != nil {
			return err
		}
	}
	keys, err := w.s.Keys(ctx, c.Type)
	if err != nil {
		return err
	}
	for _, k := range keys {
		if strings.HasPrefix(k, c.KeyPrefix) && !held[k] {
			if _, err := w.s.Clear(ctx, c.Type, k); err != nil {
				return err
			}
		}
	}
	return nil
}
