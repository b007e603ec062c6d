// Package auth authenticates requests (passwords, access tokens, sessions),
// caches what it verified, and answers permission checks for handlers.
package auth

import (
	"context"
	"net/http"
	"time"

	"github.com/loggate/loggate/auth/permission"
	"github.com/loggate/loggate/router/api"
)

// RootUserID is the fixed id of the root user from the configuration, as in
// Graylog.
const RootUserID = "local:admin"

// Principal is the authenticated caller of a request.
type Principal struct {
	UserID   string
	Username string
	// Permissions are the effective permissions: the user's own, those of
	// their roles and the implicit self-edit ones.
	Permissions permission.Set
	// SessionID is set when the request authenticated with a session.
	SessionID string
	// TokenID is set when the request authenticated with an access token.
	TokenID string
	// SessionTimeout is the user's session timeout (session_timeout_ms).
	SessionTimeout time.Duration
	// ServiceAccount users may not start sessions.
	ServiceAccount bool
	// PinnedRelease is the API release pinned on the access token that
	// authenticated the request ("" for none): the client is served as that
	// release unless it names another in X-API-Version.
	PinnedRelease string
}

// Permits reports whether the principal holds a permission implying perm.
func (p *Principal) Permits(perm string) bool {
	return p != nil && p.Permissions.Permits(perm)
}

type principalKey struct{}

// WithPrincipal returns a context carrying the authenticated principal.
func WithPrincipal(ctx context.Context, p *Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// SetPrincipal returns r carrying the authenticated principal, set in place
// on the router's request context when r carries it (api.SetValue).
func SetPrincipal(r *http.Request, p *Principal) *http.Request {
	return api.SetValue(r, principalKey{}, p)
}

// FromContext returns the request's principal, or nil for an anonymous request.
func FromContext(ctx context.Context) *Principal {
	p, _ := ctx.Value(principalKey{}).(*Principal)
	return p
}

// ErrNotAuthorized is Graylog's message for a failed annotation-style check.
const msgNotAuthorized = "Not authorized"

// Require returns nil when the request's principal holds perm, a 401 error for
// an anonymous request and a 403 "Not authorized" otherwise.
func Require(ctx context.Context, perm string) error {
	return RequireMsg(ctx, perm, msgNotAuthorized)
}

// RequireMsg is Require with a resource-specific 403 message, such as
// "Not allowed to view user alice".
func RequireMsg(ctx context.Context, perm, msg string) error {
	p := FromContext(ctx)
	if p == nil {
		return Unauthenticated()
	}
	if !p.Permits(perm) {
		return &api.Error{Code: api.Forbidden, Message: msg}
	}
	return nil
}

// Unauthenticated is the 401 for a request that needs credentials.
func Unauthenticated() error {
	return &api.Error{
		Code:    api.Unauthorized,
		Message: "Not authenticated",
		Header:  map[string][]string{"Www-Authenticate": {`Basic realm="Graylog Server"`}},
	}
}
