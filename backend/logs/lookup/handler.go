package lookup

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/router/api"
)

// Handler serves /system/lookup.
type Handler struct {
	s *Service
}

// NewHandler returns the /system/lookup resource.
func NewHandler(s *Service) *Handler { return &Handler{s: s} }

// Request body examples for the API browser.
const (
	adapterExample = `{"title":"Hosts","description":"","name":"hosts","config":{"type":"csvfile","path":"/etc/loggate/hosts.csv","separator":",","quotechar":"\"","key_column":"ip","value_column":"host","check_interval":60,"case_insensitive_lookup":false}}`
	cacheExample   = `{"title":"Hosts cache","description":"","name":"hosts-cache","config":{"type":"guava_cache","max_size":1000,"expire_after_access":60,"expire_after_access_unit":"SECONDS","expire_after_write":0,"expire_after_write_unit":null}}`
	tableExample   = `{"title":"Hosts","description":"","name":"hosts","cache_id":"<cache id>","data_adapter_id":"<adapter id>","default_single_value":"","default_single_value_type":"NULL","default_multi_value":"","default_multi_value_type":"NULL"}`
	errorsExample  = `{"tables":["hosts"],"caches":["hosts-cache"],"data_adapters":["hosts"]}`
)

const (
	permRead   = "lookuptables:read"
	permCreate = "lookuptables:create"
	permEdit   = "lookuptables:edit"
	permDelete = "lookuptables:delete"
)

// Routes returns the routes. Literal paths come before the {idOrName}
// templates that would take them.
func (h *Handler) Routes() []api.Route {
	const base = "/system/lookup"
	key := []string{"key"}
	list := append([]string{"resolve"}, api.PageQuery...)
	caches := component{h: h, k: Caches}
	adapters := component{h: h, k: Adapters}
	routes := []api.Route{
		{Method: "GET", Path: base + "/types/adapters", Summary: "List available data adapter types", Permission: permRead, Handler: api.JSON(adapters.types)},
		{Method: "GET", Path: base + "/types/caches", Summary: "List available caches types", Permission: permRead, Handler: api.JSON(caches.types)},
		{Method: "POST", Path: base + "/errorstates", Summary: "Retrieve the runtime error states of the given lookup tables, caches and adapters", Permission: permRead, Body: errorsExample, Handler: api.JSON(h.errorStates)},

		{Method: "GET", Path: base + "/tables", Summary: "List configured lookup tables", Permission: permRead, Query: list, Handler: api.JSON(h.listTables)},
		{Method: "POST", Path: base + "/tables", Summary: "Create a new lookup table", Permission: permCreate, Body: tableExample, Handler: api.JSON(h.createTable)},
		{Method: "POST", Path: base + "/tables/validate", Summary: "Validate the lookup table config", Permission: permRead, Body: tableExample, Handler: api.JSON(h.validateTable)},
		{Method: "GET", Path: base + "/tables/{name}/query", Summary: "Query a lookup table", Permission: permRead, Query: key, Handler: api.JSON(h.query)},
		{Method: "POST", Path: base + "/tables/{idOrName}/purge", Summary: "Purge lookup table cache", Permission: permRead, Query: key, Handler: h.purge},
		{Method: "GET", Path: base + "/tables/{idOrName}", Summary: "Retrieve the named lookup table", Permission: permRead + ":{id}", Query: []string{"resolve"}, Handler: api.JSON(h.getTable)},
		{Method: "PUT", Path: base + "/tables/{idOrName}", Summary: "Update the given lookup table", Permission: permEdit + ":{id}", Body: tableExample, Handler: api.JSON(h.updateTable)},
		{Method: "DELETE", Path: base + "/tables/{idOrName}", Summary: "Delete the lookup table", Permission: permDelete + ":{id}", Handler: api.JSON(h.deleteTable)},

		{Method: "GET", Path: base + "/adapters", Summary: "List available data adapters", Permission: permRead, Query: api.PageQuery, Handler: api.JSON(adapters.list)},
		{Method: "POST", Path: base + "/adapters", Summary: "Create a new data adapter", Permission: permCreate, Body: adapterExample, Handler: api.JSON(adapters.create)},
		{Method: "POST", Path: base + "/adapters/validate", Summary: "Validate the data adapter config", Permission: permRead, Body: adapterExample, Handler: api.JSON(adapters.validate)},
		{Method: "GET", Path: base + "/adapters/{name}/query", Summary: "Query a data adapter", Permission: permRead, Query: key, Handler: api.JSON(h.queryAdapter)},
		{Method: "GET", Path: base + "/adapters/{idOrName}", Summary: "List the given data adapter", Permission: permRead + ":{id}", Handler: api.JSON(adapters.get)},
		{Method: "PUT", Path: base + "/adapters/{idOrName}", Summary: "Update the given data adapter settings", Permission: permEdit + ":{id}", Body: adapterExample, Handler: api.JSON(adapters.update)},
		{Method: "DELETE", Path: base + "/adapters/{idOrName}", Summary: "Delete the given data adapter", Permission: permDelete + ":{id}", Handler: api.JSON(adapters.delete)},

		{Method: "GET", Path: base + "/caches", Summary: "List available caches", Permission: permRead, Query: api.PageQuery, Handler: api.JSON(caches.list)},
		{Method: "POST", Path: base + "/caches", Summary: "Create a new cache", Permission: permCreate, Body: cacheExample, Handler: api.JSON(caches.create)},
		{Method: "POST", Path: base + "/caches/validate", Summary: "Validate the cache config", Permission: permRead, Body: cacheExample, Handler: api.JSON(caches.validate)},
		{Method: "GET", Path: base + "/caches/{idOrName}", Summary: "List the given cache", Permission: permRead + ":{id}", Handler: api.JSON(caches.get)},
		{Method: "PUT", Path: base + "/caches/{idOrName}", Summary: "Update the given cache settings", Permission: permEdit + ":{id}", Body: cacheExample, Handler: api.JSON(caches.update)},
		{Method: "DELETE", Path: base + "/caches/{idOrName}", Summary: "Delete the given cache", Permission: permDelete + ":{id}", Handler: api.JSON(caches.delete)},
	}
	for i := range routes {
		next := routes[i].Handler
		routes[i].Handler = func(w http.ResponseWriter, r *http.Request) error {
			// See the other nodes' changes first.
			if err := h.s.Refresh(r.Context()); err != nil {
				return err
			}
			return next(w, r)
		}
	}
	return routes
}

// sortable are the fields listings sort by.
var sortable = []string{"title", "description", "name", "id"}

// page reads a listing's parameters: Graylog sorts by title, descending,
// unless asked otherwise, and by title when asked for another field.
func page(r *http.Request) (api.Page, api.Query, error) {
	if q := r.URL.Query(); q.Get("sort") != "" {
		if sort := strings.ToLower(q.Get("sort")); slices.Contains(sortable, sort) {
			q.Set("sort", sort)
		} else {
			q.Del("sort")
		}
		u := *r.URL
		u.RawQuery = q.Encode()
		r = r.Clone(r.Context())
		r.URL = &u
	}
	p, err := api.ParsePage(r, "title", sortable...)
	if err != nil {
		return p, api.Query{}, err
	}
	if r.URL.Query().Get("order") == "" {
		p.Order = "desc"
	}
	q, err := api.ParseQuery(p.Query, "title", "id", "title", "description", "name")
	return p, q, err
}

func componentField(c Component, f string) string {
	switch f {
	case "id":
		return c.ID
	case "title":
		return c.Title
	case "description":
		return c.Description
	case "name":
		return c.Name
	}
	return ""
}

func tableField(t Table, f string) string {
	switch f {
	case "id":
		return t.ID
	case "title":
		return t.Title
	case "description":
		return t.Description
	case "name":
		return t.Name
	}
	return ""
}

// instance checks an instance permission (lookuptables:read:<id>), as
// Graylog checks it once it found the entity.
func instance(ctx context.Context, perm, id string) error { return auth.Require(ctx, perm+":"+id) }

func resolve(r *http.Request) bool { return strings.EqualFold(r.URL.Query().Get("resolve"), "true") }

// tablePage is LookupTablePage.
func (h *Handler) tablePage(query any, p api.Page, items []Table, total int, withRefs bool) map[string]any {
	body := api.Listing{Key: "lookup_tables", Items: items, Count: len(items), Total: total, Page: p}.Body()
	body["query"] = query
	caches, adapters := map[string]Component{}, map[string]Component{}
	if withRefs {
		for _, c := range h.s.Caches() {
			caches[c.ID] = c
		}
		for _, a := range h.s.Adapters() {
			adapters[a.ID] = a
		}
		usedCaches, usedAdapters := map[string]Component{}, map[string]Component{}
		for _, t := range items {
			if c, ok := caches[t.CacheID]; ok {
				usedCaches[c.ID] = c
			}
			if a, ok := adapters[t.DataAdapterID]; ok {
				usedAdapters[a.ID] = a
			}
		}
		caches, adapters = usedCaches, usedAdapters
	}
	body["caches"], body["data_adapters"] = caches, adapters
	return body
}

func (h *Handler) listTables(r *http.Request) (any, error) {
	p, q, err := page(r)
	if err != nil {
		return nil, err
	}
	items, total := api.PageOf(h.s.Tables(), p, q, tableField)
	return h.tablePage(p.Query, p, items, total, resolve(r)), nil
}

func (h *Handler) getTable(r *http.Request) (any, error) {
	t, err := h.s.Table(r.Context(), api.Var(r, "idOrName"))
	if err != nil {
		return nil, err
	}
	if err := instance(r.Context(), permRead, t.ID); err != nil {
		return nil, err
	}
	return h.tablePage(nil, api.Page{Page: 1, PerPage: 1}, []Table{t}, 1, resolve(r)), nil
}

func decodeTable(r *http.Request) (Table, error) {
	var t Table
	err := api.Decode(r, &t, false)
	return t, err
}

func (h *Handler) createTable(r *http.Request) (any, error) {
	t, err := decodeTable(r)
	if err != nil {
		return nil, err
	}
	t.ID = ""
	return h.s.CreateTable(r.Context(), t)
}

func (h *Handler) updateTable(r *http.Request) (any, error) {
	t, err := decodeTable(r)
	if err != nil {
		return nil, err
	}
	idOrName := api.Var(r, "idOrName")
	if idOrName != t.ID && idOrName != t.Name {
		return nil, mismatch(idOrName)
	}
	if err := instance(r.Context(), permEdit, t.ID); err != nil {
		return nil, err
	}
	return h.s.UpdateTable(r.Context(), idOrName, t)
}

func (h *Handler) deleteTable(r *http.Request) (any, error) {
	return h.s.DeleteTable(r.Context(), api.Var(r, "idOrName"), func(id string) error {
		return instance(r.Context(), permDelete, id)
	})
}

// validation is ValidationResult.
func validation(fields map[string][]string) map[string]any {
	if fields == nil {
		fields = map[string][]string{}
	}
	return map[string]any{"failed": len(fields) > 0, "errors": fields}
}

func (h *Handler) validateTable(r *http.Request) (any, error) {
	t, err := decodeTable(r)
	if err != nil {
		return nil, err
	}
	fields, err := h.s.ValidateTable(r.Context(), t)
	if err != nil {
		return nil, err
	}
	return validation(fields), nil
}

func (h *Handler) query(r *http.Request) (any, error) {
	name, key := api.Var(r, "name"), r.URL.Query().Get("key")
	if key == "" {
		return nil, api.Invalidf("key", "must not be empty")
	}
	res, err := h.s.Lookup(r.Context(), name, key)
	if errors.Is(err, ErrNoTable) {
		return nil, api.Wrap(api.NotFound, "Lookup table <"+name+"> not found", err)
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}

func (h *Handler) purge(w http.ResponseWriter, r *http.Request) error {
	if err := h.s.Purge(r.Context(), api.Var(r, "idOrName"), r.URL.Query().Get("key")); err != nil {
		return err
	}
	api.NoContent(w)
	return nil
}

func (h *Handler) queryAdapter(r *http.Request) (any, error) {
	name, key := api.Var(r, "name"), r.URL.Query().Get("key")
	if key == "" {
		return nil, api.Invalidf("key", "must not be empty")
	}
	res, ok := h.s.AdapterLookup(r.Context(), name, key)
	if !ok {
		return nil, api.Errorf(api.NotFound, "Unable to find data adapter %s", name)
	}
	return res, nil
}

func (h *Handler) errorStates(r *http.Request) (any, error) {
	var req struct {
		Tables   []string `json:"tables"`
		Caches   []string `json:"caches"`
		Adapters []string `json:"data_adapters"`
	}
	if err := api.Decode(r, &req, false); err != nil {
		return nil, err
	}
	return h.s.ErrorStates(req.Tables, req.Caches, req.Adapters), nil
}

// component serves the routes of caches or data adapters.
type component struct {
	h *Handler
	k Kind
}

func (c component) key() string {
	if c.k.what == "cache" {
		return "caches"
	}
	return "data_adapters"
}

func (c component) all() []Component {
	if c.k.what == "cache" {
		return c.h.s.Caches()
	}
	return c.h.s.Adapters()
}

func (c component) types(*http.Request) (any, error) { return c.k.Types(), nil }

func (c component) list(r *http.Request) (any, error) {
	p, q, err := page(r)
	if err != nil {
		return nil, err
	}
	items, total := api.PageOf(c.all(), p, q, componentField)
	return api.Listing{Key: c.key(), Items: items, Count: len(items), Total: total, Page: p}.Body(), nil
}

func (c component) get(r *http.Request) (any, error) {
	v, err := c.h.s.Component(r.Context(), c.k, api.Var(r, "idOrName"))
	if err != nil {
		return nil, err
	}
	if err := instance(r.Context(), permRead, v.ID); err != nil {
		return nil, err
	}
	return v, nil
}

func decodeComponent(r *http.Request) (Component, error) {
	var v Component
	err := api.Decode(r, &v, false)
	return v, err
}

func (c component) create(r *http.Request) (any, error) {
	v, err := decodeComponent(r)
	if err != nil {
		return nil, err
	}
	v.ID = ""
	return c.h.s.CreateComponent(r.Context(), c.k, v)
}

func (c component) update(r *http.Request) (any, error) {
	v, err := decodeComponent(r)
	if err != nil {
		return nil, err
	}
	idOrName := api.Var(r, "idOrName")
	if idOrName != v.ID && idOrName != v.Name {
		return nil, mismatch(idOrName)
	}
	if err := instance(r.Context(), permEdit, v.ID); err != nil {
		return nil, err
	}
	return c.h.s.UpdateComponent(r.Context(), c.k, idOrName, v)
}

func (c component) delete(r *http.Request) (any, error) {
	return c.h.s.DeleteComponent(r.Context(), c.k, api.Var(r, "idOrName"), func(id string) error {
		return instance(r.Context(), permDelete, id)
	})
}

func (c component) validate(r *http.Request) (any, error) {
	v, err := decodeComponent(r)
	if err != nil {
		return nil, err
	}
	fields, err := c.h.s.ValidateComponent(r.Context(), c.k, v)
	if err != nil {
		return nil, err
	}
	return validation(fields), nil
}
