package roles

import (
	"context"
	"errors"
	"net/http"
	"net/url"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/router/api"
)

// Member is a user as the role resources show it (the users resource's
// summary); Ref names it.
type Member interface {
	Ref() (id, username string)
}

// Members is what the role resource needs of users: role membership lives on
// the user record.
type Members interface {
	// MembersOf returns the members of a role.
	MembersOf(ctx context.Context, roleID string) ([]Member, error)
	// AddRole and RemoveRole change one user's roles; an unknown username is
	// store.ErrNotFound.
	AddRole(ctx context.Context, username, roleID string) error
	RemoveRole(ctx context.Context, username, roleID string) error
	// RoleChanged is called after a role's permissions changed or the role
	// was deleted, so that its members' cached permissions are dropped.
	RoleChanged(ctx context.Context, roleID string, deleted bool) error
	// RoleIDsOf returns a user's role ids; an unknown username is
	// store.ErrNotFound.
	RoleIDsOf(ctx context.Context, username string) ([]string, error)
}

// Handler serves /roles.
type Handler struct {
	roles   *Service
	members Members
}

// NewHandler returns the /roles resource.
func NewHandler(roles *Service, members Members) *Handler {
	return &Handler{roles: roles, members: members}
}

// response is Graylog's RoleResponse.
type response struct {
	Name        string   `json:"name"`
	Description *string  `json:"description"`
	Permissions []string `json:"permissions"`
	ReadOnly    bool     `json:"read_only"`
}

func toResponse(r Role) response {
	return response{Name: r.Name, Description: r.Description, Permissions: r.Permissions, ReadOnly: r.ReadOnly}
}

// Routes returns the /roles routes.
func (h *Handler) Routes() []api.Route {
	return []api.Route{
		{Method: "GET", Path: "/roles", Summary: "List all roles", Permission: "roles:read", Handler: api.JSON(h.list)},
		{Method: "POST", Path: "/roles", Summary: "Create a new role", Permission: "roles:create", Handler: h.create},
		{Method: "GET", Path: "/roles/{rolename}", Summary: "Retrieve permissions for a single role", Permission: "roles:read:{rolename}", Handler: api.JSON(h.get)},
		{Method: "PUT", Path: "/roles/{rolename}", Summary: "Update an existing role", Permission: "roles:edit:{rolename}", Handler: api.JSON(h.update)},
		{Method: "DELETE", Path: "/roles/{rolename}", Summary: "Remove the named role and dissociate any users from it", Permission: "roles:delete:{rolename}", Handler: h.delete},
		{Method: "GET", Path: "/roles/{rolename}/members", Summary: "Retrieve the role's members", Permission: "users:list", Handler: api.JSON(h.membersOf)},
		{Method: "PUT", Path: "/roles/{rolename}/members/{username}", Summary: "Add a user to a role", Permission: "roles:edit:{rolename}", Handler: h.addMember},
		{Method: "DELETE", Path: "/roles/{rolename}/members/{username}", Summary: "Remove a user from a role", Permission: "roles:edit:{rolename}", Handler: h.removeMember},
	}
}

func (h *Handler) list(r *http.Request) (any, error) {
	all, err := h.roles.All(r.Context())
	if err != nil {
		return nil, err
	}
	out := make([]response, 0, len(all))
	p := auth.FromContext(r.Context())
	for _, role := range all {
		if p.Permits("roles:read:" + role.Name) {
			out = append(out, toResponse(role))
		}
	}
	return map[string]any{"roles": out, "total": len(out)}, nil
}

// load finds the role named in the path, or a 404 in Graylog's words.
func (h *Handler) load(ctx context.Context, name string) (Role, error) {
	role, err := h.roles.ByName(ctx, name)
	if errors.Is(err, store.ErrNotFound) {
		return Role{}, api.Errorf(api.NotFound, "Couldn't find role %s", name)
	}
	return role, err
}

func (h *Handler) get(r *http.Request) (any, error) {
	name := api.Var(r, "rolename")
	if err := auth.Require(r.Context(), "roles:read:"+name); err != nil {
		return nil, err
	}
	role, err := h.load(r.Context(), name)
	if err != nil {
		return nil, err
	}
	return toResponse(role), nil
}

func (h *Handler) create(w http.ResponseWriter, r *http.Request) error {
	var req response
	if err := api.Decode(r, &req, true); err != nil {
		return err
	}
	role, err := h.roles.Create(r.Context(), Role{Name: req.Name, Description: req.Description, Permissions: req.Permissions}, false)
	if err != nil {
		return err
	}
	w.Header().Set("Location", api.Location(r, "/roles/"+url.PathEscape(role.Name)))
	api.WriteJSON(w, http.StatusCreated, toResponse(role))
	return nil
}

func (h *Handler) update(r *http.Request) (any, error) {
	ctx := r.Context()
	name := api.Var(r, "rolename")
	if err := auth.Require(ctx, "roles:edit:"+name); err != nil {
		return nil, err
	}
	var req response
	if err := api.Decode(r, &req, true); err != nil {
		return nil, err
	}
	role, err := h.load(ctx, name)
	if err != nil {
		return nil, err
	}
	if role.ReadOnly {
		return nil, api.Errorf(api.Invalid, "Cannot update read only role %s", role.Name)
	}
	role.Name, role.Description, role.Permissions = req.Name, req.Description, req.Permissions
	if err := h.roles.Update(ctx, role); err != nil {
		return nil, err
	}
	if err := h.members.RoleChanged(ctx, role.ID, false); err != nil {
		return nil, err
	}
	return toResponse(role), nil
}

func (h *Handler) delete(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	name := api.Var(r, "rolename")
	if err := auth.Require(ctx, "roles:delete:"+name); err != nil {
		return err
	}
	role, err := h.load(ctx, name)
	if err != nil {
		return err
	}
	return h.remove(w, r, role)
}

// remove deletes a role that is not read-only, after taking it from its
// members: a crash in between leaves a role without members, never members
// pointing at nothing they could see.
func (h *Handler) remove(w http.ResponseWriter, r *http.Request, role Role) error {
	if role.ReadOnly {
		return api.Errorf(api.Invalid, "Cannot delete read only system role %s", role.Name)
	}
	if err := h.members.RoleChanged(r.Context(), role.ID, true); err != nil {
		return err
	}
	if err := h.roles.Delete(r.Context(), role.ID); err != nil {
		return err
	}
	api.NoContent(w)
	return nil
}

func (h *Handler) membersOf(r *http.Request) (any, error) {
	ctx := r.Context()
	name := api.Var(r, "rolename")
	if err := auth.Require(ctx, "roles:read:"+name); err != nil {
		return nil, err
	}
	role, err := h.load(ctx, name)
	if err != nil {
		return nil, err
	}
	users, err := h.members.MembersOf(ctx, role.ID)
	if err != nil {
		return nil, err
	}
	if users == nil {
		users = []Member{}
	}
	return map[string]any{"role": role.Name, "users": users}, nil
}

func (h *Handler) addMember(w http.ResponseWriter, r *http.Request) error {
	return h.changeMember(w, r, h.members.AddRole)
}

func (h *Handler) removeMember(w http.ResponseWriter, r *http.Request) error {
	return h.changeMember(w, r, h.members.RemoveRole)
}

func (h *Handler) changeMember(w http.ResponseWriter, r *http.Request, change func(context.Context, string, string) error) error {
	ctx := r.Context()
	name, username := api.Var(r, "rolename"), api.Var(r, "username")
	if err := auth.Require(ctx, "users:edit:"+username); err != nil {
		return err
	}
	if err := auth.Require(ctx, "roles:edit:"+name); err != nil {
		return err
	}
	role, err := h.load(ctx, name)
	if err != nil {
		return err
	}
	if err := memberError(change(ctx, username, role.ID), username); err != nil {
		return err
	}
	api.NoContent(w)
	return nil
}
