package node_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/loggate/loggate/backend/alerts/scheduler"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
	"github.com/loggate/loggate/router/api"
)

// Two nodes of a cluster share the scheduler's triggers. The leader dies
// in the middle of a firing of a due definition (its claim on the trigger
// stays in the store, as a killed process leaves it); the other node takes
// the lease, runs that firing again once the dead node's lock expired, and
// catches up the windows since: every window fires once — none lost, none
// doubled.
func TestAlertsLeaderKilled(t *testing.T) {
	st := nodetest.SharedStore(t)
	n1 := nodetest.StartOn(t, st)
	n2 := nodetest.StartOn(t, st)
	n2.Clock.Set(n1.Clock.Now())
	advance := func(d time.Duration) {
		n1.Clock.Advance(d)
		n2.Clock.Advance(d)
	}
	if !n1.Node.Nodes.IsLeader() || n2.Node.Nodes.IsLeader() {
		t.Fatal("node 1 does not lead")
	}
	root := nodetest.AsRoot()
	hk := startHook(t)
	nid := hookNotification(t, n1, hk, "hook")
	// No messages, so a count below one fires in every window.
	def := countDefinition("Quiet", 0, nid)
	cfg := def["config"].(map[string]any)
	cfg["group_by"] = []string{}
	cfg["conditions"] = map[string]any{"expression": map[string]any{"expr": "<",
		"left": map[string]any{"expr": "number-ref", "ref": "c"}, "right": map[string]any{"expr": "number", "value": 1}}}
	def["field_spec"], def["key_spec"] = map[string]any{}, []string{}
	t0 := n1.Clock.Now().UTC().Truncate(time.Millisecond)
	did := n1.Do("POST", "/events/definitions", def, root).Want(t, http.StatusOK).Get("id").String()

	ends := func() []string {
		var out []string
		for _, p := range hk.received() {
			out = append(out, gjson.GetBytes(p.body, "event.timerange_end").String())
		}
		slices.Sort(out)
		return out
	}
	// Node 1 fires the window ending at the definition's creation and the
	// next one.
	advance(60 * time.Second)
	runAlerts(t, n1, func() bool { return len(hk.received()) == 2 })

	// The next window is due; node 1 claims it and dies before recording
	// the firing.
	n1.Node.Nodes.Abandon() // from here on node 1 runs nothing
	advance(60 * time.Second)
	trigger := definitionTrigger(t, n1, did)
	if due := t0.Add(120 * time.Second); !trigger.NextTime.Equal(due) || trigger.Status != scheduler.StatusRunnable {
		t.Fatalf("trigger %s at %v, want runnable at %v", trigger.Status, trigger.NextTime, due)
	}
	claimAsKilled(t, st, trigger, n1.Node.Info.ID, n1.Clock.Now())
	n1.Stop()

	// Node 2 takes the lease, but leaves the locked firing alone until the
	// lock expires.
	advance(6 * time.Second)
	if err := n2.Node.Nodes.Beat(context.Background()); err != nil || !n2.Node.Nodes.IsLeader() {
		t.Fatalf("node 2 did not take the lease: %v", err)
	}
	if n, _ := n2.Node.Alerts.Events.RunDue(context.Background()); n != 0 {
		t.Fatalf("node 2 ran %d firings under node 1's lock", n)
	}
	advance(scheduler.DefaultLockTTL)
	// Windows ending t0, t0+60s, …, up to the clock now.
	last := int((2*60*time.Second + 6*time.Second + scheduler.DefaultLockTTL) / (60 * time.Second))
	var want []string
	for i := 0; i <= last; i++ {
		want = append(want, iso(t0.Add(time.Duration(i)*60*time.Second)))
	}
	runAlerts(t, n2, func() bool { return len(hk.received()) >= len(want) })
	if got := ends(); !slices.Equal(got, want) {
		t.Errorf("windows fired:\n%v\nwant each once:\n%v", got, want)
	}
	ids := map[string]bool{}
	for _, p := range hk.received() {
		id := gjson.GetBytes(p.body, "event.id").String()
		if ids[id] {
			t.Errorf("event %s notified twice", id)
		}
		ids[id] = true
	}
	// The events node 2 made are found by its event search.
	found := n2.Do("POST", "/events/search", map[string]any{"timerange": map[string]any{"type": "relative", "range": 0}}, root).Want(t, http.StatusOK)
	if n := found.Get("total_events").Int(); n != int64(len(want)-2) {
		t.Errorf("node 2 stored %d events, want %d", n, len(want)-2)
	}
}

// definitionTrigger returns the scheduler trigger of a definition.
func definitionTrigger(t *testing.T, h *nodetest.Harness, definitionID string) scheduler.Trigger {
	t.Helper()
	jobs := h.Do("GET", "/scheduler/jobs", nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	job := jobs.Get(`job_definitions.#(config.event_definition_id=="` + definitionID + `").id`).String()
	trs, err := h.Node.Alerts.Events.TriggersOf(context.Background(), job)
	if err != nil || len(trs) != 1 {
		t.Fatalf("triggers of job %s: %v, %v", job, trs, err)
	}
	return trs[0]
}

// claimAsKilled leaves tr as a node that claimed it and died leaves it:
// running, locked by owner since at.
func claimAsKilled(t *testing.T, st store.Store, tr scheduler.Trigger, owner string, at time.Time) {
	t.Helper()
	err := st.Update(context.Background(), scheduler.TriggersCollection, tr.ID, func(doc []byte) ([]byte, error) {
		var cur scheduler.Trigger
		if err := json.Unmarshal(doc, &cur); err != nil {
			return nil, err
		}
		now := api.Time{Time: at.UTC()}
		cur.Status = scheduler.StatusRunning
		cur.Lock = scheduler.Lock{Owner: &owner, LastLockTime: &now, Clock: cur.Lock.Clock + 1}
		return json.Marshal(cur)
	})
	if err != nil {
		t.Fatal(err)
	}
}
