package compat

import (
	"context"
	"net/http"
)

// legacyRedirects are 3.3's redirects from the view lists' old paths to
// their new ones.
var legacyRedirects = map[string]string{
	"/views/dashboards":    "/dashboards",
	"/views/savedSearches": "/search/saved",
}

// LegacyViewsRemoval is the 4.0 removal of 3.3's /legacy/dashboards and
// /legacy/search/saved and of the redirects /views/dashboards and
// /views/savedSearches. They are still served: the legacy paths from l
// (the reads and deletes 3.3 had there, in the legacy shapes, over the
// 4.0 views), the
// redirects as 3.3 answered them (301). The paths do not exist in 4.0, so
// they are recognised on the default release too. l may be nil for
// describing the change only; the redirects need nothing.
func LegacyViewsRemoval(l LegacyViews) *Change {
	routes := legacyRoutes("/legacy")
	routes = append(routes, R("GET /views/dashboards"), R("GET /views/savedSearches"))
	legacy := serveLegacy(l, "/legacy")
	return &Change{
		Release: MustRelease("4.0"),
		Removed: true,
		Description: "The legacy dashboards (`/legacy/dashboards…`) and saved searches (`/legacy/search/saved…`) APIs and the redirects `GET /views/dashboards` and `GET /views/savedSearches` are removed; " +
			"they are still answered, the legacy APIs from the 4.0 views with the reads and deletes 3.3 had there (its other methods are 405) and the redirects with 301 to `/dashboards` and `/search/saved`.",
		Routes:  routes,
		Refuses: func(rt Route) bool { return refusedUnderLegacy(rt) },
		// The paths are gone from 4.0: any request for them is old.
		Recognise: func(context.Context, *http.Request, Vars) bool { return true },
		Request: func(ctx context.Context, x *Exchange) error {
			if to, ok := legacyRedirects[x.Route.Template.String()]; ok {
				return redirect(x, to)
			}
			return legacy(ctx, x)
		},
	}
}

// redirect answers 301 with the new path's absolute URI, keeping the
// query (the list's paging).
func redirect(x *Exchange, to string) *Answer {
	loc := absolute(x, to)
	if q := x.Req.URL.RawQuery; q != "" {
		loc += "?" + q
	}
	return &Answer{Status: http.StatusMovedPermanently, Header: http.Header{"Location": {loc}}}
}
