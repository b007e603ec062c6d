package tokens

import (
	"context"
	"errors"
	"net/http"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/backend/api"
	"github.com/loggate/loggate/backend/store"
)

// Users resolves the user a token path names.
type Users interface {
	UsernameByID(ctx context.Context, id string) (string, error)
}

// Handler serves /users/{userId}/tokens.
type Handler struct {
	tokens *Service
	users  Users
}

// NewHandler returns the token resource.
func NewHandler(tokens *Service, users Users) *Handler {
	return &Handler{tokens: tokens, users: users}
}

// Routes returns the token routes (4.0: keyed by user id).
func (h *Handler) Routes() []api.Route {
	return []api.Route{
		{Method: "GET", Path: "/users/{userId}/tokens", Summary: "Retrieves the list of access tokens for a user (owner only)", Permission: "users:tokenlist:{username}", Handler: h.list},
		{Method: "POST", Path: "/users/{userId}/tokens/{name}", Summary: "Generates a new access token for a user (owner only)", Permission: "users:tokencreate:{username}", Handler: h.create},
		{Method: "DELETE", Path: "/users/{userId}/tokens/{idOrToken}", Summary: "Removes a token for a user, by id or by value (owner only)", Permission: "users:tokenremove:{username}", Handler: h.delete},
	}
}

// owner checks the path's user exists, that the caller holds perm on them,
// and that the caller is that user: only the owner of a token may manage it,
// administrators included.
func (h *Handler) owner(r *http.Request, perm, deny string) (userID, username string, err error) {
	ctx := r.Context()
	userID = api.Var(r, "userId")
	// Ownership first: the answer then reveals nothing of other users.
	if p := auth.FromContext(ctx); p == nil || p.UserID != userID {
		return "", "", api.Errorf(api.Forbidden, "Cannot access other people's tokens.")
	}
	username, err = h.users.UsernameByID(ctx, userID)
	if errors.Is(err, store.ErrNotFound) {
		return "", "", api.Errorf(api.NotFound, "Couldn't find user with ID %s", userID)
	}
	if err != nil {
		return "", "", err
	}
	if err := auth.RequireMsg(ctx, perm+":"+username, deny+" "+username); err != nil {
		return "", "", err
	}
	return userID, username, nil
}

func (h *Handler) list(w http.ResponseWriter, r *http.Request) error {
	userID, _, err := h.owner(r, "users:tokenlist", "Not allowed to list tokens for user")
	if err != nil {
		return err
	}
	list, err := h.tokens.ListForUser(r.Context(), userID)
	if err != nil {
		return err
	}
	api.WriteJSON(w, http.StatusOK, map[string][]Token{"tokens": list})
	return nil
}

func (h *Handler) create(w http.ResponseWriter, r *http.Request) error {
	userID, _, err := h.owner(r, "users:tokencreate", "Not allowed to create tokens for user")
	if err != nil {
		return err
	}
	name := api.Var(r, "name")
	if len(name) > 250 {
		return api.Errorf(api.Invalid, "Token name is too long (at most 250 characters)")
	}
	tok, err := h.tokens.Create(r.Context(), userID, name)
	if err != nil {
		return err
	}
	api.WriteJSON(w, http.StatusOK, tok)
	return nil
}

func (h *Handler) delete(w http.ResponseWriter, r *http.Request) error {
	userID, username, err := h.owner(r, "users:tokenremove", "Not allowed to remove tokens for user")
	if err != nil {
		return err
	}
	err = h.tokens.Delete(r.Context(), userID, api.Var(r, "idOrToken"))
	if errors.Is(err, store.ErrNotFound) {
		return api.Errorf(api.NotFound, "Couldn't find access token for user %s", username)
	}
	if err != nil {
		return err
	}
	api.NoContent(w)
	return nil
}
