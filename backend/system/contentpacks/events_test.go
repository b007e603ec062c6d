package contentpacks_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/auth/permission"
	"github.com/loggate/loggate/backend/alerts/definitions"
	alerts "github.com/loggate/loggate/backend/alerts/entity"
	"github.com/loggate/loggate/backend/alerts/notify"
	"github.com/loggate/loggate/backend/alerts/scheduler"
	"github.com/loggate/loggate/backend/logs/grok"
	"github.com/loggate/loggate/backend/logs/streams"
	"github.com/loggate/loggate/backend/store/bolt"
	"github.com/loggate/loggate/backend/system/contentpacks"
	"github.com/loggate/loggate/router/routertest"
)

// eventsEnv is an environment with the real event definitions,
// notifications, scheduler and owners over the pack's store.
type eventsEnv struct {
	*env
	sched  *scheduler.Scheduler
	defs   *definitions.Service
	notes  *notify.Service
	owners alerts.Owners
}

func newEventsEnv(t *testing.T) *eventsEnv {
	st, err := bolt.Open(filepath.Join(t.TempDir(), "db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	now := func() time.Time { return time.Date(2021, 3, 4, 5, 6, 7, 0, time.UTC) }
	n := 0
	ids := func() string { n++; return fmt.Sprintf("%024x", n) }
	e := &eventsEnv{env: &env{t: t, g: &fakeGrok{ps: map[string]grok.Pattern{}}, ss: &fakeStreams{ss: map[string]*streams.Stream{}}}}
	e.sched = scheduler.New(st, now, "node", func() bool { return false }, ids, scheduler.Options{})
	e.defs = definitions.NewService(st, e.sched)
	e.notes = notify.NewService(st, e.sched, e.defs)
	e.owners = alerts.Owners{St: st, Now: now}
	svc := contentpacks.NewService(st, contentpacks.Deps{Grok: e.g, Streams: e.ss, IndexSets: defaultIndexSet{},
		EventDefinitions: e.defs, Notifications: e.notes, Owners: e.owners}, now)
	e.h = routertest.Handler(contentpacks.NewHandler(svc).Routes())
	return e
}

// doAs sends a request as the user of the id with the permissions.
func (e *eventsEnv) doAs(userID, method, path, body string, perms ...string) *httptest.ResponseRecorder {
	e.t.Helper()
	set, err := permission.NewSet(perms)
	if err != nil {
		e.t.Fatal(err)
	}
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r = r.WithContext(auth.WithPrincipal(r.Context(), &auth.Principal{UserID: userID, Username: userID, Permissions: set}))
	w := httptest.NewRecorder()
	e.h.ServeHTTP(w, r)
	return w
}

// counts returns how many definitions, notifications and scheduler jobs
// (of definitions and of notifications) there are.
func (e *eventsEnv) counts() (defs, notes, defJobs, noteJobs int) {
	e.t.Helper()
	ctx := context.Background()
	ds, err := e.defs.All(ctx)
	if err != nil {
		e.t.Fatal(err)
	}
	ns, err := e.notes.All(ctx)
	if err != nil {
		e.t.Fatal(err)
	}
	jobs, err := e.sched.Jobs(ctx)
	if err != nil {
		e.t.Fatal(err)
	}
	for _, j := range jobs {
		switch j.Type() {
		case definitions.TypeExecutionJob:
			defJobs++
		case notify.TypeExecutionJob:
			noteJobs++
		}
	}
	return len(ds), len(ns), defJobs, noteJobs
}

var eventsAdmin = append(slices.Clone(admin), "eventdefinitions:*", "eventnotifications:*")

const countSeries = `"series":[{"id":"cnt","function":"count","field":null}],
 "conditions":{"expression":{"expr":">","left":{"expr":"number-ref","ref":"cnt"},"right":{"expr":"number","value":10}}}`

// defEntity is an event definition entity: its title, the streams and
// notifications (pack entity ids) and the rest of its config and data.
func defEntity(id, title, streams, notifications, series, scheduled string) string {
	var refs []string
	for _, n := range strings.Fields(notifications) {
		refs = append(refs, `{"notification_id":`+sref(n)+`,"notification_parameters":null}`)
	}
	return entity(id, "event_definition", `{"title":`+title+`,"description":`+sref("from a pack")+`,
	 "priority":{"@type":"integer","@value":3},"alert":{"@type":"boolean","@value":true},
	 "config":{"type":"aggregation-v1","query":`+sref("level:error")+`,"streams":[`+streams+`],"group_by":[],`+series+`,
	  "search_within_ms":60000,"execute_every_ms":30000},
	 "field_spec":{},"key_spec":[],"notification_settings":{"grace_period_ms":1000,"backlog_size":5},
	 "notifications":[`+strings.Join(refs, ",")+`],
	 "storage":[{"type":"persist-to-streams-v1","streams":["000000000000000000000002"]}]`+scheduled+`}`)
}

func httpNote(id, url string) string {
	return entity(id, "notification", `{"title":`+sref("hook "+id)+`,"description":`+sref("")+`,
	 "config":{"type":"http-notification-v1","url":`+url+`}}`)
}

func emailNote(id, recipients string) string {
	return entity(id, "notification", `{"title":`+sref("mail "+id)+`,"description":`+sref("d")+`,
	 "config":{"type":"email-notification-v1","sender":`+sref("me@example.org")+`,"subject":`+sref("s")+`,
	 "body_template":`+sref("b")+`,"email_recipients":[`+recipients+`],"user_recipients":[]}}`)
}

func TestEventEntitiesInstallUninstall(t *testing.T) {
	e := newEventsEnv(t)
	ents := []string{
		defEntity("d1", `{"@type":"parameter","@value":"TITLE"}`, `"e2"`, "n1 n2", countSeries, `,"is_scheduled":{"@type":"parameter","@value":"ON"}`),
		// A filter (no series) over every stream, scheduled by default.
		defEntity("d2", sref("filter"), "", "", `"series":[],"conditions":null`, ""),
		defEntity("d3", sref("off"), `"e2"`, "n1", countSeries, `,"is_scheduled":{"@type":"boolean","@value":false}`),
		httpNote("n1", `{"@type":"parameter","@value":"URL"}`),
		emailNote("n2", `"ops@example.org"`),
		entity("n3", "notification", `{"title":`+sref("legacy")+`,"description":`+sref("")+`,"config":{"type":"legacy-alarm-callback-notification-v1",
		 "callback_type":`+sref(notify.CallbackHTTP)+`,"configuration":{"url":"https://legacy.example.org/"}}}`),
		streamEntity(sref("web")),
	}
	params := `{"name":"TITLE","title":"t","description":"","type":"string"},{"name":"ON","title":"o","description":"","type":"boolean"},
	 {"name":"URL","title":"u","description":"","type":"string"},{"name":"OFF","title":"o","description":"","type":"boolean"},
	 {"name":"SRC","title":"s","description":"","type":"string"}`
	e.want(e.do("POST", "/system/content_packs", pack("ev", 1, params, strings.Join(ents, ","))), 201, nil)
	var in contentpacks.Installation
	e.want(e.do("POST", "/system/content_packs/ev/1/installations", `{"parameters":{"TITLE":`+sref("errors")+`,"ON":{"@type":"boolean","@value":true},
	 "URL":`+sref("https://hooks.example.org/a")+`,"OFF":{"@type":"boolean","@value":false},"SRC":`+sref("web")+`}}`, eventsAdmin...), 200, &in)
	var order []string
	ids := map[string]string{}
	for _, d := range in.Entities {
		order = append(order, d.ContentPackEnID)
		ids[d.ContentPackEnID] = d.ID
	}
	if !slices.Equal(order, []string{"e2", "n1", "n2", "n3", "d1", "d2", "d3"}) {
		t.Errorf("installed in order %v", order)
	}
	ctx := context.Background()
	cases := []struct {
		entity, title string
		streams       []string
		notifications []string
		series        int
		scheduled     bool
	}{
		{"d1", "errors", []string{ids["e2"]}, []string{ids["n1"], ids["n2"]}, 1, true},
		{"d2", "filter", []string{}, nil, 0, true},
		{"d3", "off", []string{ids["e2"]}, []string{ids["n1"]}, 1, false},
	}
	for _, c := range cases {
		d, err := e.defs.Get(ctx, ids[c.entity])
		if err != nil {
			t.Fatalf("%s: %v", c.entity, err)
		}
		var notes []string
		for _, n := range d.Notifications {
			notes = append(notes, n.NotificationID)
		}
		if d.Title != c.title || d.Description != "from a pack" || d.Priority != 3 || !d.Alert || d.Config.Query != "level:error" ||
			!slices.Equal(d.Config.Streams, c.streams) || !slices.Equal(notes, c.notifications) || len(d.Config.Series) != c.series ||
			d.Config.SearchWithinMs != 60000 || d.Config.ExecuteEveryMs != 30000 || d.NotificationSettings.GracePeriodMs != 1000 ||
			d.NotificationSettings.BacklogSize != 5 {
			t.Errorf("%s: definition %+v", c.entity, d)
		}
		if on, err := e.defs.Scheduled(ctx, d.ID); err != nil || on != c.scheduled {
			t.Errorf("%s: scheduled %v %v, want %v", c.entity, on, err, c.scheduled)
		}
	}
	n1, err := e.notes.Get(ctx, ids["n1"])
	if err != nil || n1.Config.Type != notify.TypeHTTP || n1.Config.URL != "https://hooks.example.org/a" || n1.Title != "hook n1" {
		t.Errorf("notification n1 %+v %v", n1, err)
	}
	n2, err := e.notes.Get(ctx, ids["n2"])
	if err != nil || n2.Config.Sender != "me@example.org" || !slices.Equal(n2.Config.EmailRecipients, []string{"ops@example.org"}) {
		t.Errorf("notification n2 %+v %v", n2, err)
	}
	n3, err := e.notes.Get(ctx, ids["n3"])
	if err != nil || n3.Config.CallbackType != notify.CallbackHTTP || n3.Config.Configuration["url"] != "https://legacy.example.org/" {
		t.Errorf("notification n3 %+v %v", n3, err)
	}
	if d, n, dj, nj := e.counts(); d != 3 || n != 3 || dj != 2 || nj != 3 {
		t.Errorf("%d definitions, %d notifications, %d definition jobs, %d notification jobs", d, n, dj, nj)
	}
	// The installer owns what the pack created, as in Graylog 4.0.
	for _, c := range []struct{ typ, id string }{{alerts.TypeDefinition, ids["d1"]}, {alerts.TypeNotification, ids["n2"]}} {
		if o, err := e.owners.Owner(ctx, c.typ, c.id); err != nil || o != "grn::::user:id" {
			t.Errorf("owner of %s %s: %q %v", c.typ, c.id, o, err)
		}
	}

	var un struct {
		Uninstalled contentpacks.Uninstallation `json:"uninstalled"`
	}
	e.want(e.do("DELETE", "/system/content_packs/ev/installations/"+in.ID, "", eventsAdmin...), 200, &un)
	if len(un.Uninstalled.Entities) != 7 || len(un.Uninstalled.Failed) != 0 {
		t.Errorf("uninstalled %+v", un.Uninstalled)
	}
	if d, n, dj, nj := e.counts(); d != 0 || n != 0 || dj != 0 || nj != 0 || len(e.ss.ss) != 0 {
		t.Errorf("left %d definitions, %d notifications, %d + %d jobs, %d streams", d, n, dj, nj, len(e.ss.ss))
	}
	if owned, _ := e.owners.Owned(ctx, alerts.TypeDefinition); len(owned) != 0 {
		t.Errorf("ownership left %v", owned)
	}
}

func TestEventEntitiesRefused(t *testing.T) {
	e := newEventsEnv(t)
	good := defEntity("d", sref("t"), `"e2"`, "n", countSeries, "")
	cases := []struct {
		name     string
		entities []string
		msg      string
	}{
		{"empty title", []string{defEntity("d", sref(""), "", "", countSeries, ""), streamEntity(sref("web"))},
			"entity d (event_definition): Invalid event definition <>: title: Event Definition title cannot be empty."},
		{"validation", []string{strings.Replace(good, `"search_within_ms":60000`, `"search_within_ms":0`, 1), httpNote("n", sref("https://h/")), streamEntity(sref("web"))},
			"entity d (event_definition): Invalid event definition <t>: search_within_ms: Filter & Aggregation search_within_ms must be greater than 0."},
		{"series without conditions", []string{defEntity("d", sref("t"), "", "", `"series":[{"id":"c","function":"count"}],"conditions":null`, "")},
			"conditions: Aggregation with series must also contain conditions"},
		{"missing property", []string{strings.Replace(defEntity("d", sref("t"), "", "", countSeries, ""), `"query":`+sref("level:error")+`,`, "", 1)},
			"entity d (event_definition): Missing required properties: query"},
		{"unknown function", []string{strings.Replace(good, `"function":"count"`, `"function":"median"`, 1), httpNote("n", sref("https://h/")), streamEntity(sref("web"))},
			"Unknown aggregation function"},
		{"missing notification", []string{good, streamEntity(sref("web"))}, "missing notification (n) for event definition"},
		{"missing stream", []string{good, httpNote("n", sref("https://h/"))}, "missing stream e2 for event definition"},
		{"config type", []string{strings.Replace(good, `"aggregation-v1"`, `"correlation-v1"`, 1)}, `Unsupported event definition config type \"correlation-v1\"`},
		{"http url", []string{httpNote("n", sref(""))}, "entity n (notification): Invalid notification <hook n>: url: HTTP Notification url cannot be empty."},
		{"email recipients", []string{emailNote("n", "")}, "recipients: Email Notification must have email recipients or user recipients."},
		{"notification type", []string{entity("n", "notification", `{"title":`+sref("x")+`,"description":`+sref("")+`,"config":{"type":"slack-notification-v1"}}`)},
			`Unsupported notification config type \"slack-notification-v1\"`},
		{"notification title", []string{entity("n", "notification", `{"description":`+sref("")+`,"config":{"type":"http-notification-v1","url":`+sref("https://h/")+`}}`)},
			"Missing required properties: title"},
	}
	params := `{"name":"OFF","title":"o","description":"","type":"boolean"},{"name":"SRC","title":"s","description":"","type":"string"}`
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			id := fmt.Sprintf("bad%d", i)
			e.want(e.do("POST", "/system/content_packs", pack(id, 1, params, strings.Join(c.entities, ","))), 201, nil)
			w := e.do("POST", "/system/content_packs/"+id+"/1/installations",
				`{"parameters":{"OFF":{"@type":"boolean","@value":false},"SRC":`+sref("web")+`}}`, eventsAdmin...)
			var body struct {
				Type    string `json:"type"`
				Message string `json:"message"`
			}
			if w.Code != 400 || json.Unmarshal(w.Body.Bytes(), &body) != nil || body.Type != "ApiError" || !strings.Contains(w.Body.String(), c.msg) {
				t.Errorf("%d %s, want a 400 ApiError with %q", w.Code, w.Body, c.msg)
			}
			// The refused installation left nothing behind.
			if d, n, dj, nj := e.counts(); d != 0 || n != 0 || dj != 0 || nj != 0 || len(e.ss.ss) != 0 {
				t.Errorf("left %d definitions, %d notifications, %d + %d jobs, %d streams", d, n, dj, nj, len(e.ss.ss))
			}
		})
	}
}

func TestEventEntitiesInstallNeedsPermissions(t *testing.T) {
	e := newEventsEnv(t)
	note := httpNote("n", sref("https://h/"))
	withStream := defEntity("d", sref("t"), `"e2"`, "", countSeries, "") + "," + streamEntity(sref("web"))
	params := `{"name":"OFF","title":"o","description":"","type":"boolean"},{"name":"SRC","title":"s","description":"","type":"string"}`
	values := `{"parameters":{"OFF":{"@type":"boolean","@value":false},"SRC":` + sref("web") + `}}`
	cases := []struct {
		name, entities string
		perms          []string
		want           int
	}{
		{"notification without create", note, []string{"contentpack:*"}, 403},
		{"notification", note, []string{"contentpack:*", "eventnotifications:create"}, 200},
		{"definition without create", defEntity("d", sref("t"), "", "", countSeries, ""), []string{"contentpack:*", "streams:read"}, 403},
		// A definition of no stream searches every stream.
		{"definition without streams:read", defEntity("d", sref("t"), "", "", countSeries, ""), []string{"contentpack:*", "eventdefinitions:create"}, 403},
		{"definition", defEntity("d", sref("t"), "", "", countSeries, ""), []string{"contentpack:*", "eventdefinitions:create", "streams:read"}, 200},
		// It searches the pack's stream: it must be readable.
		{"definition without its stream", withStream, []string{"contentpack:*", "eventdefinitions:create", "streams:create"}, 403},
		{"definition and its stream", withStream, []string{"contentpack:*", "eventdefinitions:create", "streams:create", "streams:read"}, 200},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			id := fmt.Sprintf("p%d", i)
			e.want(e.do("POST", "/system/content_packs", pack(id, 1, params, c.entities)), 201, nil)
			before := len(e.ss.ss)
			bd, bn, _, _ := e.counts()
			w := e.do("POST", "/system/content_packs/"+id+"/1/installations", values, c.perms...)
			if w.Code != c.want {
				t.Fatalf("%d %s, want %d", w.Code, w.Body, c.want)
			}
			if d, n, _, _ := e.counts(); c.want != 200 && (d != bd || n != bn || len(e.ss.ss) != before) {
				t.Errorf("a refused install left entities")
			}
		})
	}
}

// exported resolves entities through the catalog, by the type of each.
func (e *eventsEnv) exported(req string, perms ...string) (map[string][]contentpacks.Entity, []contentpacks.Entity) {
	e.t.Helper()
	var res struct {
		Entities []contentpacks.Entity `json:"entities"`
	}
	e.want(e.do("POST", "/system/catalog", req, perms...), 200, &res)
	out := map[string][]contentpacks.Entity{}
	for _, en := range res.Entities {
		out[en.Type.Name] = append(out[en.Type.Name], en)
	}
	return out, res.Entities
}

func TestEventEntitiesExport(t *testing.T) {
	e := newEventsEnv(t)
	ctx := context.Background()
	e.ss.ss["s0"] = &streams.Stream{ID: "s0", Title: "web", MatchingType: streams.MatchAnd}
	hook, err := e.notes.Save(ctx, notify.Notification{Title: "hook", Config: notify.Config{Type: notify.TypeHTTP, URL: "https://bob:s3cret@hooks.example.org/x"}})
	if err != nil {
		t.Fatal(err)
	}
	legacy, err := e.notes.Save(ctx, notify.Notification{Title: "legacy", Config: notify.Config{Type: notify.TypeLegacy, CallbackType: notify.CallbackHTTP,
		Configuration: map[string]any{"url": "http://al:pw@legacy.example.org/"}}})
	if err != nil {
		t.Fatal(err)
	}
	d, err := definitions.ParseDefinition([]byte(`{"title":"errors","description":"d","priority":2,"alert":true,
	 "config":{"type":"aggregation-v1","query":"level:error","streams":["s0"],"group_by":[],`+countSeries+`,"search_within_ms":60000,"execute_every_ms":60000},
	 "key_spec":[],"notification_settings":{"grace_period_ms":0,"backlog_size":0},
	 "notifications":[{"notification_id":"`+hook.ID+`"},{"notification_id":"`+legacy.ID+`"}]}`), e.defs.NewID)
	if err != nil {
		t.Fatal(err)
	}
	if d, err = e.defs.Save(ctx, d, true); err != nil {
		t.Fatal(err)
	}
	req := `{"entities":[{"id":"` + d.ID + `","type":{"name":"event_definition","version":"1"}}]}`

	// The definition brings its notifications and its stream.
	types, all := e.exported(req, eventsAdmin...)
	if len(all) != 4 || len(types["event_definition"]) != 1 || len(types["notification"]) != 2 || len(types["stream"]) != 1 {
		t.Fatalf("resolved %+v", all)
	}
	var data struct {
		Title       contentpacks.ValueRef `json:"title"`
		Priority    contentpacks.ValueRef `json:"priority"`
		IsScheduled contentpacks.ValueRef `json:"is_scheduled"`
		Config      struct {
			Query   contentpacks.ValueRef `json:"query"`
			Streams []string              `json:"streams"`
			Series  []map[string]any      `json:"series"`
		} `json:"config"`
		Notifications []struct {
			NotificationID contentpacks.ValueRef `json:"notification_id"`
		} `json:"notifications"`
	}
	def := types["event_definition"][0]
	if err := json.Unmarshal(def.Data, &data); err != nil {
		t.Fatal(err)
	}
	noteIDs := map[string]bool{types["notification"][0].ID: true, types["notification"][1].ID: true}
	checks := []struct {
		what string
		ok   bool
	}{
		{"title", string(data.Title.Value) == `"errors"` && data.Title.Type == "string"},
		{"priority", string(data.Priority.Value) == "2" && data.Priority.Type == "integer"},
		{"is_scheduled", string(data.IsScheduled.Value) == "true" && data.IsScheduled.Type == "boolean"},
		{"query", string(data.Config.Query.Value) == `"level:error"`},
		{"streams", slices.Equal(data.Config.Streams, []string{types["stream"][0].ID})},
		{"series", len(data.Config.Series) == 1 && data.Config.Series[0]["function"] == "count"},
		{"notifications", len(data.Notifications) == 2 && noteIDs[strings.Trim(string(data.Notifications[0].NotificationID.Value), `"`)] &&
			noteIDs[strings.Trim(string(data.Notifications[1].NotificationID.Value), `"`)]},
	}
	for _, c := range checks {
		if !c.ok {
			t.Errorf("exported %s: %s", c.what, def.Data)
		}
	}
	// Secrets are masked.
	for _, n := range types["notification"] {
		s := string(n.Data)
		if strings.Contains(s, "s3cret") || strings.Contains(s, ":pw@") || !strings.Contains(s, "xxxxx@") {
			t.Errorf("exported notification %s", s)
		}
	}

	// Reading is needed: of the definition, its notifications and its
	// streams; the owner of a definition reads it without the permission.
	if err := e.owners.Own(auth.WithPrincipal(ctx, &auth.Principal{UserID: "alice"}), alerts.TypeDefinition, d.ID); err != nil {
		t.Fatal(err)
	}
	notes := []string{"eventnotifications:read:" + hook.ID, "eventnotifications:read:" + legacy.ID}
	readDef := "eventdefinitions:read:" + d.ID
	perms := []struct {
		name, user string
		perms      []string
		want       int
	}{
		{"nothing", "bob", []string{"catalog:resolve"}, 403},
		{"definition only", "bob", []string{"catalog:resolve", readDef}, 403},
		{"no stream", "bob", slices.Concat([]string{"catalog:resolve", readDef}, notes), 403},
		{"all", "bob", slices.Concat([]string{"catalog:resolve", readDef, "streams:read:s0"}, notes), 200},
		{"owner", "alice", slices.Concat([]string{"catalog:resolve", "streams:read:s0"}, notes), 200},
	}
	for _, c := range perms {
		if w := e.doAs(c.user, "POST", "/system/catalog", req, c.perms...); w.Code != c.want {
			t.Errorf("%s: %d %s, want %d", c.name, w.Code, w.Body, c.want)
		}
	}
	// The catalog lists what the caller may read, and owns.
	var cat struct {
		Entities []contentpacks.Excerpt `json:"entities"`
	}
	e.want(e.doAs("alice", "GET", "/system/catalog", "", "catalog:list"), 200, &cat)
	if len(cat.Entities) != 1 || cat.Entities[0].ID != d.ID || cat.Entities[0].Type != contentpacks.EventDefinitionV1 {
		t.Errorf("alice's catalog %+v", cat.Entities)
	}
	e.want(e.doAs("bob", "GET", "/system/catalog", "", "catalog:list", "eventnotifications:read:"+hook.ID), 200, &cat)
	if len(cat.Entities) != 1 || cat.Entities[0].ID != hook.ID {
		t.Errorf("bob's catalog %+v", cat.Entities)
	}

	// The export installs again, unscheduled when the definition was not
	// scheduled.
	if err := e.defs.Unschedule(ctx, d.ID); err != nil {
		t.Fatal(err)
	}
	_, all = e.exported(req, eventsAdmin...)
	raw, _ := json.Marshal(all)
	e.want(e.do("POST", "/system/content_packs", pack("exp", 1, "", strings.Trim(string(raw), "[]"))), 201, nil)
	var in contentpacks.Installation
	e.want(e.do("POST", "/system/content_packs/exp/1/installations", `{}`, eventsAdmin...), 200, &in)
	ids := map[string]string{}
	for _, n := range in.Entities {
		ids[n.Type.Name] = n.ID
	}
	got, err := e.defs.Get(ctx, ids["event_definition"])
	if err != nil || got.Title != "errors" || got.Config.Query != "level:error" || !slices.Equal(got.Config.Streams, []string{ids["stream"]}) ||
		len(got.Notifications) != 2 || got.Config.Conditions == nil || got.Config.Conditions.Expression == nil {
		t.Errorf("reinstalled definition %+v %v", got, err)
	}
	if on, _ := e.defs.Scheduled(ctx, got.ID); on {
		t.Error("an unscheduled definition's export installed scheduled")
	}
	e.want(e.do("DELETE", "/system/content_packs/exp/installations/"+in.ID, "", eventsAdmin...), 200, nil)
	if d, n, _, _ := e.counts(); d != 1 || n != 2 {
		t.Errorf("after uninstall: %d definitions, %d notifications", d, n)
	}
}
