package views

import (
	"context"
	"errors"
	"net/http"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/router/api"
)

// Handler serves /views, /dashboards and /search/saved.
type Handler struct {
	views    *Service
	searches *Searches
}

// NewHandler returns the views resources; searches, when not nil, are the
// stored searches a view may only name when its author may read them.
func NewHandler(views *Service, searches *Searches) *Handler {
	return &Handler{views: views, searches: searches}
}

// checkSearch refuses a view naming a stored search its author may not
// read: owning the view would otherwise make the search theirs to read and
// run (Graylog 4.3's integrity check). A search not stored (an old client's
// view) is left to the view.
func (h *Handler) checkSearch(ctx context.Context, id string) error {
	if h.searches == nil || id == "" {
		return nil
	}
	if _, err := h.searches.Get(ctx, id); errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if _, err := h.searches.load(ctx, id); err != nil {
		if api.ErrorCode(err) == api.Forbidden {
			return api.Errorf(api.Invalid, "Search %s not available", id)
		}
		return err
	}
	return nil
}

// bodyExample is a minimal ViewDTO for the API browser.
const bodyExample = `{"type":"DASHBOARD","title":"Web servers","summary":"","description":"",` +
	`"search_id":"5f1a2b3c4d5e6f7a8b9c0d1e","properties":[],"requires":{},` +
	`"state":{"<query id>":{"selected_fields":null,"titles":{},"widgets":[],"widget_mapping":{},"positions":{},"formatting":null,"display_mode_settings":{}}}}`

// Routes returns the routes of the views API. Instance permissions carry a
// {placeholder} and are checked by the handlers, which also let the owner
// pass.
func (h *Handler) Routes() []api.Route {
	return []api.Route{
		{Method: "GET", Path: "/views", Summary: "Get a list of all views", Query: api.PageQuery, Handler: h.list("")},
		{Method: "POST", Path: "/views", Summary: "Create a new view (dashboards need dashboards:create)", Body: bodyExample, Handler: api.JSON(h.create)},
		{Method: "GET", Path: "/views/{id}", Summary: "Get a single view (id default: the default view)", Permission: "view:read:{id}", Handler: api.JSON(h.get)},
		{Method: "PUT", Path: "/views/{id}", Summary: "Update view", Permission: "view:edit:{id}", Body: bodyExample, Handler: api.JSON(h.update)},
		{Method: "DELETE", Path: "/views/{id}", Summary: "Delete view", Permission: "view:delete:{id}", Handler: api.JSON(h.delete)},
		{Method: "PUT", Path: "/views/{id}/default", Summary: "Configures the view as default view (also needs default-view:set)", Permission: "view:read:{id}", Handler: h.setDefault},
		{Method: "GET", Path: "/dashboards", Summary: "Get a list of all dashboards", Query: api.PageQuery, Handler: h.list(Dashboard)},
		{Method: "GET", Path: "/search/saved", Summary: "Get a list of all searches", Query: api.PageQuery, Handler: h.list(Search)},
	}
}

func (h *Handler) get(r *http.Request) (any, error) {
	ctx := r.Context()
	id := api.Var(r, "id")
	p := auth.FromContext(ctx)
	if id == defaultID {
		v, err := h.views.Default(ctx)
		if errors.Is(err, store.ErrNotFound) || err == nil && !canRead(p, v.ref()) {
			return nil, api.Errorf(api.NotFound, "Default view doesn't exist")
		}
		if err != nil {
			return nil, err
		}
		return v, nil
	}
	v, err := h.views.Get(ctx, id)
	// The same 404 for a view the caller may not see, so that ids cannot
	// be probed.
	if errors.Is(err, store.ErrNotFound) || err == nil && !canRead(p, v.ref()) {
		return nil, notFound(id)
	}
	if err != nil {
		return nil, err
	}
	return v, nil
}

func (h *Handler) create(r *http.Request) (any, error) {
	var req request
	if err := api.Decode(r, &req, true); err != nil {
		return nil, err
	}
	v, err := req.view()
	if err != nil {
		return nil, err
	}
	// Graylog keeps the id the client sends: both web interfaces save a
	// view under their own id, then open it by that id.
	if id := deref(req.ID); id != "" {
		if !isObjectID(id) {
			return nil, api.Errorf(api.Invalid, "Invalid view id %q: it must be an ObjectId (24 hexadecimal digits)", id)
		}
		v.ID = id
	}
	p := auth.FromContext(r.Context())
	if p == nil {
		return nil, auth.Unauthenticated()
	}
	// Saved searches need no permission beyond authentication in 4.0.
	if v.Type == Dashboard && !p.Permits("dashboards:create") {
		return nil, api.Errorf(api.Forbidden, "User is not allowed to create new dashboards.")
	}
	if err := h.checkSearch(r.Context(), v.SearchID); err != nil {
		return nil, err
	}
	created, err := h.views.Create(r.Context(), v, p.Username)
	if errors.Is(err, store.ErrConflict) {
		return nil, api.Errorf(api.Conflict, "View %s already exists", v.ID)
	}
	if err != nil {
		return nil, err
	}
	return created, nil
}

func (h *Handler) update(r *http.Request) (any, error) {
	ctx := r.Context()
	id := api.Var(r, "id")
	// The body is validated first, as Jersey validates it before the
	// resource method runs.
	v, err := readView(r)
	if err != nil {
		return nil, err
	}
	if _, err := h.load(ctx, id, v.Type, canEdit); err != nil {
		return nil, err
	}
	if err := h.checkSearch(ctx, v.SearchID); err != nil {
		return nil, err
	}
	updated, err := h.views.Update(ctx, id, v)
	if errors.Is(err, store.ErrNotFound) {
		return nil, notFound(id) // deleted meanwhile
	}
	if err != nil {
		return nil, err
	}
	return updated, nil
}

func (h *Handler) delete(r *http.Request) (any, error) {
	ctx := r.Context()
	id := api.Var(r, "id")
	if _, err := h.load(ctx, id, "", canDelete); err != nil {
		return nil, err
	}
	deleted, err := h.views.Delete(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, notFound(id) // deleted meanwhile
	}
	if err != nil {
		return nil, err
	}
	return deleted, nil
}

func (h *Handler) setDefault(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	id := api.Var(r, "id")
	_, loadErr := h.load(ctx, id, "", canSetDefault)
	if loadErr != nil && api.ErrorCode(loadErr) != api.NotFound {
		return loadErr
	}
	// Graylog's order: view:read:<id>, then default-view:set, then the
	// lookup that answers 404.
	if err := auth.Require(ctx, "default-view:set"); err != nil {
		return err
	}
	if loadErr != nil {
		return loadErr
	}
	if err := h.views.SetDefault(ctx, id); err != nil {
		return err
	}
	api.NoContent(w)
	return nil
}

// load returns the view of a path id for an action that allowed decides.
// Graylog checks the instance permission before it loads the view, so a
// caller without it gets 403 whether or not the view exists and cannot
// probe ids, and a caller with it gets 404 for a missing view. typ is the
// type a missing view is judged as (the body's, on update).
func (h *Handler) load(ctx context.Context, id string, typ Type, allowed func(*auth.Principal, ref) bool) (View, error) {
	p := auth.FromContext(ctx)
	v, err := h.views.Get(ctx, id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		if allowed(p, ref{id: id, typ: typ}) {
			return View{}, notFound(id)
		}
		return View{}, forbidden(id)
	case err != nil:
		return View{}, err
	case !allowed(p, v.ref()):
		return View{}, forbidden(id)
	}
	return v, nil
}

// readView reads and validates a ViewDTO request body.
func readView(r *http.Request) (View, error) {
	var req request
	if err := api.Decode(r, &req, true); err != nil {
		return View{}, err
	}
	return req.view()
}

func notFound(id string) error {
	return api.Errorf(api.NotFound, "View %s doesn't exist", id)
}

func forbidden(id string) error {
	return api.Errorf(api.Forbidden, "Not authorized to access resource id %s", id)
}
