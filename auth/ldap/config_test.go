package ldap_test

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	ber "github.com/go-asn1-ber/asn1-ber"
	goldap "github.com/go-ldap/ldap/v3"
	"github.com/loggate/loggate/auth/ldap"
	"github.com/loggate/loggate/router/api"
)

func validLDAP() ldap.Config {
	c := ldap.Defaults(ldap.TypeLDAP)
	c.Servers = []ldap.Server{{Host: "ldap.example.org", Port: 636}}
	c.TransportSecurity = ldap.TransportTLS
	c.UserSearchBase = "ou=people,dc=example,dc=org"
	c.UserSearchPattern = "(&(objectClass=inetOrgPerson)(uid={0}))"
	c.UserNameAttribute = "uid"
	c.UserFullNameAttribute = "cn"
	return c
}

func TestDefaults(t *testing.T) {
	for _, tc := range []struct {
		typ  string
		want ldap.Config
	}{
		{ldap.TypeLDAP, ldap.Config{Type: "ldap", VerifyCertificates: true, UserUniqueIDAttribute: "entryUUID"}},
		{ldap.TypeActiveDirectory, ldap.Config{
			Type: "active-directory", VerifyCertificates: true,
			UserSearchPattern:     "(&(objectClass=user)(|(userPrincipalName={0})(sAMAccountName={0})))",
			UserNameAttribute:     "userPrincipalName",
			UserFullNameAttribute: "displayName",
		}},
	} {
		if got := ldap.Defaults(tc.typ); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Defaults(%q) = %+v, want %+v", tc.typ, got, tc.want)
		}
	}
}

func TestValidate(t *testing.T) {
	ad := ldap.Defaults(ldap.TypeActiveDirectory)
	ad.Servers = []ldap.Server{{Host: "dc1", Port: 389}}
	ad.TransportSecurity = ldap.TransportStartTLS
	ad.UserSearchBase = "dc=corp,dc=example"

	for _, tc := range []struct {
		name   string
		base   ldap.Config
		modify func(*ldap.Config)
		want   map[string][]string // nil: valid
	}{
		{"valid ldap", validLDAP(), func(*ldap.Config) {}, nil},
		{"valid ad", ad, func(*ldap.Config) {}, nil},
		{"ad needs no unique id attribute", ad, func(c *ldap.Config) { c.UserUniqueIDAttribute = "" }, nil},
		{"anonymous", validLDAP(), func(c *ldap.Config) { c.SystemUserDN = "" }, nil},
		{"no servers", validLDAP(), func(c *ldap.Config) { c.Servers = nil },
			map[string][]string{"servers": {"Server list cannot be empty."}}},
		{"two servers", validLDAP(), func(c *ldap.Config) { c.Servers = append(c.Servers, ldap.Server{Host: "b", Port: 389}) },
			map[string][]string{"servers": {"Currently only a single server URL is supported."}}},
		{"blank host", validLDAP(), func(c *ldap.Config) { c.Servers[0].Host = " " },
			map[string][]string{"servers": {"Server host cannot be empty."}}},
		{"port 0", validLDAP(), func(c *ldap.Config) { c.Servers[0].Port = 0 },
			map[string][]string{"servers": {"Server port must be between 1 and 65535."}}},
		{"port 65536", validLDAP(), func(c *ldap.Config) { c.Servers[0].Port = 65536 },
			map[string][]string{"servers": {"Server port must be between 1 and 65535."}}},
		{"unknown type", validLDAP(), func(c *ldap.Config) { c.Type = "internal-mongodb" },
			map[string][]string{"type": {`Unknown backend type "internal-mongodb"; must be "ldap" or "active-directory".`}}},
		{"unknown transport", validLDAP(), func(c *ldap.Config) { c.TransportSecurity = "ssl" },
			map[string][]string{"transport_security": {`Transport security must be "none", "tls" or "start_tls".`}}},
		{"no search base", validLDAP(), func(c *ldap.Config) { c.UserSearchBase = "" },
			map[string][]string{"user_search_base": {"User search base cannot be empty."}}},
		{"no pattern", validLDAP(), func(c *ldap.Config) { c.UserSearchPattern = "  " },
			map[string][]string{"user_search_pattern": {"User search pattern cannot be empty."}}},
		{"pattern without placeholder", validLDAP(), func(c *ldap.Config) { c.UserSearchPattern = "(uid=admin)" },
			map[string][]string{"user_search_pattern": {"User search pattern must contain the username placeholder {0}."}}},
		{"pattern not a filter", validLDAP(), func(c *ldap.Config) { c.UserSearchPattern = "(&(uid={0})" },
			map[string][]string{"user_search_pattern": {"User search pattern is not a valid LDAP filter: unexpected end of filter."}}},
		{"pattern with a bad escape", validLDAP(), func(c *ldap.Config) { c.UserSearchPattern = `(uid={0}\zz)` },
			map[string][]string{"user_search_pattern": {"User search pattern is not a valid LDAP filter: invalid characters for escape in filter: encoding/hex: invalid byte: U+007A 'z'."}}},
		{"ldap without unique id attribute", validLDAP(), func(c *ldap.Config) { c.UserUniqueIDAttribute = "" },
			map[string][]string{"user_unique_id_attribute": {"User unique ID attribute cannot be empty."}}},
		{"no attributes", validLDAP(), func(c *ldap.Config) { c.UserNameAttribute, c.UserFullNameAttribute = "", "" },
			map[string][]string{
				"user_name_attribute":      {"User name attribute cannot be empty."},
				"user_full_name_attribute": {"User full name attribute cannot be empty."},
			}},
		{"empty", ldap.Config{}, func(*ldap.Config) {}, map[string][]string{
			"type":                     {`Unknown backend type ""; must be "ldap" or "active-directory".`},
			"servers":                  {"Server list cannot be empty."},
			"transport_security":       {`Transport security must be "none", "tls" or "start_tls".`},
			"user_search_base":         {"User search base cannot be empty."},
			"user_search_pattern":      {"User search pattern cannot be empty."},
			"user_name_attribute":      {"User name attribute cannot be empty."},
			"user_full_name_attribute": {"User full name attribute cannot be empty."},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.base
			c.Servers = append([]ldap.Server(nil), c.Servers...)
			tc.modify(&c)
			err := c.Validate()
			if tc.want == nil {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			var ve *api.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("Validate() = %v, want an *api.ValidationError", err)
			}
			if !reflect.DeepEqual(ve.Fields, tc.want) {
				t.Errorf("Validate() fields = %q, want %q", ve.Fields, tc.want)
			}
		})
	}
}

func TestValidateInto(t *testing.T) {
	v := (&api.ValidationError{}).Add("title", "Title cannot be empty.")
	c := validLDAP()
	c.UserSearchBase = ""
	c.ValidateInto(v)
	want := map[string][]string{
		"title":            {"Title cannot be empty."},
		"user_search_base": {"User search base cannot be empty."},
	}
	if !reflect.DeepEqual(v.Fields, want) {
		t.Errorf("fields = %q, want %q", v.Fields, want)
	}
}

func TestUserFilter(t *testing.T) {
	for _, tc := range []struct {
		pattern, username, want string
	}{
		{"(uid={0})", "alice", "(uid=alice)"},
		{"(uid={0})", "*", `(uid=\2a)`},
		{"(uid={0})", "*)(uid=*", `(uid=\2a\29\28uid=\2a)`},
		{"(uid={0})", "alice)(|(uid=*", `(uid=alice\29\28|\28uid=\2a)`},
		{"(uid={0})", `a\b`, `(uid=a\5cb)`},
		{"(uid={0})", "a\x00b", `(uid=a\00b)`},
		{"(uid={0})", "jürgen", `(uid=j\c3\bcrgen)`},
		{"(uid={0})", "{0}", "(uid={0})"}, // replaced once, not recursively
		{ldap.ADUserSearchPattern, "a*",
			`(&(objectClass=user)(|(userPrincipalName=a\2a)(sAMAccountName=a\2a)))`},
	} {
		if got := ldap.UserFilter(tc.pattern, tc.username); got != tc.want {
			t.Errorf("UserFilter(%q, %q) = %q, want %q", tc.pattern, tc.username, got, tc.want)
		}
	}
}

// equality reports the attribute and value of an equality-match filter
// packet.
func equality(t *testing.T, p *ber.Packet) (attr, value string) {
	t.Helper()
	if p.ClassType != ber.ClassContext || p.Tag != goldap.FilterEqualityMatch || len(p.Children) != 2 {
		t.Fatalf("filter %q is not an equality match", goldap.FilterMap[uint64(p.Tag)])
	}
	return p.Children[0].Data.String(), p.Children[1].Data.String()
}

// FuzzSearchFilter checks that no username changes the structure of a
// search filter: with Graylog's LDAP and AD patterns, every username gives a
// filter that compiles to the pattern's tree, with the username, byte for
// byte, as the value of each placeholder's equality match.
func FuzzSearchFilter(f *testing.F) {
	for _, s := range []string{
		"alice", "", "*", "*)(uid=*", "alice)(|(uid=*", `\2a`, `\`, "(", ")", "\x00",
		"a\xffb", "jürgen", "{0}", "alice*", "(|(objectClass=*))", "\u00e9\u2028", "=", "~=x", ":dn:=",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, username string) {
		ldapFilter := ldap.UserFilter("(&(objectClass=inetOrgPerson)(uid={0}))", username)
		adFilter := ldap.UserFilter(ldap.ADUserSearchPattern, username)
		for _, filter := range []string{ldapFilter, adFilter} {
			// The escaped username leaves none of the filter's special
			// characters in the filter beyond the pattern's own.
			rest := strings.NewReplacer("(", "", ")", "", "&", "", "|", "").Replace(filter)
			if strings.ContainsAny(rest, "*\x00") || strings.Count(filter, "(") != strings.Count(filter, ")") {
				t.Fatalf("filter %q has unescaped special characters", filter)
			}
		}

		p, err := goldap.CompileFilter(ldapFilter)
		if err != nil {
			t.Fatalf("CompileFilter(%q): %v", ldapFilter, err)
		}
		if p.Tag != goldap.FilterAnd || len(p.Children) != 2 {
			t.Fatalf("%q: not an and of two", ldapFilter)
		}
		if a, v := equality(t, p.Children[1]); a != "uid" || v != username {
			t.Fatalf("%q: placeholder compiled to %s=%q, want uid=%q", ldapFilter, a, v, username)
		}

		p, err = goldap.CompileFilter(adFilter)
		if err != nil {
			t.Fatalf("CompileFilter(%q): %v", adFilter, err)
		}
		if p.Tag != goldap.FilterAnd || len(p.Children) != 2 || p.Children[1].Tag != goldap.FilterOr || len(p.Children[1].Children) != 2 {
			t.Fatalf("%q: not the AD pattern's tree", adFilter)
		}
		for i, want := range []string{"userPrincipalName", "sAMAccountName"} {
			if a, v := equality(t, p.Children[1].Children[i]); a != want || v != username {
				t.Fatalf("%q: placeholder %d compiled to %s=%q, want %s=%q", adFilter, i, a, v, want, username)
			}
		}
	})
}

// FuzzValidate checks that Validate never panics, and that a config it
// accepts builds a filter that compiles for any username.
func FuzzValidate(f *testing.F) {
	f.Add("ldap", "ldap.example.org", 389, "none", "dc=example", "(uid={0})", "uid", "alice")
	f.Add("active-directory", "dc1", 636, "tls", "dc=corp", ldap.ADUserSearchPattern, "", "*)(uid=*")
	f.Add("ldap", "", 0, "start_tls", "", "(&(uid={0})", "entryUUID", "")
	f.Add("x", "h", 70000, "ssl", " ", "uid={0}", " ", "\x00")
	f.Add("ldap", "h", 1, "none", "b", "(cn=*{0}*)", "a", "b")
	f.Add("ldap", "h", 1, "none", "b", "(|(uid={0})(mail={0}))", "a", "(")
	f.Fuzz(func(t *testing.T, typ, host string, port int, transport, base, pattern, attr, username string) {
		c := ldap.Config{
			Type: typ, Servers: []ldap.Server{{Host: host, Port: port}}, TransportSecurity: transport,
			UserSearchBase: base, UserSearchPattern: pattern, UserUniqueIDAttribute: attr,
			UserNameAttribute: attr, UserFullNameAttribute: attr,
		}
		err := c.Validate()
		if err == nil {
			if _, cerr := goldap.CompileFilter(ldap.UserFilter(pattern, username)); cerr != nil {
				t.Fatalf("valid pattern %q with username %q: %v", pattern, username, cerr)
			}
			return
		}
		var ve *api.ValidationError
		if !errors.As(err, &ve) || len(ve.Fields) == 0 {
			t.Fatalf("Validate() = %#v, want a non-empty *api.ValidationError", err)
		}
	})
}

func TestConfigFormatRedactsPassword(t *testing.T) {
	c := validLDAP()
	c.SystemUserDN, c.SystemUserPassword = "cn=admin,dc=example,dc=org", "hunter2-secret"
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		out := fmt.Sprintf(verb, c)
		if strings.Contains(out, "hunter2-secret") || !strings.Contains(out, "<redacted>") || !strings.Contains(out, "cn=admin") {
			t.Errorf("Sprintf(%q) = %s", verb, out)
		}
	}
	if out := fmt.Sprint(ldap.Config{}); strings.Contains(out, "<redacted>") {
		t.Errorf("an empty password is shown as redacted: %s", out)
	}
}
