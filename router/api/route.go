package api

import (
	"context"
	"net/http"
	"strings"

	"github.com/gorilla/mux"
)

// HandlerFunc is the shape of every native handler: it writes its own success
// response and returns errors, which the router turns into Graylog's error
// body through WriteError.
type HandlerFunc func(w http.ResponseWriter, r *http.Request) error

// Route declares one endpoint of the native API. The router registers it, the
// API browser documents it; one table serves both so that no route can exist
// undocumented.
type Route struct {
	Method string
	// Path is a gorilla/mux template relative to /api, such as
	// "/users/{userId}/tokens".
	Path    string
	Summary string
	// Public routes need no authentication (login, the API root).
	Public bool
	// Permission is the permission the route requires. The router checks it
	// before calling the handler when it has no {placeholder}; a permission
	// on a path value (users:edit:{username}) is checked by the handler and
	// is listed here for the documentation.
	Permission string
	// Successor names the replacement of a deprecated route; the response then
	// carries Deprecation and Link headers.
	Successor string
	// Deprecated marks a route deprecated without a successor ("to be
	// removed in a future version"); the response carries Deprecation.
	Deprecated bool
	// Query names the query parameters the route reads (api.PageQuery for
	// paginated listings), for the API browser.
	Query []string
	// Body describes the request body the route reads, as a JSON example,
	// for the API browser; empty when it reads none.
	Body string
	// Consumes lists the media types the route reads besides JSON (such as
	// "text/plain"). A body of any other type is answered 415 by the
	// router, as Jersey answers it for @Consumes(APPLICATION_JSON).
	Consumes []string
	Handler  HandlerFunc
	// Compat, on a route only the compat chain serves (a path an older
	// release had), is the note its documentation carries ("Removed in 4.0;
	// served by compatibility for releases ≤ 3.3."). Such routes are
	// documented, not registered: they have no Handler.
	Compat string
}

// StaticPermission reports whether the router can check Permission before the
// handler runs.
func (r Route) StaticPermission() bool {
	return r.Permission != "" && !strings.Contains(r.Permission, "{")
}

// IsDeprecated reports whether the route is deprecated, with or without a
// successor.
func (r Route) IsDeprecated() bool { return r.Deprecated || r.Successor != "" }

// Var returns a path variable of the matched route.
func Var(r *http.Request, name string) string { return mux.Vars(r)[name] }

// NoContent answers 204.
func NoContent(w http.ResponseWriter) { w.WriteHeader(http.StatusNoContent) }

type baseKey struct{}

// WithBaseURI returns a context carrying the public URI of the API root
// (http_publish_uri + "api"), for Location headers.
func WithBaseURI(ctx context.Context, base string) context.Context {
	return context.WithValue(ctx, baseKey{}, strings.TrimSuffix(base, "/"))
}

// Location returns the absolute URI of an API path for a Location header.
func Location(r *http.Request, path string) string {
	base, _ := r.Context().Value(baseKey{}).(string)
	return base + path
}

// SuccessorLink names the successor of a deprecated route by its concrete
// URI (Link: <…>; rel="successor-version"), replacing the router's Link,
// which can only name a successor with no path values: a Link names a URI,
// not a template. With path "", it removes the Link, for answers that have
// no successor to name (an error).
func SuccessorLink(w http.ResponseWriter, r *http.Request, path string) {
	if path == "" {
		w.Header().Del("Link")
		return
	}
	w.Header().Set("Link", "<"+Location(r, path)+`>; rel="successor-version"`)
}
