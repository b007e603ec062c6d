package ldap_test

import (
	"encoding/base64"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/loggate/loggate/auth/ldap"
	"github.com/loggate/loggate/auth/ldap/slapdtest"
)

func TestTestConnection(t *testing.T) {
	t.Parallel()
	srv := slapdtest.Start(t)
	url := srv.URL()
	for _, tc := range []struct {
		name      string
		modify    func(*ldap.Config)
		want      bool
		message   string
		errorHint string // a part of the single error, for failures
	}{
		{"system user", func(*ldap.Config) {}, true, "Successfully connected to " + url, ""},
		{"anonymous", func(c *ldap.Config) { c.SystemUserDN, c.SystemUserPassword = "", "" }, true,
			"Successfully connected to " + url, ""},
		// Graylog tests partial configurations: only the server matters.
		{"partial config", func(c *ldap.Config) {
			*c = ldap.Config{Servers: c.Servers, TransportSecurity: ldap.TransportNone}
		}, true, "Successfully connected to " + url, ""},
		{"wrong system password", func(c *ldap.Config) { c.SystemUserPassword = "s3cret-guess" }, false,
			"Couldn't establish connection to " + url, "invalid credentials"},
		{"server down", func(c *ldap.Config) { c.Servers[0].Port = closedPort(t) }, false,
			"Couldn't establish connection to ldap://127.0.0.1:", "connection refused"},
		{"no server", func(c *ldap.Config) { c.Servers = nil }, false,
			"Couldn't establish connection to <no server>", "no server configured"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := configFor(srv)
			tc.modify(&c)
			r := ldap.New(c).TestConnection(t.Context())
			if r.Success != tc.want || !strings.HasPrefix(r.Message, tc.message) {
				t.Errorf("TestConnection = %+v, want success %v, message %q", r, tc.want, tc.message)
			}
			switch {
			case tc.want && len(r.Errors) != 0:
				t.Errorf("errors = %q, want none", r.Errors)
			case !tc.want && (len(r.Errors) != 1 || !strings.Contains(r.Errors[0], tc.errorHint)):
				t.Errorf("errors = %q, want one naming %q", r.Errors, tc.errorHint)
			}
			if b, _ := json.Marshal(r); strings.Contains(string(b), "s3cret-guess") || strings.Contains(string(b), srv.AdminPassword) {
				t.Errorf("result %s holds a password", b)
			}
		})
	}
}

func TestTestLogin(t *testing.T) {
	t.Parallel()
	srv := slapdtest.Start(t)
	url := srv.URL()
	aliceID := base64.StdEncoding.EncodeToString([]byte(entryUUID(t, srv, "alice")))
	aliceDetails := map[string]string{
		"dn": slapdtest.UserDN("alice"), "entryUUID": aliceID, "uid": "alice",
		"cn": "Alice Liddell", "email": "alice@example.org",
	}
	for _, tc := range []struct {
		name, username, password string
		modify                   func(*ldap.Config)
		want                     ldap.Result
		wantEntry                bool
	}{
		{"success", "alice", "alicepw", nil, ldap.Result{
			Success: true, Message: "Successfully logged in <alice> into " + url, Errors: []string{},
			Details: map[string]any{"user_exists": true, "login_success": true, "user_details": aliceDetails},
		}, true},
		{"wrong password", "alice", "wrong", nil, ldap.Result{
			Message: "Login for user <alice> failed",
			Errors:  []string{`ldap: invalid credentials: bind as "uid=alice,ou=people,dc=example,dc=org": LDAP Result Code 49 "Invalid Credentials": `},
			Details: map[string]any{"user_exists": true, "login_success": false, "user_details": aliceDetails},
		}, true},
		{"empty password", "alice", "", nil, ldap.Result{
			Message: "Login for user <alice> failed", Errors: []string{"ldap: invalid credentials: empty password"},
			Details: map[string]any{"user_exists": true, "login_success": false, "user_details": aliceDetails},
		}, true},
		{"unknown user", "carol", "x", nil, ldap.Result{
			Message: "User <carol> doesn't exist",
			Errors:  []string{`ldap: unknown user: no entry under "ou=people,dc=example,dc=org" matches (&(objectClass=inetOrgPerson)(uid=carol))`},
			Details: map[string]any{"user_exists": false, "login_success": false, "user_details": map[string]string{}},
		}, false},
		{"bad search base", "alice", "alicepw", func(c *ldap.Config) { c.UserSearchBase = "ou=nobody,dc=example,dc=org" }, ldap.Result{
			Message: "Couldn't test user login on " + url,
			Errors:  []string{`ldap: backend misconfigured: search (&(objectClass=inetOrgPerson)(uid=alice)) under "ou=nobody,dc=example,dc=org": LDAP Result Code 32 "No Such Object": `},
			Details: map[string]any{},
		}, false},
		{"wrong system password", "alice", "alicepw", func(c *ldap.Config) { c.SystemUserPassword = "guess" }, ldap.Result{
			Message: "Couldn't establish connection to " + url,
			Errors:  []string{`ldap: backend misconfigured: bind as system user "cn=admin,dc=example,dc=org": invalid credentials`},
			Details: map[string]any{},
		}, false},
		{"invalid config", "alice", "alicepw", func(c *ldap.Config) { c.UserNameAttribute = "" }, ldap.Result{
			Message: "Couldn't test user login on " + url,
			Errors:  []string{"ldap: backend misconfigured: Validation failed! user_name_attribute: User name attribute cannot be empty."},
			Details: map[string]any{},
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := configFor(srv)
			if tc.modify != nil {
				tc.modify(&c)
			}
			r, e := ldap.New(c).TestLogin(t.Context(), tc.username, tc.password)
			if !reflect.DeepEqual(r, tc.want) {
				t.Errorf("TestLogin =\n%#v\nwant\n%#v", r, tc.want)
			}
			if (e != nil) != tc.wantEntry || (e != nil && e.DN != slapdtest.UserDN("alice")) {
				t.Errorf("entry = %+v, want one: %v", e, tc.wantEntry)
			}
		})
	}
}
