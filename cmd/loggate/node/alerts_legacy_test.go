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

// A 2.4 script creates a stream, a message count condition and an HTTP
// alarm callback, and gets alerts: both are migrated at once, as 3.1's
// migration would, and the callback posts the 2.x check result when the
// condition holds.
func TestLegacyConditionAlertsOldClient(t *testing.T) {
	h := nodetest.Start(t)
	v24 := []nodetest.ReqOption{nodetest.AsRoot(), nodetest.Header("X-API-Version", "2.4")}
	root := nodetest.AsRoot()
	hk := startHook(t)
	allowURL(t, h, hk.url())
	sid := webStream(t, h, v24...)
	hookCallback(t, h, sid, "hook", hk.url(), v24...)
	t0 := h.Clock.Now().UTC().Truncate(time.Millisecond)
	cid := h.Do("POST", "/streams/"+sid+"/alerts/conditions", map[string]any{"type": "message_count", "title": "busy",
		"parameters": map[string]any{"time": 1, "threshold_type": "MORE", "threshold": 1, "grace": 0, "backlog": 2, "query": "*"}},
		v24...).Want(t, http.StatusCreated).Get("alert_condition_id").String()

	conds := h.Do("GET", "/streams/"+sid+"/alerts/conditions", nil, v24...).Want(t, http.StatusOK)
	if conds.Get("total").Int() != 1 || conds.Get("conditions.0.id").String() != cid || conds.Get("conditions.0.parameters.threshold").Int() != 1 {
		t.Errorf("conditions: %s", conds.Body)
	}
	defs := h.Do("GET", "/events/definitions", nil, root).Want(t, http.StatusOK)
	def := defs.Get(`event_definitions.#(title=="busy")`)
	if def.Get("description").String() != "Migrated message count alert condition" || def.Get("config.streams.0").String() != sid ||
		def.Get("config.search_within_ms").Int() != 60000 || def.Get("config.execute_every_ms").Int() != 60000 ||
		def.Get("config.conditions.expression.expr").String() != ">" || def.Get("notification_settings.backlog_size").Int() != 2 ||
		def.Get("notifications.#").Int() != 1 {
		t.Fatalf("migrated definition: %s", def.Raw)
	}
	notes := h.Do("GET", "/events/notifications", nil, root).Want(t, http.StatusOK)
	if n := notes.Get(`notifications.#(title=="hook")`); n.Get("config.type").String() != "legacy-alarm-callback-notification-v1" ||
		n.Get("description").String() != "Migrated legacy alarm callback" || n.Get("config.configuration.url").String() != hk.url() {
		t.Fatalf("migrated notification: %s", notes.Body)
	}

	_, addr := h.CreateInput(httpInput)
	at := float64(t0.Add(10*time.Second).UnixMilli()) / 1000
	postGELF(t, addr, "web-1", "one", at)
	postGELF(t, addr, "web-1", "two", at)
	h.WaitProcessed(2)
	h.Clock.Advance(61 * time.Second)
	runAlerts(t, h, func() bool { return len(hk.received()) == 1 })
	body := gjson.ParseBytes(hk.received()[0].body)
	if body.Get("stream.id").String() != sid || !body.Get("check_result.triggered").Bool() ||
		body.Get("check_result.result_description").String() != "busy - count()=2.0" ||
		body.Get("check_result.triggered_condition.title").String() != "busy" || body.Get("check_result.matching_messages.#").Int() != 2 {
		t.Errorf("callback payload: %s", body.Raw)
	}
	// Graylog 4.0's stand-in for a migrated condition: the definition's
	// stream, a condition named after the definition.
	cond := body.Get("check_result.triggered_condition")
	if body.Get("stream.title").String() != "web" || cond.Get("type").String() != "aggregation-v1" ||
		cond.Get("description").String() != "busy" || cond.Get("parameters.backlog").Int() != 50 ||
		cond.Get("creator_user_id").String() != "admin" || !body.Get("check_result.triggered_at").Exists() {
		t.Errorf("callback payload: %s", body.Raw)
	}
}

// A 4.0 client's legacy condition is kept and listed, but becomes an event
// definition only at the next start, as Graylog 4.0's migration does
// (enable_legacy_alerts is off).
func TestLegacyConditionNewClient(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	is := defaultIndexSet(t, h)
	sid := h.Do("POST", "/streams", map[string]any{"title": "web", "index_set_id": is}, root).Want(t, http.StatusCreated).Get("stream_id").String()
	h.Do("POST", "/streams/"+sid+"/alerts/conditions", map[string]any{"type": "field_value", "title": "slow",
		"parameters": map[string]any{"field": "took", "time": 5, "threshold_type": "HIGHER", "threshold": 2.5, "type": "MEAN", "grace": 1, "backlog": 0}},
		root).Want(t, http.StatusCreated)
	h.Do("POST", "/streams/"+sid+"/alerts/conditions", map[string]any{"type": "nope", "parameters": map[string]any{}}, root).
		WantError(t, http.StatusBadRequest, "Unable to load alert condition of type nope")
	h.Do("POST", "/streams/"+sid+"/alerts/conditions", map[string]any{"type": "message_count", "parameters": map[string]any{"time": 1}}, root).
		WantError(t, http.StatusBadRequest, "Invalid alert condition parameters")
	if all := h.Do("GET", "/alerts/conditions", nil, root).Want(t, http.StatusOK); all.Get("total").Int() != 1 {
		t.Errorf("all conditions: %s", all.Body)
	}
	for _, p := range []string{"/streams/alerts/paginated", "/streams/alerts", "/streams/" + sid + "/alerts/paginated"} {
		if r := h.Do("GET", p, nil, root).Want(t, http.StatusOK); r.Get("total").Int() != 0 || !r.Get("alerts").IsArray() {
			t.Errorf("%s: %s", p, r.Body)
		}
	}
	if types := h.Do("GET", "/alerts/conditions/types", nil, root).Want(t, http.StatusOK); !types.Get("message_count.requested_configuration.threshold").Exists() {
		t.Errorf("types: %s", types.Body)
	}
	if n := h.Do("GET", "/events/definitions", nil, root).Want(t, http.StatusOK).Get("total").Int(); n != 0 {
		t.Fatalf("%d definitions before the restart", n)
	}
	h.Restart()
	deadline := time.Now().Add(10 * time.Second)
	for {
		defs := h.Do("GET", "/events/definitions", nil, root).Want(t, http.StatusOK)
		if d := defs.Get(`event_definitions.#(title=="slow")`); d.Exists() {
			if d.Get("config.series.0.function").String() != "avg" || d.Get("config.series.0.field").String() != "took" ||
				d.Get("config.conditions.expression.right.value").Float() != 2 || d.Get("config.search_within_ms").Int() != 300000 ||
				d.Get("notification_settings.grace_period_ms").Int() != 60000 {
				t.Errorf("migrated: %s", d.Raw)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not migrated at the restart: %s", defs.Body)
		}
		time.Sleep(20 * time.Millisecond) // polling an observable condition
	}
	h.Restart() // migrated once only
	if n := h.Do("GET", "/events/definitions", nil, root).Want(t, http.StatusOK).Get("total").Int(); n != 1 {
		t.Errorf("%d definitions after a second restart", n)
	}
}

// A 2.4 client's changes reach what its conditions and callbacks were
// migrated to: a changed condition changes its definition, a deleted
// callback deletes its notification (and no definition notifies it any
// more), a deleted condition deletes its definition.
func TestLegacyOldClientChanges(t *testing.T) {
	h := nodetest.Start(t)
	v24 := []nodetest.ReqOption{nodetest.AsRoot(), nodetest.Header("X-API-Version", "2.4")}
	root := nodetest.AsRoot()
	sid := h.Do("POST", "/streams", map[string]any{"title": "web", "matching_type": "AND", "index_set_id": defaultIndexSet(t, h),
		"rules": []map[string]any{}}, v24...).Want(t, http.StatusCreated).Get("stream_id").String()
	cb := hookCallback(t, h, sid, "hook", "http://127.0.0.1:1/hook", v24...)
	params := map[string]any{"time": 1, "threshold_type": "MORE", "threshold": 1, "grace": 0, "backlog": 0, "query": "*"}
	cid := h.Do("POST", "/streams/"+sid+"/alerts/conditions", map[string]any{"type": "message_count", "title": "busy", "parameters": params},
		v24...).Want(t, http.StatusCreated).Get("alert_condition_id").String()
	def := func() gjson.Result {
		return h.Do("GET", "/events/definitions", nil, root).Want(t, http.StatusOK).Get(`event_definitions.#(title=="busy")`)
	}
	if d := def(); d.Get("notifications.#").Int() != 1 || d.Get("config.conditions.expression.right.value").Float() != 1 {
		t.Fatalf("migrated definition: %s", d.Raw)
	}

	params["threshold"] = 5
	h.Do("PUT", "/streams/"+sid+"/alerts/conditions/"+cid, map[string]any{"title": "busy", "parameters": params}, v24...).Want(t, http.StatusNoContent)
	if d := def(); d.Get("config.conditions.expression.right.value").Float() != 5 {
		t.Errorf("definition after the condition changed: %s", d.Raw)
	}
	if n := h.Do("GET", "/events/definitions", nil, root).Want(t, http.StatusOK).Get("total").Int(); n != 1 {
		t.Errorf("%d definitions after the change, want 1", n)
	}

	h.Do("DELETE", "/streams/"+sid+"/alarmcallbacks/"+cb, nil, v24...).Want(t, http.StatusNoContent)
	if n := h.Do("GET", "/events/notifications", nil, root).Want(t, http.StatusOK); n.Get("total").Int() != 0 {
		t.Errorf("notifications after the callback was deleted: %s", n.Body)
	}
	if d := def(); d.Get("notifications.#").Int() != 0 {
		t.Errorf("definition still notifies the deleted callback: %s", d.Raw)
	}

	h.Do("DELETE", "/streams/"+sid+"/alerts/conditions/"+cid, nil, v24...).Want(t, http.StatusNoContent)
	if n := h.Do("GET", "/events/definitions", nil, root).Want(t, http.StatusOK).Get("total").Int(); n != 0 {
		t.Errorf("%d definitions after the condition was deleted", n)
	}
}

// With enable_legacy_alerts, a 4.0 client's legacy condition is evaluated
// by the legacy checker, as Graylog 3.3 did: it opens an alert and runs the
// stream's alarm callback once while it holds (no repeat_notifications),
// resolves the alert once it no longer holds, and the legacy listings show
// it. Nothing is migrated before the next start.
func TestLegacyAlertsEnabled(t *testing.T) {
	h := nodetest.Start(t, nodetest.WithConfig(func(c *config.Config) { c.EnableLegacyAlerts = true }))
	root := nodetest.AsRoot()
	ctx := context.Background()
	hk := startHook(t)
	allowURL(t, h, hk.url())
	sid := webStream(t, h, root)
	hookCallback(t, h, sid, "hook", hk.url(), root)
	cid := h.Do("POST", "/streams/"+sid+"/alerts/conditions", map[string]any{"type": "message_count", "title": "busy",
		"parameters": map[string]any{"time": 1, "threshold_type": "MORE", "threshold": 1, "grace": 0, "backlog": 2, "query": "*"}},
		root).Want(t, http.StatusCreated).Get("alert_condition_id").String()
	if n := h.Do("GET", "/events/definitions", nil, root).Want(t, http.StatusOK).Get("total").Int(); n != 0 {
		t.Fatalf("%d definitions: a 4.0 client's condition is migrated at the next start only", n)
	}
	check := func() {
		t.Helper()
		if err := h.Node.Alerts.LegacyChecker.Check(ctx); err != nil {
			t.Fatal(err)
		}
	}
	check() // nothing yet
	if len(hk.received()) != 0 {
		t.Fatalf("callback ran before any message")
	}

	_, addr := h.CreateInput(httpInput)
	at := float64(h.Clock.Now().Add(10*time.Second).UnixMilli()) / 1000
	postGELF(t, addr, "web-1", "one", at)
	postGELF(t, addr, "web-1", "two", at)
	h.WaitProcessed(2)
	h.Clock.Advance(30 * time.Second)
	check()
	if n := len(hk.received()); n != 1 {
		t.Fatalf("%d callback posts, want 1", n)
	}
	body := gjson.ParseBytes(hk.received()[0].body)
	const desc = "Stream had 2 messages in the last 1 minutes with trigger condition more than 1 messages. (Current grace time: 0 minutes)"
	if body.Get("stream.id").String() != sid || body.Get("check_result.result_description").String() != desc ||
		body.Get("check_result.triggered_condition.title").String() != "busy" || body.Get("check_result.matching_messages.#").Int() != 2 {
		t.Errorf("callback payload: %s", body.Raw)
	}
	// As Graylog 3.3's HTTP alarm callback: the stream document and the
	// condition with its parameters, under the JSON names only.
	cond := body.Get("check_result.triggered_condition")
	for path, want := range map[string]string{
		"stream.id": sid, "stream.title": "web", "stream.matching_type": "AND", "stream.rules.0.value": "web-1",
		"check_result.triggered_at": iso(h.Clock.Now()), "check_result.matching_messages.0.source": "web-1",
		"id": cid, "type": "message_count", "title": "busy", "creator_user_id": "admin", "parameters.threshold_type": "MORE",
		"parameters.time": "1", "parameters.backlog": "2", "grace": "0", "backlog": "2",
		"description": "time: 1, threshold_type: more, threshold: 1, grace: 0, repeat notifications: false",
	} {
		got := body.Get(path)
		if !strings.Contains(path, ".") || strings.HasPrefix(path, "parameters.") {
			got = cond.Get(path)
		}
		if got.String() != want {
			t.Errorf("callback payload %s = %q, want %q", path, got.String(), want)
		}
	}
	if !cond.Get("created_at").Exists() || body.Get("check_result.resultDescription").Exists() {
		t.Errorf("callback payload: %s", body.Raw)
	}
	list := h.Do("GET", "/streams/alerts/paginated", nil, root).Want(t, http.StatusOK)
	alert := list.Get("alerts.0")
	if list.Get("total").Int() != 1 || alert.Get("condition_id").String() != cid || alert.Get("stream_id").String() != sid ||
		alert.Get("description").String() != desc || alert.Get("resolved_at").Type != gjson.Null || !alert.Get("is_interval").Bool() {
		t.Fatalf("alerts: %s", list.Body)
	}
	if one := h.Do("GET", "/streams/alerts/"+alert.Get("id").String(), nil, root).Want(t, http.StatusOK); one.Get("condition_id").String() != cid {
		t.Errorf("alert: %s", one.Body)
	}
	if s := h.Do("GET", "/streams/"+sid+"/alerts?since=0", nil, root).Want(t, http.StatusOK); s.Get("total").Int() != 1 {
		t.Errorf("stream alerts: %s", s.Body)
	}

	check() // still holds, the alert is open: no second notification
	if n := len(hk.received()); n != 1 {
		t.Errorf("%d callback posts while the alert stays open, want 1", n)
	}
	h.Clock.Advance(2 * time.Minute)
	check() // the messages left the minute: resolved
	if r := h.Do("GET", "/streams/alerts/paginated?state=resolved", nil, root).Want(t, http.StatusOK); r.Get("total").Int() != 1 ||
		r.Get("alerts.0.resolved_at").String() != iso(h.Clock.Now()) {
		t.Errorf("resolved alerts: %s", r.Body)
	}
	if u := h.Do("GET", "/streams/alerts/paginated?state=unresolved", nil, root).Want(t, http.StatusOK); u.Get("total").Int() != 0 {
		t.Errorf("unresolved alerts: %s", u.Body)
	}
}

// Without enable_legacy_alerts (the default, as in 4.0) nothing evaluates
// legacy conditions.
func TestLegacyAlertsDisabled(t *testing.T) {
	h := nodetest.Start(t)
	if h.Node.Alerts.LegacyChecker != nil {
		t.Fatal("a legacy checker without enable_legacy_alerts")
	}
}

// A legacy condition is not checked within its grace period after an
// alert; after it, with repeat_notifications, an alert that stays open
// runs the callbacks again, without opening a second alert.
func TestLegacyAlertsGraceRepeat(t *testing.T) {
	h := nodetest.Start(t, nodetest.WithConfig(func(c *config.Config) { c.EnableLegacyAlerts = true }))
	root := nodetest.AsRoot()
	hk := startHook(t)
	allowURL(t, h, hk.url())
	sid := webStream(t, h, root)
	hookCallback(t, h, sid, "hook", hk.url(), root)
	h.Do("POST", "/streams/"+sid+"/alerts/conditions", map[string]any{"type": "field_content_value", "title": "failed",
		"parameters": map[string]any{"field": "status", "value": "failed", "grace": 1, "backlog": 0, "repeat_notifications": true}},
		root).Want(t, http.StatusCreated)
	_, addr := h.CreateInput(httpInput)
	check := func(wantPosts int) {
		t.Helper()
		if err := h.Node.Alerts.LegacyChecker.Check(context.Background()); err != nil {
			t.Fatal(err)
		}
		if n := len(hk.received()); n != wantPosts {
			t.Fatalf("%d callback posts, want %d", n, wantPosts)
		}
	}
	postFailed := func() {
		t.Helper()
		body := gelfJSON("web-1", "payment", float64(h.Clock.Now().UnixMilli())/1000, `,"_status":"failed"`)
		resp, err := http.Post("http://"+addr.String()+"/gelf", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	postFailed()
	h.WaitProcessed(1)
	h.Clock.Advance(time.Second)
	check(1)
	postFailed()
	h.WaitProcessed(2)
	h.Clock.Advance(30 * time.Second)
	check(1) // in grace: not checked
	postFailed()
	h.WaitProcessed(3)
	h.Clock.Advance(31 * time.Second) // grace over, a message in the last check interval
	check(2)
	if l := h.Do("GET", "/streams/"+sid+"/alerts/paginated", nil, root).Want(t, http.StatusOK); l.Get("total").Int() != 1 ||
		l.Get("alerts.0.description").String() != `Stream received messages matching <status:"failed"> (Current grace time: 1 minutes)` {
		t.Errorf("alerts: %s", l.Body)
	}
}
