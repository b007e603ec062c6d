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

// ValueFunc is a handler that returns its answer instead of writing it: a
// value, written as JSON with 200, or an error, written by WriteError.
// Prometheus' web/api/v1 serves every endpoint this way.
type ValueFunc func(r *http.Request) (any, error)

// JSON is the one writer of ValueFunc answers: routes declare
// Handler: api.JSON(h.get). Handlers that set headers or another status
// (201 with Location, 204, streamed answers) stay HandlerFuncs.
func JSON(f ValueFunc) HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		v, err := f(r)
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, v)
		return nil
	}
}

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
	// before calling the handler when it has no {placeholder}, or, with
	// PathChecked, with the request's path values put in. Any other
	// (users:edit:{username} on /users/{userId}, an instance permission of
	// a listing, or one Graylog checks only after finding the entity) is
	// checked by the handler and listed here for the documentation.
	Permission string
	// PathChecked asks the router to check Permission with the request's
	// path values (indexsets:read:{id} on /system/indices/index_sets/{id})
	// before the handler runs, which then does not repeat the check. Every
	// placeholder must be a path variable of the route (see PathPermission).
	PathChecked bool
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

// PathPermission reports whether every placeholder of Permission is a path
// variable of the route, so that the router can check it per request.
func (r Route) PathPermission() bool {
	if !strings.Contains(r.Permission, "{") {
		return false
	}
	for _, name := range placeholders(r.Permission) {
		if !strings.Contains(r.Path, "{"+name+"}") {
			return false
		}
	}
	return true
}

// PermissionFor returns Permission with its placeholders replaced by the
// request's path values.
func (r Route) PermissionFor(req *http.Request) string {
	vars := Vars(req)
	p := r.Permission
	for _, name := range placeholders(p) {
		p = strings.ReplaceAll(p, "{"+name+"}", vars[name])
	}
	return p
}

// placeholders returns the {names} of a template.
func placeholders(s string) []string {
	var out []string
	for {
		i := strings.IndexByte(s, '{')
		if i < 0 {
			return out
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			return out
		}
		out = append(out, s[i+1:i+j])
		s = s[i+j+1:]
	}
}

// IsDeprecated reports whether the route is deprecated, with or without a
// successor.
func (r Route) IsDeprecated() bool { return r.Deprecated || r.Successor != "" }

// Var returns a path variable of the matched route.
func Var(r *http.Request, name string) string { return Vars(r)[name] }

// Vars returns the path variables of the matched route: those SetVars
// put on the router's request context, else gorilla/mux's own (a request
// that gorilla/mux matched and served itself).
func Vars(r *http.Request) map[string]string {
	if c, ok := r.Context().Value(requestKey{}).(*requestContext); ok && c.vars != nil {
		return c.vars
	}
	return mux.Vars(r)
}

// SetVars returns r carrying the path variables of the route it matched,
// set in place on the router's request context when r carries one (no copy
// of r), else as mux.SetURLVars puts them. SetVars(r, nil) forgets those
// set in place before, for a request gorilla/mux then serves itself.
func SetVars(r *http.Request, vars map[string]string) *http.Request {
	if c, ok := r.Context().Value(requestKey{}).(*requestContext); ok {
		c.vars = vars
		return r
	}
	if vars == nil {
		return r
	}
	return mux.SetURLVars(r, vars)
}

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
	var base string
	switch v := r.Context().Value(baseKey{}).(type) {
	case string:
		base = v
	case *requestContext:
		base = v.base
	}
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
