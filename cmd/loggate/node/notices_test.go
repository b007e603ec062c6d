package node_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/loggate/loggate/cmd/loggate/config"
	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
	"github.com/loggate/loggate/internal/poll"
)

// notificationKeys returns type/key → details of /system/notifications.
func notificationKeys(t *testing.T, h *nodetest.Harness) map[string]string {
	t.Helper()
	res := h.Do("GET", "/system/notifications", nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	out := map[string]string{}
	for _, n := range res.Get("notifications").Array() {
		out[n.Get("type").String()+"/"+n.Get("key").String()] = n.Get("details").Raw
	}
	if int(res.Get("total").Int()) != len(out) {
		t.Errorf("total %d for %d notifications", res.Get("total").Int(), len(out))
	}
	return out
}

// systemMessages returns the contents of the first page of /system/messages.
func systemMessages(t *testing.T, h *nodetest.Harness) string {
	t.Helper()
	res := h.Do("GET", "/system/messages?page=1", nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	var b strings.Builder
	for _, m := range res.Get("messages").Array() {
		b.WriteString(m.Get("content").String() + "\n")
	}
	return b.String()
}

func check(t *testing.T, h *nodetest.Harness) {
	t.Helper()
	if err := h.Node.Notices.Check(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// waitNotice runs the node's notification checks until the notification
// key is raised (or, with raised false, cleared).
func waitNotice(t *testing.T, h *nodetest.Harness, key string, raised bool) {
	t.Helper()
	poll.Within(t, poll.Timeout, func() bool {
		check(t, h)
		return (notificationKeys(t, h)[key] != "") == raised
	}, func() string {
		return fmt.Sprintf("notification %s raised=%v; notifications: %v", key, raised, notificationKeys(t, h))
	})
}

// An input that cannot bind its port raises input_failed_to_start and a
// system message; once it runs, the notification is gone.
func TestNotificationInputFailedToStart(t *testing.T) {
	h := nodetest.Start(t)
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := taken.Addr().(*net.TCPAddr).Port
	id := h.Do("POST", "/system/inputs", map[string]any{
		"title": "blocked", "type": nodetest.GELFTCP, "global": true,
		"configuration": map[string]any{"bind_address": "127.0.0.1", "port": port},
	}, nodetest.AsRoot()).Want(t, http.StatusCreated).Get("id").String()
	key := "input_failed_to_start/" + id
	waitNotice(t, h, key, true)
	if d := notificationKeys(t, h)[key]; !strings.Contains(d, `"input_id":"`+id+`"`) || !strings.Contains(d, "address already in use") {
		t.Errorf("details %s", d)
	}
	if msgs := systemMessages(t, h); !strings.Contains(msgs, "Input [blocked/"+id+"] failed to start") {
		t.Errorf("no system message of the failure:\n%s", msgs)
	}
	// Every page polls the list: a reader gets it, with the types they may
	// read (none for Reader), as in Graylog.
	h.CreateUser("poller", "pollerpass1", "Reader")
	if r := h.Do("GET", "/system/notifications", nil, nodetest.Basic("poller", "pollerpass1")).Want(t, http.StatusOK); r.Get("total").Int() != 0 {
		t.Errorf("a reader sees notifications they may not read: %s", r.Body)
	}

	taken.Close()
	h.Do("PUT", "/system/inputstates/"+id, nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	waitNotice(t, h, key, false)
	if msgs := systemMessages(t, h); !strings.Contains(msgs, "Input [blocked/"+id+"] is now RUNNING") {
		t.Errorf("no system message of the start:\n%s", msgs)
	}

	// Dismissed by a person; an unknown type is a 404.
	h.Do("DELETE", "/system/notifications/INPUT_FAILED_TO_START", nil, nodetest.AsRoot()).Want(t, http.StatusNoContent)
	h.Do("DELETE", "/system/notifications/no_such_type", nil, nodetest.AsRoot()).WantError(t, http.StatusBadRequest, "No such notification type")
	h.CreateUser("viewer", "viewerpass1", "Reader")
	h.Do("DELETE", "/system/notifications/generic", nil, nodetest.Basic("viewer", "viewerpass1")).Want(t, http.StatusForbidden)
	h.Do("GET", "/system/messages?page=0", nil, nodetest.AsRoot()).WantError(t, http.StatusBadRequest, "Invalid page")
}

// A journal filled past 95% while processing is paused raises
// journal_utilization_too_high; processing it clears the notification.
func TestNotificationJournalFull(t *testing.T) {
	h := nodetest.Start(t, nodetest.WithConfig(func(c *config.Config) { c.JournalMaxSize = 64 << 10 }))
	h.Do("PUT", "/system/processing/pause", nil, nodetest.AsRoot()).Want(t, http.StatusNoContent)
	_, addr := h.CreateInput(nodetest.GELFHTTP)
	body := `{"version":"1.1","host":"filler","short_message":"` + strings.Repeat("x", 2000) + `"}`
	sent := 0
	for ; sent < 1000; sent++ {
		resp, err := http.Post("http://"+addr.String()+"/gelf", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusServiceUnavailable {
			break
		}
	}
	if sent == 1000 {
		t.Fatal("the journal never filled")
	}
	check(t, h)
	d := notificationKeys(t, h)["journal_utilization_too_high/"]
	if pct := gjson.Get(d, "journal_utilization_percentage").Float(); pct < 95 {
		t.Fatalf("journal notification %q after %d messages", d, sent)
	}
	h.Do("PUT", "/system/processing/resume", nil, nodetest.AsRoot()).Want(t, http.StatusNoContent)
	h.WaitProcessed(uint64(sent))
	waitNotice(t, h, "journal_utilization_too_high/", false)
}

// errDiskGone is the failing disk of the store outage test.
var errDiskGone = errors.New("disk gone at /dev/sdz1")

// A message store that cannot be written raises es_unavailable until it
// can be again.
func TestNotificationStoreUnavailable(t *testing.T) {
	h := nodetest.Start(t)
	_, addr := h.CreateInput(nodetest.GELFHTTP)
	h.BreakMessageStore(errDiskGone)
	resp, err := http.Post("http://"+addr.String()+"/gelf", "application/json", strings.NewReader(`{"version":"1.1","host":"a","short_message":"b"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	waitNotice(t, h, "es_unavailable/", true)
	if d := notificationKeys(t, h)["es_unavailable/"]; strings.Contains(d, errDiskGone.Error()) {
		t.Errorf("the store's own words leaked into the notification: %s", d)
	}
	h.RepairMessageStore()
	h.WaitProcessed(1)
	waitNotice(t, h, "es_unavailable/", false)
}

// A node that leaves the cluster is reported by the others until it is back;
// every node's start is a system message.
func TestNotificationNodeLeft(t *testing.T) {
	hs := startCluster(t, 2)
	check(t, hs[0]) // sees node 2 live
	left := hs[1].Node.Info.ID
	hs[1].Stop()
	check(t, hs[0])
	d := notificationKeys(t, hs[0])["generic/node-left-"+left]
	if !strings.Contains(d, "A node left the cluster") || !strings.Contains(d, left) {
		t.Fatalf("no notification of node %s leaving: %v", left, notificationKeys(t, hs[0]))
	}
	msgs := systemMessages(t, hs[0])
	for _, h := range hs {
		if !strings.Contains(msgs, "Node "+h.Node.Info.ID+" started") {
			t.Errorf("no start message of node %s:\n%s", h.Node.Info.ID, msgs)
		}
	}
	hs[1].Restart()
	if err := hs[1].Node.Nodes.Beat(context.Background()); err != nil {
		t.Fatal(err)
	}
	check(t, hs[0])
	if d := notificationKeys(t, hs[0])["generic/node-left-"+left]; d != "" {
		t.Errorf("still reported after it came back: %s", d)
	}
}
