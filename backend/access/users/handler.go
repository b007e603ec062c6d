package users

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/auth/permission"
	"github.com/loggate/loggate/backend/access/roles"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/router/api"
)

// Handler serves /users.
type Handler struct {
	users *Service
	roles *roles.Service
}

// NewHandler returns the /users resource.
func NewHandler(users *Service, roles *roles.Service) *Handler {
	return &Handler{users: users, roles: roles}
}

// Routes returns the /users routes. Literal segments come first: gorilla/mux
// matches in registration order, and Graylog's literal paths win too (a user
// named "paginated" cannot be read through /users/{username}).
func (h *Handler) Routes() []api.Route {
	return []api.Route{
		{Method: "GET", Path: "/users", Summary: "List all users (deprecated: use /users/paginated)", Permission: "users:list", Successor: "/users/paginated", Handler: api.JSON(h.list)},
		{Method: "GET", Path: "/users/paginated", Summary: "Get paginated list of users", Permission: "users:list", Query: api.PageQuery, Handler: h.paginated},
		{Method: "POST", Path: "/users", Summary: "Create a new user account", Permission: "users:create", Handler: h.create},
		{Method: "GET", Path: "/users/id/{userId}", Summary: "Get user details by userId", Permission: "users:edit:{username}", Handler: h.getByID},
		{Method: "DELETE", Path: "/users/id/{userId}", Summary: "Removes a user account by userId", Permission: "users:edit", Handler: h.deleteByID},
		{Method: "GET", Path: "/users/{username}", Summary: "Get user details by username (deprecated: use /users/id/{userId})", Permission: "users:edit:{username}", Successor: "/users/id/{userId}", Handler: h.getByName},
		{Method: "PUT", Path: "/users/{userId}", Summary: "Modify user details", Permission: "users:edit:{username}", Handler: h.update},
		{Method: "DELETE", Path: "/users/{username}", Summary: "Removes a user account", Permission: "users:edit", Handler: h.deleteByName},
		{Method: "PUT", Path: "/users/{userId}/password", Summary: "Update the password for a user", Permission: "users:passwordchange:{username}", Handler: h.changePassword},
		{Method: "PUT", Path: "/users/{userId}/status/{newStatus}", Summary: "Update the account status for a user", Permission: "users:edit:{username}", Handler: h.setStatus},
		{Method: "PUT", Path: "/users/{username}/permissions", Summary: "Update a user's permission set", Permission: "users:permissionsedit", Handler: h.setPermissions},
		{Method: "DELETE", Path: "/users/{username}/permissions", Summary: "Revoke all permissions for a user without deleting the account", Permission: "users:permissionsedit", Handler: h.clearPermissions},
		{Method: "PUT", Path: "/users/{username}/preferences", Summary: "Update a user's preferences set", Permission: "users:edit:{username}", Handler: h.setPreferences},
	}
}

func (h *Handler) list(r *http.Request) (any, error) {
	ctx := r.Context()
	all, err := h.users.All(ctx)
	if err != nil {
		return nil, err
	}
	out, err := h.users.Summaries(ctx, all)
	if err != nil {
		return nil, err
	}
	return map[string]any{"users": out}, nil
}

var searchable = []string{"username", "full_name", "email"}

func (h *Handler) paginated(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	page, err := api.ParsePage(r, "full_name", "username", "full_name", "email")
	if err != nil {
		return err
	}
	q, err := api.ParseQuery(page.Query, "full_name", searchable...)
	if err != nil {
		return err
	}
	all, err := h.users.All(ctx)
	if err != nil {
		return err
	}
	var root []*User
	listed := make([]*User, 0, len(all))
	for _, u := range all {
		if u.ReadOnly {
			root = append(root, u)
		} else {
			listed = append(listed, u)
		}
	}
	pageOf, total := api.PageOf(listed, page, q, field)
	items, err := h.users.Overviews(ctx, slices.Concat(pageOf, root))
	if err != nil {
		return err
	}
	var admin *Overview
	if len(root) > 0 {
		// As before, the last read-only user: there is one, the root.
		a := items[len(items)-1]
		admin = &a
	}
	items = items[:len(pageOf)]
	api.WriteJSON(w, http.StatusOK, api.Listing{
		Key: "users", Items: items, Count: len(items), Total: total, Page: page,
		Context: map[string]any{"admin_user": admin},
	}.Body())
	return nil
}

func field(u *User, name string) string {
	switch name {
	case "username":
		return u.Username
	case "email":
		return u.Email
	}
	return u.FullName
}

// loadByID finds the user of a path id, or a 404 in Graylog's words.
func (h *Handler) loadByID(ctx context.Context, id string) (*User, error) {
	u, err := h.users.ByID(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, api.Errorf(api.NotFound, "Couldn't find user with ID %s", id)
	}
	return u, err
}

func (h *Handler) loadByName(ctx context.Context, name string) (*User, error) {
	u, err := h.users.ByName(ctx, name)
	if errors.Is(err, store.ErrNotFound) {
		return nil, api.Errorf(api.NotFound, "Couldn't find user %s", name)
	}
	return u, err
}

func (h *Handler) writeSummary(w http.ResponseWriter, r *http.Request, u *User) error {
	p := auth.FromContext(r.Context())
	withPerms := p.UserID == u.ID || p.Permits("users:permissionsedit:"+u.Username)
	sum, err := h.users.Summary(r.Context(), u, withPerms)
	if err != nil {
		return err
	}
	api.WriteJSON(w, http.StatusOK, sum)
	return nil
}

func (h *Handler) getByName(w http.ResponseWriter, r *http.Request) error {
	name := api.Var(r, "username")
	api.SuccessorLink(w, r, "") // named below, once the user's id is known
	// Graylog checks before the lookup, so the answer does not reveal
	// whether the user exists.
	if err := auth.RequireMsg(r.Context(), "users:edit:"+name, "Not allowed to view user "+name); err != nil {
		return err
	}
	u, err := h.loadByName(r.Context(), name)
	if err != nil {
		return err
	}
	api.SuccessorLink(w, r, "/users/id/"+url.PathEscape(u.ID))
	return h.writeSummary(w, r, u)
}

func (h *Handler) getByID(w http.ResponseWriter, r *http.Request) error {
	id := api.Var(r, "userId")
	u, err := h.loadByID(r.Context(), id)
	if err != nil {
		return err
	}
	if err := auth.RequireMsg(r.Context(), "users:edit:"+u.Username, "Not allowed to view userId "+id); err != nil {
		return err
	}
	return h.writeSummary(w, r, u)
}

// createRequest is Graylog's CreateUserRequest: strict, unknown properties
// are refused.
type createRequest struct {
	Username         *string    `json:"username"`
	Password         *string    `json:"password"`
	Email            *string    `json:"email"`
	FullName         *string    `json:"full_name"`
	Permissions      []string   `json:"permissions"`
	Timezone         *string    `json:"timezone"`
	SessionTimeoutMs *int64     `json:"session_timeout_ms"`
	Startpage        *Startpage `json:"startpage"`
	Roles            []string   `json:"roles"`
	ServiceAccount   bool       `json:"service_account"`
}

func (c createRequest) missing() []string {
	var m []string
	for _, f := range []struct {
		name string
		ok   bool
	}{
		{"username", c.Username != nil && *c.Username != ""},
		{"password", c.Password != nil && *c.Password != ""},
		{"email", c.Email != nil},
		{"full_name", c.FullName != nil},
		{"permissions", c.Permissions != nil},
	} {
		if !f.ok {
			m = append(m, f.name)
		}
	}
	return m
}

func (h *Handler) create(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	var req createRequest
	if err := api.Decode(r, &req, true); err != nil {
		return err
	}
	if m := req.missing(); len(m) > 0 {
		return api.Errorf(api.Invalid, "Missing required properties: %s.", strings.Join(m, ", "))
	}
	if err := permission.ValidName("username", *req.Username); err != nil {
		return api.Wrap(api.Invalid, err.Error(), err)
	}
	if err := validPermissions(req.Permissions); err != nil {
		return err
	}
	u := &User{
		Username: *req.Username, Email: *req.Email, FullName: *req.FullName, Permissions: req.Permissions,
		Startpage: req.Startpage, SessionTimeoutMs: DefaultSessionTimeout.Milliseconds(), ServiceAccount: req.ServiceAccount,
	}
	if err := setTimezone(u, req.Timezone); err != nil {
		return err
	}
	if req.SessionTimeoutMs != nil {
		if *req.SessionTimeoutMs < 1 {
			return api.Errorf(api.Invalid, "session_timeout_ms must be at least 1")
		}
		u.SessionTimeoutMs = *req.SessionTimeoutMs
	}
	var err error
	if len(req.Roles) > 0 {
		u.RoleIDs, err = h.roles.IDsByNames(ctx, req.Roles)
	} else {
		var reader string
		reader, err = h.roles.ReaderID(ctx)
		u.RoleIDs = []string{reader}
	}
	if err != nil {
		return err
	}
	if u.PasswordHash, err = auth.HashPassword(*req.Password); err != nil {
		return err
	}
	if err := h.users.Create(ctx, u); err != nil {
		return err
	}
	w.Header().Set("Location", api.Location(r, "/users/"+url.PathEscape(u.Username)))
	w.WriteHeader(http.StatusCreated)
	return nil
}

func setTimezone(u *User, tz *string) error {
	if tz == nil || *tz == "" {
		u.Timezone = nil
		return nil
	}
	if _, err := time.LoadLocation(*tz); err != nil {
		return api.Errorf(api.Invalid, "Invalid timezone %q; use an IANA zone name such as Europe/Berlin", *tz)
	}
	u.Timezone = tz
	return nil
}

func validPermissions(perms []string) error {
	for _, p := range perms {
		if err := permission.Valid(p); err != nil {
			return api.Wrap(api.Invalid, err.Error(), err)
		}
	}
	return nil
}

// changeRequest is Graylog's ChangeUserRequest: lenient, every field
// optional. Timezone is raw so that an explicit null can be told from absence.
type changeRequest struct {
	Email            *string         `json:"email"`
	FullName         *string         `json:"full_name"`
	Permissions      []string        `json:"permissions"`
	Timezone         json.RawMessage `json:"timezone"`
	Startpage        *Startpage      `json:"startpage"`
	SessionTimeoutMs *int64          `json:"session_timeout_ms"`
	Roles            []string        `json:"roles"`
	ServiceAccount   *bool           `json:"service_account"`
}

func (h *Handler) update(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	u, err := h.loadByID(ctx, api.Var(r, "userId"))
	if err != nil {
		return err
	}
	if err := auth.Require(ctx, "users:edit:"+u.Username); err != nil {
		return err
	}
	var req changeRequest
	if err := api.Decode(r, &req, false); err != nil {
		return err
	}
	if u.ReadOnly {
		return errReadOnly(u.Username)
	}
	p := auth.FromContext(ctx)
	var roleIDs []string
	if req.Roles != nil && p.Permits("users:rolesedit:"+u.Username) {
		if roleIDs, err = h.roles.IDsByNames(ctx, req.Roles); err != nil {
			return err
		}
	}
	if req.Permissions != nil {
		if err := validPermissions(req.Permissions); err != nil {
			return err
		}
	}
	if req.SessionTimeoutMs != nil && *req.SessionTimeoutMs < 0 {
		return api.Errorf(api.Invalid, "session_timeout_ms must be at least 1")
	}
	var tz *string
	if len(req.Timezone) > 0 {
		if err := json.Unmarshal(req.Timezone, &tz); err != nil {
			return api.Errorf(api.Invalid, "timezone must be a string")
		}
	}
	// Whether an account may start sessions is an administrator's call
	// on another's account: every user holds users:edit on their own, so
	// a service account could otherwise clear its flag with its token
	// and log in.
	if req.ServiceAccount != nil && *req.ServiceAccount != u.ServiceAccount && (!p.Permits("users:edit") || p.UserID == u.ID) {
		return api.Errorf(api.Forbidden, "Not allowed to change whether user %s is a service account", u.Username)
	}
	becameService := false
	err = h.users.Update(ctx, u.ID, func(u *User) error {
		if !u.External {
			if req.Email != nil {
				u.Email = *req.Email
			}
			if req.FullName != nil {
				u.FullName = *req.FullName
			}
		}
		if req.Permissions != nil && p.Permits("users:permissionsedit:"+u.Username) {
			u.Permissions = req.Permissions
		}
		if roleIDs != nil {
			u.RoleIDs = roleIDs
		}
		// An explicit null or "" clears the timezone, as in Graylog; an
		// absent one leaves it alone, where Graylog cleared it too.
		if len(req.Timezone) > 0 {
			if err := setTimezone(u, tz); err != nil {
				return err
			}
		}
		if req.Startpage != nil {
			u.Startpage = req.Startpage
		}
		if req.ServiceAccount != nil {
			becameService = *req.ServiceAccount && !u.ServiceAccount
			u.ServiceAccount = *req.ServiceAccount
		}
		if req.SessionTimeoutMs != nil && *req.SessionTimeoutMs > 0 && p.Permits("*") {
			u.SessionTimeoutMs = *req.SessionTimeoutMs
		}
		return nil
	})
	if err != nil {
		return err
	}
	if becameService {
		// A service account has no sessions.
		if err := h.users.endSessions(ctx, u.ID, ""); err != nil {
			return err
		}
	}
	api.NoContent(w)
	return nil
}

func (h *Handler) deleteByName(w http.ResponseWriter, r *http.Request) error {
	u, err := h.loadByName(r.Context(), api.Var(r, "username"))
	if err != nil {
		return err
	}
	return h.delete(w, r, u)
}

func (h *Handler) deleteByID(w http.ResponseWriter, r *http.Request) error {
	id := api.Var(r, "userId")
	u, err := h.users.ByID(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		return api.Errorf(api.NotFound, "Couldn't find user %s", id)
	}
	if err != nil {
		return err
	}
	return h.delete(w, r, u)
}

func (h *Handler) delete(w http.ResponseWriter, r *http.Request, u *User) error {
	if err := h.users.Delete(r.Context(), u); err != nil {
		return err
	}
	api.NoContent(w)
	return nil
}

type passwordRequest struct {
	OldPassword *string `json:"old_password"`
	Password    string  `json:"password"`
}

func (h *Handler) changePassword(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	u, err := h.loadByID(ctx, api.Var(r, "userId"))
	if err != nil {
		return err
	}
	if err := auth.RequireMsg(ctx, "users:passwordchange:"+u.Username, "Not allowed to change password for user "+u.Username); err != nil {
		return err
	}
	var req passwordRequest
	if err := api.Decode(r, &req, true); err != nil {
		return err
	}
	if u.ReadOnly {
		return errReadOnly(u.Username)
	}
	if u.External {
		return api.Errorf(api.Forbidden, "Cannot change password for external user.")
	}
	if req.Password == "" {
		return api.Errorf(api.Invalid, "Missing required property password.")
	}
	p := auth.FromContext(ctx)
	// A user changing their own password must prove they know it; an
	// administrator of passwords (users:passwordchange:*) may reset others'.
	// Graylog 4.0 compared the username with the id principal here, so its
	// self check never matched; loggate compares ids.
	if p.UserID == u.ID || !p.Permits("users:passwordchange:*") {
		if req.OldPassword == nil || !auth.CheckPassword(u.PasswordHash, *req.OldPassword) {
			return api.Errorf(api.Invalid, "Old password is missing or incorrect.")
		}
	}
	hash, err := auth.HashPassword(req.Password)
	if err != nil {
		return err
	}
	if err := h.users.SetPassword(ctx, u.ID, hash, p.SessionID); err != nil {
		return err
	}
	api.NoContent(w)
	return nil
}

func (h *Handler) setStatus(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	u, err := h.loadByID(ctx, api.Var(r, "userId"))
	if err != nil {
		return err
	}
	if err := auth.Require(ctx, "users:edit:"+u.Username); err != nil {
		return err
	}
	status := strings.ToLower(api.Var(r, "newStatus"))
	if status != StatusEnabled && status != StatusDisabled && status != StatusDeleted {
		return api.Errorf(api.Invalid, "Invalid account status %q; use enabled, disabled or deleted", api.Var(r, "newStatus"))
	}
	if u.ReadOnly {
		return errReadOnly(u.Username)
	}
	if auth.FromContext(ctx).UserID == u.ID {
		return api.Errorf(api.Invalid, "Users are not allowed to set their own status")
	}
	if u.AccountStatus == status {
		return &api.Error{Code: api.NotModified}
	}
	if err := h.users.SetStatus(ctx, u.ID, status); err != nil {
		return err
	}
	w.WriteHeader(http.StatusOK)
	return nil
}

func (h *Handler) setPermissions(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	var req struct {
		Permissions []string `json:"permissions"`
	}
	if err := api.Decode(r, &req, true); err != nil {
		return err
	}
	if req.Permissions == nil {
		return api.Errorf(api.Invalid, "Missing required property permissions.")
	}
	if err := validPermissions(req.Permissions); err != nil {
		return err
	}
	u, err := h.loadByName(ctx, api.Var(r, "username"))
	if err != nil {
		return err
	}
	// Permissions that come with the user's roles are not stored twice.
	_, rolePerms, err := h.roles.Resolve(ctx, u.RoleIDs)
	if err != nil {
		return err
	}
	own := slices.DeleteFunc(slices.Clone(req.Permissions), func(p string) bool { return slices.Contains(rolePerms, p) })
	if err := h.users.Update(ctx, u.ID, func(u *User) error { u.Permissions = own; return nil }); err != nil {
		return err
	}
	api.NoContent(w)
	return nil
}

func (h *Handler) clearPermissions(w http.ResponseWriter, r *http.Request) error {
	u, err := h.loadByName(r.Context(), api.Var(r, "username"))
	if err != nil {
		return err
	}
	if err := h.users.Update(r.Context(), u.ID, func(u *User) error { u.Permissions = []string{}; return nil }); err != nil {
		return err
	}
	api.NoContent(w)
	return nil
}

func (h *Handler) setPreferences(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	name := api.Var(r, "username")
	if err := auth.Require(ctx, "users:edit:"+name); err != nil {
		return err
	}
	var req struct {
		Preferences json.RawMessage `json:"preferences"`
	}
	if err := api.Decode(r, &req, true); err != nil {
		return err
	}
	if len(req.Preferences) == 0 || req.Preferences[0] != '{' {
		return api.Errorf(api.Invalid, "preferences must be a JSON object")
	}
	u, err := h.loadByName(ctx, name)
	if err != nil {
		return err
	}
	if err := h.users.Update(ctx, u.ID, func(u *User) error { u.Preferences = req.Preferences; return nil }); err != nil {
		return err
	}
	api.NoContent(w)
	return nil
}
