package node_test

import (
	"context"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/loggate/loggate/cmd/loggate/config"
	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
	"github.com/loggate/loggate/internal/smtptest"
	"github.com/loggate/loggate/router/api"
)

// hook is a real HTTP listener that records what notifications post.
type hook struct {
	srv    *httptest.Server
	mu     sync.Mutex
	posts  []hookPost
	status int
}

type hookPost struct {
	method, contentType string
	body                []byte
}

func startHook(t *testing.T) *hook {
	h := &hook{status: http.StatusOK}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		h.posts = append(h.posts, hookPost{r.Method, r.Header.Get("Content-Type"), b})
		status := h.status
		h.mu.Unlock()
		w.WriteHeader(status)
	}))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *hook) url() string { return h.srv.URL + "/hook" }

// hookNotification puts hk's URL on the allow-list of h and creates an
// HTTP notification to it; it returns the notification's id.
func hookNotification(t *testing.T, h *nodetest.Harness, hk *hook, title string) string {
	t.Helper()
	allowURL(t, h, hk.url())
	return h.Do("POST", "/events/notifications", map[string]any{"title": title, "description": "d",
		"config": map[string]any{"type": "http-notification-v1", "url": hk.url()}}, nodetest.AsRoot()).Want(t, http.StatusOK).Get("id").String()
}

func (h *hook) received() []hookPost {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]hookPost(nil), h.posts...)
}

// allowURL puts url on the URL allow-list.
func allowURL(t *testing.T, h *nodetest.Harness, url string) {
	h.Do("PUT", "/system/urlwhitelist", map[string]any{"disabled": false, "entries": []map[string]any{
		{"id": "a9a4cbd2-1b6b-4b37-9a4a-0c1f5e3b7e10", "type": "literal", "value": url, "title": "hook"}}}, nodetest.AsRoot()).Want(t, http.StatusNoContent)
}

// countDefinition is an aggregation definition: more than min messages per
// source in a 60 s window, every 60 s.
func countDefinition(title string, min int, notifications ...string) map[string]any {
	refs := []map[string]any{}
	for _, n := range notifications {
		refs = append(refs, map[string]any{"notification_id": n, "notification_parameters": nil})
	}
	return map[string]any{
		"title": title, "description": "", "priority": 3, "alert": true,
		"config": map[string]any{"type": "aggregation-v1", "query": "", "query_parameters": []any{}, "streams": []string{},
			"group_by": []string{"source"}, "series": []map[string]any{{"id": "c", "function": "count", "field": nil}},
			"conditions": map[string]any{"expression": map[string]any{"expr": ">",
				"left": map[string]any{"expr": "number-ref", "ref": "c"}, "right": map[string]any{"expr": "number", "value": min}}},
			"search_within_ms": 60000, "execute_every_ms": 60000},
		"field_spec": map[string]any{"host": map[string]any{"data_type": "string",
			"providers": []map[string]any{{"type": "template-v1", "template": "${source.source}", "require_values": false}}}},
		"key_spec":              []string{"host"},
		"notification_settings": map[string]any{"grace_period_ms": 0, "backlog_size": 5},
		"notifications":         refs,
	}
}

// runAlerts moves the schedulers along until done holds: the clock has
// been moved, so the lease is renewed first.
func runAlerts(t *testing.T, h *nodetest.Harness, done func() bool) {
	t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(20 * time.Second)
	for !done() {
		if err := h.Node.Nodes.Beat(ctx); err != nil {
			t.Fatal(err)
		}
		_, _ = h.Node.Alerts.Events.RunDue(ctx)
		_, _ = h.Node.Alerts.Deliveries.RunDue(ctx)
		if time.Now().After(deadline) {
			t.Fatalf("alerts did not get there; log:\n%s", h.Logs())
		}
		time.Sleep(5 * time.Millisecond) // polling an observable condition
	}
}

func iso(t time.Time) string { return t.UTC().Format(api.TimeLayout) }

// An aggregation definition fires on the window that has more than two
// messages of one source; its HTTP notification posts Graylog 4.0's
// payload, and the event search finds the event.
func TestAlertHTTPNotification(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	hk := startHook(t)
	nid := hookNotification(t, h, hk, "hook")
	t0 := h.Clock.Now().UTC().Truncate(time.Millisecond)
	def := h.Do("POST", "/events/definitions", countDefinition("Errors", 2, nid), root).Want(t, http.StatusOK)
	did := def.Get("id").String()

	_, addr := h.CreateInput(httpInput)
	at := float64(t0.Add(10*time.Second).UnixMilli()) / 1000
	for _, src := range []string{"web-1", "web-1", "web-1", "web-2"} {
		postGELF(t, addr, src, "failed "+src, at)
	}
	h.WaitProcessed(4)
	h.Clock.Advance(61 * time.Second)
	runAlerts(t, h, func() bool { return len(hk.received()) == 1 })

	post := hk.received()[0]
	if post.method != "POST" || post.contentType != "application/json" {
		t.Errorf("posted %s %s", post.method, post.contentType)
	}
	jobs := h.Do("GET", "/scheduler/jobs", nil, root).Want(t, http.StatusOK)
	notifJob := jobs.Get(`job_definitions.#(config.notification_id=="` + nid + `").id`).String()
	host, _ := os.Hostname()
	body := gjson.ParseBytes(post.body)
	want := map[string]any{
		"event_definition_id": did, "event_definition_type": "aggregation-v1", "event_definition_title": "Errors",
		"event_definition_description": "", "job_definition_id": notifJob,
		"event.event_definition_type": "aggregation-v1", "event.event_definition_id": did, "event.origin_context": nil,
		"event.timestamp": iso(t0.Add(60 * time.Second)), "event.timestamp_processing": iso(t0.Add(61 * time.Second)),
		"event.timerange_start": iso(t0.Add(time.Millisecond)), "event.timerange_end": iso(t0.Add(60 * time.Second)),
		"event.streams": `["000000000000000000000002"]`, "event.source_streams": `["000000000000000000000001"]`,
		"event.message": "Errors: web-1 - count()=3.0", "event.source": host, "event.key_tuple": `["web-1"]`,
		"event.key": "web-1", "event.priority": int64(3), "event.alert": true, "event.fields": `{"host":"web-1"}`,
		// 4.0's backlog of an aggregation is the window's messages that
		// match the query and streams, whatever their group.
		"backlog.#": int64(4), `backlog.#(source=="web-2").index`: "graylog_0", `backlog.#(source=="web-2").message`: "failed web-2",
		`backlog.#(source=="web-2").timestamp`: iso(t0.Add(10 * time.Second)), `backlog.#(source=="web-2").stream_ids`: `["000000000000000000000001"]`,
		`backlog.#(source=="web-2").fields.level`: int64(3),
	}
	for path, w := range want {
		got := body.Get(path)
		var ok bool
		switch w := w.(type) {
		case nil:
			ok = got.Type == gjson.Null && got.Exists()
		case string:
			ok = got.String() == w || (got.IsArray() || got.IsObject()) && jsonEqual(got.Raw, w)
		case int64:
			ok = got.Int() == w
		case bool:
			ok = got.Bool() == w && got.Exists()
		}
		if !ok {
			t.Errorf("%s = %s, want %v", path, got.Raw, w)
		}
	}
	for _, path := range []string{"job_trigger_id", "event.id", "backlog.0.id"} {
		if body.Get(path).String() == "" {
			t.Errorf("%s is empty", path)
		}
	}
	if n := len(body.Get("event.id").String()); n != 26 {
		t.Errorf("event id %q is no ULID", body.Get("event.id").String())
	}
	if body.Get("backlog.0.fields.source").Exists() || body.Get("backlog.0.fields.message").Exists() {
		t.Errorf("backlog fields repeat what the message has apart: %s", body.Get("backlog.0.fields").Raw)
	}

	found := h.Do("POST", "/events/search", map[string]any{"query": "", "page": 1, "per_page": 10,
		"timerange": map[string]any{"type": "relative", "range": 3600}, "filter": map[string]any{"alerts": "only", "event_definitions": []string{did}}},
		root).Want(t, http.StatusOK)
	if found.Get("total_events").Int() != 1 || found.Get("events.0.event.id").String() != body.Get("event.id").String() ||
		found.Get("events.0.index_name").String() != "gl-events_0" || found.Get("events.0.event.key").String() != "web-1" ||
		found.Get("context.event_definitions."+did+".title").String() != "Errors" ||
		found.Get("context.streams.000000000000000000000001.title").String() == "" {
		t.Errorf("event search: %s", found.Body)
	}
	none := h.Do("POST", "/events/search", map[string]any{"filter": map[string]any{"alerts": "exclude"}}, root).Want(t, http.StatusOK)
	if none.Get("total_events").Int() != 0 {
		t.Errorf("alerts excluded: %s", none.Body)
	}
	// Events stay out of message searches, as Graylog keeps them out.
	msgs := h.Do("GET", "/search/universal/relative?query=*&range=0", nil, root).Want(t, http.StatusOK)
	if n := msgs.Get("total_results").Int(); n != 4 {
		t.Errorf("a message search finds %d documents, want the 4 messages", n)
	}
	list := h.Do("GET", "/events/definitions", nil, root).Want(t, http.StatusOK)
	if !list.Get("context.scheduler."+did+".is_scheduled").Bool() || list.Get("event_definitions.0.id").String() != did {
		t.Errorf("listing: %s", list.Body)
	}
}

func jsonEqual(a, b string) bool {
	var x, y any
	return json.Unmarshal([]byte(a), &x) == nil && json.Unmarshal([]byte(b), &y) == nil && reflectEqual(x, y)
}

func reflectEqual(x, y any) bool {
	a, _ := json.Marshal(x)
	b, _ := json.Marshal(y)
	return string(a) == string(b)
}

// The test endpoints deliver Graylog's dummy event at once: by email
// through the transport_email_* configuration, and over HTTP only to URLs
// on the allow-list, failing with 4.0's messages.
func TestAlertNotificationTests(t *testing.T) {
	mail := smtptest.Start(t, smtptest.Options{})
	h := nodetest.Start(t, nodetest.WithConfig(func(c *config.Config) {
		c.Email = config.Email{Enabled: true, Hostname: mail.Host, Port: mail.Port, ConnectTimeout: time.Second, SocketTimeout: 5 * time.Second}
	}))
	root := nodetest.AsRoot()
	email := map[string]any{"title": "mail", "description": "", "config": map[string]any{"type": "email-notification-v1",
		"email_recipients": []string{"ops@example.org"}}}
	h.Do("POST", "/events/notifications/test", email, root).Want(t, http.StatusOK)
	got, err := mail.Messages()
	if err != nil || len(got) != 1 {
		t.Fatalf("%d messages, %v", len(got), err)
	}
	if !strings.Contains(got[0].Content, "Message:              Notification test message triggered from user <admin>") ||
		got[0].MailFrom != "graylog@example.org" {
		t.Errorf("test mail from %s:\n%s", got[0].MailFrom, got[0].Content)
	}

	hk := startHook(t)
	web := map[string]any{"title": "hook", "description": "", "config": map[string]any{"type": "http-notification-v1", "url": hk.url()}}
	h.Do("POST", "/events/notifications/test", web, root).WantError(t, http.StatusInternalServerError, "URL <"+hk.url()+"> is not whitelisted.")
	allowURL(t, h, hk.url())
	id := h.Do("POST", "/events/notifications", web, root).Want(t, http.StatusOK).Get("id").String()
	h.Do("POST", "/events/notifications/"+id+"/test", nil, root).Want(t, http.StatusOK)
	if p := hk.received(); len(p) != 1 || gjson.GetBytes(p[0].body, "event.id").String() != "TEST_NOTIFICATION_ID" ||
		gjson.GetBytes(p[0].body, "event_definition_title").String() != "Event Definition Test Title" {
		t.Fatalf("test posts: %v", p)
	}
	hk.mu.Lock()
	hk.status = http.StatusBadGateway
	hk.mu.Unlock()
	h.Do("POST", "/events/notifications/"+id+"/test", nil, root).WantError(t, http.StatusInternalServerError,
		"Expected successful HTTP response [2xx] but got [502]. "+hk.url())
	h.Do("POST", "/events/notifications/nope/test", nil, root).WantError(t, http.StatusNotFound, "Notification nope doesn't exist")
}

// The notifications API answers as 4.0: validation results, required
// properties, ids that must match, and a delete that takes the
// notification out of the definitions using it.
func TestAlertNotificationsAPI(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	bad := h.Do("POST", "/events/notifications", map[string]any{"title": "", "description": "",
		"config": map[string]any{"type": "email-notification-v1"}}, root).Want(t, http.StatusBadRequest)
	if !bad.Get("failed").Bool() || bad.Get("errors.title.0").String() != "Notification title cannot be empty." ||
		bad.Get("errors.recipients.0").String() != "Email Notification must have email recipients or user recipients." || bad.Get("type").Exists() {
		t.Errorf("validation: %s", bad.Body)
	}
	h.Do("POST", "/events/notifications", map[string]any{"title": "x", "config": map[string]any{"type": "http-notification-v1", "url": "http://a"}},
		root).WantError(t, http.StatusBadRequest, "Missing required properties: description")
	h.Do("POST", "/events/notifications", map[string]any{"title": "x", "description": "", "config": map[string]any{"type": "http-notification-v1", "url": "http://a", "color": 1}},
		root).WantError(t, http.StatusBadRequest, "Unable to map property color")
	created := h.Do("POST", "/events/notifications", map[string]any{"title": "mail", "description": "",
		"config": map[string]any{"type": "email-notification-v1", "user_recipients": []string{"admin"}}}, root).Want(t, http.StatusOK)
	id := created.Get("id").String()
	if created.Get("config.sender").String() != "graylog@example.org" || created.Get("config.subject").String() != "Graylog event notification: ${event_definition_title}" ||
		!strings.Contains(created.Get("config.body_template").String(), "${foreach event.fields field}") {
		t.Errorf("email defaults: %s", created.Body)
	}
	h.Do("PUT", "/events/notifications/"+id, map[string]any{"id": "other", "title": "mail", "description": "",
		"config": map[string]any{"type": "email-notification-v1", "email_recipients": []string{"a@example.org"}}}, root).
		WantError(t, http.StatusBadRequest, "Notification IDs don't match")
	def := h.Do("POST", "/events/definitions?schedule=false", countDefinition("uses mail", 1, id), root).Want(t, http.StatusOK).Get("id").String()
	list := h.Do("GET", "/events/notifications", nil, root).Want(t, http.StatusOK)
	if list.Get("total").Int() != 1 || list.Get("notifications.0.id").String() != id {
		t.Errorf("listing: %s", list.Body)
	}
	h.Do("DELETE", "/events/notifications/"+id, nil, root).Want(t, http.StatusNoContent)
	h.Do("GET", "/events/notifications/"+id, nil, root).WantError(t, http.StatusNotFound, "Notification "+id+" doesn't exist")
	if n := h.Do("GET", "/events/definitions/"+def, nil, root).Want(t, http.StatusOK).Get("notifications.#").Int(); n != 0 {
		t.Errorf("the definition still names the deleted notification")
	}
	types := h.Do("GET", "/events/notifications/legacy/types", nil, root).Want(t, http.StatusOK)
	if !types.Get(`types.org\.graylog2\.alarmcallbacks\.HTTPAlarmCallback.configuration.url`).Exists() {
		t.Errorf("legacy types: %s", types.Body)
	}
}

// A delivery that fails is shown as a system notification and tried again
// with back-off; once it gets through, the system notification goes.
func TestAlertDeliveryRetried(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	hk := startHook(t)
	hk.status = http.StatusServiceUnavailable
	nid := hookNotification(t, h, hk, "flaky hook")
	t0 := h.Clock.Now()
	h.Do("POST", "/events/definitions", countDefinition("Errors", 0, nid), root).Want(t, http.StatusOK)
	_, addr := h.CreateInput(httpInput)
	postGELF(t, addr, "web-1", "failed", float64(t0.Add(5*time.Second).UnixMilli())/1000)
	h.WaitProcessed(1)
	h.Clock.Advance(61 * time.Second)
	noticeFor := func() gjson.Result {
		return h.Do("GET", "/system/notifications", nil, root).Want(t, http.StatusOK).Get(`notifications.#(details.title=="Event notification \"flaky hook\" failed.")`)
	}
	runAlerts(t, h, func() bool { return len(hk.received()) == 1 && noticeFor().Exists() })
	if d := noticeFor().Get("details.description").String(); !strings.Contains(d, "[503]") {
		t.Errorf("system notification: %s", noticeFor().Raw)
	}
	hk.mu.Lock()
	hk.status = http.StatusOK
	hk.mu.Unlock()
	// Not before the back-off has passed.
	_, _ = h.Node.Alerts.Deliveries.RunDue(context.Background())
	if n := len(hk.received()); n != 1 {
		t.Fatalf("retried at once: %d posts", n)
	}
	h.Clock.Advance(5 * time.Second)
	runAlerts(t, h, func() bool { return len(hk.received()) == 2 && !noticeFor().Exists() })
	if a, b := gjson.GetBytes(hk.received()[0].body, "event.id").String(), gjson.GetBytes(hk.received()[1].body, "event.id").String(); a != b || a == "" {
		t.Errorf("the retry sent event %s, the first try %s", b, a)
	}
}

// The definitions API answers as 4.0: 200 on create, validation results
// as 400 bodies, ids that must match, schedule state in the listing,
// permissions per definition.
func TestAlertDefinitionsAPI(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	bad := countDefinition("", 1)
	bad["config"].(map[string]any)["execute_every_ms"] = 0
	v := h.Do("POST", "/events/definitions", bad, root).Want(t, http.StatusBadRequest)
	if !v.Get("failed").Bool() || v.Get("errors.title.0").String() != "Event Definition title cannot be empty." ||
		v.Get("errors.execute_every_ms.0").String() != "Filter & Aggregation execute_every_ms must be greater than 0." || v.Get("type").Exists() {
		t.Errorf("validation: %s", v.Body)
	}
	if r := h.Do("POST", "/events/definitions/validate", bad, root).Want(t, http.StatusOK); !r.Get("failed").Bool() || r.Get("errors.title").Exists() {
		t.Errorf("validate (the config only): %s", r.Body)
	}
	h.Do("POST", "/events/definitions", map[string]any{"title": "x"}, root).WantError(t, http.StatusBadRequest, "Missing required properties: description")
	created := h.Do("POST", "/events/definitions?schedule=false", countDefinition("Errors", 1), root).Want(t, http.StatusOK)
	id := created.Get("id").String()
	if created.Get("storage.0.type").String() != "persist-to-streams-v1" || created.Get("config.series.0.id").String() != "c" {
		t.Errorf("created: %s", created.Body)
	}
	state := func() gjson.Result {
		return h.Do("GET", "/events/definitions/"+id+"/with-context", nil, root).Want(t, http.StatusOK).Get("context.scheduler")
	}
	if state().Get("is_scheduled").Bool() {
		t.Error("scheduled with schedule=false")
	}
	h.Do("PUT", "/events/definitions/"+id+"/schedule", nil, root).Want(t, http.StatusNoContent)
	if s := state(); !s.Get("is_scheduled").Bool() || s.Get("status").String() != "runnable" || s.Get("data.type").String() != "event-processor-execution-v1" {
		t.Errorf("after schedule: %s", s.Raw)
	}
	h.Do("PUT", "/events/definitions/"+id+"/unschedule", nil, root).Want(t, http.StatusNoContent)
	if state().Get("is_scheduled").Bool() {
		t.Error("still scheduled after unschedule")
	}
	upd := countDefinition("Errors renamed", 1)
	upd["id"] = "000000000000000000000abc"
	if r := h.Do("PUT", "/events/definitions/"+id, upd, root).Want(t, http.StatusBadRequest); r.Get("errors.id.0").String() != "Event definition IDs don't match" {
		t.Errorf("id mismatch: %s", r.Body)
	}
	upd["id"] = id
	if r := h.Do("PUT", "/events/definitions/"+id, upd, root).Want(t, http.StatusOK); r.Get("title").String() != "Errors renamed" {
		t.Errorf("update: %s", r.Body)
	}
	if !state().Get("is_scheduled").Bool() {
		t.Error("PUT with the default schedule=true did not schedule")
	}
	h.CreateUser("viewer", "viewerpass1", "Reader")
	viewer := nodetest.Basic("viewer", "viewerpass1")
	h.Do("GET", "/events/definitions/"+id, nil, viewer).WantError(t, http.StatusForbidden, "Not authorized")
	if n := h.Do("GET", "/events/definitions", nil, viewer).Want(t, http.StatusOK).Get("total").Int(); n != 0 {
		t.Errorf("a reader lists %d definitions", n)
	}
	h.Do("POST", "/events/definitions", countDefinition("mine", 1), viewer).Want(t, http.StatusForbidden)
	types := h.Do("GET", "/events/entity_types", nil, viewer).Want(t, http.StatusOK)
	if types.Get("processor_types.0").String() != "aggregation-v1" || types.Get("notification_types.#").Int() != 3 ||
		types.Get("aggregation_functions").Raw != `["avg","card","count","max","min","stddev","sum","sumofsquares","variance"]` {
		t.Errorf("entity types: %s", types.Body)
	}
	h.Do("DELETE", "/events/definitions/"+id, nil, root).Want(t, http.StatusNoContent)
	h.Do("DELETE", "/events/definitions/"+id, nil, root).Want(t, http.StatusNoContent)
	h.Do("GET", "/events/definitions/"+id, nil, root).WantError(t, http.StatusNotFound, "Event definition "+id+" doesn't exist")
	if n := h.Do("GET", "/scheduler/jobs", nil, root).Want(t, http.StatusOK).Get(`job_definitions.#(config.event_definition_id=="` + id + `")#`).Array(); len(n) != 0 {
		t.Errorf("the deleted definition's job is left: %v", n)
	}
	h.Do("GET", "/scheduler/jobs", nil, viewer).Want(t, http.StatusForbidden)
}

// A filter definition (no series) makes one event per matching message,
// pointing at it.
func TestAlertFilterDefinition(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	def := countDefinition("Payment failed", 0)
	cfg := def["config"].(map[string]any)
	cfg["query"], cfg["group_by"], cfg["series"], cfg["conditions"] = "source:pay-1", []string{}, []any{}, nil
	def["alert"] = false
	t0 := h.Clock.Now()
	did := h.Do("POST", "/events/definitions", def, root).Want(t, http.StatusOK).Get("id").String()
	_, addr := h.CreateInput(httpInput)
	at := float64(t0.Add(10*time.Second).UnixMilli()) / 1000
	for _, src := range []string{"pay-1", "pay-2", "pay-1"} {
		postGELF(t, addr, src, "declined", at)
	}
	h.WaitProcessed(3)
	h.Clock.Advance(61 * time.Second)
	search := func() *nodetest.Response {
		return h.Do("POST", "/events/search", map[string]any{"filter": map[string]any{"alerts": "exclude", "event_definitions": []string{did}},
			"timerange": map[string]any{"type": "relative", "range": 0}}, root).Want(t, http.StatusOK)
	}
	runAlerts(t, h, func() bool { return search().Get("total_events").Int() == 2 })
	found := search()
	msgs := h.Do("GET", "/search/universal/relative?query=source:pay-1&range=0", nil, root).Want(t, http.StatusOK)
	for i := range 2 {
		ev := found.Get("events." + strconv.Itoa(i) + ".event")
		origin := ev.Get("origin_context").String()
		if ev.Get("message").String() != "Payment failed" || ev.Get("timerange_start").Type != gjson.Null || ev.Get("alert").Bool() ||
			!msgs.Get(`messages.#(message._id=="`+strings.TrimPrefix(origin, "urn:graylog:message:es:graylog_0:")+`")`).Exists() ||
			ev.Get("timestamp").String() != iso(t0.Add(10*time.Second).Truncate(time.Millisecond)) {
			t.Errorf("event %d: %s", i, ev.Raw)
		}
	}
}

// TestEventSearchPageBounds: page and per_page are Java ints in Graylog; a
// page whose offset overflowed an int made the search panic (a 500).
func TestEventSearchPageBounds(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	for _, body := range []string{`{"page":4611686018427387905,"per_page":2}`, `{"page":2,"per_page":4611686018427387905}`, `{"page":2147483648}`} {
		h.Do("POST", "/events/search", body, root).WantError(t, http.StatusBadRequest, "page and per_page must be at most 2147483647")
	}
	h.Do("POST", "/events/search", `{"page":2147483647,"per_page":2147483647}`, root).Want(t, http.StatusOK)
}

// TestAlertHugeBacklog: a backlog_size past what a search reads is read up
// to the result window and the notification goes out. The backlog search
// was refused, and the delivery tried again every 5 s for ever, never
// counted against its attempts.
func TestAlertHugeBacklog(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	hk := startHook(t)
	nid := hookNotification(t, h, hk, "hook")
	t0 := h.Clock.Now().UTC().Truncate(time.Millisecond)
	def := countDefinition("Errors", 2, nid)
	def["notification_settings"] = map[string]any{"grace_period_ms": 0, "backlog_size": int64(math.MaxInt64)}
	h.Do("POST", "/events/definitions", def, root).Want(t, http.StatusOK)
	_, addr := h.CreateInput(httpInput)
	at := float64(t0.Add(10*time.Second).UnixMilli()) / 1000
	for _, src := range []string{"web-1", "web-1", "web-1"} {
		postGELF(t, addr, src, "failed "+src, at)
	}
	h.WaitProcessed(3)
	h.Clock.Advance(61 * time.Second)
	runAlerts(t, h, func() bool { return len(hk.received()) == 1 })
	if n := gjson.GetBytes(hk.received()[0].body, "backlog.#").Int(); n != 3 {
		t.Errorf("backlog of %d messages, want the window's 3", n)
	}
}
