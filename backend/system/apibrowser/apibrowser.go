// Package apibrowser serves the API browser and the machine-readable
// description of the API, both generated from the router's route table: the
// page at /api/api-browser/, its OpenAPI 3 document, and Graylog's Swagger
// 1.2 documents at /api/api-docs.
package apibrowser

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/loggate/loggate/backend/system/overview"
	"github.com/loggate/loggate/router/api"
)

// Handler serves /api-browser and the API description.
type Handler struct {
	routes func() []api.Route
	// compat are the routes only the compat chain serves, documented after
	// the table's; those of a shape the table has are left out.
	compat []api.Route
	// version is the API version of the OpenAPI document (the Graylog
	// release loggate speaks); build is the node version Graylog's
	// /api-docs reports.
	version, build string

	mu    sync.Mutex
	cache *documents
}

// documents are the descriptions of one route table, built on first use.
type documents struct {
	count   int // routes in the table they describe
	model   *model
	openAPI []byte
	listing []byte
}

// New returns the API browser. routes returns the complete route table; it is
// called per request because the table includes the browser's own routes.
func New(routes func() []api.Route) *Handler {
	return &Handler{routes: routes, version: overview.APIVersion, build: overview.Version()}
}

// WithCompat adds to the documentation the routes only the compat chain
// serves, each with its api.Route.Compat note.
func (h *Handler) WithCompat(routes []api.Route) *Handler {
	h.compat = routes
	return h
}

// Routes returns the browser's routes. They are public, as in Graylog: the
// page sends the user's credentials itself on the calls it tries.
func (h *Handler) Routes() []api.Route {
	return []api.Route{
		{Method: http.MethodGet, Path: "/api-browser", Summary: "The API browser (redirects to /api/api-browser/)", Public: true, Handler: h.root},
		{Method: http.MethodGet, Path: "/api-browser/openapi.json", Summary: "OpenAPI 3.0 description of the API", Public: true, Handler: h.openAPI},
		{Method: http.MethodGet, Path: "/api-browser/{asset}", Summary: "The API browser's page and assets (index.html, app.js, app.css)", Public: true, Handler: h.asset},
		{Method: http.MethodGet, Path: "/api-docs", Summary: "Swagger 1.2 resource listing of the API", Public: true, Handler: h.listing},
		{Method: http.MethodGet, Path: "/api-docs/global", Summary: "Swagger 1.2 resource listing of the API (cluster-global browser)", Public: true, Handler: h.listing},
		{Method: http.MethodGet, Path: "/api-docs/{route:.+}", Summary: "Swagger 1.2 description of one resource of the API", Public: true, Handler: h.resource},
	}
}

// docs returns the descriptions of the current route table. The table is
// fixed once the router is built, so they are built once; a table of another
// length (a test's, say) rebuilds them.
func (h *Handler) docs() (*documents, error) {
	routes := slices.Concat(h.routes(), h.compat)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.cache != nil && h.cache.count == len(routes) {
		return h.cache, nil
	}
	m := newModel(routes)
	oa, err := api.Marshal(openAPI(m, h.version))
	if err != nil {
		return nil, fmt.Errorf("encode the OpenAPI document: %w", err)
	}
	ls, err := api.Marshal(listing(m, h.build))
	if err != nil {
		return nil, fmt.Errorf("encode the resource listing: %w", err)
	}
	h.cache = &documents{count: len(routes), model: m, openAPI: oa, listing: ls}
	return h.cache, nil
}

// root serves the page at /api-browser/ and sends /api-browser there: the
// router drops trailing slashes before matching, so only the request line
// tells the two apart, and the page's relative asset links need the slash.
func (h *Handler) root(w http.ResponseWriter, r *http.Request) error {
	if u, err := url.ParseRequestURI(r.RequestURI); err == nil && !strings.HasSuffix(u.Path, "/") {
		// Relative, so that it holds behind proxies that rewrite the host.
		w.Header().Set("Location", "api-browser/")
		w.WriteHeader(http.StatusFound)
		return nil
	}
	return serveAsset(w, r, "index.html")
}

func (h *Handler) asset(w http.ResponseWriter, r *http.Request) error {
	return serveAsset(w, r, api.Var(r, "asset"))
}

func (h *Handler) openAPI(w http.ResponseWriter, r *http.Request) error {
	d, err := h.docs()
	if err != nil {
		return err
	}
	api.WriteRawJSON(w, http.StatusOK, d.openAPI)
	return nil
}

// docsCORS are the headers Graylog adds to every /api-docs response, whatever
// http_enable_cors says, so that Swagger tools elsewhere can read them.
var docsCORS = map[string][]string{
	"Access-Control-Allow-Origin":  {"*"},
	"Access-Control-Allow-Methods": {"GET"},
	"Access-Control-Allow-Headers": {"Content-Type, api_key, Authorization"},
}

func setDocsCORS(w http.ResponseWriter) {
	for k, v := range docsCORS {
		w.Header()[k] = v
	}
}

func (h *Handler) listing(w http.ResponseWriter, r *http.Request) error {
	setDocsCORS(w)
	d, err := h.docs()
	if err != nil {
		return err
	}
	api.WriteRawJSON(w, http.StatusOK, d.listing)
	return nil
}

func (h *Handler) resource(w http.ResponseWriter, r *http.Request) error {
	setDocsCORS(w)
	d, err := h.docs()
	if err != nil {
		return err
	}
	route := api.Var(r, "route")
	doc, ok := resource(d.model, route, h.build, api.Location(r, "/"))
	if !ok {
		return api.Errorf(api.NotFound, "No API resource at /%s", strings.Trim(route, "/"))
	}
	api.WriteJSON(w, http.StatusOK, doc)
	return nil
}
