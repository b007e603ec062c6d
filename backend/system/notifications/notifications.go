// Package notifications keeps Graylog's system notifications
// (/system/notifications): conditions an administrator should act on, such as
// an input that could not start or a journal filling up. A notification is
// raised by the node that sees the condition and cleared by it when the
// condition ends, or dismissed by a person. They live in the document store,
// so every node of a cluster shows the same list.
package notifications

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/router/api"
)

// Collection holds the notifications, one document per type and key.
const Collection = "notifications"

// Graylog 4.0's notification types (Notification.Type, in lower case) that
// loggate raises.
const (
	TypeInputFailedToStart   = "input_failed_to_start"
	TypeJournalUtilization   = "journal_utilization_too_high"
	TypeStoreUnavailable     = "es_unavailable"
	TypeGeneric              = "generic"
	TypeNoInputRunning       = "no_input_running"
	TypeIndexRangesRecompute = "index_ranges_recalculation"
	TypeLegacyLDAPMigration  = "legacy_ldap_config_migration"
)

// Graylog's severities.
const (
	SeverityNormal = "normal"
	SeverityUrgent = "urgent"
)

// Notification is Graylog's NotificationImpl as the API shows it.
type Notification struct {
	Type      string         `json:"type"`
	Severity  string         `json:"severity"`
	Timestamp api.Time       `json:"timestamp"`
	NodeID    string         `json:"node_id"`
	Details   map[string]any `json:"details"`
	// Key tells apart notifications of one type (the input that failed,
	// the node that left); "" for types that occur once.
	Key string `json:"key,omitempty"`
}

func (n Notification) id() string { return docID(n.Type, n.Key) }

func docID(typ, key string) string {
	if key == "" {
		return typ
	}
	return typ + "/" + key
}

// Service raises, clears and lists notifications.
type Service struct {
	st   store.Store
	node string
	now  func() time.Time
}

// NewService returns the notifications of the cluster whose documents st
// holds; node is this node's id, stamped on what it raises.
func NewService(st store.Store, node string, now func() time.Time) *Service {
	return &Service{st: st, node: node, now: now}
}

// Raise publishes n unless one of its type and key is already there (as
// Graylog's publishIfFirst): a condition that lasts is reported once, with
// the time it began. It reports whether n is new.
func (s *Service) Raise(ctx context.Context, n Notification) (bool, error) {
	if n.Severity == "" {
		n.Severity = SeverityUrgent
	}
	if n.Details == nil {
		n.Details = map[string]any{}
	}
	n.NodeID, n.Timestamp = s.node, api.Time{Time: s.now().UTC()}
	doc, err := api.Marshal(n)
	if err != nil {
		return false, err
	}
	err = s.st.Insert(ctx, Collection, n.id(), doc)
	if errors.Is(err, store.ErrConflict) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("raise notification %s: %w", n.id(), err)
	}
	return true, nil
}

// Clear removes this node's notification of that type and key, once its
// condition has ended; one raised by another node is that node's to clear.
// It reports whether one was removed.
func (s *Service) Clear(ctx context.Context, typ, key string) (bool, error) {
	doc, err := s.st.Get(ctx, Collection, docID(typ, key))
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	var n Notification
	if json.Unmarshal(doc, &n) == nil && n.NodeID != s.node {
		return false, nil
	}
	err = s.st.Delete(ctx, Collection, docID(typ, key))
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// List returns every notification, newest first.
func (s *Service) List(ctx context.Context) ([]Notification, error) {
	var out []Notification
	err := s.st.List(ctx, Collection, func(_ string, doc []byte) error {
		var n Notification
		if err := json.Unmarshal(doc, &n); err != nil {
			return fmt.Errorf("stored notification: %w", err)
		}
		out = append(out, n)
		return nil
	})
	slices.SortStableFunc(out, func(a, b Notification) int { return b.Timestamp.Compare(a.Timestamp.Time) })
	return out, err
}

// Keys returns the keys of this node's notifications of a type.
func (s *Service) Keys(ctx context.Context, typ string) ([]string, error) {
	ns, err := s.List(ctx)
	var keys []string
	for _, n := range ns {
		if n.Type == typ && n.NodeID == s.node {
			keys = append(keys, n.Key)
		}
	}
	return keys, err
}

// Dismiss removes every notification of a type, whoever raised it, as
// DELETE /system/notifications/{type} does; key, when not "", narrows it to
// one. ErrNotFound-like misses are no error: Graylog answers 204 either way.
func (s *Service) Dismiss(ctx context.Context, typ, key string) error {
	var ids []string
	err := s.st.List(ctx, Collection, func(id string, _ []byte) error {
		if id == docID(typ, key) || (key == "" && strings.HasPrefix(id, typ+"/")) {
			ids = append(ids, id)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, id := range ids {
		if err := s.st.Delete(ctx, Collection, id); err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
	}
	return nil
}
