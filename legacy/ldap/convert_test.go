package ldap_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/loggate/loggate/auth/ldap"
	"github.com/loggate/loggate/backend/access/authservices"
	legacyldap "github.com/loggate/loggate/legacy/ldap"
)

const (
	roleA    = "5f1f0f0f0f0f0f0f0f0f0f01"
	roleB    = "5f1f0f0f0f0f0f0f0f0f0f02"
	roleGone = "5f1f0f0f0f0f0f0f0f0f0f03"
)

func TestToBackend(t *testing.T) {
	exists := func(id string) bool { return id == roleA || id == roleB }
	base := legacyldap.Document{
		Enabled: true, SystemUsername: "cn=admin,dc=example,dc=org", LdapURI: "ldap://ldap.example.org:3389",
		SearchBase: "ou=people,dc=example,dc=org", PrincipalSearchPattern: "(&(objectClass=inetOrgPerson)(uid={0}))",
		UsernameAttribute: "cn", DefaultGroup: roleA,
	}
	ldapCfg := ldap.Config{
		Type: ldap.TypeLDAP, Servers: []ldap.Server{{Host: "ldap.example.org", Port: 3389}},
		TransportSecurity: ldap.TransportNone, VerifyCertificates: true,
		SystemUserDN: "cn=admin,dc=example,dc=org", UserSearchBase: "ou=people,dc=example,dc=org",
		UserSearchPattern: "(&(objectClass=inetOrgPerson)(uid={0}))", UserUniqueIDAttribute: "entryUUID",
		UserNameAttribute: "uid", UserFullNameAttribute: "cn",
	}
	tests := []struct {
		name  string
		edit  func(*legacyldap.Document)
		title string
		desc  string
		cfg   func(*ldap.Config)
		roles []string
	}{
		{"plain-ldap", func(*legacyldap.Document) {}, "LDAP - ldap://ldap.example.org:3389", legacyldap.DescriptionLDAP, func(*ldap.Config) {}, []string{roleA}},
		{"start-tls-wins-over-ldaps", func(d *legacyldap.Document) { d.UseStartTLS, d.LdapURI = true, "ldaps://ldap.example.org" },
			"LDAP - ldaps://ldap.example.org", legacyldap.DescriptionLDAP,
			func(c *ldap.Config) {
				c.TransportSecurity, c.Servers = ldap.TransportStartTLS, []ldap.Server{{Host: "ldap.example.org", Port: 636}}
			}, []string{roleA}},
		{"ldaps-default-port", func(d *legacyldap.Document) { d.LdapURI = "LDAPS://ldap.example.org/" },
			"LDAP - LDAPS://ldap.example.org/", legacyldap.DescriptionLDAP,
			func(c *ldap.Config) {
				c.TransportSecurity, c.Servers = ldap.TransportTLS, []ldap.Server{{Host: "ldap.example.org", Port: 636}}
			}, []string{roleA}},
		{"ldap-default-port-trust-all", func(d *legacyldap.Document) { d.LdapURI, d.TrustAllCertificates = "ldap://10.0.0.1", true },
			"LDAP - ldap://10.0.0.1", legacyldap.DescriptionLDAP,
			func(c *ldap.Config) {
				c.Servers, c.VerifyCertificates = []ldap.Server{{Host: "10.0.0.1", Port: 389}}, false
			}, []string{roleA}},
		{"active-directory", func(d *legacyldap.Document) {
			d.ActiveDirectory, d.LdapURI, d.PrincipalSearchPattern, d.UsernameAttribute = true, "ldaps://dc1.corp:636", "(sAMAccountName={0})", "displayName"
		}, "Active Directory - ldaps://dc1.corp:636", legacyldap.DescriptionAD, func(c *ldap.Config) {
			c.Type, c.TransportSecurity, c.Servers = ldap.TypeActiveDirectory, ldap.TransportTLS, []ldap.Server{{Host: "dc1.corp", Port: 636}}
			c.UserSearchPattern, c.UserNameAttribute, c.UserFullNameAttribute, c.UserUniqueIDAttribute = "(sAMAccountName={0})", "sAMAccountName", "displayName", ""
		}, []string{roleA}},
		{"roles-union-existing-only", func(d *legacyldap.Document) {
			d.DefaultGroup, d.AdditionalDefaultGroups = roleGone, []string{roleB, "not-an-object-id", roleA, roleB}
		}, "LDAP - ldap://ldap.example.org:3389", legacyldap.DescriptionLDAP, func(*ldap.Config) {}, []string{roleB, roleA}},
		{"no-roles", func(d *legacyldap.Document) { d.DefaultGroup = "" }, "LDAP - ldap://ldap.example.org:3389", legacyldap.DescriptionLDAP, func(*ldap.Config) {}, []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := base
			tc.edit(&d)
			in, err := legacyldap.ToBackend(d, authservices.SetValue("pw"), exists)
			if err != nil {
				t.Fatal(err)
			}
			want := ldapCfg
			tc.cfg(&want)
			if in.Title != tc.title || in.Description != tc.desc {
				t.Errorf("title %q, description %q; want %q, %q", in.Title, in.Description, tc.title, tc.desc)
			}
			if !reflect.DeepEqual(in.Config, want) {
				t.Errorf("config\n got %+v\nwant %+v", in.Config, want)
			}
			if !reflect.DeepEqual(in.DefaultRoles, tc.roles) {
				t.Errorf("default roles %v, want %v", in.DefaultRoles, tc.roles)
			}
			if in.Password.Action != authservices.SecretSet || in.Password.Value() != "pw" {
				t.Errorf("password %v not passed on", in.Password)
			}
			if err := in.Config.Validate(); err != nil {
				t.Errorf("converted config invalid: %v", err)
			}
		})
	}
}

// 3.3's form sends "//host:port/" when its scheme is left alone; 3.3 took
// it as plain LDAP.
func TestParseURIAccepts(t *testing.T) {
	for uri, want := range map[string]ldap.Server{
		"//ldap.example.org:3890/":   {Host: "ldap.example.org", Port: 3890},
		"//ldap.example.org":         {Host: "ldap.example.org", Port: 389},
		"ldap://ldap.example.org":    {Host: "ldap.example.org", Port: 389},
		" LDAP://10.0.0.1:1389/ ":    {Host: "10.0.0.1", Port: 1389},
		"ldaps://ldap.example.org/":  {Host: "ldap.example.org", Port: 636},
		"ldaps://[::1]:6360":         {Host: "::1", Port: 6360},
		"//[2001:db8::1]:389/dc=org": {Host: "2001:db8::1", Port: 389},
	} {
		got, tls, err := legacyldap.ParseURI(uri)
		if err != nil || got != want || tls != strings.HasPrefix(strings.TrimSpace(uri), "ldaps") {
			t.Errorf("ParseURI(%q) = %+v, %v, %v; want %+v", uri, got, tls, err, want)
		}
	}
}

func TestParseURIRejects(t *testing.T) {
	for _, uri := range []string{"", "http://ldap.example.org", "ldap://", "ldap://host:0", "ldap://host:70000", "ldap://host:x", "::"} {
		if _, _, err := legacyldap.ParseURI(uri); err == nil {
			t.Errorf("ParseURI(%q) accepted", uri)
		}
	}
}

func TestFormatURI(t *testing.T) {
	tests := []struct {
		cfg  ldap.Config
		want string
	}{
		{ldap.Config{Servers: []ldap.Server{{Host: "h", Port: 389}}, TransportSecurity: ldap.TransportStartTLS}, "ldap://h:389"},
		{ldap.Config{Servers: []ldap.Server{{Host: "h", Port: 636}}, TransportSecurity: ldap.TransportTLS}, "ldaps://h:636"},
		{ldap.Config{Servers: []ldap.Server{{Host: "::1", Port: 389}}, TransportSecurity: ldap.TransportNone}, "ldap://[::1]:389"},
		{ldap.Config{}, ""},
	}
	for _, tc := range tests {
		if got := legacyldap.FormatURI(tc.cfg); got != tc.want {
			t.Errorf("FormatURI(%+v) = %q, want %q", tc.cfg.Servers, got, tc.want)
		}
	}
}
