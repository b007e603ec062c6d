package router

import (
	"context"
	"net/http"
	"strings"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/compat"
	"github.com/loggate/loggate/router/api"
)

type authErrKey struct{}

// authError returns the credential error of a request that presented wrong
// credentials; the route decides whether that matters (public routes such as
// login ignore it).
func authError(ctx context.Context) error {
	err, _ := ctx.Value(authErrKey{}).(error)
	return err
}

// authenticate identifies the caller. Malformed credentials are a 400 and a
// store outage a 503 at once; wrong credentials are remembered for the route.
func (rt *Router) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var ok bool
		header := headerValue(r.Header, "Authorization")
		if header == "" {
			if rt.o.TrustedHeader != nil {
				p, err := rt.o.TrustedHeader.Principal(r)
				if r, ok = rt.identified(w, r, p, err); !ok {
					return
				}
			}
			next.ServeHTTP(w, r)
			return
		}
		extend := !strings.EqualFold(headerValue(r.Header, "X-Graylog-No-Session-Extension"), "true")
		p, err := rt.o.Auth.Authenticate(r.Context(), header, extend)
		if r, ok = rt.identified(w, r, p, err); ok {
			next.ServeHTTP(w, r)
		}
	})
}

// identified puts an authentication's outcome on the request: the principal,
// or a 401 for the route to answer if it needs authentication (public routes
// do not). Other errors are answered here; ok is then false.
func (rt *Router) identified(w http.ResponseWriter, r *http.Request, p *auth.Principal, err error) (*http.Request, bool) {
	switch {
	case err == nil && p != nil:
		return auth.SetPrincipal(r, p), true
	case err != nil && api.ErrorCode(err) == api.Unauthorized:
		return api.SetValue(r, authErrKey{}, err), true
	case err != nil:
		rt.fail(w, r, err)
		return r, false
	}
	return r, true
}

// release resolves the API release the client speaks, first match wins:
// the X-API-Version header, the release pinned on the access token that
// authenticated the request, the release pinned on the listener, else
// compat_default_release. The response says which one it was served as.
// Clients older than compat_min_release are refused with 410.
func (rt *Router) release(next http.Handler) http.Handler {
	def := compat.Client{Release: rt.o.DefaultRelease, Source: compat.FromDefault}
	// Header values made once: stamping a response costs no allocation.
	served := map[compat.Release][]string{}
	for _, rel := range compat.Releases() {
		served[rel] = []string{rel.String()}
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := def
		if v := headerValue(r.Header, "X-Api-Version"); v != "" {
			rel, err := compat.ParseRelease(v)
			if err != nil {
				rt.fail(w, r, err)
				return
			}
			c = compat.Client{Release: rel, Source: compat.FromHeader}
		} else if p := auth.FromContext(r.Context()); p != nil && p.PinnedRelease != "" {
			// Validated when it was pinned; a release this build no
			// longer knows falls through to the listener and default.
			if rel, err := compat.ParseRelease(p.PinnedRelease); err == nil {
				c = compat.Client{Release: rel, Source: compat.FromToken}
			}
		}
		if c.Source == compat.FromDefault {
			if rel, ok := compat.ListenerRelease(r.Context()); ok {
				c = compat.Client{Release: rel, Source: compat.FromListener}
			}
		}
		w.Header()["X-Api-Version"] = served[c.Release]
		noteCaller(r, c)
		if c.Release.Before(rt.o.MinRelease) {
			rt.fail(w, r, api.Errorf(api.Gone, "API release %s is no longer served; this server serves releases %s to %s (compat_min_release)", c.Release, rt.o.MinRelease, compat.Latest))
			return
		}
		if c != (compat.Client{Release: compat.Latest, Source: compat.FromDefault}) {
			r = compat.SetClient(r, c)
		}
		next.ServeHTTP(w, r)
	})
}
