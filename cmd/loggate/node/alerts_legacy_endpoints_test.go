package node_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/loggate/loggate/cmd/loggate/config"
	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
)

// GET /streams/{id}/alerts/check runs the stream's legacy conditions now,
// in Graylog's shape, and answers the same for 30 s; it needs
// streams:read on the stream.
func TestLegacyAlertsCheck(t *testing.T) {
	h := nodetest.Start(t) // without enable_legacy_alerts: 4.0 still checks on request
	root := nodetest.AsRoot()
	sid := webStream(t, h, root)
	cid := h.Do("POST", "/streams/"+sid+"/alerts/conditions", map[string]any{"type": "message_count", "title": "busy",
		"parameters": map[string]any{"time": 1, "threshold_type": "MORE", "threshold": 1, "grace": 0, "backlog": 0, "query": "*"}},
		root).Want(t, http.StatusCreated).Get("alert_condition_id").String()
	t0 := h.Clock.Now()
	c := h.Do("GET", "/streams/"+sid+"/alerts/check", nil, root).Want(t, http.StatusOK)
	if c.Get("total_triggered").Int() != 0 || c.Get("results.#").Int() != 1 || c.Get("results.0.triggered").Bool() ||
		c.Get("results.0.alert_description").Exists() || c.Get("results.0.condition.id").String() != cid ||
		c.Get("results.0.condition.parameters.threshold").Int() != 1 || c.Get("results.0.condition.title").String() != "busy" ||
		c.Get("calculated_at").String() != iso(t0) {
		t.Fatalf("check: %s", c.Body)
	}

	_, addr := h.CreateInput(httpInput)
	at := float64(h.Clock.Now().UnixMilli()) / 1000
	postGELF(t, addr, "web-1", "one", at)
	postGELF(t, addr, "web-1", "two", at)
	h.WaitProcessed(2)
	h.Clock.Advance(10 * time.Second)
	if c := h.Do("GET", "/streams/"+sid+"/alerts/check", nil, root).Want(t, http.StatusOK); c.Get("calculated_at").String() != iso(t0) ||
		c.Get("total_triggered").Int() != 0 {
		t.Errorf("check within 30 s is not the cached one: %s", c.Body)
	}
	h.Clock.Advance(21 * time.Second)
	c = h.Do("GET", "/streams/"+sid+"/alerts/check", nil, root).Want(t, http.StatusOK)
	const desc = "Stream had 2 messages in the last 1 minutes with trigger condition more than 1 messages. (Current grace time: 0 minutes)"
	if c.Get("total_triggered").Int() != 1 || !c.Get("results.0.triggered").Bool() || c.Get("results.0.alert_description").String() != desc ||
		c.Get("calculated_at").String() != iso(h.Clock.Now()) {
		t.Errorf("check after 30 s: %s", c.Body)
	}
	if n := h.Do("GET", "/streams/alerts", nil, root).Want(t, http.StatusOK).Get("total").Int(); n != 0 {
		t.Errorf("a check opened %d alerts", n)
	}

	h.Do("GET", "/streams/000000000000000000000099/alerts/check", nil, root).Want(t, http.StatusNotFound)
	h.Do("POST", "/roles", map[string]any{"name": "WebReader", "permissions": []string{"streams:read:" + sid}}, root).Want(t, http.StatusCreated)
	h.CreateUser("carol", "carol-secret-1", "Reader", "WebReader")
	h.CreateUser("dave", "dave-secret-12", "Reader")
	h.Do("GET", "/streams/"+sid+"/alerts/check", nil, nodetest.Basic("carol", "carol-secret-1")).Want(t, http.StatusOK)
	h.Do("GET", "/streams/"+sid+"/alerts/check", nil, nodetest.Basic("dave", "dave-secret-12")).Want(t, http.StatusForbidden)
}

// The legacy checker records each delivery of an alert to an alarm
// callback; GET /streams/{id}/alerts/{alertId}/history lists them, the
// failed ones with their error, for whoever may read the stream.
func TestLegacyAlertHistory(t *testing.T) {
	h := nodetest.Start(t, nodetest.WithConfig(func(c *config.Config) { c.EnableLegacyAlerts = true }))
	root := nodetest.AsRoot()
	hk := startHook(t)
	allowURL(t, h, hk.url())
	sid := webStream(t, h, root)
	ok := hookCallback(t, h, sid, "hook", hk.url(), root)
	const denied = "http://127.0.0.1:1/denied"
	bad := hookCallback(t, h, sid, "denied", denied, root)
	cid := h.Do("POST", "/streams/"+sid+"/alerts/conditions", map[string]any{"type": "message_count", "title": "busy",
		"parameters": map[string]any{"time": 1, "threshold_type": "MORE", "threshold": 0, "grace": 0, "backlog": 0}},
		root).Want(t, http.StatusCreated).Get("alert_condition_id").String()
	_, addr := h.CreateInput(httpInput)
	postGELF(t, addr, "web-1", "one", float64(h.Clock.Now().UnixMilli())/1000)
	h.WaitProcessed(1)
	h.Clock.Advance(time.Second)
	err := h.Node.Alerts.LegacyChecker.Check(context.Background())
	if err == nil || !strings.Contains(err.Error(), "is not whitelisted") {
		t.Fatalf("check: %v, want the denied callback's failure", err)
	}
	aid := h.Do("GET", "/streams/"+sid+"/alerts", nil, root).Want(t, http.StatusOK).Get("alerts.0.id").String()
	hs := h.Do("GET", "/streams/"+sid+"/alerts/"+aid+"/history", nil, root).Want(t, http.StatusOK)
	if hs.Get("total").Int() != 2 || hs.Get("histories.#").Int() != 2 {
		t.Fatalf("history: %s", hs.Body)
	}
	byCallback := map[string]gjson.Result{}
	for _, e := range hs.Get("histories").Array() {
		byCallback[e.Get("alarmcallbackconfiguration.id").String()] = e
		if e.Get("alert_id").String() != aid || e.Get("alertcondition_id").String() != cid || e.Get("id").String() == "" ||
			e.Get("created_at").String() != iso(h.Clock.Now()) || e.Get("alarmcallbackconfiguration.stream_id").String() != sid {
			t.Errorf("history entry: %s", e.Raw)
		}
	}
	if r := byCallback[ok].Get("result"); r.Get("type").String() != "success" || r.Get("error").Exists() {
		t.Errorf("delivered: %s", r.Raw)
	}
	if r := byCallback[bad].Get("result"); r.Get("type").String() != "error" || r.Get("error").String() != "URL <"+denied+"> is not whitelisted." {
		t.Errorf("failed: %s", r.Raw)
	}
	if e := h.Do("GET", "/streams/"+sid+"/alerts/000000000000000000000042/history", nil, root).Want(t, http.StatusOK); e.Get("total").Int() != 0 ||
		!e.Get("histories").IsArray() {
		t.Errorf("history of an unknown alert: %s", e.Body)
	}
	h.CreateUser("dave", "dave-secret-12", "Reader")
	h.Do("GET", "/streams/"+sid+"/alerts/"+aid+"/history", nil, nodetest.Basic("dave", "dave-secret-12")).Want(t, http.StatusForbidden)
}

// POST /streams/{id}/alerts/sendDummyAlert sends Graylog's dummy alert to
// the stream's alarm callbacks (204); a failing callback makes it a 500
// with the callback's error, as Graylog; without callbacks it mails the
// stream's alert receivers. It needs streams:edit on the stream.
func TestLegacySendDummyAlert(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	hk := startHook(t)
	allowURL(t, h, hk.url())
	is := defaultIndexSet(t, h)
	sid := h.Do("POST", "/streams", map[string]any{"title": "web", "description": "the web servers", "index_set_id": is}, root).
		Want(t, http.StatusCreated).Get("stream_id").String()
	hookCallback(t, h, sid, "hook", hk.url(), root)
	h.Do("POST", "/streams/"+sid+"/alerts/sendDummyAlert", nil, root).Want(t, http.StatusNoContent)
	if n := len(hk.received()); n != 1 {
		t.Fatalf("%d posts, want 1", n)
	}
	body := gjson.ParseBytes(hk.received()[0].body)
	cond := body.Get("check_result.triggered_condition")
	if body.Get("stream.id").String() != sid || body.Get("stream.title").String() != "web" || body.Get("stream.description").String() != "the web servers" ||
		body.Get("check_result.result_description").String() != "Dummy alert to test notifications" || !body.Get("check_result.triggered").Bool() ||
		cond.Get("type").String() != "dummy" || cond.Get("title").String() != "Dummy Alert" || cond.Get("creator_user_id").String() != "admin" ||
		cond.Get("description").String() != "Dummy alert to test notifications" || body.Get("check_result.matching_messages.#").Int() != 0 {
		t.Errorf("dummy alert: %s", body.Raw)
	}
	if n := h.Do("GET", "/streams/alerts", nil, root).Want(t, http.StatusOK).Get("total").Int(); n != 0 {
		t.Errorf("a dummy alert was kept: %d alerts", n)
	}

	const denied = "http://127.0.0.1:1/denied"
	hookCallback(t, h, sid, "denied", denied, root)
	h.Do("POST", "/streams/"+sid+"/alerts/sendDummyAlert", nil, root).
		WantError(t, http.StatusInternalServerError, "URL <"+denied+"> is not whitelisted.")

	bare := h.Do("POST", "/streams", map[string]any{"title": "bare", "index_set_id": is}, root).Want(t, http.StatusCreated).Get("stream_id").String()
	h.Do("POST", "/streams/"+bare+"/alerts/sendDummyAlert", nil, root).
		WantError(t, http.StatusInternalServerError, "Email transport is not enabled in server configuration file!")
	h.Do("POST", "/streams/000000000000000000000099/alerts/sendDummyAlert", nil, root).Want(t, http.StatusNotFound)

	h.Do("POST", "/roles", map[string]any{"name": "WebReader", "permissions": []string{"streams:read:" + sid}}, root).Want(t, http.StatusCreated)
	h.CreateUser("carol", "carol-secret-1", "Reader", "WebReader")
	h.Do("POST", "/streams/"+sid+"/alerts/sendDummyAlert", nil, nodetest.Basic("carol", "carol-secret-1")).Want(t, http.StatusForbidden)
}

// webStream creates a running stream "web" of the messages from source
// web-1.
func webStream(t *testing.T, h *nodetest.Harness, as ...nodetest.ReqOption) string {
	t.Helper()
	sid := h.Do("POST", "/streams", map[string]any{"title": "web", "matching_type": "AND", "index_set_id": defaultIndexSet(t, h),
		"rules": []map[string]any{{"field": "source", "type": 1, "value": "web-1", "inverted": false}}}, as...).Want(t, http.StatusCreated).Get("stream_id").String()
	h.Do("POST", "/streams/"+sid+"/resume", nil, as...).Want(t, http.StatusNoContent)
	return sid
}

// hookCallback adds a legacy HTTP alarm callback to a stream.
func hookCallback(t *testing.T, h *nodetest.Harness, sid, title, url string, as ...nodetest.ReqOption) string {
	t.Helper()
	return h.Do("POST", "/streams/"+sid+"/alarmcallbacks", map[string]any{"type": "org.graylog2.alarmcallbacks.HTTPAlarmCallback", "title": title,
		"configuration": map[string]any{"url": url}}, as...).Want(t, http.StatusCreated).Get("alarmcallback_id").String()
}

// TestLegacyHistoryOnlyThroughItsStream: the history of a legacy alert is
// shown only through the alert's own stream. A user who may read stream A
// read, through /streams/A/alerts/<alert of B>/history, the alarm
// callbacks of stream B (URLs with their tokens, receivers).
func TestLegacyHistoryOnlyThroughItsStream(t *testing.T) {
	h := nodetest.Start(t, nodetest.WithConfig(func(c *config.Config) { c.EnableLegacyAlerts = true }))
	root := nodetest.AsRoot()
	hk := startHook(t)
	allowURL(t, h, hk.url())
	secret := webStream(t, h, root)
	hookCallback(t, h, secret, "hook", hk.url()+"?token=s3cr3t", root)
	h.Do("POST", "/streams/"+secret+"/alerts/conditions", map[string]any{"type": "message_count", "title": "busy",
		"parameters": map[string]any{"time": 1, "threshold_type": "MORE", "threshold": 0, "grace": 0, "backlog": 0}},
		root).Want(t, http.StatusCreated)
	mine := h.Do("POST", "/streams", map[string]any{"title": "mine", "matching_type": "AND", "index_set_id": defaultIndexSet(t, h),
		"rules": []map[string]any{}}, root).Want(t, http.StatusCreated).Get("stream_id").String()
	_, addr := h.CreateInput(httpInput)
	postGELF(t, addr, "web-1", "one", float64(h.Clock.Now().UnixMilli())/1000)
	h.WaitProcessed(1)
	h.Clock.Advance(time.Second)
	_ = h.Node.Alerts.LegacyChecker.Check(context.Background())
	aid := h.Do("GET", "/streams/"+secret+"/alerts", nil, root).Want(t, http.StatusOK).Get("alerts.0.id").String()
	if aid == "" {
		t.Fatal("no alert")
	}
	if got := h.Do("GET", "/streams/"+secret+"/alerts/"+aid+"/history", nil, root).Want(t, http.StatusOK); got.Get("total").Int() != 1 {
		t.Fatalf("the alert's own stream shows %s, want its delivery", got.Body)
	}
	h.Do("POST", "/roles", map[string]any{"name": "MineReader", "permissions": []string{"streams:read:" + mine}}, root).Want(t, http.StatusCreated)
	h.CreateUser("erin", "erin-secret-12", "Reader", "MineReader")
	erin := nodetest.Basic("erin", "erin-secret-12")
	h.Do("GET", "/streams/"+secret+"/alerts/"+aid+"/history", nil, erin).Want(t, http.StatusForbidden)
	r := h.Do("GET", "/streams/"+mine+"/alerts/"+aid+"/history", nil, erin).Want(t, http.StatusOK)
	if strings.Contains(string(r.Body), "s3cr3t") || r.Get("total").Int() != 0 {
		t.Errorf("erin, who may read only %s, reads stream %s's callback through it: %s", mine, secret, r.Body)
	}
}
