package node_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	goldap "github.com/go-ldap/ldap/v3"

	"github.com/loggate/loggate/auth/ldap/slapdtest"
	"github.com/loggate/loggate/cmd/loggate/config"
	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
)

// activateLDAP creates an LDAP backend for dir with the Reader role as its
// default and makes it the active one.
func activateLDAP(t testing.TB, h *nodetest.Harness, dir *slapdtest.Server) string {
	t.Helper()
	return activateLDAPWith(t, h, dir, "none", true)
}

func activateLDAPWith(t testing.TB, h *nodetest.Harness, dir *slapdtest.Server, transport string, verify bool) string {
	t.Helper()
	return activateLDAPNamed(t, h, dir, transport, verify, "uid")
}

// activateLDAPNamed is activateLDAPWith taking usernames from the nameAttr
// attribute of the entries.
func activateLDAPNamed(t testing.TB, h *nodetest.Harness, dir *slapdtest.Server, transport string, verify bool, nameAttr string) string {
	t.Helper()
	root := nodetest.AsRoot()
	reader := h.Do("GET", "/roles/Reader", nil, root).Want(t, http.StatusOK).Get("id").String()
	if reader == "" {
		reader = h.Do("GET", "/authz/roles?per_page=100", nil, root).Get(`roles.#(name=="Reader").id`).String()
	}
	id := h.Do("POST", "/system/authentication/services/backends", map[string]any{
		"title": "Directory", "description": "test", "default_roles": []string{reader},
		"config": map[string]any{
			"type": "ldap", "servers": []map[string]any{{"host": dir.Host, "port": dir.Port}},
			"transport_security": transport, "verify_certificates": verify,
			"system_user_dn": dir.AdminDN, "system_user_password": dir.AdminPassword,
			"user_search_base": slapdtest.PeopleDN, "user_search_pattern": "(&(objectClass=inetOrgPerson)(uid={0}))",
			"user_unique_id_attribute": "entryUUID", "user_name_attribute": nameAttr, "user_full_name_attribute": "cn",
		},
	}, root).Want(t, http.StatusOK).Get("backend.id").String()
	h.Do("POST", "/system/authentication/services/configuration", map[string]any{"active_backend": id}, root).Want(t, http.StatusOK)
	return id
}

func TestDirectoryLogin(t *testing.T) {
	dir := slapdtest.Start(t)
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	backend := activateLDAP(t, h, dir)
	alice := nodetest.Basic(slapdtest.Alice.UID, slapdtest.Alice.Password)

	// The first login creates the external user with the default role.
	h.Do("GET", "/cluster", nil, alice).Want(t, http.StatusOK)
	u := h.Do("GET", "/users/alice", nil, root).Want(t, http.StatusOK)
	if !u.Get("external").Bool() || u.Get("full_name").String() != slapdtest.Alice.CN || u.Get("email").String() != slapdtest.Alice.Mail ||
		u.Get("roles").Raw != `["Reader"]` {
		t.Errorf("provisioned user: %s", u.Body)
	}
	ov := h.Do("GET", "/users/paginated?query=alice", nil, root).Want(t, http.StatusOK)
	if ov.Get("users.0.auth_service_id").String() != backend || ov.Get("users.0.auth_service_uid").String() == "" {
		t.Errorf("overview: %s", ov.Body)
	}
	// Sessions work for directory users too.
	h.Do("POST", "/system/sessions", map[string]any{"username": "alice", "password": slapdtest.Alice.Password, "host": ""}).Want(t, http.StatusOK)

	// A later login refreshes the name from the directory, same account.
	conn := dir.Admin(t)
	mod := goldap.NewModifyRequest(slapdtest.UserDN("alice"), nil)
	mod.Replace("cn", []string{"Alice Pleasance Liddell"})
	if err := conn.Modify(mod); err != nil {
		t.Fatal(err)
	}
	h.Node.Creds.InvalidateUser(context.Background(), u.Get("id").String()) // the check is cached, as passwords are
	h.Do("GET", "/cluster", nil, alice).Want(t, http.StatusOK)
	again := h.Do("GET", "/users/alice", nil, root).Want(t, http.StatusOK)
	if again.Get("full_name").String() != "Alice Pleasance Liddell" || again.Get("id").String() != u.Get("id").String() {
		t.Errorf("after a second login: %s", again.Body)
	}

	for _, c := range []struct{ name, user, password string }{
		{"wrong password", "alice", "nope"},
		{"unknown user", "mallory", "x"},
		{"empty password", "alice", ""},
		{"filter injection", "*)(uid=*", slapdtest.Alice.Password},
		{"wildcard", "*", slapdtest.Alice.Password},
		{"injection with or", "alice)(|(uid=*", "x"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h.Do("GET", "/cluster", nil, nodetest.Basic(c.user, c.password)).WantError(t, http.StatusUnauthorized, "")
		})
	}
	// Switching the directory off refuses its users at once, however
	// recently their password was checked.
	h.Do("GET", "/cluster", nil, alice).Want(t, http.StatusOK)
	h.Do("POST", "/system/authentication/services/configuration", map[string]any{"active_backend": nil}, root).Want(t, http.StatusOK)
	h.Do("GET", "/cluster", nil, alice).WantError(t, http.StatusUnauthorized, "")
	h.Do("POST", "/system/authentication/services/configuration", map[string]any{"active_backend": backend}, root).Want(t, http.StatusOK)
	h.Do("GET", "/cluster", nil, alice).Want(t, http.StatusOK)

	// Local users and the root user keep working.
	h.CreateUser("local", "localpw")
	h.Do("GET", "/cluster", nil, nodetest.Basic("local", "localpw")).Want(t, http.StatusOK)
	h.Do("GET", "/cluster", nil, nodetest.Basic("local", "wrong")).WantError(t, http.StatusUnauthorized, "")
	h.Do("GET", "/cluster", nil, root).Want(t, http.StatusOK)
}

// A directory user may not take over a local account of the same name.
func TestDirectoryDoesNotTakeOverLocalUsers(t *testing.T) {
	dir := slapdtest.Start(t)
	h := nodetest.Start(t)
	activateLDAP(t, h, dir)
	h.CreateUser("bob", "local-bob")
	h.Do("GET", "/cluster", nil, nodetest.Basic("bob", slapdtest.Bob.Password)).WantError(t, http.StatusUnauthorized, "")
	h.Do("GET", "/cluster", nil, nodetest.Basic("bob", "local-bob")).Want(t, http.StatusOK)
}

// A directory name that would be part of permissions with a meaning of
// its own ("*" would hold users:edit:* over everyone, "Doe, victim" also
// users:edit:victim) is refused: the login fails and no user is made.
func TestDirectoryNamesThatWouldBePermissions(t *testing.T) {
	dir := slapdtest.Start(t)
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	victim := h.CreateUser("victim", "victim-pw")
	conn := dir.Admin(t)
	names := map[string]string{"alice": "*", "bob": "Doe, victim"}
	for uid, name := range names {
		mod := goldap.NewModifyRequest(slapdtest.UserDN(uid), nil)
		mod.Replace("displayName", []string{name})
		if err := conn.Modify(mod); err != nil {
			t.Fatal(err)
		}
	}
	activateLDAPNamed(t, h, dir, "none", true, "displayName")
	for _, who := range []struct{ uid, password string }{{"alice", slapdtest.Alice.Password}, {"bob", slapdtest.Bob.Password}} {
		as := nodetest.Basic(who.uid, who.password)
		h.Do("GET", "/cluster", nil, as).WantError(t, http.StatusUnauthorized, "")
		h.Do("PUT", "/users/"+victim+"/status/disabled", nil, as).WantError(t, http.StatusUnauthorized, "")
		h.Do("PUT", "/users/"+victim+"/password", map[string]any{"password": "taken-over"}, as).WantError(t, http.StatusUnauthorized, "")
		if !strings.Contains(h.Logs(), names[who.uid]) {
			t.Errorf("no log names the refused directory user %q", names[who.uid])
		}
	}
	if got := h.Do("GET", "/users", nil, root).Get("users.#.username").Raw; strings.Contains(got, "*") || strings.Contains(got, "Doe") {
		t.Errorf("users after the refused logins: %s", got)
	}
	h.Do("GET", "/cluster", nil, nodetest.Basic("victim", "victim-pw")).Want(t, http.StatusOK)
}

// With the directory down, directory users get 503 and local users still
// log in; when it is back, directory logins work again without a restart.
func TestDirectoryOutage(t *testing.T) {
	dir := slapdtest.Start(t)
	h := nodetest.Start(t)
	activateLDAP(t, h, dir)
	bob := nodetest.Basic(slapdtest.Bob.UID, slapdtest.Bob.Password)
	h.CreateUser("local", "localpw")

	dir.Stop()
	h.Do("GET", "/cluster", nil, bob).WantError(t, http.StatusServiceUnavailable, "Authentication service unavailable")
	h.Do("GET", "/cluster", nil, nodetest.Basic("local", "localpw")).Want(t, http.StatusOK)
	h.Do("GET", "/cluster", nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	if logs := h.Logs(); !strings.Contains(logs, "Authentication service unavailable") {
		t.Errorf("the outage is not in the log:\n%s", logs)
	}
	dir.Restart()
	h.Do("GET", "/cluster", nil, bob).Want(t, http.StatusOK)
}

// StartTLS to a directory with a self-signed certificate fails unless the
// backend is told not to verify certificates.
func TestDirectoryStartTLS(t *testing.T) {
	dir := slapdtest.Start(t, slapdtest.WithTLS())
	alice := nodetest.Basic(slapdtest.Alice.UID, slapdtest.Alice.Password)

	strict := nodetest.Start(t)
	activateLDAPWith(t, strict, dir, "start_tls", true)
	strict.Do("GET", "/cluster", nil, alice).WantError(t, http.StatusServiceUnavailable, "Authentication service unavailable")
	if !strings.Contains(strict.Logs(), "certificate") {
		t.Errorf("the log does not say the certificate was refused:\n%s", strict.Logs())
	}

	lax := nodetest.Start(t)
	activateLDAPWith(t, lax, dir, "start_tls", false)
	lax.Do("GET", "/cluster", nil, alice).Want(t, http.StatusOK)
}

// Without an active backend nobody logs in through the directory: a backend
// is created disabled and must be activated.
func TestInactiveBackendAuthenticatesNobody(t *testing.T) {
	dir := slapdtest.Start(t)
	h := nodetest.Start(t)
	activateLDAP(t, h, dir)
	h.Do("POST", "/system/authentication/services/configuration", map[string]any{"active_backend": nil}, nodetest.AsRoot()).Want(t, http.StatusOK)
	h.Do("GET", "/cluster", nil, nodetest.Basic("alice", slapdtest.Alice.Password)).WantError(t, http.StatusUnauthorized, "")
}

// Trusted header authentication believes the header only from
// trusted_proxies, and only when it is enabled.
func TestTrustedHeader(t *testing.T) {
	for _, c := range []struct {
		name    string
		proxies string
		want    int
	}{
		{"from a trusted proxy", "127.0.0.1/32, ::1", http.StatusOK},
		{"from anyone else", "10.0.0.0/8", http.StatusUnauthorized},
		{"no proxies configured", "", http.StatusUnauthorized},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := nodetest.Start(t, nodetest.WithConfig(func(cfg *config.Config) { cfg.TrustedProxies = c.proxies }))
			h.CreateUser("carol", "pw")
			as := nodetest.Header("X-Remote-User", "carol")
			// Off by default.
			h.Do("GET", "/cluster", nil, as).WantError(t, http.StatusUnauthorized, "")
			h.Do("PUT", "/system/authentication/http-header-auth-config", map[string]any{"enabled": true, "username_header": "X-Remote-User"}, nodetest.AsRoot()).Want(t, http.StatusOK)
			if r := h.Do("GET", "/cluster", nil, as); r.Status != c.want {
				t.Fatalf("GET /cluster with the header: %d %s, want %d", r.Status, r.Body, c.want)
			}
			if c.want == http.StatusOK {
				h.Do("GET", "/cluster", nil, nodetest.Header("X-Remote-User", "nobody")).WantError(t, http.StatusUnauthorized, "")
				h.Do("PUT", "/system/authentication/http-header-auth-config", map[string]any{"enabled": false, "username_header": "X-Remote-User"}, nodetest.AsRoot()).Want(t, http.StatusOK)
				h.Do("GET", "/cluster", nil, as).WantError(t, http.StatusUnauthorized, "")
			}
		})
	}
}

// BenchmarkDirectoryLogin compares a password check that goes to the
// directory (cache miss: search, bind, provisioning update) with one the
// credential cache answers.
func BenchmarkDirectoryLogin(b *testing.B) {
	dir := slapdtest.Start(b)
	h := nodetest.Start(b)
	activateLDAP(b, h, dir)
	ctx := context.Background()
	p, err := h.Node.Auth.VerifyPassword(ctx, "alice", slapdtest.Alice.Password)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("miss", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			h.Node.Creds.InvalidateUser(ctx, p.UserID)
			if _, err := h.Node.Auth.VerifyPassword(ctx, "alice", slapdtest.Alice.Password); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cached", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := h.Node.Auth.VerifyPassword(ctx, "alice", slapdtest.Alice.Password); err != nil {
				b.Fatal(err)
			}
		}
	})
}
