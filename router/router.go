// Package router owns the route table of the API and the order of the
// middleware every request passes through:
//
//	recover · node id · request id · body limit · trailing slash · pretty printing
//	→ CORS (only with http_enable_cors) → authentication → release resolution
//	→ compat chain → route matching (404, 405)
//	→ X-Requested-By check → authentication required, static permission → handler
//
// The X-Requested-By check follows route matching, as in Graylog, so that an
// unknown path answers 404 and a wrong method 405 first.
//
// In gateway mode (Options.Backend set, Options.Auth nil) everything after
// the compat chain is the Backend's: an upstream Graylog authenticates,
// matches routes and checks the header and permissions.
package router

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/mux"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/backend/system/metrics"
	"github.com/loggate/loggate/compat"
	"github.com/loggate/loggate/router/api"
)

// Prefix is where the API is mounted.
const Prefix = "/api"

// Authenticator turns an Authorization header into a principal.
type Authenticator interface {
	Authenticate(ctx context.Context, header string, extend bool) (*auth.Principal, error)
}

// TrustedHeader authenticates a request without an Authorization header by
// a username header a trusted proxy set; nil principal when it does not
// apply.
type TrustedHeader interface {
	Principal(r *http.Request) (*auth.Principal, error)
}

// Options configure the router.
type Options struct {
	Routes []api.Route
	// Auth authenticates callers. Nil means no local authentication: the
	// credentials pass untouched to Backend, which judges them (gateway
	// mode); releases pinned on access tokens then do not apply.
	Auth Authenticator
	// Backend, when set, replaces the route table: the compat chain wraps
	// it, no native route is served, and 404, 405, the X-Requested-By check
	// and permission checks are Backend's (an upstream Graylog's).
	Backend http.Handler
	// TrustedHeader, when set, is consulted for requests without an
	// Authorization header.
	TrustedHeader TrustedHeader
	Chain         *compat.Chain
	// DefaultRelease is compat_default_release.
	DefaultRelease compat.Release
	// AccessLog, when set, receives one JSON line per request (AccessEntry).
	AccessLog io.Writer
	// MinRelease is compat_min_release: older clients get 410. The zero
	// value refuses no one.
	MinRelease compat.Release
	EnableCORS bool
	// EnableGzip compresses responses of 512 bytes or more for clients that
	// accept gzip, as Graylog does by default (http_enable_gzip).
	EnableGzip  bool
	MaxBodySize int64
	// BaseURI is the public URI of the API root, for Location headers.
	BaseURI string
	NodeID  string
	Metrics *metrics.Registry
	Logger  *slog.Logger
}

// Router is the API's http.Handler.
type Router struct {
	o       Options
	base    atomic.Pointer[string]
	handler http.Handler
	nodeID  []string
	reqSeq  atomic.Uint64 // the last request's id (api.WithRequest)
	access  *accessLog    // nil when there is no access log
	// mux is walked by Served.
	mux *mux.Router

	requests             *metrics.Meter
	errors4xx, errors5xx *metrics.Counter
	cancelled            *metrics.Counter // requests the client hung up on
}

// New builds the router.
func New(o Options) *Router {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Metrics == nil {
		o.Metrics = metrics.New(time.Now)
	}
	if o.DefaultRelease == (compat.Release{}) {
		o.DefaultRelease = compat.Latest
	}
	rt := &Router{
		o: o, nodeID: []string{o.NodeID},
		requests:  o.Metrics.Meter("loggate.http.requests"),
		errors4xx: o.Metrics.Counter("loggate.http.responses.4xx"),
		errors5xx: o.Metrics.Counter("loggate.http.responses.5xx"),
		cancelled: o.Metrics.Counter("org.graylog2.rest.requests.cancelled"),
	}
	rt.SetBaseURI(o.BaseURI)
	if o.AccessLog != nil {
		rt.access = newAccessLog(o.AccessLog)
	}
	m := mux.NewRouter()
	rt.mux = m
	var h http.Handler = m
	if o.Backend != nil {
		h = o.Backend
	} else {
		h = rt.register(m)
	}
	for _, s := range slices.Backward(rt.middleware()) {
		if s.on {
			h = s.wrap(h)
		}
	}
	rt.handler = h
	return rt
}

// stage is one middleware of the chain, named for the reader.
type stage struct {
	name string
	on   bool
	wrap func(http.Handler) http.Handler
}

// middleware lists the chain in the order a request meets it (the README's
// diagram): the release is resolved after authentication, because a token
// may pin it; the X-Requested-By check runs in each route's endpoint,
// after the compat chain converted the request up.
func (rt *Router) middleware() []stage {
	o := rt.o
	return []stage{
		{"gzip", o.EnableGzip, gzipped},
		{"recover, node id, request id, body limit, pretty printing", true, rt.prepare},
		{"access log", true, rt.logAccess},
		{"CORS", o.EnableCORS, cors},
		{"authentication", o.Auth != nil, rt.authenticate},
		{"release resolution", true, rt.release},
		{"compat chain", o.Chain != nil, func(h http.Handler) http.Handler { return o.Chain.Wrap(h, rt.fail) }},
	}
}

// register adds the route table to m, with Jersey's 404 and 405 for the
// requests no route takes, and returns the handler that serves it.
func (rt *Router) register(m *mux.Router) http.Handler {
	for _, route := range rt.o.Routes {
		if route.PathChecked && !route.PathPermission() {
			// A route table error, found at the first start of any test.
			panic(fmt.Sprintf("route %s %s: PathChecked, but permission %s names no path variable of it", route.Method, route.Path, route.Permission))
		}
	}
	endpoints := make([]http.Handler, len(rt.o.Routes))
	for i, route := range rt.o.Routes {
		endpoints[i] = rt.endpoint(route)
	}
	var registered []*mux.Route
	// The API root without its slash, /api, is registered before the
	// subrouter, whose prefix would otherwise claim it.
	for i, route := range rt.o.Routes {
		if route.Path == "/" {
			registered = append(registered, m.Methods(methods(route)...).Path(Prefix).Handler(endpoints[i]))
		}
	}
	sub := m.PathPrefix(Prefix).Subrouter()
	for i, route := range rt.o.Routes {
		registered = append(registered, sub.Methods(methods(route)...).Path(route.Path).Handler(endpoints[i]))
	}
	unmatched := rt.unmatchedHandler(registered)
	m.NotFoundHandler, m.MethodNotAllowedHandler = unmatched, unmatched
	sub.NotFoundHandler, sub.MethodNotAllowedHandler = unmatched, unmatched
	return rt.bySegment(m, endpoints, unmatched)
}

// bySegment serves the route table through one gorilla/mux router per first
// path segment under /api: gorilla/mux tries routes one by one, each with a
// regular expression, so a request is matched against the routes that can
// take it instead of the whole table. A segment's router holds the routes
// whose path starts with it and those starting with a placeholder, in the
// table's order, so the first match is the one all would find. Anything
// else (the API root, an unknown segment, an empty one) goes to all.
func (rt *Router) bySegment(all *mux.Router, endpoints []http.Handler, unmatched http.Handler) http.Handler {
	segments := map[string]*mux.Router{}
	for _, route := range rt.o.Routes {
		if seg := firstSegment(route.Path); seg != "" && !strings.HasPrefix(seg, "{") && segments[seg] == nil {
			segments[seg] = mux.NewRouter()
			segments[seg].NotFoundHandler, segments[seg].MethodNotAllowedHandler = unmatched, unmatched
		}
	}
	for i, route := range rt.o.Routes {
		seg := firstSegment(route.Path)
		for s, m := range segments {
			if s == seg || strings.HasPrefix(seg, "{") {
				m.Methods(methods(route)...).Path(Prefix + route.Path).Handler(endpoints[i])
			}
		}
	}
	literal := literalRoutes(rt.o.Routes, segments)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h := literal[methodPath{r.Method, r.URL.Path}]; h != nil {
			h.ServeHTTP(w, api.SetVars(r, nil))
			return
		}
		if rest, ok := strings.CutPrefix(r.URL.Path, Prefix+"/"); ok {
			if m := segments[firstSegment(rest)]; m != nil {
				serveMatched(m, w, r)
				return
			}
		}
		all.ServeHTTP(w, api.SetVars(r, nil))
	})
}

// methodPath is a request's method and path.
type methodPath struct{ method, path string }

// literalRoutes returns gorilla/mux's choice, made once, for each method and
// path of a route without placeholders: the handler of the first route of
// the table that takes it, if that one has no path variables either.
// Routes match on method and path alone, so the choice is the one
// gorilla/mux would make for every such request; it is served without
// trying routes and their regular expressions one by one.
func literalRoutes(routes []api.Route, segments map[string]*mux.Router) map[methodPath]http.Handler {
	literal := map[methodPath]http.Handler{}
	for _, route := range routes {
		if strings.Contains(route.Path, "{") || route.Handler == nil {
			continue
		}
		m := segments[firstSegment(route.Path)]
		if m == nil {
			continue // the API root, served by the whole table's router
		}
		for _, method := range methods(route) {
			req := &http.Request{Method: method, URL: &url.URL{Path: Prefix + route.Path}}
			var match mux.RouteMatch
			if isClean(req.URL.Path) && m.Match(req, &match) && match.MatchErr == nil && len(match.Vars) == 0 {
				literal[methodPath{method, req.URL.Path}] = match.Handler
			}
		}
	}
	return literal
}

// serveMatched is gorilla/mux's ServeHTTP for a router whose unmatched
// handlers are set, less the matched route it puts in the context, which
// nothing here reads, and with the path variables set in place on the
// request context (api.SetVars): no request copy.
func serveMatched(m *mux.Router, w http.ResponseWriter, r *http.Request) {
	// From a pool: gorilla/mux's matchers take it through an interface,
	// so a local one would be allocated for every request.
	match := matches.Get().(*mux.RouteMatch)
	if !isClean(r.URL.Path) || !m.Match(r, match) {
		*match = mux.RouteMatch{}
		matches.Put(match)
		m.ServeHTTP(w, api.SetVars(r, nil)) // gorilla/mux redirects to the clean path
		return
	}
	h, vars := match.Handler, match.Vars
	*match = mux.RouteMatch{}
	matches.Put(match)
	h.ServeHTTP(w, api.SetVars(r, vars))
}

var matches = sync.Pool{New: func() any { return new(mux.RouteMatch) }}

// isClean reports whether p is in gorilla/mux's canonical form: as
// path.Clean makes it, but keeping a trailing slash.
func isClean(p string) bool {
	np := path.Clean(p)
	if strings.HasSuffix(p, "/") && np != "/" {
		return len(p) == len(np)+1 && strings.HasPrefix(p, np)
	}
	return np == p
}

// firstSegment returns the first segment of a path ("/users/x" → "users").
func firstSegment(path string) string {
	seg, _, _ := strings.Cut(strings.TrimPrefix(path, "/"), "/")
	return seg
}

// methods returns the methods a route answers: HEAD too for GET, as Jersey
// does (net/http drops the body).
func methods(route api.Route) []string {
	if route.Method == http.MethodGet {
		return []string{http.MethodGet, http.MethodHead}
	}
	return []string{route.Method}
}

// unmatchedHandler answers requests no route took with Jersey's texts: 405
// when the path exists for another method, else 404. gorilla/mux's own 405
// detection is lost when later routes do not match the path, so the check is
// made here, on the miss path only.
func (rt *Router) unmatchedHandler(routes []*mux.Route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// One shallow copy, its method changed per probe: r.Clone would
		// copy the caller's headers once per route and method, which a
		// client sending many headers to a missing path turns into
		// gigabytes.
		probe := *r
		for _, route := range routes {
			methods, _ := route.GetMethods()
			for _, m := range methods {
				if m == r.Method {
					continue
				}
				probe.Method = m
				if route.Match(&probe, &mux.RouteMatch{}) {
					rt.fail(w, r, &api.Error{Code: api.NotAllowed, Message: "HTTP 405 Method Not Allowed"})
					return
				}
			}
		}
		rt.fail(w, r, &api.Error{Code: api.NotFound, Message: "HTTP 404 Not Found"})
	})
}

// SetBaseURI sets the public URI of the API root, once the listener's
// address is known.
func (rt *Router) SetBaseURI(uri string) {
	uri = strings.TrimSuffix(uri, "/")
	rt.base.Store(&uri)
}

// BaseURI returns the public URI of the API root, without a trailing slash.
func (rt *Router) BaseURI() string { return *rt.base.Load() }

// Routes returns the route table.
func (rt *Router) Routes() []api.Route { return rt.o.Routes }

// Served lists what the HTTP router really answers, as "METHOD /api/path
// template" strings (HEAD included), walked from gorilla/mux itself rather
// than read from the table, so that tests can prove the table and the served
// routes are the same.
func (rt *Router) Served() []string {
	var out []string
	_ = rt.mux.Walk(func(r *mux.Route, _ *mux.Router, _ []*mux.Route) error {
		tpl, err := r.GetPathTemplate()
		methods, merr := r.GetMethods()
		if err != nil || merr != nil {
			// A subrouter's prefix route answers nothing by itself.
			return nil
		}
		for _, m := range methods {
			out = append(out, m+" "+tpl)
		}
		return nil
	})
	return out
}

// ServeHTTP implements http.Handler.
func (rt *Router) ServeHTTP(w http.ResponseWriter, r *http.Request) { rt.handler.ServeHTTP(w, r) }

// endpoint wraps one route: authentication and static permission checks,
// deprecation headers, metrics, and turning a returned error into a response.
func (rt *Router) endpoint(route api.Route) http.Handler {
	timer := rt.o.Metrics.Timer(metricName(route))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Latency is real elapsed time, whatever clock the registry's
		// rates run on.
		start := time.Now()
		defer func() { timer.Update(time.Since(start)) }()
		if route.IsDeprecated() {
			w.Header()["Deprecation"] = trueValue
		}
		if route.Successor != "" {
			w.Header().Set("Link", "<"+rt.BaseURI()+route.Successor+`>; rel="successor-version"`)
		}
		// After matching, as in Graylog: an unknown path is a 404 and a
		// wrong method a 405 before the body's type or the header is
		// asked for.
		if err := checkMediaType(r, route); err != nil {
			rt.fail(w, r, err)
			return
		}
		if err := compat.CheckCSRF(r); err != nil {
			rt.fail(w, r, err)
			return
		}
		if err := rt.check(r, route); err != nil {
			rt.fail(w, r, err)
			return
		}
		if err := route.Handler(w, r); err != nil {
			rt.fail(w, r, err)
		}
	})
}

var trueValue = []string{"true"}

func (rt *Router) check(r *http.Request, route api.Route) error {
	if route.Public {
		return nil
	}
	ctx := r.Context()
	if auth.FromContext(ctx) == nil {
		if err := authError(ctx); err != nil {
			return err
		}
		return auth.Unauthenticated()
	}
	switch {
	case route.StaticPermission():
		return auth.Require(ctx, route.Permission)
	case route.PathChecked && route.PathPermission():
		return auth.Require(ctx, route.PermissionFor(r))
	}
	return nil
}

// fail writes an error response. A browser asking with
// X-Requested-With: XMLHttpRequest gets no WWW-Authenticate, so that it shows
// no login dialog (as Graylog's NotAuthorizedResponseFilter does).
func (rt *Router) fail(w http.ResponseWriter, r *http.Request, err error) {
	code := api.ErrorCode(err)
	switch {
	case api.Cancelled(r, err):
		rt.cancelled.Inc(1)
	case code == api.Internal || code == api.Unavailable:
		rt.errors5xx.Inc(1)
	case code != api.NotModified:
		rt.errors4xx.Inc(1)
	}
	if xhr(r) {
		if e, ok := err.(*api.Error); ok && e.Header != nil {
			c := *e
			c.Header = c.Header.Clone()
			c.Header.Del("Www-Authenticate")
			err = &c
		}
	}
	api.WriteError(w, r, err)
}

func xhr(r *http.Request) bool {
	return strings.EqualFold(headerValue(r.Header, "X-Requested-With"), "XMLHttpRequest")
}

// headerValue is h.Get(name) for a name in canonical form (as the callers'
// constants are; TestHeaderNamesCanonical): the map is read directly, and
// the name is not checked and canonicalised again on every request.
func headerValue(h http.Header, name string) string {
	if v := h[name]; len(v) > 0 {
		return v[0]
	}
	return ""
}

func metricName(route api.Route) string {
	p := strings.NewReplacer("/", ".", "{", "", "}", "").Replace(strings.Trim(route.Path, "/"))
	if p == "" {
		p = "root"
	}
	return "loggate.http.routes." + p + "." + route.Method
}
