package compat

import (
	"context"
	"net/http"
	"strings"

	"github.com/loggate/loggate/router/api"
)

// LegacyViews serves Graylog's legacy dashboards (2.x–3.1) and saved
// searches (3.1 and older) in their own JSON; the node answers from the 4.0
// views that store them. Bodies are the old request bodies and responses the
// old response bodies. It checks 3.x's permissions itself; errors are api
// errors.
type LegacyViews interface {
	// Dashboards returns {"total":n,"dashboards":[…]}.
	Dashboards(ctx context.Context) ([]byte, error)
	Dashboard(ctx context.Context, id string) ([]byte, error)
	// CreateDashboard stores {"title","description"} and returns the new id.
	CreateDashboard(ctx context.Context, body []byte) (string, error)
	UpdateDashboard(ctx context.Context, id string, body []byte) error
	DeleteDashboard(ctx context.Context, id string) error
	// SetPositions stores {"positions":[{"id","col","row","height","width"}]}.
	SetPositions(ctx context.Context, id string, body []byte) error
	// AddWidget stores {"description","type","cache_time","config"} and
	// returns the new widget's id.
	AddWidget(ctx context.Context, id string, body []byte) (string, error)
	Widget(ctx context.Context, id, widgetID string) ([]byte, error)
	UpdateWidget(ctx context.Context, id, widgetID string, body []byte) error
	DeleteWidget(ctx context.Context, id, widgetID string) error
	SetWidgetDescription(ctx context.Context, id, widgetID string, body []byte) error
	SetWidgetCacheTime(ctx context.Context, id, widgetID string, body []byte) error
	// WidgetValue returns the widget's computed value.
	WidgetValue(ctx context.Context, id, widgetID string) ([]byte, error)
	// SavedSearches returns {"total":n,"searches":[…]}.
	SavedSearches(ctx context.Context) ([]byte, error)
	SavedSearch(ctx context.Context, id string) ([]byte, error)
	// CreateSavedSearch stores {"title","query"} and returns the new id.
	CreateSavedSearch(ctx context.Context, body []byte) (string, error)
	// UpdateSavedSearch replaces a saved search and returns it.
	UpdateSavedSearch(ctx context.Context, id string, body []byte) ([]byte, error)
	DeleteSavedSearch(ctx context.Context, id string) error
}

// legacyCall answers one legacy route from l.
type legacyCall func(ctx context.Context, l LegacyViews, x *Exchange, body []byte) (*Answer, error)

// legacyViewRoutes are the routes of Graylog 3.0's DashboardsResource,
// DashboardWidgetsResource and SavedSearchesResource, with the statuses
// they answered: 201 and the new id for a POST, 204 for the other writes
// (but a saved search's PUT, which answered the saved search).
var legacyViewRoutes = []struct {
	spec string
	call legacyCall
}{
	{"GET /dashboards", func(ctx context.Context, l LegacyViews, _ *Exchange, _ []byte) (*Answer, error) {
		return ok(l.Dashboards(ctx))
	}},
	{"POST /dashboards", func(ctx context.Context, l LegacyViews, x *Exchange, body []byte) (*Answer, error) {
		return created(x, "dashboard_id", "/dashboards/")(l.CreateDashboard(ctx, body))
	}},
	{"GET /dashboards/{dashboardId}", func(ctx context.Context, l LegacyViews, x *Exchange, _ []byte) (*Answer, error) {
		return ok(l.Dashboard(ctx, x.Vars.Unescaped("dashboardId")))
	}},
	{"PUT /dashboards/{dashboardId}", func(ctx context.Context, l LegacyViews, x *Exchange, body []byte) (*Answer, error) {
		return noContent(l.UpdateDashboard(ctx, x.Vars.Unescaped("dashboardId"), body))
	}},
	{"DELETE /dashboards/{dashboardId}", func(ctx context.Context, l LegacyViews, x *Exchange, _ []byte) (*Answer, error) {
		return noContent(l.DeleteDashboard(ctx, x.Vars.Unescaped("dashboardId")))
	}},
	{"PUT /dashboards/{dashboardId}/positions", func(ctx context.Context, l LegacyViews, x *Exchange, body []byte) (*Answer, error) {
		return noContent(l.SetPositions(ctx, x.Vars.Unescaped("dashboardId"), body))
	}},
	{"POST /dashboards/{dashboardId}/widgets", func(ctx context.Context, l LegacyViews, x *Exchange, body []byte) (*Answer, error) {
		id := x.Vars.Unescaped("dashboardId")
		return created(x, "widget_id", "/dashboards/"+x.Vars.Get("dashboardId")+"/widgets/")(l.AddWidget(ctx, id, body))
	}},
	{"GET /dashboards/{dashboardId}/widgets/{widgetId}", func(ctx context.Context, l LegacyViews, x *Exchange, _ []byte) (*Answer, error) {
		return ok(l.Widget(ctx, x.Vars.Unescaped("dashboardId"), x.Vars.Unescaped("widgetId")))
	}},
	{"PUT /dashboards/{dashboardId}/widgets/{widgetId}", func(ctx context.Context, l LegacyViews, x *Exchange, body []byte) (*Answer, error) {
		return noContent(l.UpdateWidget(ctx, x.Vars.Unescaped("dashboardId"), x.Vars.Unescaped("widgetId"), body))
	}},
	{"DELETE /dashboards/{dashboardId}/widgets/{widgetId}", func(ctx context.Context, l LegacyViews, x *Exchange, _ []byte) (*Answer, error) {
		return noContent(l.DeleteWidget(ctx, x.Vars.Unescaped("dashboardId"), x.Vars.Unescaped("widgetId")))
	}},
	{"PUT /dashboards/{dashboardId}/widgets/{widgetId}/description", func(ctx context.Context, l LegacyViews, x *Exchange, body []byte) (*Answer, error) {
		return noContent(l.SetWidgetDescription(ctx, x.Vars.Unescaped("dashboardId"), x.Vars.Unescaped("widgetId"), body))
	}},
	{"PUT /dashboards/{dashboardId}/widgets/{widgetId}/cachetime", func(ctx context.Context, l LegacyViews, x *Exchange, body []byte) (*Answer, error) {
		return noContent(l.SetWidgetCacheTime(ctx, x.Vars.Unescaped("dashboardId"), x.Vars.Unescaped("widgetId"), body))
	}},
	{"GET /dashboards/{dashboardId}/widgets/{widgetId}/value", func(ctx context.Context, l LegacyViews, x *Exchange, _ []byte) (*Answer, error) {
		return ok(l.WidgetValue(ctx, x.Vars.Unescaped("dashboardId"), x.Vars.Unescaped("widgetId")))
	}},
	{"GET /search/saved", func(ctx context.Context, l LegacyViews, _ *Exchange, _ []byte) (*Answer, error) {
		return ok(l.SavedSearches(ctx))
	}},
	{"POST /search/saved", func(ctx context.Context, l LegacyViews, x *Exchange, body []byte) (*Answer, error) {
		return created(x, "search_id", "/search/saved/")(l.CreateSavedSearch(ctx, body))
	}},
	{"GET /search/saved/{searchId}", func(ctx context.Context, l LegacyViews, x *Exchange, _ []byte) (*Answer, error) {
		return ok(l.SavedSearch(ctx, x.Vars.Unescaped("searchId")))
	}},
	{"PUT /search/saved/{searchId}", func(ctx context.Context, l LegacyViews, x *Exchange, body []byte) (*Answer, error) {
		return ok(l.UpdateSavedSearch(ctx, x.Vars.Unescaped("searchId"), body))
	}},
	{"DELETE /search/saved/{searchId}", func(ctx context.Context, l LegacyViews, x *Exchange, _ []byte) (*Answer, error) {
		return noContent(l.DeleteSavedSearch(ctx, x.Vars.Unescaped("searchId")))
	}},
}

// LegacyViewsAPI is the 3.3 change that moved the legacy dashboards and
// saved searches to /legacy and gave /dashboards and /search/saved to the
// view-based lists. Older clients still get the legacy resources at their
// old paths, answered by the change itself from l. There is nothing to
// recognise on the default release: there these paths are the 4.0 lists.
// l may be nil for describing the change only.
func LegacyViewsAPI(l LegacyViews) *Change {
	return &Change{
		Release: MustRelease("3.3"),
		Description: "Legacy dashboards and saved searches moved to `/legacy/dashboards` and `/legacy/search/saved`; `GET /dashboards` and `GET /search/saved` list views. " +
			"Older clients still get every route of the 2.x/3.0 API at `/dashboards…` (widgets, positions, description, cache time) and `/search/saved…` in the old shapes, stored as 4.0 views.",
		Routes:  legacyRoutes(""),
		Request: serveLegacy(l, ""),
	}
}

// legacyRoutes are the change routes of the legacy API under prefix.
func legacyRoutes(prefix string) []Route {
	out := make([]Route, len(legacyViewRoutes))
	for i, rt := range legacyViewRoutes {
		method, path, _ := strings.Cut(rt.spec, " ")
		out[i] = R(method + " " + prefix + path)
	}
	return out
}

// legacy33 are the routes 3.3 kept of the legacy API under /legacy (3.3's
// LegacyDashboardsResource, LegacyDashboardWidgetsResource and
// LegacySavedSearchesResource): reads and deletes only. The others, which
// /legacy never had, are answered as 3.3 answered them: 405 where 3.3 had
// the path with another method, 404 where it had not the path.
var legacy33 = map[string]bool{
	"GET /dashboards":                                        true,
	"GET /dashboards/{dashboardId}":                          true,
	"DELETE /dashboards/{dashboardId}":                       true,
	"GET /dashboards/{dashboardId}/widgets/{widgetId}":       true,
	"DELETE /dashboards/{dashboardId}/widgets/{widgetId}":    true,
	"GET /dashboards/{dashboardId}/widgets/{widgetId}/value": true,
	"GET /search/saved":                                      true,
	"GET /search/saved/{searchId}":                           true,
	"DELETE /search/saved/{searchId}":                        true,
}

// legacyPath33 reports whether 3.3 had path (relative to /legacy) with
// some method.
func legacyPath33(path string) bool {
	for spec := range legacy33 {
		if _, p, _ := strings.Cut(spec, " "); p == path {
			return true
		}
	}
	return false
}

// refusedUnderLegacy reports whether rt is a /legacy route 3.3 did not
// have.
func refusedUnderLegacy(rt Route) bool {
	path, ok := strings.CutPrefix(rt.Template.String(), "/legacy")
	return ok && !legacy33[rt.Method+" "+path]
}

// serveLegacy answers a legacy route under prefix from l. As in the
// router, the CSRF header is checked before anything else.
func serveLegacy(l LegacyViews, prefix string) func(context.Context, *Exchange) error {
	calls := make(map[string]legacyCall, len(legacyViewRoutes))
	notAllowed := map[string]bool{}
	for _, rt := range legacyViewRoutes {
		method, path, _ := strings.Cut(rt.spec, " ")
		switch {
		case prefix != "/legacy" || legacy33[rt.spec]:
			calls[method+" "+prefix+path] = rt.call
		case legacyPath33(path):
			notAllowed[method+" "+prefix+path] = true
		}
	}
	return func(ctx context.Context, x *Exchange) error {
		route := x.Route.Method + " " + x.Route.Template.String()
		// As in the router: a wrong method is a 405 before the CSRF
		// header is asked for.
		if notAllowed[route] {
			return api.Errorf(api.NotAllowed, "HTTP 405 Method Not Allowed")
		}
		call, found := calls[route]
		if l == nil || !found {
			return api.Errorf(api.NotFound, "HTTP 404 Not Found")
		}
		if err := CheckCSRF(x.Req); err != nil {
			return err
		}
		body, err := x.Body()
		if err != nil {
			return err
		}
		a, err := call(ctx, l, x, body)
		if err != nil {
			return err
		}
		return a
	}
}

func ok(body []byte, err error) (*Answer, error) {
	if err != nil {
		return nil, err
	}
	return JSON(http.StatusOK, body), nil
}

func noContent(err error) (*Answer, error) {
	if err != nil {
		return nil, err
	}
	return &Answer{Status: http.StatusNoContent}, nil
}

// created answers a POST with 201, {"<key>":"<id>"} and the new resource's
// Location under the path the client used (/legacy or not).
func created(x *Exchange, key, under string) func(id string, err error) (*Answer, error) {
	return func(id string, err error) (*Answer, error) {
		if err != nil {
			return nil, err
		}
		body, err := api.Marshal(map[string]string{key: id})
		if err != nil {
			return nil, err
		}
		a := JSON(http.StatusCreated, body)
		a.Header.Set("Location", absolute(x, legacyPrefix(x)+under+id))
		return a, nil
	}
}

// legacyPrefix is "/legacy" for a route of the 3.3 paths, else "".
func legacyPrefix(x *Exchange) string {
	if strings.HasPrefix(x.Route.Template.String(), "/legacy/") {
		return "/legacy"
	}
	return ""
}

// absolute returns the public URI of an API path, as Graylog's Location
// headers are; without a configured base, the path under the API prefix.
func absolute(x *Exchange, path string) string {
	if loc := api.Location(x.Req, path); loc != path {
		return loc
	}
	return x.prefix + path
}
