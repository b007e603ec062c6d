// Package shares serves Graylog 4.0's GET /authz/shares/user/{userId}: the
// entities shared with a user and the capability the user holds on each.
// loggate records no grants of its own; what 4.0 grants on creation — the
// creator owns the streams, dashboards, saved searches, event definitions
// and notifications they create — is derived from the entities' owners.
package shares

import (
	"context"
	"net/http"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/router/api"
)

// Entity is something a user may own: a stream, a dashboard, a saved
// search, an event definition or a notification.
type Entity struct {
	ID, Type, Title string
	// Owner is the owner's username, or OwnerID their user id: the event
	// definitions and notifications keep Graylog 4.0's grants, which name
	// the user by id.
	Owner, OwnerID string
}

// GRN is the entity's Graylog resource name, grn::::<type>:<id>.
func (e Entity) GRN() string { return "grn::::" + e.Type + ":" + e.ID }

// Source lists the entities of one kind with their owners.
type Source func(ctx context.Context) ([]Entity, error)

// User is what the resource needs of a user.
type User struct{ ID, Username, FullName string }

// Users finds a user by id; an unknown id is an error whose code is
// api.NotFound.
type Users func(ctx context.Context, id string) (User, error)

// Handler serves the resource.
type Handler struct {
	users   Users
	sources []Source
}

// NewHandler returns the resource over the entities of sources.
func NewHandler(users Users, sources ...Source) *Handler {
	return &Handler{users: users, sources: sources}
}

// Routes returns the route.
func (h *Handler) Routes() []api.Route {
	return []api.Route{{
		Method: "GET", Path: "/authz/shares/user/{userId}", Summary: "Return shares for a user",
		Permission: "users:edit:{username}", Query: append([]string{"capability", "entity_type"}, api.PageQuery...),
		Handler: h.forUser,
	}}
}

type owner struct {
	ID    string `json:"id"`
	Type  string `json:"type"`
	Title string `json:"title"`
}

type descriptor struct {
	ID     string  `json:"id"`
	Type   string  `json:"type"`
	Title  string  `json:"title"`
	Owners []owner `json:"owners"`
}

func (h *Handler) forUser(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	u, err := h.users(ctx, api.Var(r, "userId"))
	if err != nil {
		return err
	}
	if p := auth.FromContext(ctx); p == nil || p.UserID != u.ID {
		// Graylog 4.0's EntitySharesResource: another user's shares are
		// for whoever may edit that user.
		if err := auth.Require(ctx, "users:edit:"+u.Username); err != nil {
			return err
		}
	}
	page, err := api.ParsePage(r, "title", "title", "type")
	if err != nil {
		return err
	}
	q, err := api.ParseQuery(page.Query, "title", "title", "type")
	if err != nil {
		return err
	}
	typ, capability := r.URL.Query().Get("entity_type"), r.URL.Query().Get("capability")
	var owned []Entity
	if capability == "" || capability == "own" {
		for _, src := range h.sources {
			all, err := src(ctx)
			if err != nil {
				return err
			}
			for _, e := range all {
				mine := e.Owner == u.Username || e.OwnerID != "" && e.OwnerID == u.ID
				if mine && (typ == "" || e.Type == typ) {
					owned = append(owned, e)
				}
			}
		}
	}
	items, total := api.PageOf(owned, page, q, func(e Entity, field string) string {
		if field == "type" {
			return e.Type
		}
		return e.Title
	})
	title := u.FullName
	if title == "" {
		title = u.Username
	}
	me := owner{ID: "grn::::user:" + u.ID, Type: "user", Title: title}
	out := make([]descriptor, len(items))
	caps := map[string]string{}
	for i, e := range items {
		out[i] = descriptor{ID: e.GRN(), Type: e.Type, Title: e.Title, Owners: []owner{me}}
		caps[e.GRN()] = "own"
	}
	api.WriteJSON(w, http.StatusOK, api.Listing{
		Key: "entities", Items: out, Count: len(out), Total: total, Page: page,
		Context: map[string]any{"grantee_capabilities": caps},
	}.Body())
	return nil
}
