package views_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/auth/permission"
	"github.com/loggate/loggate/backend/analysis/views"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/backend/store/bolt"
	legacyviews "github.com/loggate/loggate/legacy/views"
	"github.com/loggate/loggate/router/api"
)

var epoch = time.Date(2019, 5, 6, 7, 8, 9, 0, time.UTC)

type env struct {
	st    store.Store
	views *views.Service
	svc   *legacyviews.Service
}

func newEnv(t testing.TB, values legacyviews.WidgetValues) *env {
	t.Helper()
	st, err := bolt.Open(filepath.Join(t.TempDir(), "db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	vs := views.NewService(st, func() time.Time { return epoch })
	return &env{st: st, views: vs, svc: legacyviews.New(vs, st, views.NewSearches(st, vs, func() time.Time { return epoch }), values)}
}

// as returns a context whose caller is user with perms.
func as(t testing.TB, user string, perms ...string) context.Context {
	t.Helper()
	set, err := permission.NewSet(perms)
	if err != nil {
		t.Fatal(err)
	}
	return auth.WithPrincipal(context.Background(), &auth.Principal{UserID: "id-" + user, Username: user, Permissions: set})
}

func widget(t testing.TB, body string) legacyviews.WidgetRequest {
	t.Helper()
	req, err := legacyviews.ParseWidget([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	return req
}

func ptr(s string) *string { return &s }

const countBody = `{"description":"Count","type":"SEARCH_RESULT_COUNT","cache_time":15,"config":{"timerange":{"type":"relative","range":300},"query":"x"}}`

func TestDashboardRoundTrip(t *testing.T) {
	e := newEnv(t, nil)
	ctx := as(t, "jane", "dashboards:create")
	id, err := e.svc.CreateDashboard(ctx, legacyviews.DashboardRequest{Title: ptr("Web"), Description: ptr("d")})
	if err != nil {
		t.Fatal(err)
	}
	wid, err := e.svc.AddWidget(ctx, id, widget(t, countBody))
	if err != nil {
		t.Fatal(err)
	}
	if err := e.svc.SetPositions(ctx, id, []legacyviews.PositionUpdate{{ID: wid, Position: legacyviews.Position{Width: 2, Height: 1, Col: 3, Row: 4}}}); err != nil {
		t.Fatal(err)
	}
	d, err := e.svc.Dashboard(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(d)
	want := fmt.Sprintf(`{"id":"%s","title":"Web","description":"d","created_at":"2019-05-06T07:08:09.000Z","creator_user_id":"jane",`+
		`"widgets":[{"id":"%s","type":"SEARCH_RESULT_COUNT","description":"Count","cache_time":15,"creator_user_id":"jane",`+
		`"config":{"timerange":{"type":"relative","range":300},"query":"x"}}],"positions":{"%s":{"width":2,"height":1,"col":3,"row":4}}}`, id, wid, wid)
	if string(got) != want {
		t.Errorf("dashboard\n got %s\nwant %s", got, want)
	}
	// The 4.0 view.
	v, err := e.views.Get(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if v.Type != views.Dashboard || v.Summary != legacyviews.DashboardSummary || v.Owner == nil || *v.Owner != "jane" || len(v.State) != 1 || v.SearchID == "" {
		t.Errorf("view %+v", v)
	}
}

// 3.x's permissions, the 4.0 view permissions and the owner; a missing
// dashboard is a 404 only to a caller who could see it.
func TestDashboardPermissions(t *testing.T) {
	e := newEnv(t, nil)
	owner := as(t, "jane", "dashboards:create")
	id, err := e.svc.CreateDashboard(owner, legacyviews.DashboardRequest{Title: ptr("Web")})
	if err != nil {
		t.Fatal(err)
	}
	missing := "5f0000000000000000000000"
	tests := []struct {
		name string
		ctx  context.Context
		id   string
		read api.Code // 0: allowed
		edit api.Code
	}{
		{"anonymous", context.Background(), id, api.Unauthorized, api.Unauthorized},
		{"owner", owner, id, 0, 0},
		{"stranger", as(t, "bob"), id, api.Forbidden, api.Forbidden},
		{"reader", as(t, "bob", "dashboards:read:"+id), id, 0, api.Forbidden},
		{"editor", as(t, "bob", "dashboards:read", "dashboards:edit"), id, 0, 0},
		{"view reader", as(t, "bob", "view:read:"+id), id, 0, api.Forbidden},
		{"missing, may read", as(t, "bob", "dashboards:read", "dashboards:edit"), missing, api.NotFound, api.NotFound},
		{"missing, may not", as(t, "bob"), missing, api.Forbidden, api.Forbidden},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.svc.Dashboard(tt.ctx, tt.id)
			if code(err) != tt.read {
				t.Errorf("read: %v, want code %v", err, tt.read)
			}
			err = e.svc.UpdateDashboard(tt.ctx, tt.id, legacyviews.DashboardRequest{Description: ptr("x")})
			if code(err) != tt.edit {
				t.Errorf("edit: %v, want code %v", err, tt.edit)
			}
		})
	}
	if _, err := e.svc.CreateDashboard(as(t, "bob"), legacyviews.DashboardRequest{Title: ptr("x")}); code(err) != api.Forbidden {
		t.Errorf("create without dashboards:create: %v", err)
	}
	list, err := e.svc.Dashboards(as(t, "bob", "dashboards:read:"+missing))
	if err != nil || list.Total != 0 || len(list.Dashboards) != 0 {
		t.Errorf("list for a stranger: %+v %v", list, err)
	}
}

func code(err error) api.Code {
	if err == nil {
		return 0
	}
	return api.ErrorCode(err)
}

// Dashboards and saved searches are distinct views: one's id is a 404 to
// the other's API.
func TestTypesStayApart(t *testing.T) {
	e := newEnv(t, nil)
	ctx := as(t, "root", "*")
	dash, err := e.svc.CreateDashboard(ctx, legacyviews.DashboardRequest{Title: ptr("D")})
	if err != nil {
		t.Fatal(err)
	}
	search, err := e.svc.CreateSavedSearch(ctx, legacyviews.SavedSearchRequest{Title: "S", Query: json.RawMessage(`{"query":"x"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.SavedSearch(ctx, dash); code(err) != api.NotFound {
		t.Errorf("dashboard as saved search: %v", err)
	}
	if _, err := e.svc.Dashboard(ctx, search); code(err) != api.NotFound {
		t.Errorf("saved search as dashboard: %v", err)
	}
	ds, err := e.svc.Dashboards(ctx)
	if err != nil || ds.Total != 1 || ds.Dashboards[0].ID != dash {
		t.Errorf("dashboards %+v %v", ds, err)
	}
	ss, err := e.svc.SavedSearches(ctx)
	if err != nil || ss.Total != 1 || ss.Searches[0].ID != search || string(ss.Searches[0].Query) != `{"query":"x"}` {
		t.Errorf("saved searches %+v %v", ss, err)
	}
}

func TestSavedSearchLifecycle(t *testing.T) {
	e := newEnv(t, nil)
	jane := as(t, "jane", "savedsearches:create")
	id, err := e.svc.CreateSavedSearch(jane, legacyviews.SavedSearchRequest{Title: "Errors", Query: json.RawMessage(`{"query":"level:3","fields":"message,source"}`)})
	if err != nil {
		t.Fatal(err)
	}
	v, err := e.views.Get(jane, id)
	if err != nil || v.Type != views.Search || v.Title != "Errors" || v.Summary != legacyviews.SavedSearchSummary {
		t.Fatalf("view %+v %v", v, err)
	}
	for _, raw := range v.State {
		var st struct {
			Fields []string `json:"selected_fields"`
		}
		if err := json.Unmarshal(raw, &st); err != nil || len(st.Fields) != 2 || st.Fields[1] != "source" {
			t.Errorf("state %s", raw)
		}
	}
	if _, err := e.svc.UpdateSavedSearch(as(t, "bob", "savedsearches:read"), id, legacyviews.SavedSearchRequest{Title: "x", Query: json.RawMessage(`{}`)}); code(err) != api.Forbidden {
		t.Errorf("update without edit: %v", err)
	}
	s, err := e.svc.UpdateSavedSearch(as(t, "bob", "savedsearches:edit:"+id), id, legacyviews.SavedSearchRequest{Title: "Warnings", Query: json.RawMessage(`{"query":"level:4"}`)})
	if err != nil || s.Title != "Warnings" || string(s.Query) != `{"query":"level:4"}` || s.CreatorUserID == nil || *s.CreatorUserID != "jane" {
		t.Errorf("updated %+v %v", s, err)
	}
	if err := e.svc.DeleteSavedSearch(as(t, "bob", "savedsearches:read"), id); code(err) != api.Forbidden {
		t.Errorf("delete without edit: %v", err)
	}
	if err := e.svc.DeleteSavedSearch(jane, id); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.SavedSearch(as(t, "bob", "savedsearches:read"), id); code(err) != api.NotFound {
		t.Errorf("after delete: %v", err)
	}
}

// A SEARCH view a 4.0 client made reads as a saved search over its fields.
func TestViewAsSavedSearch(t *testing.T) {
	e := newEnv(t, nil)
	ctx := as(t, "root", "*")
	v, err := e.views.Create(ctx, views.View{Type: views.Search, Title: "New", SearchID: "s",
		State: map[string]json.RawMessage{"q": json.RawMessage(`{"selected_fields":["a","b"]}`)}}, "root")
	if err != nil {
		t.Fatal(err)
	}
	s, err := e.svc.SavedSearch(ctx, v.ID)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"fields":"a,b","query":"","rangeType":"relative","relative":300}`; string(s.Query) != want {
		t.Errorf("query %s, want %s", s.Query, want)
	}
}

func TestWidgets(t *testing.T) {
	e := newEnv(t, nil)
	ctx := as(t, "jane", "dashboards:create")
	id, err := e.svc.CreateDashboard(ctx, legacyviews.DashboardRequest{Title: ptr("Web")})
	if err != nil {
		t.Fatal(err)
	}
	wid, err := e.svc.AddWidget(ctx, id, widget(t, countBody))
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name string
		do   func() error
		want func(w legacyviews.Widget) bool
	}{
		{"description", func() error { return e.svc.SetWidgetDescription(ctx, id, wid, "Hits") }, func(w legacyviews.Widget) bool { return w.Description == "Hits" }},
		{"cache time", func() error { return e.svc.SetWidgetCacheTime(ctx, id, wid, 99) }, func(w legacyviews.Widget) bool { return w.CacheTime == 99 && w.Description == "Hits" }},
		{"update", func() error {
			return e.svc.UpdateWidget(ctx, id, wid, widget(t, `{"description":"Mean","type":"STATS_COUNT","cache_time":5,"config":{"timerange":{"type":"relative","range":60},"field":"f","stats_function":"mean"}}`))
		}, func(w legacyviews.Widget) bool {
			return w.Type == "STATS_COUNT" && w.CacheTime == 5 && w.Description == "Mean" && w.CreatorUserID == "jane" && w.ID == wid
		}},
	}
	for _, st := range steps {
		if err := st.do(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		w, err := e.svc.Widget(ctx, id, wid)
		if err != nil || !st.want(w) {
			t.Errorf("%s: %+v %v", st.name, w, err)
		}
	}
	if _, err := e.svc.WidgetValue(ctx, id, wid); code(err) != api.Unavailable {
		t.Errorf("value without a search: %v", err)
	}
	for name, err := range map[string]error{
		"get":         func() error { _, err := e.svc.Widget(ctx, id, "nope"); return err }(),
		"update":      e.svc.UpdateWidget(ctx, id, "nope", widget(t, countBody)),
		"description": e.svc.SetWidgetDescription(ctx, id, "nope", "x"),
		"delete":      e.svc.DeleteWidget(ctx, id, "nope"),
		"value":       func() error { _, err := e.svc.WidgetValue(ctx, id, "nope"); return err }(),
	} {
		if code(err) != api.NotFound {
			t.Errorf("%s of a missing widget: %v", name, err)
		}
	}
	if err := e.svc.DeleteWidget(ctx, id, wid); err != nil {
		t.Fatal(err)
	}
	if d, err := e.svc.Dashboard(ctx, id); err != nil || len(d.Widgets) != 0 {
		t.Errorf("after delete: %+v %v", d, err)
	}
}

type fixedValues struct{ got legacyviews.Widget }

func (f *fixedValues) Value(_ context.Context, w legacyviews.Widget) (json.RawMessage, error) {
	f.got = w
	return json.RawMessage(`{"result":42}`), nil
}

func TestWidgetValue(t *testing.T) {
	values := &fixedValues{}
	e := newEnv(t, values)
	ctx := as(t, "jane", "dashboards:create")
	id, _ := e.svc.CreateDashboard(ctx, legacyviews.DashboardRequest{Title: ptr("Web")})
	wid, err := e.svc.AddWidget(ctx, id, widget(t, countBody))
	if err != nil {
		t.Fatal(err)
	}
	v, err := e.svc.WidgetValue(ctx, id, wid)
	if err != nil || string(v) != `{"result":42}` || values.got.ID != wid || values.got.Type != "SEARCH_RESULT_COUNT" {
		t.Errorf("value %s %v, widget %+v", v, err, values.got)
	}
	if _, err := e.svc.WidgetValue(as(t, "bob"), id, wid); code(err) != api.Forbidden {
		t.Errorf("value for a stranger: %v", err)
	}
}

// Widgets added at once are all kept.
func TestConcurrentWidgets(t *testing.T) {
	e := newEnv(t, nil)
	ctx := as(t, "jane", "dashboards:create")
	id, err := e.svc.CreateDashboard(ctx, legacyviews.DashboardRequest{Title: ptr("Web")})
	if err != nil {
		t.Fatal(err)
	}
	const n = 8
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			if _, err := e.svc.AddWidget(ctx, id, widget(t, countBody)); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	d, err := e.svc.Dashboard(ctx, id)
	if err != nil || len(d.Widgets) != n {
		t.Errorf("%d widgets, want %d (%v)", len(d.Widgets), n, err)
	}
}

func TestDeleteDashboard(t *testing.T) {
	e := newEnv(t, nil)
	ctx := as(t, "jane", "dashboards:create")
	id, _ := e.svc.CreateDashboard(ctx, legacyviews.DashboardRequest{Title: ptr("Web")})
	if err := e.svc.DeleteDashboard(as(t, "bob", "dashboards:read"), id); code(err) != api.Forbidden {
		t.Errorf("delete by a reader: %v", err)
	}
	if err := e.svc.DeleteDashboard(as(t, "bob", "dashboards:edit:"+id), id); err != nil {
		t.Fatal(err)
	}
	if _, err := e.views.Get(ctx, id); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("view after delete: %v", err)
	}
	if err := e.svc.DeleteDashboard(ctx, id); code(err) != api.Forbidden {
		// jane owned it; it is gone, and she holds no dashboards:edit.
		t.Errorf("second delete: %v", err)
	}
}

// Views earlier versions stored for legacy clients named a search that was
// never stored: Repair stores it, with a search type for every widget, and
// gives a saved search its widgets; a second run has nothing to do.
func TestRepairStoresMissingSearches(t *testing.T) {
	e := newEnv(t, nil)
	ctx := as(t, "admin", "*")
	state := func(s string) map[string]json.RawMessage { return map[string]json.RawMessage{"q1": json.RawMessage(s)} }
	dash, err := e.views.Create(ctx, views.View{Type: views.Dashboard, Title: "old", Summary: legacyviews.DashboardSummary,
		SearchID: "5f1a2b3c4d5e6f7a8b9c0d01", State: state(`{"widget_mapping":{},"widgets":[{"id":"w1","type":"aggregation",` +
			`"config":{"row_pivots":[],"series":[{"function":"count()"}]},"timerange":{"type":"relative","range":60}}]}`)}, "admin")
	if err != nil {
		t.Fatal(err)
	}
	saved, err := e.views.Create(ctx, views.View{Type: views.Search, Title: "old search", Summary: legacyviews.SavedSearchSummary,
		SearchID: "5f1a2b3c4d5e6f7a8b9c0d02", State: state(`{"selected_fields":["message"],"widget_mapping":{},"widgets":[],` +
			`"legacy_query":{"query":"a","rangeType":"relative","relative":3600}}`)}, "admin")
	if err != nil {
		t.Fatal(err)
	}
	own, err := e.views.Create(ctx, views.View{Type: views.Dashboard, Title: "4.0", SearchID: "5f1a2b3c4d5e6f7a8b9c0d03"}, "admin")
	if err != nil {
		t.Fatal(err)
	}
	searches := views.NewSearches(e.st, e.views, func() time.Time { return epoch })
	if n, err := e.svc.Repair(context.Background()); err != nil || n != 2 {
		t.Fatalf("Repair: %d, %v; want 2", n, err)
	}
	for _, tt := range []struct {
		view  views.View
		types int
	}{{dash, 1}, {saved, 2}} {
		v, err := e.views.Get(ctx, tt.view.ID)
		if err != nil {
			t.Fatal(err)
		}
		s, err := searches.Get(ctx, v.SearchID)
		if err != nil {
			t.Fatalf("%s: %v", v.Title, err)
		}
		var st struct {
			Mapping map[string][]string `json:"widget_mapping"`
		}
		if err := json.Unmarshal(v.State["q1"], &st); err != nil {
			t.Fatal(err)
		}
		mapping := st.Mapping
		q, _ := json.Marshal(s.Queries)
		if len(s.Queries) != 1 || len(mapping) != tt.types || *s.Owner != "admin" {
			t.Errorf("%s: mapping %v, search %s", v.Title, mapping, q)
		}
		for _, ids := range mapping {
			if !json.Valid(q) || !strings.Contains(string(q), `"id":"`+ids[0]+`"`) {
				t.Errorf("%s: search type %s not in %s", v.Title, ids[0], q)
			}
		}
	}
	if _, err := searches.Get(ctx, own.SearchID); err == nil {
		t.Errorf("a 4.0 client's view got a search written for it")
	}
	if n, err := e.svc.Repair(context.Background()); err != nil || n != 0 {
		t.Errorf("second Repair: %d, %v; want 0", n, err)
	}
}

// TestConvertDashboard: a 3.x dashboard converted whole, once stored, is
// the dashboard CreateDashboard, AddWidget and SetPositions make of it,
// for 3.x and 4.0 clients alike, but for its ids and summary.
func TestConvertDashboard(t *testing.T) {
	bodies := []struct {
		body string
		pos  *legacyviews.Position
	}{
		{countBody, &legacyviews.Position{Width: 2, Height: 1, Col: 1, Row: 1}},
		{`{"description":"Top","type":"QUICKVALUES","config":{"timerange":{"type":"keyword","keyword":"last week"},"field":"source","show_pie_chart":true}}`,
			&legacyviews.Position{Width: 4, Height: 3, Col: 3, Row: 1}},
		{`{"description":"Web","type":"STREAM_SEARCH_RESULT_COUNT","config":{"timerange":{"type":"relative","range":60},"stream_id":"s1"}}`, nil},
	}
	e := newEnv(t, nil)
	ctx := as(t, "jane", "dashboards:create", "streams:read")
	// The dashboard as a 3.x client makes it.
	id, err := e.svc.CreateDashboard(ctx, legacyviews.DashboardRequest{Title: ptr("Web"), Description: ptr("d")})
	if err != nil {
		t.Fatal(err)
	}
	var positions []legacyviews.PositionUpdate
	var widgets []legacyviews.DashboardWidget
	for _, b := range bodies {
		wid, err := e.svc.AddWidget(ctx, id, widget(t, b.body))
		if err != nil {
			t.Fatal(err)
		}
		if b.pos != nil {
			positions = append(positions, legacyviews.PositionUpdate{ID: wid, Position: *b.pos})
		}
		widgets = append(widgets, legacyviews.DashboardWidget{Request: widget(t, b.body), Position: b.pos})
	}
	if err := e.svc.SetPositions(ctx, id, positions); err != nil {
		t.Fatal(err)
	}
	// The dashboard converted, stored as content packs store it.
	v, s, err := legacyviews.ConvertDashboard("Web", "d", legacyviews.ConvertedSummary, widgets, "jane")
	if err != nil {
		t.Fatal(err)
	}
	if s.ID != v.SearchID || len(s.Queries) != 1 || v.Summary != "Converted Dashboard" {
		t.Fatalf("view %+v, search %+v", v, s)
	}
	if _, err := views.NewSearches(e.st, e.views, func() time.Time { return epoch }).Save(context.Background(), s, "jane"); err != nil {
		t.Fatal(err)
	}
	created, err := e.views.Create(context.Background(), v, "jane")
	if err != nil {
		t.Fatal(err)
	}
	made, err := e.svc.Dashboard(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	converted, err := e.svc.Dashboard(ctx, created.ID)
	if err != nil {
		t.Fatal(err)
	}
	// Widgets and positions, by the order of the widgets.
	shape := func(d legacyviews.Dashboard) string {
		var out []string
		for i, w := range d.Widgets {
			p, ok := d.Positions[w.ID]
			out = append(out, fmt.Sprintf("%d %s %q %d %s %s %+v %t", i, w.Type, w.Description, w.CacheTime, w.CreatorUserID, w.Config, p, ok))
		}
		return fmt.Sprintf("%s %s %d positions\n%s", d.Title, d.Description, len(d.Positions), strings.Join(out, "\n"))
	}
	if got, want := shape(converted), shape(made); got != want {
		t.Errorf("converted:\n%s\nmade:\n%s", got, want)
	}
	// The 4.0 widgets and the search's search types, but for their ids.
	stored, err := e.views.Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	strip := func(v views.View) string {
		var state map[string]any
		for _, raw := range v.State {
			_ = json.Unmarshal(raw, &state)
		}
		ws, _ := json.Marshal(state["widgets"])
		out := string(ws)
		for _, w := range state["widgets"].([]any) {
			out = strings.ReplaceAll(out, w.(map[string]any)["id"].(string), "W")
		}
		return out
	}
	if got, want := strip(created), strip(stored); got != want {
		t.Errorf("converted 4.0 widgets\n%s\nmade\n%s", got, want)
	}
}
