package compat_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	goldap "github.com/go-ldap/ldap/v3"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/auth/ldap/slapdtest"
	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
	"github.com/loggate/loggate/compat"
	"github.com/loggate/loggate/router/api"
	"github.com/loggate/loggate/router/routertest"
)

// ldapStep is one request of an old client to the 3.x LDAP API, run in
// order against one node, with its golden exchange
// fixtures/compat/ldap_<name>.golden.
type ldapStep struct {
	name   string
	before func(t *testing.T, e *ldapEnv)
	method string
	path   string
	body   string
	as     string // "root", "reader", "groupreader" or "" (anonymous)
	header [2]string
	status int
	after  func(t *testing.T, e *ldapEnv, r *nodetest.Response)
}

type ldapEnv struct {
	h   *nodetest.Harness
	dir *slapdtest.Server
}

// settingsBody is a 3.x web interface's PUT /system/ldap/settings.
const settingsBody = `{
  "enabled": true,
  "system_username": "cn=admin,dc=example,dc=org",
  "system_password": "adminpass",
  "system_password_set": false,
  "ldap_uri": "ldap://<slapd>",
  "use_start_tls": false,
  "trust_all_certificates": false,
  "active_directory": false,
  "search_base": "ou=people,dc=example,dc=org",
  "search_pattern": "(&(objectClass=inetOrgPerson)(uid={0}))",
  "display_name_attribute": "cn",
  "default_group": "Reader",
  "group_mapping": {"cn=admins,ou=groups,dc=example,dc=org": "Admin"},
  "group_search_base": "ou=groups,dc=example,dc=org",
  "group_id_attribute": "cn",
  "additional_default_groups": [],
  "group_search_pattern": "(objectClass=groupOfNames)"
}`

// testBody is a 3.x web interface's POST /system/ldap/test.
const testBody = `{
  "system_username": "cn=admin,dc=example,dc=org",
  "system_password": "adminpass",
  "ldap_uri": "ldap://<slapd>",
  "use_start_tls": false,
  "trust_all_certificates": false,
  "active_directory": false,
  "search_base": "ou=people,dc=example,dc=org",
  "search_pattern": "(&(objectClass=inetOrgPerson)(uid={0}))",
  "principal": "alice",
  "password": "alicepw",
  "test_connect_only": false,
  "group_search_base": "ou=groups,dc=example,dc=org",
  "group_id_attribute": "cn",
  "group_search_pattern": "(objectClass=groupOfNames)"
}`

var ldapSteps = []ldapStep{
	{name: "get_settings_empty", method: "GET", path: "/system/ldap/settings", as: "root", status: 200},
	{name: "get_settings_anonymous", method: "GET", path: "/system/ldap/settings", status: 401},
	{name: "get_settings_forbidden", method: "GET", path: "/system/ldap/settings", as: "reader", status: 403},
	{name: "put_settings_without_csrf_header", method: "PUT", path: "/system/ldap/settings", body: settingsBody, as: "root",
		header: [2]string{"X-Requested-By", ""}, status: 400},
	{name: "put_settings", method: "PUT", path: "/system/ldap/settings", body: settingsBody, as: "root", status: 204,
		after: func(t *testing.T, e *ldapEnv, _ *nodetest.Response) {
			bs := e.h.Do("GET", "/system/authentication/services/backends", nil, nodetest.AsRoot()).Want(t, 200)
			if bs.Get("total").Int() != 1 || bs.Get("context.active_backend").Raw != "null" ||
				bs.Get("backends.0.title").String() != "LDAP - ldap://"+e.addr() || !bs.Get("backends.0.config.system_user_password.is_set").Bool() {
				t.Errorf("backends after PUT: %s", bs.Body)
			}
		}},
	{name: "get_settings_disabled", method: "GET", path: "/system/ldap/settings", as: "root", status: 200,
		after: func(t *testing.T, e *ldapEnv, r *nodetest.Response) {
			// Not active: directory users cannot log in yet.
			e.h.Do("GET", "/cluster", nil, nodetest.Basic("alice", "alicepw")).Want(t, 401)
		}},
	{name: "get_groups_disabled", method: "GET", path: "/system/ldap/groups", as: "root", status: 400},
	{name: "get_group_mapping", method: "GET", path: "/system/ldap/settings/groups", as: "groupreader", status: 200},
	{name: "put_group_mapping_forbidden", method: "PUT", path: "/system/ldap/settings/groups", body: `{"devs":"Reader"}`, as: "groupreader", status: 403},
	{name: "put_group_mapping", method: "PUT", path: "/system/ldap/settings/groups",
		body: `{"cn=admins,ou=groups,dc=example,dc=org":"Admin","cn=devs,ou=groups,dc=example,dc=org":"Reader"}`, as: "root", status: 204},
	{name: "get_settings_enabled", method: "GET", path: "/system/ldap/settings", as: "root", status: 200,
		before: func(t *testing.T, e *ldapEnv) {
			id := e.h.Do("GET", "/system/authentication/services/backends", nil, nodetest.AsRoot()).Want(t, 200).Get("backends.0.id").String()
			e.h.Do("POST", "/system/authentication/services/configuration", map[string]any{"active_backend": id}, nodetest.AsRoot()).Want(t, 200)
		},
		after: func(t *testing.T, e *ldapEnv, _ *nodetest.Response) {
			e.h.Do("GET", "/cluster", nil, nodetest.Basic("alice", "alicepw")).Want(t, 200)
		}},
	{name: "get_groups", method: "GET", path: "/system/ldap/groups", as: "groupreader", status: 200},
	{name: "post_test", method: "POST", path: "/system/ldap/test", body: testBody, as: "root", status: 200},
	{name: "post_test_connect_only", method: "POST", path: "/system/ldap/test",
		body: `{"system_username":"","system_password":null,"ldap_uri":"ldap://<slapd>","use_start_tls":false,"trust_all_certificates":false,"active_directory":false,"search_base":"","search_pattern":"","principal":"","password":"","test_connect_only":true,"group_search_base":null,"group_id_attribute":null,"group_search_pattern":null}`,
		as:   "root", status: 200},
	{name: "put_settings_invalid", method: "PUT", path: "/system/ldap/settings",
		body: strings.Replace(settingsBody, `"search_base": "ou=people,dc=example,dc=org"`, `"search_base": ""`, 1), as: "root", status: 400},
	{name: "put_settings_bad_json", method: "PUT", path: "/system/ldap/settings", body: `{"enabled": tru`, as: "root", status: 400},
	{name: "delete_settings", method: "DELETE", path: "/system/ldap/settings", as: "root", status: 204,
		after: func(t *testing.T, e *ldapEnv, _ *nodetest.Response) {
			bs := e.h.Do("GET", "/system/authentication/services/backends", nil, nodetest.AsRoot()).Want(t, 200)
			if bs.Get("total").Int() != 0 || bs.Get("context.active_backend").Raw != "null" {
				t.Errorf("backends after DELETE: %s", bs.Body)
			}
		}},
	{name: "get_settings_after_delete", method: "GET", path: "/system/ldap/settings", as: "root", status: 200},
	{name: "pinned_4.0_client_gets_404", method: "GET", path: "/system/ldap/settings", as: "root",
		header: [2]string{"X-API-Version", "4.0"}, status: 404},
}

// uuid matches an entryUUID, which each new directory makes afresh.
var uuid = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

func (e *ldapEnv) addr() string { return fmt.Sprintf("%s:%d", e.dir.Host, e.dir.Port) }

func TestLegacyLDAPGoldenExchanges(t *testing.T) {
	e := &ldapEnv{h: nodetest.Start(t), dir: startDirectoryWithGroups(t)}
	e.h.CreateUser("reader", "readerpw")
	e.h.Do("POST", "/users", map[string]any{
		"username": "groupreader", "password": "grouppw", "email": "g@example.org", "full_name": "Group Reader",
		"permissions": []string{"ldapgroups:read"},
	}, nodetest.AsRoot()).Want(t, http.StatusCreated)
	runSteps(t, e, "ldap_", ldapSteps, map[string]nodetest.ReqOption{
		"root": nodetest.AsRoot(), "reader": nodetest.Basic("reader", "readerpw"), "groupreader": nodetest.Basic("groupreader", "grouppw"),
	}, e.addr())
}

// runSteps runs steps in order against e's node as the users named, each
// compared with its golden exchange fixtures/compat/<prefix><name>.golden;
// addr is the directory address written <slapd> in bodies and goldens.
func runSteps(t *testing.T, e *ldapEnv, prefix string, steps []ldapStep, users map[string]nodetest.ReqOption, addr string) {
	for _, st := range steps {
		ok := t.Run(st.name, func(t *testing.T) {
			if st.before != nil {
				st.before(t, e)
			}
			var opts []nodetest.ReqOption
			if st.as != "" {
				opts = append(opts, users[st.as])
			}
			if st.header[0] != "" {
				opts = append(opts, nodetest.Header(st.header[0], st.header[1]))
			}
			var body any
			if st.body != "" {
				body = strings.ReplaceAll(st.body, "<slapd>", addr)
			}
			r := e.h.Do(st.method, st.path, body, opts...)
			if r.Status != st.status {
				t.Fatalf("status %d, want %d: %s", r.Status, st.status, r.Body)
			}
			compare(t, filepath.Join("..", "fixtures", "compat", prefix+st.name+".golden"), renderLDAP(st, r, addr))
			if st.after != nil {
				st.after(t, e, r)
			}
		})
		if !ok {
			break // the steps build on each other
		}
	}
}

// renderLDAP writes an exchange as the old client sees it, with the
// directory's address, ids and times normalised.
func renderLDAP(st ldapStep, r *nodetest.Response, addr string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s /api%s\n", st.method, st.path)
	if st.header[0] != "" {
		fmt.Fprintf(&b, "%s: %s\n", st.header[0], st.header[1])
	}
	if st.body != "" {
		fmt.Fprintf(&b, "\n%s\n", st.body)
	}
	fmt.Fprintf(&b, "\n%d\n", r.Status)
	for _, k := range []string{"Content-Type", "Warning", "Www-Authenticate"} {
		for _, v := range r.Header.Values(k) {
			fmt.Fprintf(&b, "%s: %s\n", k, v)
		}
	}
	body := strings.ReplaceAll(string(r.Body), addr, "<slapd>")
	body = objectID.ReplaceAllString(body, "<id>")
	body = timestamp.ReplaceAllString(body, "<time>")
	body = uuid.ReplaceAllString(body, "<uuid>")
	var pretty bytes.Buffer
	if json.Indent(&pretty, []byte(body), "", "  ") == nil {
		body = pretty.String() // the server's field order, indented
	}
	fmt.Fprintf(&b, "\n%s\n", body)
	return b.String()
}

// startDirectoryWithGroups starts a slapd with ou=groups holding admins
// (Alice) and devs (Alice and Bob).
func startDirectoryWithGroups(t *testing.T) *slapdtest.Server {
	t.Helper()
	s := slapdtest.Start(t)
	c := s.Admin(t)
	ou := goldap.NewAddRequest("ou=groups,"+slapdtest.BaseDN, nil)
	ou.Attribute("objectClass", []string{"organizationalUnit"})
	ou.Attribute("ou", []string{"groups"})
	reqs := []*goldap.AddRequest{ou}
	for _, g := range []struct {
		cn      string
		members []string
	}{{"admins", []string{"alice"}}, {"devs", []string{"alice", "bob"}}} {
		add := goldap.NewAddRequest("cn="+g.cn+",ou=groups,"+slapdtest.BaseDN, nil)
		add.Attribute("objectClass", []string{"groupOfNames"})
		add.Attribute("cn", []string{g.cn})
		var dns []string
		for _, m := range g.members {
			dns = append(dns, slapdtest.UserDN(m))
		}
		add.Attribute("member", dns)
		reqs = append(reqs, add)
	}
	for _, r := range reqs {
		if err := c.Add(r); err != nil {
			t.Fatalf("add %s: %v", r.DN, err)
		}
	}
	return s
}

// fakeLDAP records what the change passes on.
type fakeLDAP struct{ calls []string }

func (f *fakeLDAP) call(s string) { f.calls = append(f.calls, s) }
func (f *fakeLDAP) Settings(context.Context) ([]byte, error) {
	f.call("Settings")
	return []byte(`{"enabled":false}`), nil
}
func (f *fakeLDAP) SaveSettings(_ context.Context, b []byte) error {
	f.call("SaveSettings " + string(b))
	return nil
}
func (f *fakeLDAP) DeleteSettings(context.Context) error { f.call("DeleteSettings"); return nil }
func (f *fakeLDAP) GroupMapping(context.Context) ([]byte, error) {
	f.call("GroupMapping")
	return []byte(`{}`), nil
}
func (f *fakeLDAP) SaveGroupMapping(_ context.Context, b []byte) error {
	f.call("SaveGroupMapping " + string(b))
	return nil
}
func (f *fakeLDAP) Groups(context.Context) ([]byte, error) {
	f.call("Groups")
	return []byte(`[]`), nil
}
func (f *fakeLDAP) Test(_ context.Context, b []byte) ([]byte, error) {
	f.call("Test " + string(b))
	return []byte(`{"connected":true}`), nil
}

// The change answers each route itself, with 3.x's permissions, and warns
// about the group mapping where one is involved.
func TestLegacyLDAPAPIAnswers(t *testing.T) {
	tests := []struct {
		method, path, body string
		perms              []string
		status             int
		call               string
		warn               bool
	}{
		{"GET", "/system/ldap/settings", "", []string{"ldap:edit"}, 200, "Settings", false},
		{"PUT", "/system/ldap/settings", `{"group_mapping":{"g":"Admin"}}`, []string{"ldap:edit"}, 204, `SaveSettings {"group_mapping":{"g":"Admin"}}`, true},
		{"PUT", "/system/ldap/settings", `{"group_mapping":{}}`, []string{"ldap:edit"}, 204, `SaveSettings {"group_mapping":{}}`, false},
		{"PUT", "/system/ldap/settings", `{}`, []string{"ldapgroups:edit"}, 403, "", false},
		{"DELETE", "/system/ldap/settings", "", []string{"ldap:edit"}, 204, "DeleteSettings", false},
		{"GET", "/system/ldap/settings/groups", "", []string{"ldapgroups:read"}, 200, "GroupMapping", true},
		{"GET", "/system/ldap/settings/groups", "", []string{"ldap:edit"}, 200, "GroupMapping", true},
		{"GET", "/system/ldap/settings/groups", "", []string{"ldapgroups:edit"}, 403, "", false},
		{"PUT", "/system/ldap/settings/groups", `{"g":"r"}`, []string{"ldapgroups:edit"}, 204, `SaveGroupMapping {"g":"r"}`, true},
		{"PUT", "/system/ldap/settings/groups", `{"g":"r"}`, []string{"ldapgroups:read"}, 403, "", false},
		{"GET", "/system/ldap/groups", "", []string{"ldapgroups:read"}, 200, "Groups", true},
		{"POST", "/system/ldap/test", `{"principal":"x"}`, []string{"ldap:edit"}, 200, `Test {"principal":"x"}`, false},
		{"POST", "/system/ldap/test", `{}`, nil, 401, "", false},
	}
	for _, tc := range tests {
		t.Run(tc.method+" "+tc.path+" "+strings.Join(tc.perms, ","), func(t *testing.T) {
			f := &fakeLDAP{}
			w, failed := serveAlone(t, compat.LegacyLDAPAPI(f), tc.method, tc.path, tc.body, tc.perms)
			if w.Code != tc.status {
				t.Fatalf("status %d (%v), want %d", w.Code, failed, tc.status)
			}
			if got := strings.Join(f.calls, ";"); got != tc.call {
				t.Errorf("calls %q, want %q", got, tc.call)
			}
			// Every answer says the path is gone; the group mapping's
			// also that the mapping is not applied.
			warnings := w.Header().Values("Warning")
			if len(warnings) == 0 || warnings[0] != `299 loggate "`+strings.TrimSuffix(tc.path, "/")+` was removed in 4.0; served as release 3.3"` {
				t.Errorf("Warning headers %q, want the removal first", warnings)
			}
			if got := len(warnings) == 2; got != tc.warn {
				t.Errorf("Warning headers %q, want the group mapping's: %v", warnings, tc.warn)
			}
		})
	}
}

// serveAlone sends a default-release request with the CSRF header to a
// chain of ch alone, as a caller holding perms (anonymous when nil); the
// backend behind must not be reached. It returns the answer and the error
// the chain failed with, if any.
func serveAlone(t *testing.T, ch *compat.Change, method, path, body string, perms []string) (*httptest.ResponseRecorder, error) {
	t.Helper()
	backend := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the backend was called for %s", r.URL.Path)
	})
	var failed error
	h := compat.NewChain("/api", ch).Wrap(backend, func(w http.ResponseWriter, r *http.Request, err error) {
		failed = err
		api.WriteError(w, r, err)
	})
	r := httptest.NewRequest(method, "/api"+path, strings.NewReader(body))
	r.Header.Set("X-Requested-By", "test")
	ctx := compat.WithClient(r.Context(), compat.Client{Release: compat.MustRelease("4.0"), Source: compat.FromDefault})
	if perms != nil {
		ctx = auth.WithPrincipal(ctx, routertest.Principal(t, perms...))
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r.WithContext(ctx))
	return w, failed
}

// The change is matched against every request of a default-release client;
// what that costs a request it does not take is the hot path.
func BenchmarkLegacyLDAPPassThrough(b *testing.B) {
	backend := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
	for _, bc := range []struct {
		name    string
		changes []*compat.Change
	}{
		{"no-changes", nil},
		{"ldap-only", []*compat.Change{compat.LegacyLDAPAPI(&fakeLDAP{})}},
		{"users-by-id", []*compat.Change{compat.UsersByID(nil)}},
		{"users-by-id+ldap", []*compat.Change{compat.UsersByID(nil), compat.LegacyLDAPAPI(&fakeLDAP{})}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			h := compat.NewChain("/api", bc.changes...).Wrap(backend, func(w http.ResponseWriter, r *http.Request, err error) {
				b.Fatalf("fail called: %v", err)
			})
			r := httptest.NewRequest("GET", "/api/system/inputs", nil)
			r = r.WithContext(compat.WithClient(r.Context(), compat.Client{Release: compat.MustRelease("4.0"), Source: compat.FromDefault}))
			w := httptest.NewRecorder()
			b.ReportAllocs()
			for b.Loop() {
				h.ServeHTTP(w, r)
			}
		})
	}
}
