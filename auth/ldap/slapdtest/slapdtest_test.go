package slapdtest_test

import (
	"crypto/tls"
	"net"
	"testing"
	"time"

	"github.com/go-ldap/ldap/v3"
	"github.com/loggate/loggate/auth/ldap/slapdtest"
)

func dial(t *testing.T, url string, opts ...ldap.DialOpt) *ldap.Conn {
	t.Helper()
	opts = append(opts, ldap.DialWithDialer(&net.Dialer{Timeout: 2 * time.Second}))
	c, err := ldap.DialURL(url, opts...)
	if err != nil {
		t.Fatalf("dial %s: %v", url, err)
	}
	c.SetTimeout(5 * time.Second)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func TestSeededUsersBind(t *testing.T) {
	t.Parallel()
	srv := slapdtest.Start(t)
	for _, tc := range []struct {
		name, dn, password string
		wantCode           uint16 // 0: success
	}{
		{"alice", slapdtest.UserDN("alice"), slapdtest.Alice.Password, 0},
		{"bob", slapdtest.UserDN("bob"), slapdtest.Bob.Password, 0},
		{"admin", srv.AdminDN, srv.AdminPassword, 0},
		{"wrong password", slapdtest.UserDN("alice"), "nope", ldap.LDAPResultInvalidCredentials},
		{"no such user", slapdtest.UserDN("carol"), "x", ldap.LDAPResultInvalidCredentials},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := dial(t, srv.URL()).Bind(tc.dn, tc.password)
			switch {
			case tc.wantCode == 0 && err != nil:
				t.Fatalf("Bind = %v, want success", err)
			case tc.wantCode != 0 && !ldap.IsErrorWithCode(err, tc.wantCode):
				t.Fatalf("Bind = %v, want result %d", err, tc.wantCode)
			}
		})
	}
}

func TestSeededEntry(t *testing.T) {
	t.Parallel()
	srv := slapdtest.Start(t)
	res, err := dial(t, srv.URL()).Search(ldap.NewSearchRequest(slapdtest.PeopleDN,
		ldap.ScopeWholeSubtree, ldap.NeverDerefAliases, 0, 0, false,
		"(uid=alice)", []string{"*", "entryUUID"}, nil))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Entries) != 1 {
		t.Fatalf("%d entries for uid=alice, want 1", len(res.Entries))
	}
	e := res.Entries[0]
	for attr, want := range map[string]string{
		"cn": slapdtest.Alice.CN, "mail": slapdtest.Alice.Mail, "sn": "Liddell", "uid": "alice",
	} {
		if got := e.GetAttributeValue(attr); got != want {
			t.Errorf("%s = %q, want %q", attr, got, want)
		}
	}
	if e.GetAttributeValue("entryUUID") == "" {
		t.Error("no entryUUID")
	}
	// Anonymous readers must not see password hashes.
	if v := e.GetAttributeValues("userPassword"); len(v) != 0 {
		t.Errorf("anonymous search sees userPassword %q", v)
	}
}

func TestAddUser(t *testing.T) {
	t.Parallel()
	srv := slapdtest.Start(t)
	dn := srv.AddUser(t, "carol", "carolpw", "Carol Danvers", "")
	if dn != "uid=carol,ou=people,dc=example,dc=org" {
		t.Errorf("AddUser DN = %q", dn)
	}
	if err := dial(t, srv.URL()).Bind(dn, "carolpw"); err != nil {
		t.Errorf("Bind as the added user: %v", err)
	}
}

func TestStopRestart(t *testing.T) {
	t.Parallel()
	srv := slapdtest.Start(t, slapdtest.WithTLS())
	dn := srv.AddUser(t, "dave", "davepw", "Dave Lister", "dave@example.org")
	port, tlsPort := srv.Port, srv.TLSPort

	srv.Stop()
	if c, err := ldap.DialURL(srv.URL(), ldap.DialWithDialer(&net.Dialer{Timeout: time.Second})); err == nil {
		c.Close()
		t.Fatal("dial after Stop succeeded")
	}
	srv.Stop() // stopping twice is harmless

	srv.Restart()
	if srv.Port != port || srv.TLSPort != tlsPort {
		t.Errorf("ports after Restart = %d/%d, want %d/%d", srv.Port, srv.TLSPort, port, tlsPort)
	}
	if err := dial(t, srv.URL()).Bind(dn, "davepw"); err != nil {
		t.Errorf("Bind as a user added before Restart: %v", err)
	}
}

func TestTLS(t *testing.T) {
	t.Parallel()
	srv := slapdtest.Start(t, slapdtest.WithTLS())
	if srv.TLSPort == 0 || srv.TLSPort == srv.Port || len(srv.CACert) == 0 || srv.CAPool == nil {
		t.Fatalf("TLS server: port %d, TLS port %d, %d bytes of CA", srv.Port, srv.TLSPort, len(srv.CACert))
	}
	for _, tc := range []struct {
		name   string
		verify bool // trust CAPool rather than the system pool
		host   string
		ok     bool
	}{
		{"trusted CA, IP", true, "127.0.0.1", true},
		{"trusted CA, localhost", true, "localhost", true},
		{"trusted CA, wrong name", true, "example.org", false},
		{"system pool", false, "127.0.0.1", false},
	} {
		cfg := &tls.Config{ServerName: tc.host}
		if tc.verify {
			cfg.RootCAs = srv.CAPool
		}
		t.Run("StartTLS/"+tc.name, func(t *testing.T) {
			err := dial(t, srv.URL()).StartTLS(cfg.Clone())
			if (err == nil) != tc.ok {
				t.Fatalf("StartTLS = %v, want ok %v", err, tc.ok)
			}
		})
		t.Run("ldaps/"+tc.name, func(t *testing.T) {
			c, err := ldap.DialURL(srv.TLSURL(), ldap.DialWithTLSConfig(cfg.Clone()),
				ldap.DialWithDialer(&net.Dialer{Timeout: 2 * time.Second}))
			if err == nil {
				defer c.Close()
				c.SetTimeout(5 * time.Second)
				err = c.Bind(slapdtest.UserDN("alice"), slapdtest.Alice.Password)
			}
			if (err == nil) != tc.ok {
				t.Fatalf("ldaps bind = %v, want ok %v", err, tc.ok)
			}
		})
	}
}

func TestWithoutTLS(t *testing.T) {
	t.Parallel()
	srv := slapdtest.Start(t)
	if srv.TLSPort != 0 || srv.TLSURL() != "" || srv.CACert != nil {
		t.Errorf("plain server has TLS port %d, URL %q, CA %d bytes", srv.TLSPort, srv.TLSURL(), len(srv.CACert))
	}
	err := dial(t, srv.URL()).StartTLS(&tls.Config{InsecureSkipVerify: true})
	if err == nil {
		t.Error("StartTLS succeeded on a server without a certificate")
	}
}

// TestServersAreSeparate checks that servers started in parallel do not
// share ports or data.
func TestServersAreSeparate(t *testing.T) {
	t.Parallel()
	a, b := slapdtest.Start(t), slapdtest.Start(t)
	if a.Port == b.Port {
		t.Fatalf("both servers on port %d", a.Port)
	}
	dn := a.AddUser(t, "erin", "erinpw", "Erin Brockovich", "")
	if err := dial(t, b.URL()).Bind(dn, "erinpw"); !ldap.IsErrorWithCode(err, ldap.LDAPResultInvalidCredentials) {
		t.Errorf("Bind on b as a user of a = %v, want invalid credentials", err)
	}
}
