package compat_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
	"github.com/loggate/loggate/compat"
	"github.com/loggate/loggate/router/api"
)

// realmsReordered is a 3.3 authentication page's PUT after moving the
// password realm first and unticking legacy-ldap.
const realmsReordered = `{"realm_order":["mongodb-password","mongodb-session","access-token","legacy-ldap","root-user"],"disabled_realms":["legacy-ldap"]}`

// authConfigSteps are the requests of a 3.3 web interface to
// /system/authentication/config, run in order against one node, with their
// golden exchanges fixtures/compat/authconfig_<name>.golden.
var authConfigSteps = []ldapStep{
	{name: "get_default", method: "GET", path: "/system/authentication/config", as: "root", status: 200},
	{name: "get_anonymous", method: "GET", path: "/system/authentication/config", status: 401},
	// Readers have clusterconfigentry:read, which is all 3.3 asked for.
	{name: "get_as_reader", method: "GET", path: "/system/authentication/config", as: "reader", status: 200},
	{name: "put_as_reader", method: "PUT", path: "/system/authentication/config", body: realmsReordered, as: "reader", status: 403},
	{name: "get_with_read_permission", method: "GET", path: "/system/authentication/config", as: "authreader", status: 200},
	{name: "put_forbidden", method: "PUT", path: "/system/authentication/config", body: realmsReordered, as: "authreader", status: 403},
	{name: "put_without_csrf_header", method: "PUT", path: "/system/authentication/config", body: realmsReordered, as: "root",
		header: [2]string{"X-Requested-By", ""}, status: 400},
	{name: "put_unknown_realm", method: "PUT", path: "/system/authentication/config",
		body: `{"realm_order":["mongodb-session","ldap"],"disabled_realms":[]}`, as: "root", status: 400},
	{name: "put_disable_password", method: "PUT", path: "/system/authentication/config",
		body: `{"realm_order":["mongodb-session"],"disabled_realms":["mongodb-password"]}`, as: "root", status: 400},
	{name: "put_missing_list", method: "PUT", path: "/system/authentication/config", body: `{"realm_order":[]}`, as: "root", status: 400},
	{name: "put_bad_json", method: "PUT", path: "/system/authentication/config", body: `{"realm_order": [`, as: "root", status: 400},
	{name: "put_reordered", method: "PUT", path: "/system/authentication/config", body: realmsReordered, as: "root", status: 200},
	{name: "get_reordered", method: "GET", path: "/system/authentication/config", as: "root", status: 200},
	{name: "get_ldap_active", method: "GET", path: "/system/authentication/config", as: "root", status: 200,
		before: func(t *testing.T, e *ldapEnv) {
			// No directory is needed: nothing connects to it.
			e.h.Do("PUT", "/system/ldap/settings", strings.ReplaceAll(settingsBody, "<slapd>", "localhost:389"), nodetest.AsRoot()).Want(t, 204)
			id := e.h.Do("GET", "/system/authentication/services/backends", nil, nodetest.AsRoot()).Want(t, 200).Get("backends.0.id").String()
			e.h.Do("POST", "/system/authentication/services/configuration", map[string]any{"active_backend": id}, nodetest.AsRoot()).Want(t, 200)
		}},
	{name: "put_disable_ldap", method: "PUT", path: "/system/authentication/config", body: realmsReordered, as: "root", status: 200,
		after: func(t *testing.T, e *ldapEnv, _ *nodetest.Response) {
			r := e.h.Do("GET", "/system/authentication/services/configuration", nil, nodetest.AsRoot()).Want(t, 200)
			if r.Get("configuration.active_backend").Raw != "null" {
				t.Errorf("configuration after disabling legacy-ldap: %s", r.Body)
			}
		}},
	{name: "put_enable_ldap", method: "PUT", path: "/system/authentication/config",
		body: `{"realm_order":["mongodb-session","access-token","legacy-ldap","mongodb-password","root-user"],"disabled_realms":[]}`, as: "root", status: 200,
		after: func(t *testing.T, e *ldapEnv, _ *nodetest.Response) {
			// Activation stays explicit.
			r := e.h.Do("GET", "/system/authentication/services/configuration", nil, nodetest.AsRoot()).Want(t, 200)
			if r.Get("configuration.active_backend").Raw != "null" {
				t.Errorf("configuration after enabling legacy-ldap: %s", r.Body)
			}
		}},
	{name: "pinned_4.0_client_gets_404", method: "GET", path: "/system/authentication/config", as: "root",
		header: [2]string{"X-API-Version", "4.0"}, status: 404},
}

func TestAuthenticationConfigGoldenExchanges(t *testing.T) {
	e := &ldapEnv{h: nodetest.Start(t)}
	e.h.CreateUser("reader", "readerpw")
	e.h.Do("POST", "/users", map[string]any{
		"username": "authreader", "password": "authreaderpw", "email": "a@example.org", "full_name": "Auth Reader",
		"permissions": []string{"clusterconfigentry:read"},
	}, nodetest.AsRoot()).Want(t, http.StatusCreated)
	runSteps(t, e, "authconfig_", authConfigSteps, map[string]nodetest.ReqOption{
		"root": nodetest.AsRoot(), "reader": nodetest.Basic("reader", "readerpw"), "authreader": nodetest.Basic("authreader", "authreaderpw"),
	}, "localhost:389")
}

// fakeRealms keeps what is saved, with legacy-ldap off unless active.
type fakeRealms struct {
	saved  *compat.RealmConfig
	active bool
}

func (f *fakeRealms) RealmConfig(context.Context) (compat.RealmConfig, error) {
	c := compat.RealmConfig{RealmOrder: compat.DefaultRealmOrder(), DisabledRealms: []string{}}
	if f.saved != nil {
		c.RealmOrder = f.saved.RealmOrder
	}
	if !f.active {
		c.DisabledRealms = []string{compat.RealmLegacyLDAP}
	}
	return c, nil
}

func (f *fakeRealms) SaveRealmConfig(ctx context.Context, c compat.RealmConfig) (compat.RealmConfig, error) {
	f.saved = &c
	if slices.Contains(c.DisabledRealms, compat.RealmLegacyLDAP) {
		f.active = false
	}
	return f.RealmConfig(ctx)
}

// The change answers both routes itself with 3.3's permissions, refuses
// what loggate cannot apply and warns about what it keeps unapplied.
func TestAuthenticationConfigAPIAnswers(t *testing.T) {
	const defaultOrder = `"realm_order":["mongodb-session","access-token","legacy-ldap","mongodb-password","root-user"]`
	tests := []struct {
		name, method, body string
		perms              []string
		active             bool
		status             int
		saved              bool
		warnings           []string // after the removal warning
	}{
		{"get", "GET", "", []string{"clusterconfigentry:read"}, true, 200, false, nil},
		{"get without permission", "GET", "", []string{"authentication:edit"}, true, 403, false, nil},
		{"get anonymous", "GET", "", nil, true, 401, false, nil},
		{"put default order", "PUT", "{" + defaultOrder + `,"disabled_realms":[]}`, []string{"authentication:edit", "clusterconfigentry:read"}, true, 200, true, nil},
		{"put read only", "PUT", "{" + defaultOrder + `,"disabled_realms":[]}`, []string{"clusterconfigentry:read"}, true, 403, false, nil},
		{"put without reading", "PUT", "{" + defaultOrder + `,"disabled_realms":[]}`, []string{"authentication:edit"}, true, 403, false, nil},
		{"put reordered", "PUT", realmsReordered, []string{"authentication:edit", "clusterconfigentry:read"}, true, 200, true, []string{"order"}},
		{"put enable while inactive", "PUT", "{" + defaultOrder + `,"disabled_realms":[]}`, []string{"authentication:edit", "clusterconfigentry:read"}, false, 200, true, []string{"ldap"}},
		{"put partial order", "PUT", `{"realm_order":["root-user"],"disabled_realms":[],"extra":1}`, []string{"authentication:edit", "clusterconfigentry:read"}, true, 200, true, []string{"order"}},
		{"put unknown realm", "PUT", `{"realm_order":["kerberos"],"disabled_realms":[]}`, []string{"authentication:edit", "clusterconfigentry:read"}, true, 400, false, nil},
		{"put unknown disabled realm", "PUT", `{"realm_order":[],"disabled_realms":["kerberos"]}`, []string{"authentication:edit", "clusterconfigentry:read"}, true, 400, false, nil},
		{"put duplicate", "PUT", `{"realm_order":["root-user","root-user"],"disabled_realms":[]}`, []string{"authentication:edit", "clusterconfigentry:read"}, true, 400, false, nil},
		{"put disable root", "PUT", `{"realm_order":[],"disabled_realms":["root-user"]}`, []string{"authentication:edit", "clusterconfigentry:read"}, true, 400, false, nil},
		{"put null lists", "PUT", `{"realm_order":null,"disabled_realms":null}`, []string{"authentication:edit", "clusterconfigentry:read"}, true, 400, false, nil},
		{"put wrong type", "PUT", `{"realm_order":"root-user","disabled_realms":[]}`, []string{"authentication:edit", "clusterconfigentry:read"}, true, 400, false, nil},
		{"put empty body", "PUT", ``, []string{"authentication:edit", "clusterconfigentry:read"}, true, 400, false, nil},
	}
	want := map[string]string{
		"order": `299 - "The realm order is kept but not applied: loggate checks a password against the local account first and against the directory only for users without one"`,
		"ldap":  `299 - "legacy-ldap stays off until a directory backend is activated with POST /system/authentication/services/configuration"`,
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeRealms{active: tc.active}
			w, failed := serveAlone(t, compat.AuthenticationConfigAPI(f), tc.method, "/system/authentication/config", tc.body, tc.perms)
			if w.Code != tc.status {
				t.Fatalf("status %d (%v), want %d: %s", w.Code, failed, tc.status, w.Body)
			}
			if got := f.saved != nil; got != tc.saved {
				t.Errorf("saved %v, want %v", got, tc.saved)
			}
			warnings := w.Header().Values("Warning")
			if len(warnings) == 0 || warnings[0] != `299 loggate "/system/authentication/config was removed in 4.0; served as release 3.3"` {
				t.Fatalf("Warning headers %q, want the removal first", warnings)
			}
			var wantRest []string
			for _, k := range tc.warnings {
				wantRest = append(wantRest, want[k])
			}
			if !slices.Equal(warnings[1:], wantRest) {
				t.Errorf("Warning headers %q, want after the removal %q", warnings, wantRest)
			}
		})
	}
}

// FuzzParseRealmConfig feeds PUT bodies: the parser must not panic, and
// what it accepts holds only known realms, none twice, and at most
// legacy-ldap disabled.
func FuzzParseRealmConfig(f *testing.F) {
	for _, s := range []string{realmsReordered, `{"realm_order":[],"disabled_realms":[]}`, `{"realm_order":["x"]}`, `[]`, `null`, `{"realm_order":["root-user","root-user"],"disabled_realms":[]}`} {
		f.Add([]byte(s))
	}
	known := compat.DefaultRealmOrder()
	f.Fuzz(func(t *testing.T, body []byte) {
		c, err := compat.ParseRealmConfig(body)
		if err != nil {
			if api.ErrorCode(err) != api.Invalid {
				t.Fatalf("error %v is not a 400", err)
			}
			return
		}
		if c.RealmOrder == nil || c.DisabledRealms == nil {
			t.Fatalf("accepted nil lists: %+v", c)
		}
		for i, r := range c.RealmOrder {
			if !slices.Contains(known, r) || slices.Contains(c.RealmOrder[:i], r) {
				t.Fatalf("accepted realm order %q", c.RealmOrder)
			}
		}
		for _, r := range c.DisabledRealms {
			if r != compat.RealmLegacyLDAP {
				t.Fatalf("accepted disabled realms %q", c.DisabledRealms)
			}
		}
	})
}
