package authservices_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/loggate/loggate/backend/access/authservices"
)

const headerAuthPath = "/system/authentication/http-header-auth-config"

func TestHeaderAuthDefaults(t *testing.T) {
	e := newEnv(t)
	w := e.ok(t, call{method: "GET", path: headerAuthPath, perms: admin}, http.StatusOK, nil)
	if got := strings.TrimSpace(w.Body.String()); got != `{"enabled":false,"username_header":"Remote-User"}` {
		t.Errorf("GET = %s", got)
	}
	on, header, err := e.svc.HeaderAuth(t.Context())
	if on || header != authservices.DefaultUsernameHeader || err != nil {
		t.Errorf("HeaderAuth = %v, %q, %v", on, header, err)
	}
}

func TestHeaderAuthUpdate(t *testing.T) {
	cases := []struct {
		name, body string
		want       int
		enabled    bool
		header     string
	}{
		{"enable", `{"enabled":true,"username_header":"X-Forwarded-User"}`, http.StatusOK, true, "X-Forwarded-User"},
		{"token characters", "{\"enabled\":true,\"username_header\":\"x!#$%&'*+-.^_`|~9\"}", http.StatusOK, true, "x!#$%&'*+-.^_`|~9"},
		{"enabled absent", `{"username_header":"Remote-User"}`, http.StatusOK, false, "Remote-User"},
		{"space", `{"enabled":true,"username_header":"Remote User"}`, http.StatusBadRequest, false, ""},
		{"colon", `{"enabled":true,"username_header":"Remote-User:"}`, http.StatusBadRequest, false, ""},
		{"non-ASCII", `{"enabled":true,"username_header":"Remote-Üser"}`, http.StatusBadRequest, false, ""},
		{"newline", `{"enabled":true,"username_header":"Remote\nUser"}`, http.StatusBadRequest, false, ""},
		{"empty", `{"enabled":true,"username_header":""}`, http.StatusBadRequest, false, ""},
		{"absent", `{"enabled":true}`, http.StatusBadRequest, false, ""},
		{"unknown property", `{"enabled":true,"username_header":"X","trusted":true}`, http.StatusBadRequest, false, ""},
		{"wrong type", `{"enabled":"yes","username_header":"X"}`, http.StatusBadRequest, false, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			w := e.do(t, call{method: "PUT", path: headerAuthPath, body: c.body, perms: admin})
			if w.Code != c.want {
				t.Fatalf("PUT: %d %s, want %d", w.Code, w.Body, c.want)
			}
			want := authservices.HeaderAuthConfig{Enabled: c.enabled, UsernameHeader: c.header}
			if c.want != http.StatusOK {
				want = authservices.HeaderAuthConfig{UsernameHeader: authservices.DefaultUsernameHeader}
				var body struct{ Type string }
				if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil || (body.Type != "ApiError" && body.Type != "ValidationApiError") {
					t.Errorf("error body %s", w.Body)
				}
			} else {
				var got authservices.HeaderAuthConfig
				if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil || got != want {
					t.Errorf("PUT answered %s, want %+v", w.Body, want)
				}
			}
			var got authservices.HeaderAuthConfig
			e.ok(t, call{method: "GET", path: headerAuthPath, perms: admin}, http.StatusOK, &got)
			on, header, err := e.svc.HeaderAuth(t.Context())
			if got != want || on != want.Enabled || header != want.UsernameHeader || err != nil {
				t.Errorf("after PUT: GET %+v, HeaderAuth %v %q %v; want %+v", got, on, header, err, want)
			}
		})
	}
}

func TestHeaderAuthPermissions(t *testing.T) {
	e := newEnv(t)
	body := `{"enabled":true,"username_header":"X-User"}`
	cases := []struct {
		c    call
		want int
	}{
		{call{method: "GET", path: headerAuthPath}, http.StatusUnauthorized},
		{call{method: "GET", path: headerAuthPath, perms: []string{"authserviceglobalconfig:read"}}, http.StatusForbidden},
		{call{method: "GET", path: headerAuthPath, perms: []string{"authhttpheaderconfig:read"}}, http.StatusOK},
		{call{method: "PUT", path: headerAuthPath, body: body, perms: []string{"authhttpheaderconfig:read", "authserviceglobalconfig:edit"}}, http.StatusForbidden},
		{call{method: "PUT", path: headerAuthPath, body: body, perms: []string{"authhttpheaderconfig:edit"}}, http.StatusOK},
	}
	for _, c := range cases {
		if w := e.do(t, c.c); w.Code != c.want {
			t.Errorf("%s with %q: %d %s, want %d", c.c.method, c.c.perms, w.Code, w.Body, c.want)
		}
	}
}

func TestHeaderAuthIsCached(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	if _, err := e.svc.SetHeaderAuth(ctx, authservices.HeaderAuthConfig{Enabled: true, UsernameHeader: "X-User"}); err != nil {
		t.Fatal(err)
	}
	// A write behind the service's back, as another node's would be, is
	// not seen until this node's next PUT: the setting is read once.
	if err := e.st.Put(ctx, authservices.ConfigCollection, "org.graylog2.security.headerauth.HTTPHeaderAuthConfig", []byte(`{"enabled":false,"username_header":"Y"}`)); err != nil {
		t.Fatal(err)
	}
	if on, h, _ := e.svc.HeaderAuth(ctx); !on || h != "X-User" {
		t.Errorf("HeaderAuth = %v %q, want the cached setting", on, h)
	}
	// A new service reads the store.
	e.open2(t)
	if on, h, _ := e.svc.HeaderAuth(ctx); on || h != "Y" {
		t.Errorf("a fresh service's HeaderAuth = %v %q, want the stored setting", on, h)
	}
}
