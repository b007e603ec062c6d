package compat_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/compat"
	"github.com/loggate/loggate/router/api"
)

// directory is a fixed username → id table for the chain's unit tests; the
// end-to-end tests resolve through the real user service.
type directory map[string]string

func (d directory) IDByUsername(_ context.Context, name string) (string, error) {
	if id, ok := d[name]; ok {
		return id, nil
	}
	return "", api.Errorf(api.NotFound, "no user %s", name)
}

func (d directory) IsUserID(_ context.Context, s string) bool {
	for _, id := range d {
		if id == s {
			return true
		}
	}
	return false
}

const gmID = "5f1e2d3c4b5a69788796a5b4"

// backend echoes the path it was called with and answers a 4.0 token record.
var backend = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Backend-Path", r.URL.Path)
	api.WriteRawJSON(w, http.StatusOK, []byte(`{"id":"t1","name":"n","token":"abc","last_access":"1970-01-01T00:00:00.000Z"}`))
})

func serve(chain *compat.Chain, method, path string, c *compat.Client) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, path, nil)
	ctx := auth.WithPrincipal(r.Context(), &auth.Principal{UserID: gmID, Username: "GM"})
	if c != nil {
		ctx = compat.WithClient(ctx, *c)
	}
	w := httptest.NewRecorder()
	chain.Wrap(backend, api.WriteError).ServeHTTP(w, r.WithContext(ctx))
	return w
}

func TestChainConversions(t *testing.T) {
	chain := compat.NewChain("/api", compat.All(compat.Deps{Users: directory{"GM": gmID, "a b": "5f1e2d3c4b5a69788796a5b5"}})...)
	rel := func(s string) *compat.Client {
		return &compat.Client{Release: compat.MustRelease(s), Source: compat.FromHeader}
	}
	cases := []struct {
		name, method, path string
		client             *compat.Client
		wantPath           string
		wantID             bool
		status             int
	}{
		{"4.0 id path untouched", "POST", "/api/users/" + gmID + "/tokens/x", nil, "/api/users/" + gmID + "/tokens/x", true, 200},
		{"default release recognises a username", "POST", "/api/users/GM/tokens/x", nil, "/api/users/" + gmID + "/tokens/x", true, 200},
		{"default release: unknown name passes to 4.0", "POST", "/api/users/ghost/tokens/x", nil, "/api/users/ghost/tokens/x", true, 200},
		{"trailing slash", "GET", "/api/users/GM/tokens/", nil, "/api/users/" + gmID + "/tokens", true, 200},
		{"escaped username", "GET", "/api/users/a%20b/tokens", rel("3.3"), "/api/users/5f1e2d3c4b5a69788796a5b5/tokens", true, 200},
		{"3.3 keeps token ids", "GET", "/api/users/GM/tokens", rel("3.3"), "/api/users/" + gmID + "/tokens", true, 200},
		{"3.2 loses token ids", "POST", "/api/users/GM/tokens/x", rel("3.2"), "/api/users/" + gmID + "/tokens/x", false, 200},
		{"2.4 unknown user", "GET", "/api/users/ghost/tokens", rel("2.4"), "", false, 404},
		{"4.0 header: no recognition", "GET", "/api/users/GM/tokens", rel("4.0"), "/api/users/GM/tokens", true, 200},
		{"other routes untouched", "GET", "/api/cluster", rel("2.0"), "/api/cluster", true, 200},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := serve(chain, c.method, c.path, c.client)
			if w.Code != c.status {
				t.Fatalf("status %d, want %d: %s", w.Code, c.status, w.Body)
			}
			if c.status != 200 {
				return
			}
			if got := w.Header().Get("X-Backend-Path"); got != c.wantPath {
				t.Errorf("backend saw %q, want %q", got, c.wantPath)
			}
			if got := strings.Contains(w.Body.String(), `"id"`); got != c.wantID {
				t.Errorf("id present = %v, want %v: %s", got, c.wantID, w.Body)
			}
		})
	}
}

// A 4.0 request that no change touches costs no allocation more than the bare
// backend.
func TestChainAddsNoAllocationsFor40(t *testing.T) {
	chain := compat.NewChain("/api", compat.All(compat.Deps{Users: directory{"GM": gmID}})...).Wrap(backend, api.WriteError)
	for _, path := range []string{"/api/cluster", "/api/system/sessions", "/api/users/paginated"} {
		r := httptest.NewRequest("GET", path, nil)
		w := httptest.NewRecorder()
		bare := testing.AllocsPerRun(200, func() { w.Body.Reset(); backend.ServeHTTP(w, r) })
		through := testing.AllocsPerRun(200, func() { w.Body.Reset(); chain.ServeHTTP(w, r) })
		if through != bare {
			t.Errorf("%s: %v allocations through the chain, %v bare", path, through, bare)
		}
	}
}

func BenchmarkChain(b *testing.B) {
	chain := compat.NewChain("/api", compat.All(compat.Deps{Users: directory{"GM": gmID}})...)
	h := chain.Wrap(backend, api.WriteError)
	run := func(b *testing.B, handler http.Handler, path string, c *compat.Client) {
		r := httptest.NewRequest("GET", path, nil)
		ctx := auth.WithPrincipal(r.Context(), &auth.Principal{UserID: gmID, Username: "GM"})
		if c != nil {
			ctx = compat.WithClient(ctx, *c)
		}
		r = r.WithContext(ctx)
		b.ReportAllocs()
		for b.Loop() {
			w := httptest.NewRecorder()
			handler.ServeHTTP(w, r.Clone(r.Context()))
		}
	}
	old := &compat.Client{Release: compat.MustRelease("2.4"), Source: compat.FromHeader}
	b.Run("bare backend", func(b *testing.B) { run(b, backend, "/api/cluster", nil) })
	b.Run("4.0 through chain", func(b *testing.B) { run(b, h, "/api/cluster", nil) })
	b.Run("bare backend tokens", func(b *testing.B) { run(b, backend, "/api/users/"+gmID+"/tokens", nil) })
	b.Run("2.4 tokens rewritten", func(b *testing.B) { run(b, h, "/api/users/GM/tokens/", old) })
}

// A change may answer an old request itself; the backend never sees it.
func TestChangeAnswers(t *testing.T) {
	ch := &compat.Change{
		Release: compat.MustRelease("4.0"),
		Routes:  []compat.Route{compat.R("GET /gone/{x}")},
		Request: func(_ context.Context, x *compat.Exchange) error {
			return compat.JSON(http.StatusOK, []byte(`{"x":"`+x.Vars.Get("x")+`"}`))
		},
	}
	backend := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the backend was called for %s", r.URL.Path)
	})
	h := compat.NewChain("/api", ch).Wrap(backend, func(w http.ResponseWriter, r *http.Request, err error) {
		t.Errorf("fail called: %v", err)
	})
	r := httptest.NewRequest("GET", "/api/gone/42", nil)
	r = r.WithContext(compat.WithClient(r.Context(), compat.Client{Release: compat.MustRelease("3.3"), Source: compat.FromHeader}))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != http.StatusOK || w.Body.String() != `{"x":"42"}` || w.Header().Get("Content-Type") != "application/json" {
		t.Errorf("got %d %q %v", w.Code, w.Body, w.Header())
	}
}

// TestChainFirstSegments: the chain tries a change only on requests whose
// first path segment one of its routes can match, judged on the path as
// the earlier changes left it; a route starting with a placeholder can
// match any.
func TestChainFirstSegments(t *testing.T) {
	moved := &compat.Change{Release: compat.MustRelease("3.0"), Routes: []compat.Route{compat.R("GET /old/{id}")}}
	var seen []string
	note := func(name string) func(context.Context, *compat.Exchange) error {
		return func(_ context.Context, x *compat.Exchange) error {
			seen = append(seen, name+" "+x.Req.URL.Path)
			return nil
		}
	}
	renamed := &compat.Change{Release: compat.MustRelease("3.1"), Routes: []compat.Route{compat.R("GET /new/{id}")}, Request: note("new")}
	anyFirst := &compat.Change{Release: compat.MustRelease("3.2"), Routes: []compat.Route{compat.R("GET /{kind}/x")}, Request: note("any")}
	// The first change moves the path to another first segment.
	moved.Request = func(_ context.Context, x *compat.Exchange) error {
		x.Req.URL.Path = "/api/new/" + x.Vars.Get("id")
		return nil
	}
	chain := compat.NewChain("/api", moved, renamed, anyFirst)
	old := &compat.Client{Release: compat.MustRelease("2.0"), Source: compat.FromHeader}
	for _, c := range []struct {
		path string
		want string
	}{
		{"/api/old/x", "[new /api/new/x any /api/new/x]"},
		{"/api/new/y", "[new /api/new/y]"},
		{"/api/other/x", "[any /api/other/x]"},
		{"/api/other/y", "[]"},
	} {
		seen = nil
		if w := serve(chain, "GET", c.path, old); w.Code != http.StatusOK {
			t.Errorf("%s: status %d", c.path, w.Code)
		}
		if got := fmt.Sprint(seen); got != c.want {
			t.Errorf("%s: changes saw %s, want %s", c.path, got, c.want)
		}
	}
}

// A client as new as every change meets only the changes that recognise
// old requests, and only when its release is the default; one that named
// it, or an older one, is converted as its release says.
func TestChainCandidates(t *testing.T) {
	var recognised int
	older := &compat.Change{Release: compat.MustRelease("2.0"), Routes: []compat.Route{compat.R("GET /users/{user}/tokens")},
		Request: func(_ context.Context, x *compat.Exchange) error { return x.Replace("user", "old") }}
	recognising := &compat.Change{Release: compat.MustRelease("4.0"), Routes: []compat.Route{compat.R("GET /users/{user}/tokens")},
		Recognise: func(context.Context, *http.Request, compat.Vars) bool { recognised++; return false }}
	chain := compat.NewChain("/api", recognising, older)
	for _, c := range []struct {
		client     compat.Client
		recognised int
		path       string
	}{
		{compat.Client{Release: compat.Latest, Source: compat.FromHeader}, 0, "/api/users/GM/tokens"},
		{compat.Client{Release: compat.Latest, Source: compat.FromDefault}, 1, "/api/users/GM/tokens"},
		{compat.Client{Release: compat.MustRelease("1.0"), Source: compat.FromHeader}, 0, "/api/users/old/tokens"},
	} {
		recognised = 0
		w := serve(chain, "GET", "/api/users/GM/tokens", &c.client)
		if recognised != c.recognised || w.Header().Get("X-Backend-Path") != c.path {
			t.Errorf("%+v: recognised %d times, backend path %q; want %d, %q", c.client, recognised, w.Header().Get("X-Backend-Path"), c.recognised, c.path)
		}
	}
}
