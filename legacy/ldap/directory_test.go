package ldap_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	goldap "github.com/go-ldap/ldap/v3"

	"github.com/loggate/loggate/auth/ldap/slapdtest"
	legacyldap "github.com/loggate/loggate/legacy/ldap"
)

// withGroups starts a slapd with ou=groups holding admins (Alice) and devs
// (Alice and Bob).
func withGroups(t *testing.T) *slapdtest.Server {
	t.Helper()
	s := slapdtest.Start(t)
	c := s.Admin(t)
	ou := goldap.NewAddRequest("ou=groups,"+slapdtest.BaseDN, nil)
	ou.Attribute("objectClass", []string{"organizationalUnit"})
	ou.Attribute("ou", []string{"groups"})
	reqs := []*goldap.AddRequest{ou}
	for cn, members := range map[string][]string{"admins": {"alice"}, "devs": {"alice", "bob"}} {
		g := goldap.NewAddRequest("cn="+cn+",ou=groups,"+slapdtest.BaseDN, nil)
		g.Attribute("objectClass", []string{"groupOfNames"})
		g.Attribute("cn", []string{cn})
		var dns []string
		for _, m := range members {
			dns = append(dns, slapdtest.UserDN(m))
		}
		g.Attribute("member", dns)
		reqs = append(reqs, g)
	}
	for _, r := range reqs {
		if err := c.Add(r); err != nil {
			t.Fatalf("add %s: %v", r.DN, err)
		}
	}
	return s
}

func TestGroupsFromDirectory(t *testing.T) {
	ctx := context.Background()
	s := withGroups(t)
	e := newEnv(t)
	if err := e.svc.Save(ctx, request(s.URL())); err != nil {
		t.Fatal(err)
	}
	if err := e.backends.SetActive(ctx, e.onlyBackend(t).ID); err != nil {
		t.Fatal(err)
	}
	got, err := e.svc.Groups(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"admins", "devs"}; !reflect.DeepEqual(got, want) {
		t.Errorf("groups %v, want %v", got, want)
	}
}

func TestTestAgainstDirectory(t *testing.T) {
	ctx := context.Background()
	s := withGroups(t)
	base := legacyldap.TestRequest{
		SystemUsername: slapdtest.AdminDN, SystemPassword: ptr(slapdtest.AdminPassword), LdapURI: s.URL(),
		SearchBase: slapdtest.PeopleDN, SearchPattern: "(&(objectClass=inetOrgPerson)(uid={0}))",
		Principal: "bob", Password: slapdtest.Bob.Password,
		GroupSearchBase: ptr("ou=groups," + slapdtest.BaseDN), GroupIDAttribute: ptr("cn"),
	}
	tests := []struct {
		name                     string
		edit                     func(*legacyldap.TestRequest)
		connected, system, login bool
		entryCN                  string
		groups                   []string
		exception                string
	}{
		{"login", func(*legacyldap.TestRequest) {}, true, true, true, "Bob Builder", []string{"devs"}, ""},
		{"wrong-password", func(r *legacyldap.TestRequest) { r.Password = "nope" }, true, true, false, "Bob Builder", []string{"devs"}, ""},
		{"unknown-user", func(r *legacyldap.TestRequest) { r.Principal = "carol" }, true, true, false, "", []string{}, ""},
		{"connect-only", func(r *legacyldap.TestRequest) { r.TestConnectOnly = true }, true, true, false, "", []string{}, ""},
		{"anonymous", func(r *legacyldap.TestRequest) { r.SystemUsername, r.SystemPassword, r.Principal = "", ptr(""), "" }, true, false, false, "", []string{}, ""},
		{"bad-system-password", func(r *legacyldap.TestRequest) { r.SystemPassword = ptr("wrong") }, false, false, false, "", []string{}, "Couldn't establish connection"},
		{"bad-uri", func(r *legacyldap.TestRequest) { r.LdapURI = "http://x" }, false, false, false, "", []string{}, "Invalid LDAP URI"},
	}
	e := newEnv(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := base
			tc.edit(&req)
			got, err := e.svc.Test(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			if got.Connected != tc.connected || got.SystemAuthenticated != tc.system || got.LoginAuthenticated != tc.login {
				t.Errorf("connected/system/login = %v/%v/%v, want %v/%v/%v (%+v)", got.Connected, got.SystemAuthenticated, got.LoginAuthenticated, tc.connected, tc.system, tc.login, got)
			}
			if got.Entry["cn"] != tc.entryCN {
				t.Errorf("entry %v, want cn %q", got.Entry, tc.entryCN)
			}
			if tc.entryCN != "" && got.Entry["dn"] != slapdtest.UserDN("bob") {
				t.Errorf("entry dn %q", got.Entry["dn"])
			}
			if _, leaked := got.Entry["userPassword"]; leaked {
				t.Errorf("entry shows the password hash")
			}
			if !reflect.DeepEqual(got.Groups, tc.groups) {
				t.Errorf("groups %v, want %v", got.Groups, tc.groups)
			}
			switch {
			case tc.exception == "" && got.Exception != nil:
				t.Errorf("exception %q", *got.Exception)
			case tc.exception != "" && (got.Exception == nil || !strings.Contains(*got.Exception, tc.exception)):
				t.Errorf("exception %v, want one containing %q", got.Exception, tc.exception)
			}
		})
	}
}

// A test without a system password uses the stored one, of an inactive
// backend too.
func TestTestWithStoredPassword(t *testing.T) {
	ctx := context.Background()
	s := slapdtest.Start(t)
	e := newEnv(t)
	if err := e.svc.Save(ctx, request(s.URL())); err != nil {
		t.Fatal(err)
	}
	req := legacyldap.TestRequest{
		SystemUsername: slapdtest.AdminDN, LdapURI: s.URL(), SearchBase: slapdtest.PeopleDN,
		SearchPattern: "(uid={0})", Principal: "alice", Password: slapdtest.Alice.Password,
	}
	for _, active := range []bool{false, true} {
		if active {
			if err := e.backends.SetActive(ctx, e.onlyBackend(t).ID); err != nil {
				t.Fatal(err)
			}
		}
		got, err := e.svc.Test(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if !got.Connected || !got.SystemAuthenticated || !got.LoginAuthenticated || got.Entry["dn"] != slapdtest.UserDN("alice") {
			t.Errorf("active=%v: %+v", active, got)
		}
	}
}
