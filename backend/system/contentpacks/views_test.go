package contentpacks_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/loggate/loggate/backend/analysis/views"
	"github.com/loggate/loggate/backend/logs/streams"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/backend/system/contentpacks"
	"github.com/loggate/loggate/router/routertest"
)

// doAs sends a request as the user of that name.
func (e *env) doAs(user, method, path, body string, perms ...string) *httptest.ResponseRecorder {
	e.t.Helper()
	p := routertest.Principal(e.t, perms...)
	p.Username = user
	return routertest.Serve(e.h, p, method, path, body)
}

// viewSpec is what a view entity's data varies by.
type viewSpec struct {
	viewType             string // the data's type, "" for none
	title                string // the title reference
	filterStream, widget string // stream ids of the query filter and search type, and of the widget
	noSearch             bool
	widgetID             string // the widget's id, raw JSON
}

// data is a Graylog 4.0 ViewEntity: a query filtered by a stream, a
// message list of that stream and a pivot, a message widget.
func (v viewSpec) data() string {
	typ := ""
	if v.viewType != "" {
		typ = `"type":"` + v.viewType + `",`
	}
	if v.title == "" {
		v.title = sref("View")
	}
	if v.widgetID == "" {
		v.widgetID = `"w1"`
	}
	search := `"search":{"queries":[{"id":"q1","timerange":{"type":"relative","range":300},
	  "query":{"type":"elasticsearch","query_string":"source:web"},
	  "filter":{"type":"or","filters":[{"type":"stream","id":"` + v.filterStream + `"}]},
	  "search_types":[{"id":"st1","type":"messages","limit":150,"offset":0,"sort":[],"streams":["` + v.filterStream + `"],"filter":null,"name":null,"query":null,"timerange":null,"decorators":[]},
	    {"id":"st2","type":"pivot","row_groups":[],"column_groups":[],"series":[{"type":"count","id":"count()"}],"sort":[],"rollup":true,"streams":[]}]}],
	  "parameters":[],"requires":{},"owner":"someone","created_at":"2020-01-01T00:00:00.000Z"},`
	if v.noSearch {
		search = ""
	}
	return `{` + typ + `"title":` + v.title + `,"summary":` + sref("sum") + `,"description":` + sref("desc") + `,` + search + `
	 "properties":[],"requires":{},
	 "state":{"q1":{"selected_fields":null,"titles":{"widget":{"w1":"Messages"}},
	   "widgets":[{"id":` + v.widgetID + `,"type":"messages","filter":null,"timerange":null,"query":null,"streams":["` + v.widget + `"],"config":{"fields":["timestamp","source"],"show_message_row":true}}],
	   "widget_mapping":{"w1":["st1"]},"positions":{"w1":{"col":1,"row":1,"height":6,"width":"Infinity"}},
	   "formatting":{"highlighting":[]},"display_mode_settings":{"positions":{}}}},
	 "owner":"someone","created_at":"2020-01-01T00:00:00.000Z"}`
}

func viewEntity(id, name, version string, v viewSpec) string {
	return `{"v":"1","type":{"name":"` + name + `","version":"` + version + `"},"id":"` + id + `","data":` + v.data() + `,"constraints":[]}`
}

func str(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// stored counts the views and the searches stored.
func (e *env) stored() (nviews, nsearches int) {
	e.t.Helper()
	ctx := context.Background()
	all, err := e.vs.Owned(ctx)
	if err != nil {
		e.t.Fatal(err)
	}
	err = e.st.List(ctx, views.SearchCollection, func(string, []byte) error { nsearches++; return nil })
	if err != nil {
		e.t.Fatal(err)
	}
	return len(all), nsearches
}

// viewOf returns a stored view and its search.
func (e *env) viewOf(id string) (views.View, views.ViewSearch) {
	e.t.Helper()
	ctx := context.Background()
	v, err := e.vs.Get(ctx, id)
	if err != nil {
		e.t.Fatalf("view %s: %v", id, err)
	}
	s, err := e.se.Get(ctx, v.SearchID)
	if err != nil {
		e.t.Fatalf("search of view %s: %v", id, err)
	}
	return v, s
}

// streamsOf returns the stream ids of a search's query filter and message
// list and of its view's widget.
func streamsOf(v views.View, s views.ViewSearch) []string {
	q := gjson.ParseBytes(s.Queries[0])
	return []string{
		q.Get("filter.filters.0.id").Str, q.Get("search_types.0.streams.0").Str,
		gjson.GetBytes(v.State["q1"], "widgets.0.streams.0").Str,
	}
}

func TestViewEntities(t *testing.T) {
	e := newEnv(t)
	e.ss.ss[streams.DefaultStreamID] = &streams.Stream{ID: streams.DefaultStreamID, Title: "Default Stream", MatchingType: streams.MatchAnd}
	ents := []string{
		viewEntity("d1", "dashboard", "2", viewSpec{viewType: "DASHBOARD", title: `{"@type":"parameter","@value":"TITLE"}`, filterStream: "e2", widget: "e2"}),
		// A saved search of the default stream, named by its own id.
		viewEntity("s1", "search", "1", viewSpec{viewType: "SEARCH", filterStream: streams.DefaultStreamID, widget: streams.DefaultStreamID}),
		streamEntity(sref("web")),
	}
	e.want(e.do("POST", "/system/content_packs", pack("v", 1, params3, strings.Join(ents, ","))), 201, nil)
	params := `{"parameters":{"TITLE":` + sref("Web servers") + `,"OFF":{"@type":"boolean","@value":false},"SRC":` + sref("web") + `}}`
	var in contentpacks.Installation
	e.want(e.do("POST", "/system/content_packs/v/1/installations", params), 200, &in)
	ids := map[string]string{}
	var order []string
	for _, d := range in.Entities {
		ids[d.ContentPackEnID] = d.ID
		order = append(order, d.ContentPackEnID)
	}
	if !slices.Equal(order, []string{"e2", "d1", "s1"}) {
		t.Errorf("installed in order %v", order)
	}
	stream := ids["e2"]
	for _, c := range []struct {
		entity, title string
		typ           views.Type
		streams       []string
	}{
		{"d1", "Web servers", views.Dashboard, []string{stream, stream, stream}},
		{"s1", "View", views.Search, []string{streams.DefaultStreamID, streams.DefaultStreamID, streams.DefaultStreamID}},
	} {
		v, s := e.viewOf(ids[c.entity])
		if v.Type != c.typ || v.Title != c.title || v.Summary != "sum" || v.Description != "desc" || str(v.Owner) != "user" || str(s.Owner) != "user" {
			t.Errorf("%s: view %+v, search owner %v", c.entity, v, str(s.Owner))
		}
		if got := streamsOf(v, s); !slices.Equal(got, c.streams) {
			t.Errorf("%s: streams %v, want %v", c.entity, got, c.streams)
		}
		if !strings.Contains(string(v.State["q1"]), `"widget_mapping":{"w1":["st1"]}`) || len(s.Queries) != 1 || !strings.Contains(string(s.Queries[0]), `"count()"`) {
			t.Errorf("%s: state %s, queries %s", c.entity, v.State["q1"], s.Queries)
		}
	}

	// The catalog lists both; the export of each brings its stream, by
	// its entity id.
	var cat struct {
		Entities []contentpacks.Excerpt `json:"entities"`
	}
	e.want(e.do("GET", "/system/catalog", ""), 200, &cat)
	listed := map[string]contentpacks.ModelType{}
	for _, x := range cat.Entities {
		listed[x.ID] = x.Type
	}
	if listed[ids["d1"]] != contentpacks.DashboardV2 || listed[ids["s1"]] != contentpacks.SearchV1 {
		t.Errorf("catalog %+v", cat.Entities)
	}
	req, _ := json.Marshal(map[string]any{"entities": []contentpacks.Descriptor{
		{ID: ids["d1"], Type: contentpacks.DashboardV2}, {ID: ids["s1"], Type: contentpacks.SearchV1}}})
	var res struct {
		Entities []contentpacks.Entity `json:"entities"`
	}
	e.want(e.do("POST", "/system/catalog", string(req)), 200, &res)
	byType := map[string][]contentpacks.Entity{}
	for _, en := range res.Entities {
		byType[en.Type.Name+"/"+en.Type.Version] = append(byType[en.Type.Name+"/"+en.Type.Version], en)
	}
	if len(res.Entities) != 4 || len(byType["dashboard/2"]) != 1 || len(byType["search/1"]) != 1 || len(byType["stream/1"]) != 2 {
		t.Fatalf("resolved %+v", res.Entities)
	}
	streamEntityID := ""
	for _, en := range byType["stream/1"] {
		if en.ID != streams.DefaultStreamID {
			streamEntityID = en.ID
		}
	}
	d := gjson.ParseBytes(byType["dashboard/2"][0].Data)
	if d.Get("type").Str != "DASHBOARD" || d.Get("title.@value").Str != "Web servers" || d.Get("title.@type").Str != "string" ||
		d.Get("owner").Str != "user" || d.Get("search.owner").Str != "user" || d.Get("search.id").Exists() {
		t.Errorf("exported dashboard %s", d.Raw)
	}
	for _, path := range []string{"search.queries.0.filter.filters.0.id", "search.queries.0.search_types.0.streams.0", "state.q1.widgets.0.streams.0"} {
		if got := d.Get(path).Str; got != streamEntityID {
			t.Errorf("exported dashboard's %s = %q, want the stream entity %q", path, got, streamEntityID)
		}
	}
	if got := gjson.GetBytes(byType["search/1"][0].Data, "search.queries.0.filter.filters.0.id").Str; got != streams.DefaultStreamID {
		t.Errorf("exported search's stream %q", got)
	}

	// Uninstalling deletes the views and their searches, not the default
	// stream.
	e.wantUninstalled("v", in.ID, 3, ids["d1"])

	// The export installs again, over a stream of its own and the default
	// stream found on the system.
	var all []string
	for _, en := range res.Entities {
		b, _ := json.Marshal(en)
		all = append(all, string(b))
	}
	e.want(e.do("POST", "/system/content_packs", pack("exp", 1, "", strings.Join(all, ","))), 201, nil)
	e.want(e.do("POST", "/system/content_packs/exp/1/installations", `{}`), 200, &in)
	for _, d := range in.Entities {
		ids[d.Type.Name] = d.ID
		if d.Type.Name == "stream" && d.ID != streams.DefaultStreamID {
			stream = d.ID
		}
	}
	v, s := e.viewOf(ids["dashboard"])
	if got := streamsOf(v, s); v.Title != "Web servers" || !slices.Equal(got, []string{stream, stream, stream}) || stream == streams.DefaultStreamID {
		t.Errorf("reinstalled dashboard %q over %v, stream %s", v.Title, got, stream)
	}
}

// TestViewInstallRefused: a view entity whose streams the pack lacks or
// whose data a view or search refuses creates nothing, nor do the pack's
// other entities stay.
func TestViewInstallRefused(t *testing.T) {
	e := newEnv(t)
	params := `{"parameters":{"TITLE":` + sref("t") + `,"OFF":{"@type":"boolean","@value":false},"SRC":` + sref("web") + `}}`
	cases := []refusal{
		{"filter stream missing", viewEntity("d", "dashboard", "2", viewSpec{viewType: "DASHBOARD", filterStream: "e9", widget: "e2"}), "missing stream e9"},
		{"widget stream missing", viewEntity("d", "dashboard", "2", viewSpec{viewType: "DASHBOARD", filterStream: "e2", widget: "e9"}), "missing stream e9 for the widget"},
		{"search holding a dashboard", viewEntity("s", "search", "1", viewSpec{viewType: "DASHBOARD", filterStream: "e2", widget: "e2"}), "view of type DASHBOARD"},
		{"no search", viewEntity("d", "dashboard", "2", viewSpec{viewType: "DASHBOARD", filterStream: "e2", widget: "e2", noSearch: true}), "has no search"},
		{"blank title", viewEntity("d", "dashboard", "2", viewSpec{title: sref(" "), filterStream: "e2", widget: "e2"}), "must not be blank"},
		{"widget without id", viewEntity("d", "dashboard", "2", viewSpec{filterStream: "e2", widget: "e2", widgetID: "3"}), "widgets[0].id must be a non-empty string"},
		{"title not a string", viewEntity("d", "dashboard", "2", viewSpec{title: `{"@type":"integer","@value":3}`, filterStream: "e2", widget: "e2"}), "title"},
	}
	e.wantRefused(params, "", cases)
}

// wantUninstalled uninstalls an installation of pack, which must remove
// n entities and leave no view or search, the view with id view included.
func (e *env) wantUninstalled(pack, installation string, n int, view string) {
	e.t.Helper()
	var un struct {
		Uninstalled contentpacks.Uninstallation `json:"uninstalled"`
	}
	e.want(e.do("DELETE", "/system/content_packs/"+pack+"/installations/"+installation, ""), 200, &un)
	if len(un.Uninstalled.Entities) != n || len(un.Uninstalled.Failed) != 0 {
		e.t.Errorf("uninstalled %+v", un.Uninstalled)
	}
	if nv, ns := e.stored(); nv != 0 || ns != 0 {
		e.t.Errorf("left %d views, %d searches", nv, ns)
	}
	if _, err := e.vs.Get(context.Background(), view); !errors.Is(err, store.ErrNotFound) {
		e.t.Errorf("dashboard after uninstall: %v", err)
	}
}

// refusal is a view entity an installation refuses, with a 400 holding
// msg.
type refusal struct{ name, entity, msg string }

// wantRefused installs each case's entity beside a stream entity, with
// the parameters given: each must be a 400 holding its message and also,
// leaving no view, search or stream behind.
func (e *env) wantRefused(params, also string, cases []refusal) {
	e.t.Helper()
	for i, c := range cases {
		id := fmt.Sprintf("bad%d", i)
		e.want(e.do("POST", "/system/content_packs", pack(id, 1, params3, c.entity+","+streamEntity(sref("web")))), 201, nil)
		w := e.do("POST", "/system/content_packs/"+id+"/1/installations", params)
		if w.Code != 400 || !strings.Contains(w.Body.String(), c.msg) || !strings.Contains(w.Body.String(), also) {
			e.t.Errorf("%s: %d %s, want 400 with %q and %q", c.name, w.Code, w.Body, also, c.msg)
		}
		if nv, ns := e.stored(); nv != 0 || ns != 0 || len(e.ss.ss) != 0 {
			e.t.Errorf("%s: left %d views, %d searches, %d streams", c.name, nv, ns, len(e.ss.ss))
		}
	}
}

// TestViewInstallPermissions: a dashboard needs dashboards:create, a saved
// search authentication alone, as POST /views; both need to read their
// streams, as POST /views/search.
func TestViewInstallPermissions(t *testing.T) {
	e := newEnv(t)
	def := streams.DefaultStreamID
	e.want(e.do("POST", "/system/content_packs", pack("d", 1, "", viewEntity("d", "dashboard", "2", viewSpec{filterStream: def, widget: def}))), 201, nil)
	e.want(e.do("POST", "/system/content_packs", pack("s", 1, "", viewEntity("s", "search", "1", viewSpec{viewType: "SEARCH", filterStream: def, widget: def}))), 201, nil)
	cases := []struct {
		name, pack string
		perms      []string
		code       int
		msg        string
	}{
		{"dashboard without dashboards:create", "d", []string{"contentpack:*", "streams:read"}, 403, "create the dashboard entities"},
		{"dashboard without its stream", "d", []string{"contentpack:*", "dashboards:create"}, 403, "Missing stream permissions: " + def},
		{"dashboard", "d", []string{"contentpack:*", "dashboards:create", "streams:read:" + def}, 200, ""},
		{"search without its stream", "s", []string{"contentpack:*"}, 403, "Missing stream permissions"},
		{"search", "s", []string{"contentpack:*", "streams:read"}, 200, ""},
	}
	for _, c := range cases {
		before, _ := e.stored()
		w := e.do("POST", "/system/content_packs/"+c.pack+"/1/installations", `{}`, c.perms...)
		if w.Code != c.code || !strings.Contains(w.Body.String(), c.msg) {
			t.Errorf("%s: %d %s, want %d with %q", c.name, w.Code, w.Body, c.code, c.msg)
		}
		if after, _ := e.stored(); (c.code == 200) != (after == before+1) {
			t.Errorf("%s: %d views before, %d after", c.name, before, after)
		}
	}
}

// TestViewCatalogReadable: the catalog lists and exports the views the
// caller may read: their owner's, and those of view:read (and, for
// dashboards, dashboards:read); the export needs their streams too.
func TestViewCatalogReadable(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	e.ss.ss["s0"] = &streams.Stream{ID: "s0", Title: "mine", MatchingType: streams.MatchAnd}
	made := map[views.Type]string{}
	for _, typ := range []views.Type{views.Dashboard, views.Search} {
		s, err := views.ParseSearch([]byte(`{"queries":[{"id":"q1","filter":{"type":"or","filters":[{"type":"stream","id":"s0"}]},"search_types":[]}]}`))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.se.Save(ctx, s, "alice"); err != nil {
			t.Fatal(err)
		}
		v, err := e.vs.Create(ctx, views.View{Type: typ, Title: string(typ), SearchID: s.ID}, "alice")
		if err != nil {
			t.Fatal(err)
		}
		made[typ] = v.ID
	}
	dash, saved := made[views.Dashboard], made[views.Search]
	cases := []struct {
		name, user string
		perms      []string
		listed     []string
		export     int // the answer to exporting the dashboard
	}{
		{"owner", "alice", []string{"catalog:*", "streams:read:s0"}, []string{dash, saved}, 200},
		{"another user", "bob", []string{"catalog:*", "streams:read:s0"}, nil, 403},
		{"view:read", "bob", []string{"catalog:*", "streams:read:s0", "view:read:" + dash, "view:read:" + saved}, []string{dash, saved}, 200},
		{"dashboards:read", "bob", []string{"catalog:*", "streams:read:s0", "dashboards:read:" + dash, "dashboards:read:" + saved}, []string{dash}, 200},
		{"without the stream", "bob", []string{"catalog:*", "dashboards:read:" + dash}, []string{dash}, 403},
	}
	for _, c := range cases {
		var cat struct {
			Entities []contentpacks.Excerpt `json:"entities"`
		}
		w := e.doAs(c.user, "GET", "/system/catalog", "", c.perms...)
		e.want(w, 200, &cat)
		var got []string
		for _, x := range cat.Entities {
			if x.Type == contentpacks.DashboardV2 || x.Type == contentpacks.SearchV1 {
				got = append(got, x.ID)
			}
		}
		slices.Sort(got)
		want := slices.Sorted(slices.Values(c.listed))
		if !slices.Equal(got, want) {
			t.Errorf("%s: listed %v, want %v", c.name, got, want)
		}
		w = e.doAs(c.user, "POST", "/system/catalog", `{"entities":[{"id":"`+dash+`","type":{"name":"dashboard","version":"2"}}]}`, c.perms...)
		if w.Code != c.export {
			t.Errorf("%s: export %d %s, want %d", c.name, w.Code, w.Body, c.export)
		}
	}
	// A saved search is no dashboard.
	w := e.do("POST", "/system/catalog", `{"entities":[{"id":"`+saved+`","type":{"name":"dashboard","version":"2"}}]}`,
		"catalog:*", "view:read", "dashboards:read", "streams:read")
	if w.Code != 404 {
		t.Errorf("a saved search exported as a dashboard: %d %s", w.Code, w.Body)
	}
}
