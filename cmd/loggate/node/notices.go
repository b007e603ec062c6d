package node

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/loggate/loggate/backend/logs/inputs"
	"github.com/loggate/loggate/backend/logs/rotation"
	"github.com/loggate/loggate/backend/system/notifications"
	"github.com/loggate/loggate/backend/system/overview"
	"github.com/loggate/loggate/backend/system/systemmessages"
)

// noticeInterval is how often a node checks the conditions it raises
// notifications for.
const noticeInterval = time.Second

// journalUtilizationLimit is the journal use, in percent of
// message_journal_max_size, past which Graylog raises its notification.
const journalUtilizationLimit = 95

// Notices are a node's system notifications and system messages: what it
// watches, and the events it records.
type Notices struct {
	Notifications *notifications.Service
	Messages      *systemmessages.Service

	watcher *notifications.Watcher
	inputs  inputWatch
	nodes   nodeWatch
}

// openNotices builds the node's notices over its document store. Call after
// the message pipeline, whose state the conditions read.
func (n *Node) openNotices(now func() time.Time) {
	st, id := n.Store, n.Info.ID
	ns := &n.Notices
	ns.Notifications = notifications.NewService(st, id, now)
	ns.Messages = systemmessages.NewService(st, id, now, 0)
	ns.inputs = inputWatch{last: map[string]inputSeen{}}
	ns.nodes = nodeWatch{seen: map[string]string{}}
	ns.watcher = notifications.NewWatcher(ns.Notifications,
		notifications.Condition{Type: notifications.TypeInputFailedToStart, Check: n.failedInputs},
		notifications.Condition{Type: notifications.TypeJournalUtilization, Check: n.journalFull},
		notifications.Condition{Type: notifications.TypeStoreUnavailable, Check: n.storeFailing},
		notifications.Condition{Type: notifications.TypeGeneric, KeyPrefix: nodeLeftKey, Check: n.leftNodes},
		notifications.Condition{Type: notifications.TypeLegacyLDAPMigration, Check: n.ldapAwaitingActivation},
	)
}

// Check checks every condition now, as the node does every noticeInterval.
func (ns *Notices) Check(ctx context.Context) error { return ns.watcher.Tick(ctx) }

// watchNotices records the node's start and checks its conditions every
// noticeInterval until ctx ends.
func (n *Node) watchNotices(ctx context.Context, wg *sync.WaitGroup) {
	ns := &n.Notices
	if ns.watcher == nil {
		return
	}
	// The start is recorded before the node is said to be started, so that
	// a node stopped at once still leaves its start in the log.
	if err := ns.Messages.Record(ctx, "loggate.node", "Node %s started (loggate %s, Graylog %s API).",
		n.Info.ID, overview.Build, overview.APIVersion); err != nil {
		n.log.Warn("recording a system message failed", "error", err)
	}
	wg.Go(func() {
		t := time.NewTicker(noticeInterval)
		defer t.Stop()
		for {
			if err := ns.watcher.Tick(ctx); err != nil && ctx.Err() == nil {
				n.log.Warn("checking notifications failed", "error", err)
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	})
}

// inputWatch remembers each input's last state, to record its changes.
type inputWatch struct {
	mu   sync.Mutex
	last map[string]inputSeen
}

type inputSeen struct{ title, state string }

// failedInputs is the inputs of this node that failed to start, one
// notification each; it records every input's change of state as a system
// message on the way.
func (n *Node) failedInputs(ctx context.Context) ([]notifications.Notification, error) {
	all, err := n.Inputs.All(ctx)
	if err != nil {
		return nil, err
	}
	w := &n.Notices.inputs
	w.mu.Lock()
	defer w.mu.Unlock()
	var failed []notifications.Notification
	present := map[string]bool{}
	for _, in := range all {
		s := n.InputStates.Summary(in)
		present[in.ID] = true
		prev, seen := w.last[in.ID]
		w.last[in.ID] = inputSeen{title: in.Title, state: s.State}
		detail := ""
		if s.DetailedMessage != nil {
			detail = *s.DetailedMessage
		}
		if s.State == inputs.StateFailed {
			failed = append(failed, notifications.Notification{Key: in.ID, Details: map[string]any{
				"input_id": in.ID, "input_title": in.Title, "reason": detail}})
		}
		if seen && prev.state == s.State || !seen && s.State == inputs.StateCreated {
			continue
		}
		if msg := inputChange(in, s.State, detail); msg != "" {
			n.recordMessage(ctx, "loggate.inputs", msg)
		}
	}
	for id, prev := range w.last {
		if !present[id] {
			delete(w.last, id)
			n.recordMessage(ctx, "loggate.inputs", fmt.Sprintf("Input [%s/%s] was deleted.", prev.title, id))
		}
	}
	return failed, nil
}

// inputChange says what an input's new state means, or "" for the passing
// ones (STARTING, STOPPING).
func inputChange(in inputs.Input, state, detail string) string {
	name := fmt.Sprintf("Input [%s/%s]", in.Title, in.ID)
	switch state {
	case inputs.StateRunning:
		return name + " is now RUNNING."
	case inputs.StateFailed:
		return fmt.Sprintf("%s failed to start: %s", name, detail)
	case inputs.StateStopped, inputs.StateTerminated:
		return name + " was stopped."
	}
	return ""
}

// journalFull holds while the journal is past journalUtilizationLimit.
func (n *Node) journalFull(context.Context) ([]notifications.Notification, error) {
	pct := n.Messages.Journal.Utilization()
	if pct < journalUtilizationLimit {
		return nil, nil
	}
	return []notifications.Notification{{Details: map[string]any{
		"journal_utilization_percentage": math.Round(pct*10) / 10,
		"journal_size_limit":             n.Config.JournalMaxSize,
	}}}, nil
}

// storeFailing holds while the processor cannot write to the message store.
// The store's own words, which may name hosts, stay in the log.
func (n *Node) storeFailing(context.Context) ([]notifications.Notification, error) {
	if n.Messages.Processor.State().Failing == "" {
		return nil, nil
	}
	return []notifications.Notification{{Details: map[string]any{
		"description": "The message store cannot be written to; messages wait in the journal. Details are in the server log."}}}, nil
}

// nodeLeftKey starts the keys of the notifications of nodes that left.
const nodeLeftKey = "node-left-"

// nodeWatch remembers the nodes this node has seen live.
type nodeWatch struct {
	mu   sync.Mutex
	seen map[string]string // node id → transport address
}

// leftNodes is the nodes seen live that no longer are: one notification
// each, cleared when the node is back.
func (n *Node) leftNodes(ctx context.Context) ([]notifications.Notification, error) {
	live, err := n.Nodes.Live(ctx)
	if err != nil {
		return nil, err
	}
	w := &n.Notices.nodes
	w.mu.Lock()
	defer w.mu.Unlock()
	now := map[string]bool{}
	for _, in := range live {
		now[in.NodeID] = true
		w.seen[in.NodeID] = in.TransportAddress
	}
	var left []notifications.Notification
	for id, addr := range w.seen {
		if now[id] {
			continue
		}
		left = append(left, notifications.Notification{Key: nodeLeftKey + id, Severity: notifications.SeverityNormal,
			Details: map[string]any{
				"title":       "A node left the cluster",
				"description": fmt.Sprintf("Node %s (%s) stopped sending heartbeats.", id, addr),
				"node":        id,
			}})
	}
	return left, nil
}

// ldapAwaitingActivation holds while LDAP settings saved through the 3.x API
// asked for LDAP enabled but their backend is not active: the 3.x form
// shows LDAP off, and this says why.
func (n *Node) ldapAwaitingActivation(ctx context.Context) ([]notifications.Notification, error) {
	id, err := n.legacyLDAPService().AwaitingActivation(ctx)
	if err != nil || id == "" {
		return nil, err
	}
	return []notifications.Notification{{Severity: notifications.SeverityNormal, Details: map[string]any{
		"auth_service_id": id,
		"description": "The LDAP settings saved through the 3.x API are kept as the authentication service " + id +
			", created inactive for review. Activate it under System / Authentication, or with POST /api/system/authentication/services/configuration {\"active_backend\":\"" + id + "\"}.",
	}}}, nil
}

// rotated records what a rotation and retention run did, and raises or
// clears the notification of its failure.
func (n *Node) rotated(ctx context.Context, actions []rotation.Action, err error) {
	for _, a := range actions {
		switch a.Kind {
		case "rotated":
			n.recordMessage(ctx, "loggate.indexer.rotation", fmt.Sprintf("Cycled index set %s: the new write index is <%s> (%s).", a.IndexSet, a.Index, a.Reason))
		case "deleted":
			n.recordMessage(ctx, "loggate.indexer.retention", fmt.Sprintf("Retention deleted index <%s> of index set %s (%s).", a.Index, a.IndexSet, a.Reason))
		case "closed":
			n.recordMessage(ctx, "loggate.indexer.retention", fmt.Sprintf("Retention closed index <%s> of index set %s (%s).", a.Index, a.IndexSet, a.Reason))
		}
	}
	ns := n.Notices.Notifications
	if ns == nil || ctx.Err() != nil {
		return
	}
	var nerr error
	if err != nil {
		_, nerr = ns.Raise(ctx, notifications.Notification{Type: notifications.TypeGeneric, Key: "rotation",
			Details: map[string]any{"title": "Index rotation or retention failed",
				"description": "The last run of index rotation and retention failed; it is retried. Details are in the server log."}})
	} else {
		_, nerr = ns.Clear(ctx, notifications.TypeGeneric, "rotation")
	}
	if nerr != nil {
		n.log.Warn("updating the rotation notification failed", "error", nerr)
	}
}

// recordMessage records a system message; a failure is logged, never
// passed on: the event happened either way.
func (n *Node) recordMessage(ctx context.Context, caller, content string) {
	if n.Notices.Messages == nil {
		return
	}
	if err := n.Notices.Messages.Record(ctx, caller, "%s", content); err != nil && ctx.Err() == nil {
		n.log.Warn("recording a system message failed", "error", err)
	}
}
