package authservices

import (
	"net/http"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/router/api"
)

// backendField is a backend's value of a searchable or sortable field.
func backendField(b Backend, field string) string {
	if field == "description" {
		return b.Description
	}
	return b.Title
}

func (h *Handler) list(w http.ResponseWriter, r *http.Request) error {
	page, err := api.ParsePage(r, "title", "title", "description")
	if err != nil {
		return err
	}
	query, err := api.ParseQuery(page.Query, "title", "title", "description")
	if err != nil {
		return err
	}
	ctx := r.Context()
	all, err := h.svc.List(ctx)
	if err != nil {
		return err
	}
	p := auth.FromContext(ctx)
	readable := make([]Backend, 0, len(all))
	for _, b := range all {
		if p.Permits("authservicebackend:read:" + b.ID) {
			readable = append(readable, b)
		}
	}
	items, total := api.PageOf(readable, page, query, backendField)
	active, err := h.svc.ActiveBackend(ctx)
	if err != nil {
		return err
	}
	if active != nil && !p.Permits("authservicebackend:read:"+active.ID) {
		active = nil
	}
	// Graylog's grand_total is the collection's size, whatever the caller
	// may read.
	grand := len(all)
	api.WriteJSON(w, http.StatusOK, api.Listing{
		Key: "backends", Items: items, Count: len(items), Total: total, GrandTotal: &grand, Page: page,
		Context: map[string]any{"active_backend": active},
	}.Body())
	return nil
}

func (h *Handler) get(r *http.Request) (any, error) {
	id := api.Var(r, "backendId")
	if err := requireRead(r, id); err != nil {
		return nil, err
	}
	b, err := h.svc.Get(r.Context(), id)
	if err != nil {
		return nil, err
	}
	return map[string]any{"backend": b}, nil
}

func (h *Handler) create(w http.ResponseWriter, r *http.Request) error {
	var body backendBody
	if err := api.Decode(r, &body, true); err != nil {
		return err
	}
	in := body.input()
	b, err := h.svc.Create(r.Context(), in)
	if err != nil {
		return failure(err)
	}
	// 200, not 201, as in Graylog.
	api.WriteJSON(w, http.StatusOK, map[string]any{"backend": b})
	return nil
}

func (h *Handler) update(w http.ResponseWriter, r *http.Request) error {
	id := api.Var(r, "backendId")
	if err := auth.Require(r.Context(), "authservicebackend:edit:"+id); err != nil {
		return err
	}
	var body backendBody
	if err := api.Decode(r, &body, true); err != nil {
		return err
	}
	in := body.input()
	b, err := h.svc.Update(r.Context(), id, in)
	if err != nil {
		return failure(err)
	}
	api.WriteJSON(w, http.StatusOK, map[string]any{"backend": b})
	return nil
}

func (h *Handler) delete(w http.ResponseWriter, r *http.Request) error {
	id := api.Var(r, "backendId")
	if err := auth.Require(r.Context(), "authservicebackend:delete:"+id); err != nil {
		return err
	}
	if err := h.svc.Delete(r.Context(), id); err != nil {
		return err
	}
	api.NoContent(w)
	return nil
}

func (h *Handler) users(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	if err := auth.Require(ctx, "users:read"); err != nil {
		return err
	}
	page, err := api.ParsePage(r, "full_name", "username", "full_name", "email")
	if err != nil {
		return err
	}
	query, err := api.ParseQuery(page.Query, "full_name", "username", "full_name", "email")
	if err != nil {
		return err
	}
	all, err := h.svc.BackendUsers(ctx, api.Var(r, "backendId"))
	if err != nil {
		return err
	}
	items, total := api.PageOf(all, page, query, userField)
	for i := range items {
		items[i].Roles = nonNil(items[i].Roles)
	}
	roles, err := h.svc.roleContext(ctx, items)
	if err != nil {
		return err
	}
	grand := len(all)
	api.WriteJSON(w, http.StatusOK, api.Listing{
		Key: "users", Items: items, Count: len(items), Total: total, GrandTotal: &grand, Page: page,
		Context: map[string]any{"roles": roles},
	}.Body())
	return nil
}
