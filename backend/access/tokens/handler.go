package tokens

import (
	"context"
	"errors"
	"net/http"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/router/api"
)

// Users resolves the user a token path names.
type Users interface {
	UsernameByID(ctx context.Context, id string) (string, error)
}

// ParseRelease checks an API release a token is pinned to and returns it in
// its canonical form; an unknown release is an error naming the supported
// ones (compat.ParseRelease).
type ParseRelease func(string) (string, error)

// Handler serves /users/{userId}/tokens.
type Handler struct {
	tokens   *Service
	users    Users
	releases ParseRelease
}

// NewHandler returns the token resource.
func NewHandler(tokens *Service, users Users, releases ParseRelease) *Handler {
	return &Handler{tokens: tokens, users: users, releases: releases}
}

// Routes returns the token routes (4.0: keyed by user id).
func (h *Handler) Routes() []api.Route {
	return []api.Route{
		{Method: "GET", Path: "/users/{userId}/tokens", Summary: "Retrieves the list of access tokens for a user (owner only)", Permission: "users:tokenlist:{username}", Handler: api.JSON(h.list)},
		{Method: "POST", Path: "/users/{userId}/tokens/{name}", Summary: "Generates a new access token for a user (owner only); api_release pins the API release the token's requests are served as", Permission: "users:tokencreate:{username}", Query: []string{"api_release"}, Handler: api.JSON(h.create)},
		{Method: "PUT", Path: "/users/{userId}/tokens/{tokenId}/api_release", Summary: "Pins a token to an API release, or unpins it with null (owner only; loggate)", Permission: "users:tokencreate:{username}", Body: `{"api_release":"2.4"}`, Handler: api.JSON(h.pin)},
		{Method: "DELETE", Path: "/users/{userId}/tokens/{idOrToken}", Summary: "Removes a token for a user, by id or by value (owner only)", Permission: "users:tokenremove:{username}", Handler: h.delete},
	}
}

// owner checks the path's user exists, that the caller holds perm on them,
// and that the caller is that user: only the owner of a token may manage it,
// administrators included.
func (h *Handler) owner(r *http.Request, perm, deny string) (userID, username string, err error) {
	ctx := r.Context()
	userID = api.Var(r, "userId")
	// A user who does not exist is a 404, as everywhere else in /users
	// (PUT /users/{userId}), whoever asks; someone else's tokens are a 403.
	username, err = h.users.UsernameByID(ctx, userID)
	if errors.Is(err, store.ErrNotFound) {
		return "", "", api.Errorf(api.NotFound, "Couldn't find user with ID %s", userID)
	}
	if err != nil {
		return "", "", err
	}
	if p := auth.FromContext(ctx); p == nil || p.UserID != userID {
		return "", "", api.Errorf(api.Forbidden, "Cannot access other people's tokens.")
	}
	if err := auth.RequireMsg(ctx, perm+":"+username, deny+" "+username); err != nil {
		return "", "", err
	}
	return userID, username, nil
}

func (h *Handler) list(r *http.Request) (any, error) {
	userID, _, err := h.owner(r, "users:tokenlist", "Not allowed to list tokens for user")
	if err != nil {
		return nil, err
	}
	list, err := h.tokens.ListForUser(r.Context(), userID)
	if err != nil {
		return nil, err
	}
	return map[string][]Token{"tokens": list}, nil
}

func (h *Handler) create(r *http.Request) (any, error) {
	userID, _, err := h.owner(r, "users:tokencreate", "Not allowed to create tokens for user")
	if err != nil {
		return nil, err
	}
	name := api.Var(r, "name")
	if len(name) > 250 {
		return nil, api.Errorf(api.Invalid, "Token name is too long (at most 250 characters)")
	}
	release, err := h.release(r.URL.Query().Get("api_release"))
	if err != nil {
		return nil, err
	}
	tok, err := h.tokens.Create(r.Context(), userID, name, release)
	if err != nil {
		return nil, err
	}
	return tok, nil
}

func (h *Handler) release(s string) (string, error) {
	if s == "" {
		return "", nil
	}
	return h.releases(s)
}

func (h *Handler) pin(r *http.Request) (any, error) {
	userID, username, err := h.owner(r, "users:tokencreate", "Not allowed to change tokens of user")
	if err != nil {
		return nil, err
	}
	var body struct {
		APIRelease *string `json:"api_release"`
	}
	if err := api.Decode(r, &body, true); err != nil {
		return nil, err
	}
	release := ""
	if body.APIRelease != nil {
		if release, err = h.release(*body.APIRelease); err != nil {
			return nil, err
		}
	}
	tok, err := h.tokens.Pin(r.Context(), userID, api.Var(r, "tokenId"), release)
	if errors.Is(err, store.ErrNotFound) {
		return nil, api.Errorf(api.NotFound, "Couldn't find access token for user %s", username)
	}
	if err != nil {
		return nil, err
	}
	return tok, nil
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
