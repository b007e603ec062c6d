package upstream

import (
	"context"
	"net/http"
)

type credentialsKey struct{}

// WithCredentials returns a context carrying the caller's Authorization
// header, for username lookups made on the caller's behalf.
func WithCredentials(ctx context.Context, authorization string) context.Context {
	return context.WithValue(ctx, credentialsKey{}, authorization)
}

// Credentials returns the caller's Authorization header, or "".
func Credentials(ctx context.Context) string {
	s, _ := ctx.Value(credentialsKey{}).(string)
	return s
}

// Forward puts each request's Authorization header in its context before
// next (the router): a gateway authenticates no one, so the compat chain's
// username lookups ask the upstream with the caller's own credentials and
// the upstream's permission checks stay the only ones.
func Forward(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a := r.Header.Get("Authorization"); a != "" {
			r = r.WithContext(WithCredentials(r.Context(), a))
		}
		next.ServeHTTP(w, r)
	})
}
