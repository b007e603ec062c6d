package compat_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/compat"
	"github.com/loggate/loggate/router/api"
	"github.com/loggate/loggate/router/routertest"
)

// fakeLegacyViews records the calls the changes make.
type fakeLegacyViews struct{ calls []string }

func (f *fakeLegacyViews) call(parts ...string) { f.calls = append(f.calls, strings.Join(parts, " ")) }

func (f *fakeLegacyViews) Dashboards(context.Context) ([]byte, error) {
	f.call("Dashboards")
	return []byte(`{"total":0,"dashboards":[]}`), nil
}
func (f *fakeLegacyViews) Dashboard(_ context.Context, id string) ([]byte, error) {
	f.call("Dashboard", id)
	return []byte(`{"id":"` + id + `"}`), nil
}
func (f *fakeLegacyViews) CreateDashboard(_ context.Context, b []byte) (string, error) {
	f.call("CreateDashboard", string(b))
	return "d1", nil
}
func (f *fakeLegacyViews) UpdateDashboard(_ context.Context, id string, b []byte) error {
	f.call("UpdateDashboard", id, string(b))
	return nil
}
func (f *fakeLegacyViews) DeleteDashboard(_ context.Context, id string) error {
	f.call("DeleteDashboard", id)
	return nil
}
func (f *fakeLegacyViews) SetPositions(_ context.Context, id string, b []byte) error {
	f.call("SetPositions", id, string(b))
	return nil
}
func (f *fakeLegacyViews) AddWidget(_ context.Context, id string, b []byte) (string, error) {
	f.call("AddWidget", id, string(b))
	return "w1", nil
}
func (f *fakeLegacyViews) Widget(_ context.Context, id, w string) ([]byte, error) {
	f.call("Widget", id, w)
	return []byte(`{}`), nil
}
func (f *fakeLegacyViews) UpdateWidget(_ context.Context, id, w string, b []byte) error {
	f.call("UpdateWidget", id, w, string(b))
	return nil
}
func (f *fakeLegacyViews) DeleteWidget(_ context.Context, id, w string) error {
	f.call("DeleteWidget", id, w)
	return nil
}
func (f *fakeLegacyViews) SetWidgetDescription(_ context.Context, id, w string, b []byte) error {
	f.call("SetWidgetDescription", id, w, string(b))
	return nil
}
func (f *fakeLegacyViews) SetWidgetCacheTime(_ context.Context, id, w string, b []byte) error {
	f.call("SetWidgetCacheTime", id, w, string(b))
	return nil
}
func (f *fakeLegacyViews) WidgetValue(_ context.Context, id, w string) ([]byte, error) {
	f.call("WidgetValue", id, w)
	return nil, api.Errorf(api.Unavailable, "no search")
}
func (f *fakeLegacyViews) SavedSearches(context.Context) ([]byte, error) {
	f.call("SavedSearches")
	return []byte(`{"total":0,"searches":[]}`), nil
}
func (f *fakeLegacyViews) SavedSearch(_ context.Context, id string) ([]byte, error) {
	f.call("SavedSearch", id)
	return []byte(`{}`), nil
}
func (f *fakeLegacyViews) CreateSavedSearch(_ context.Context, b []byte) (string, error) {
	f.call("CreateSavedSearch", string(b))
	return "s1", nil
}
func (f *fakeLegacyViews) UpdateSavedSearch(_ context.Context, id string, b []byte) ([]byte, error) {
	f.call("UpdateSavedSearch", id, string(b))
	return []byte(`{"id":"` + id + `"}`), nil
}
func (f *fakeLegacyViews) DeleteSavedSearch(_ context.Context, id string) error {
	f.call("DeleteSavedSearch", id)
	return nil
}

type legacyCase struct {
	method, path, body string
	status             int
	call               string
	location           string
}

// legacyCases are every route of the legacy API, relative to its prefix.
var legacyCases = []legacyCase{
	{"GET", "/dashboards", "", 200, "Dashboards", ""},
	{"GET", "/dashboards/", "", 200, "Dashboards", ""}, // old documentation's trailing slash
	{"POST", "/dashboards", `{"title":"t"}`, 201, `CreateDashboard {"title":"t"}`, "/dashboards/d1"},
	{"GET", "/dashboards/d%201", "", 200, "Dashboard d 1", ""},
	{"PUT", "/dashboards/d1", `{"title":"u"}`, 204, `UpdateDashboard d1 {"title":"u"}`, ""},
	{"DELETE", "/dashboards/d1", "", 204, "DeleteDashboard d1", ""},
	{"PUT", "/dashboards/d1/positions", `{"positions":[]}`, 204, `SetPositions d1 {"positions":[]}`, ""},
	{"POST", "/dashboards/d1/widgets", `{"type":"X"}`, 201, `AddWidget d1 {"type":"X"}`, "/dashboards/d1/widgets/w1"},
	{"GET", "/dashboards/d1/widgets/w1", "", 200, "Widget d1 w1", ""},
	{"PUT", "/dashboards/d1/widgets/w1", `{"type":"Y"}`, 204, `UpdateWidget d1 w1 {"type":"Y"}`, ""},
	{"DELETE", "/dashboards/d1/widgets/w1", "", 204, "DeleteWidget d1 w1", ""},
	{"PUT", "/dashboards/d1/widgets/w1/description", `{"description":"d"}`, 204, `SetWidgetDescription d1 w1 {"description":"d"}`, ""},
	{"PUT", "/dashboards/d1/widgets/w1/cachetime", `{"cache_time":1}`, 204, `SetWidgetCacheTime d1 w1 {"cache_time":1}`, ""},
	{"GET", "/dashboards/d1/widgets/w1/value", "", 503, "WidgetValue d1 w1", ""},
	{"GET", "/search/saved", "", 200, "SavedSearches", ""},
	{"POST", "/search/saved", `{"title":"s"}`, 201, `CreateSavedSearch {"title":"s"}`, "/search/saved/s1"},
	{"GET", "/search/saved/s1", "", 200, "SavedSearch s1", ""},
	{"PUT", "/search/saved/s1", `{"title":"s"}`, 200, `UpdateSavedSearch s1 {"title":"s"}`, ""},
	{"DELETE", "/search/saved/s1", "", 204, "DeleteSavedSearch s1", ""},
}

// serveChange sends one request through a chain of one change.
func serveChange(t *testing.T, ch *compat.Change, client compat.Client, method, path, body string, principal bool, csrf bool) (*httptest.ResponseRecorder, bool) {
	t.Helper()
	reached := false
	backend := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached = true
		w.WriteHeader(http.StatusTeapot)
	})
	h := compat.NewChain("/api", ch).Wrap(backend, func(w http.ResponseWriter, r *http.Request, err error) { api.WriteError(w, r, err) })
	r := httptest.NewRequest(method, "/api"+path, strings.NewReader(body))
	if csrf {
		r.Header.Set("X-Requested-By", "test")
	}
	ctx := compat.WithClient(r.Context(), client)
	if principal {
		ctx = auth.WithPrincipal(ctx, routertest.Principal(t, "*"))
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r.WithContext(ctx))
	return w, reached
}

var (
	client24      = compat.Client{Release: compat.MustRelease("2.4"), Source: compat.FromHeader}
	client33      = compat.Client{Release: compat.MustRelease("3.3"), Source: compat.FromHeader}
	clientDefault = compat.Client{Release: compat.Latest, Source: compat.FromDefault}
	client40      = compat.Client{Release: compat.Latest, Source: compat.FromHeader}
)

// Each legacy route is answered by the change itself, with 3.x's statuses
// and the new resource's Location, at / for clients before 3.3 and at
// /legacy for clients before 4.0 and on the default release.
func TestLegacyViewsChangesAnswer(t *testing.T) {
	// What 3.3 had not under /legacy (it kept reads and deletes): 405
	// where it had the path, else 404.
	notIn33 := map[string]int{
		"POST /dashboards": 405, "PUT /dashboards/d1": 405, "PUT /dashboards/d1/positions": 404,
		"POST /dashboards/d1/widgets": 404, "PUT /dashboards/d1/widgets/w1": 405,
		"PUT /dashboards/d1/widgets/w1/description": 404, "PUT /dashboards/d1/widgets/w1/cachetime": 404,
		"POST /search/saved": 405, "PUT /search/saved/s1": 405,
	}
	for _, v := range []struct {
		name   string
		change func(compat.LegacyViews) *compat.Change
		prefix string
		client compat.Client
	}{
		{"3.3 change, 2.4 client", compat.LegacyViewsAPI, "", client24},
		{"4.0 change, 3.3 client", compat.LegacyViewsRemoval, "/legacy", client33},
		{"4.0 change, default release", compat.LegacyViewsRemoval, "/legacy", clientDefault},
	} {
		for _, c := range legacyCases {
			t.Run(v.name+" "+c.method+" "+c.path, func(t *testing.T) {
				f := &fakeLegacyViews{}
				w, reached := serveChange(t, v.change(f), v.client, c.method, v.prefix+c.path, c.body, true, true)
				status, call, location := c.status, c.call, c.location
				if refused, ok := notIn33[c.method+" "+c.path]; ok && v.prefix == "/legacy" {
					status, call, location = refused, "", ""
				}
				if reached || w.Code != status {
					t.Fatalf("status %d (backend reached: %v), want %d: %s", w.Code, reached, status, w.Body)
				}
				if got := strings.Join(f.calls, ";"); got != call {
					t.Errorf("calls %q, want %q", got, call)
				}
				warn := w.Header().Get("Warning")
				if v.prefix == "/legacy" && (!strings.HasPrefix(warn, `299 loggate "/legacy/`) || !strings.HasSuffix(warn, ` was removed in 4.0; served as release 3.3"`)) ||
					v.prefix == "" && warn != "" {
					t.Errorf("Warning %q", warn)
				}
				if want := location; want != "" && w.Header().Get("Location") != "/api"+v.prefix+want {
					t.Errorf("Location %q, want %q", w.Header().Get("Location"), "/api"+v.prefix+want)
				}
			})
		}
	}
}

// The changes leave alone what is not theirs: the 4.0 lists for 3.3 and
// newer clients, /legacy for clients that say they speak 4.0.
func TestLegacyViewsChangesPassOn(t *testing.T) {
	for _, c := range []struct {
		name   string
		change *compat.Change
		client compat.Client
		path   string
	}{
		{"3.3 client, /dashboards", compat.LegacyViewsAPI(&fakeLegacyViews{}), client33, "/dashboards"},
		{"default release, /search/saved", compat.LegacyViewsAPI(&fakeLegacyViews{}), clientDefault, "/search/saved"},
		{"4.0 client, /legacy/dashboards", compat.LegacyViewsRemoval(&fakeLegacyViews{}), client40, "/legacy/dashboards"},
		{"4.0 client, /views/dashboards", compat.LegacyViewsRemoval(&fakeLegacyViews{}), client40, "/views/dashboards"},
		{"2.4 client, /dashboards/{id}/unknown", compat.LegacyViewsAPI(&fakeLegacyViews{}), client24, "/dashboards/d1/unknown"},
	} {
		t.Run(c.name, func(t *testing.T) {
			w, reached := serveChange(t, c.change, c.client, "GET", c.path, "", true, true)
			if !reached || w.Code != http.StatusTeapot {
				t.Errorf("status %d, backend reached: %v", w.Code, reached)
			}
		})
	}
}

func TestLegacyViewsChangesRefuse(t *testing.T) {
	f := &fakeLegacyViews{}
	for _, c := range []struct {
		name         string
		change       *compat.Change
		method, path string
		csrf         bool
		status       int
	}{
		{"no service", compat.LegacyViewsAPI(nil), "GET", "/dashboards", true, 404},
		{"no service, /legacy", compat.LegacyViewsRemoval(nil), "GET", "/legacy/search/saved", true, 404},
		{"no CSRF header", compat.LegacyViewsAPI(f), "POST", "/dashboards", false, 400},
		{"no CSRF header, /legacy", compat.LegacyViewsRemoval(f), "DELETE", "/legacy/dashboards/d1", false, 400},
	} {
		t.Run(c.name, func(t *testing.T) {
			w, reached := serveChange(t, c.change, client24, c.method, c.path, `{}`, true, c.csrf)
			if reached || w.Code != c.status {
				t.Errorf("status %d (backend reached: %v), want %d: %s", w.Code, reached, c.status, w.Body)
			}
		})
	}
	if len(f.calls) != 0 {
		t.Errorf("refused requests reached the service: %q", f.calls)
	}
}

// The redirects need no service, keep the query and point at the API path
// under the prefix when no public URI is configured.
func TestLegacyViewsRedirectLocation(t *testing.T) {
	for _, c := range []struct{ path, want string }{
		{"/views/dashboards", "/api/dashboards"},
		{"/views/savedSearches?query=title%3Ax", "/api/search/saved?query=title%3Ax"},
	} {
		w, reached := serveChange(t, compat.LegacyViewsRemoval(nil), clientDefault, "GET", c.path, "", false, false)
		if reached || w.Code != http.StatusMovedPermanently || w.Header().Get("Location") != c.want {
			t.Errorf("%s: %d %q, want 301 %q", c.path, w.Code, w.Header().Get("Location"), c.want)
		}
	}
}

// Every default-release request is matched against the 4.0 change's
// routes; a 4.0 view list must pay nothing for the legacy ones. An old
// client's legacy request is answered without reaching the backend.
func BenchmarkLegacyViewsChain(b *testing.B) {
	backend := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
	for _, bc := range []struct {
		name, path string
		changes    []*compat.Change
		client     compat.Client
	}{
		{"4.0-list-no-changes", "/api/dashboards", nil, clientDefault},
		{"4.0-list-legacy-changes", "/api/dashboards", []*compat.Change{compat.LegacyViewsAPI(&fakeLegacyViews{}), compat.LegacyViewsRemoval(&fakeLegacyViews{})}, clientDefault},
		{"2.4-legacy-get-answered", "/api/dashboards/d1", []*compat.Change{compat.LegacyViewsAPI(&fakeLegacyViews{}), compat.LegacyViewsRemoval(&fakeLegacyViews{})}, client24},
	} {
		b.Run(bc.name, func(b *testing.B) {
			h := compat.NewChain("/api", bc.changes...).Wrap(backend, func(w http.ResponseWriter, r *http.Request, err error) {
				b.Fatalf("fail called: %v", err)
			})
			r := httptest.NewRequest("GET", bc.path, nil)
			r = r.WithContext(compat.WithClient(r.Context(), bc.client))
			b.ReportAllocs()
			for b.Loop() {
				h.ServeHTTP(httptest.NewRecorder(), r)
			}
		})
	}
}
