package compat

import (
	"context"
	"net/http"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/router/api"
)

// Users resolves usernames for the changes that moved user endpoints from
// usernames to ids; the node answers from its user service.
type Users interface {
	// IDByUsername returns a user's id; an unknown user is an error whose
	// api.ErrorCode is api.NotFound.
	IDByUsername(ctx context.Context, username string) (string, error)
	// IsUserID reports whether s is an existing user's id.
	IsUserID(ctx context.Context, s string) bool
}

// Anonymity is implemented by a Users that knows better than the local
// principal whether a request has a caller to resolve usernames for: a
// gateway authenticates no one itself and resolves with the caller's
// forwarded credentials. Other Users count callers without a principal as
// anonymous.
type Anonymity interface {
	Anonymous(ctx context.Context) bool
}

func anonymous(ctx context.Context, users Users) bool {
	if a, ok := users.(Anonymity); ok {
		return a.Anonymous(ctx)
	}
	return auth.FromContext(ctx) == nil
}

// UsersByID is the 4.0 change of the user endpoints that took a username to
// take a user id (Graylog2/graylog2-server#9217). Clients older than 4.0 send
// usernames; on the default release a segment that is not a user id but is a
// username is recognised, so the spec's pre-4.0 token calls work unchanged.
func UsersByID(users Users) *Change {
	return &Change{
		Release:     MustRelease("4.0"),
		Description: "User endpoints take a user id instead of a username: `PUT /users/{userId}`, `PUT /users/{userId}/password`, `GET /users/{userId}/tokens`, `POST /users/{userId}/tokens/{name}`, `DELETE /users/{userId}/tokens/{idOrToken}`; older clients' usernames are resolved to ids (also the trailing slash of `GET /users/{username}/tokens/`).",
		Routes: []Route{
			R("GET /users/{user}/tokens"),
			R("POST /users/{user}/tokens/{name}"),
			R("DELETE /users/{user}/tokens/{token}"),
			R("PUT /users/{user}"),
			R("PUT /users/{user}/password"),
		},
		Recognise: func(ctx context.Context, _ *http.Request, v Vars) bool {
			if anonymous(ctx, users) {
				return false // nothing is resolved for anonymous callers
			}
			seg := v.Unescaped("user")
			if users.IsUserID(ctx, seg) {
				return false
			}
			_, err := users.IDByUsername(ctx, seg)
			return err == nil
		},
		Request: func(ctx context.Context, x *Exchange) error {
			// Resolving a username for an anonymous caller would tell
			// who exists; the route answers 401 anyway.
			if anonymous(ctx, users) {
				return auth.Unauthenticated()
			}
			name := x.Vars.Unescaped("user")
			id, err := users.IDByUsername(ctx, name)
			if api.ErrorCode(err) == api.NotFound {
				return api.Errorf(api.NotFound, "Couldn't find user %s", name)
			}
			if err != nil {
				return err
			}
			return x.Replace("user", id)
		},
	}
}
