package roles

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/router/api"
)

// AuthzRoutes returns Graylog 4.0's /authz/roles API, which the 4.0 web
// interface uses to list roles and assign them. Roles are addressed by id
// there; creating and editing stays with /roles.
func (h *Handler) AuthzRoutes() []api.Route {
	return []api.Route{
		{Method: "GET", Path: "/authz/roles", Summary: "Get a paginated list of all roles", Permission: "roles:read", Handler: h.authzList},
		{Method: "GET", Path: "/authz/roles/user/{username}", Summary: "Get a paginated list of all roles of a user", Permission: "roles:read", Handler: h.authzOfUser},
		{Method: "GET", Path: "/authz/roles/{roleId}", Summary: "Get a single role", Permission: "roles:read:{roleId}", Handler: api.JSON(h.authzGet)},
		{Method: "GET", Path: "/authz/roles/{roleId}/assignees", Summary: "Get a paginated list of the users assigned to a role", Permission: "users:list", Handler: h.authzAssignees},
		{Method: "PUT", Path: "/authz/roles/{roleId}/assignees", Summary: "Add users to a role (body: a JSON array of usernames)", Permission: "users:rolesedit:{username}", Handler: h.authzAssign},
		{Method: "DELETE", Path: "/authz/roles/{roleId}/assignee/{username}", Summary: "Remove a user from a role", Permission: "users:rolesedit:{username}", Handler: h.authzUnassign},
		{Method: "DELETE", Path: "/authz/roles/{roleId}", Summary: "Delete a role", Permission: "roles:edit", Handler: h.authzDelete},
	}
}

// authzRole is Graylog 4.0's AuthzRoleDTO.
type authzRole struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Description *string  `json:"description"`
	Permissions []string `json:"permissions"`
	ReadOnly    bool     `json:"read_only"`
}

func toAuthz(r Role) authzRole {
	return authzRole{ID: r.ID, Name: r.Name, Description: r.Description, Permissions: r.Permissions, ReadOnly: r.ReadOnly}
}

func (h *Handler) loadByID(r *http.Request) (Role, error) {
	id := api.Var(r, "roleId")
	role, err := h.roles.ByID(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		return Role{}, api.Errorf(api.NotFound, "Couldn't find role %s", id)
	}
	return role, err
}

// page lists roles in Graylog's paginated envelope, with each role's users
// in the context.
func (h *Handler) page(w http.ResponseWriter, r *http.Request, filter func(Role) bool) error {
	ctx := r.Context()
	p, err := api.ParsePage(r, "name", "name", "description")
	if err != nil {
		return err
	}
	q, err := api.ParseQuery(p.Query, "name", "name", "description")
	if err != nil {
		return err
	}
	all, err := h.roles.All(ctx)
	if err != nil {
		return err
	}
	var matched []Role
	for _, role := range all {
		desc := ""
		if role.Description != nil {
			desc = *role.Description
		}
		if filter(role) && q.Match(func(f string) string { return map[string]string{"name": role.Name, "description": desc}[f] }) {
			matched = append(matched, role)
		}
	}
	slices.SortStableFunc(matched, func(a, b Role) int {
		x, y := a.NameLower, b.NameLower
		if p.Sort == "description" {
			x, y = strings.ToLower(deref(a.Description)), strings.ToLower(deref(b.Description))
		}
		if p.Desc() {
			return strings.Compare(y, x)
		}
		return strings.Compare(x, y)
	})
	items := []authzRole{}
	users := map[string][]map[string]string{}
	for _, role := range api.Slice(matched, p) {
		items = append(items, toAuthz(role))
		members, err := h.members.MembersOf(ctx, role.ID)
		if err != nil {
			return err
		}
		refs := []map[string]string{}
		for _, m := range members {
			id, name := m.Ref()
			refs = append(refs, map[string]string{"id": id, "username": name})
		}
		users[role.ID] = refs
	}
	api.WriteJSON(w, http.StatusOK, map[string]any{
		"total": len(matched), "page": p.Page, "per_page": p.PerPage, "count": len(items), "grand_total": len(all),
		"query": p.Query, "roles": items, "context": map[string]any{"users": users},
	})
	return nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func (h *Handler) authzList(w http.ResponseWriter, r *http.Request) error {
	p := auth.FromContext(r.Context())
	return h.page(w, r, func(role Role) bool { return p.Permits("roles:read:" + role.ID) })
}

func (h *Handler) authzOfUser(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	username := api.Var(r, "username")
	ids, err := h.members.RoleIDsOf(ctx, username)
	if errors.Is(err, store.ErrNotFound) {
		return api.Errorf(api.NotFound, "Couldn't find user %s", username)
	}
	if err != nil {
		return err
	}
	return h.page(w, r, func(role Role) bool { return slices.Contains(ids, role.ID) })
}

func (h *Handler) authzGet(r *http.Request) (any, error) {
	if err := auth.Require(r.Context(), "roles:read:"+api.Var(r, "roleId")); err != nil {
		return nil, err
	}
	role, err := h.loadByID(r)
	if err != nil {
		return nil, err
	}
	return toAuthz(role), nil
}

func (h *Handler) authzAssignees(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	role, err := h.loadByID(r)
	if err != nil {
		return err
	}
	p, err := api.ParsePage(r, "username", "username")
	if err != nil {
		return err
	}
	members, err := h.members.MembersOf(ctx, role.ID)
	if err != nil {
		return err
	}
	page := api.Slice(members, p)
	if page == nil {
		page = []Member{}
	}
	api.WriteJSON(w, http.StatusOK, map[string]any{
		"total": len(members), "page": p.Page, "per_page": p.PerPage, "count": len(page), "grand_total": len(members),
		"query": p.Query, "users": page,
	})
	return nil
}

func (h *Handler) authzAssign(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	role, err := h.loadByID(r)
	if err != nil {
		return err
	}
	var usernames []string
	if err := api.Decode(r, &usernames, true); err != nil {
		return err
	}
	// Every permission first, so that a refusal changes nothing.
	for _, u := range usernames {
		if err := requireRolesEdit(ctx, u); err != nil {
			return err
		}
	}
	for _, u := range usernames {
		if err := memberError(h.members.AddRole(ctx, u, role.ID), u); err != nil {
			return err
		}
	}
	api.NoContent(w)
	return nil
}

func (h *Handler) authzUnassign(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	username := api.Var(r, "username")
	if err := requireRolesEdit(ctx, username); err != nil {
		return err
	}
	role, err := h.loadByID(r)
	if err != nil {
		return err
	}
	if err := memberError(h.members.RemoveRole(ctx, username, role.ID), username); err != nil {
		return err
	}
	api.NoContent(w)
	return nil
}

func (h *Handler) authzDelete(w http.ResponseWriter, r *http.Request) error {
	role, err := h.loadByID(r)
	if err != nil {
		return err
	}
	return h.remove(w, r, role)
}

// requireRolesEdit checks that the caller may change a user's roles.
func requireRolesEdit(ctx context.Context, username string) error {
	return auth.RequireMsg(ctx, "users:rolesedit:"+username, "Not allowed to edit roles of user "+username)
}

// memberError words a membership change's unknown user as Graylog does.
func memberError(err error, username string) error {
	if errors.Is(err, store.ErrNotFound) {
		return api.Errorf(api.NotFound, "User %s has not been found.", username)
	}
	return err
}
