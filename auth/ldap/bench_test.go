package ldap_test

import (
	"testing"

	"github.com/loggate/loggate/auth/ldap"
	"github.com/loggate/loggate/auth/ldap/slapdtest"
)

// BenchmarkAuthenticate measures a login that misses every cache: connect,
// secure the connection, bind as the system user, search, bind as the user,
// against a real slapd on loopback.
func BenchmarkAuthenticate(b *testing.B) {
	srv := slapdtest.Start(b, slapdtest.WithTLS())
	base := ldap.Config{
		Type: ldap.TypeLDAP, Servers: []ldap.Server{{Host: srv.Host, Port: srv.Port}},
		VerifyCertificates: true, RootCAs: srv.CAPool,
		SystemUserDN: srv.AdminDN, SystemUserPassword: srv.AdminPassword,
		UserSearchBase: slapdtest.PeopleDN, UserSearchPattern: "(&(objectClass=inetOrgPerson)(uid={0}))",
		UserUniqueIDAttribute: ldap.LDAPUniqueIDAttribute, UserNameAttribute: "uid", UserFullNameAttribute: "cn",
	}
	for _, tc := range []struct {
		transport string
		port      int
	}{
		{ldap.TransportNone, srv.Port},
		{ldap.TransportStartTLS, srv.Port},
		{ldap.TransportTLS, srv.TLSPort},
	} {
		b.Run(tc.transport, func(b *testing.B) {
			c := base
			c.Servers = []ldap.Server{{Host: srv.Host, Port: tc.port}}
			c.TransportSecurity = tc.transport
			d := ldap.New(c)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := d.Authenticate(b.Context(), "alice", "alicepw"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkUserFilter measures building the search filter for a username
// that needs escaping.
func BenchmarkUserFilter(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = ldap.UserFilter(ldap.ADUserSearchPattern, "*)(uid=*")
	}
}
