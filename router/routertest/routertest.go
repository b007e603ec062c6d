// Package routertest serves a resource's routes through the real router for
// its unit tests, with a principal of chosen permissions.
package routertest

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/auth/permission"
	"github.com/loggate/loggate/router"
	"github.com/loggate/loggate/router/api"
)

// Handler serves routes through the real router: authentication, static
// permission checks, errors in Graylog's shape. Test paths omit /api and
// requests carry X-Requested-By.
func Handler(routes []api.Route) http.Handler {
	rt := router.New(router.Options{Routes: routes})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.URL.Path = router.Prefix + r.URL.Path
		r.Header.Set("X-Requested-By", "test")
		rt.ServeHTTP(w, r)
	})
}

// Principal returns a principal holding perms.
func Principal(t testing.TB, perms ...string) *auth.Principal {
	t.Helper()
	set, err := permission.NewSet(perms)
	if err != nil {
		t.Fatalf("NewSet(%q): %v", perms, err)
	}
	return &auth.Principal{UserID: "id", Username: "user", Permissions: set}
}

// Serve sends a request through h as p (anonymous when nil) and returns the
// response; a body is sent as JSON.
func Serve(h http.Handler, p *auth.Principal, method, path, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if p != nil {
		req = req.WithContext(auth.WithPrincipal(req.Context(), p))
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// Client sends requests to a handler (usually one from Handler), as Serve
// does; a resource's test environment embeds it.
type Client struct {
	H http.Handler
}

// Do serves a request as p (anonymous when nil).
func (c Client) Do(p *auth.Principal, method, path, body string) *httptest.ResponseRecorder {
	return Serve(c.H, p, method, path, body)
}

// Admin serves a request as a principal with every permission.
func (c Client) Admin(method, path, body string) *httptest.ResponseRecorder {
	return Serve(c.H, admin, method, path, body)
}

// admin holds "*", which implies every permission; it is the same user
// as Principal's.
var admin = func() *auth.Principal {
	set, err := permission.NewSet([]string{"*"})
	if err != nil {
		panic(err)
	}
	return &auth.Principal{UserID: "id", Username: "user", Permissions: set}
}()
