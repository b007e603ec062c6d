package ldap_test

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	goldap "github.com/go-ldap/ldap/v3"
	"github.com/loggate/loggate/auth/ldap"
	"github.com/loggate/loggate/auth/ldap/slapdtest"
	"github.com/loggate/loggate/router/api"
)

// entryUUID reads uid's entryUUID as the administrator sees it.
func entryUUID(t *testing.T, srv *slapdtest.Server, uid string) string {
	t.Helper()
	res, err := srv.Admin(t).Search(goldap.NewSearchRequest(slapdtest.UserDN(uid),
		goldap.ScopeBaseObject, goldap.NeverDerefAliases, 1, 5, false,
		"(objectClass=*)", []string{"entryUUID"}, nil))
	if err != nil || len(res.Entries) != 1 {
		t.Fatalf("read entryUUID of %s: %v", uid, err)
	}
	id := res.Entries[0].GetAttributeValue("entryUUID")
	if id == "" {
		t.Fatalf("%s has no entryUUID", uid)
	}
	return id
}

func TestAuthenticate(t *testing.T) {
	t.Parallel()
	srv := slapdtest.Start(t)
	d := ldap.New(configFor(srv))
	aliceID, bobID := entryUUID(t, srv, "alice"), entryUUID(t, srv, "bob")
	if aliceID == bobID {
		t.Fatalf("alice and bob share entryUUID %s", aliceID)
	}

	for _, tc := range []struct {
		name, username, password string
		wantUser                 string // uid of the authenticated entry; "" for an error
		wantErr                  error
	}{
		{"alice", "alice", "alicepw", "alice", nil},
		{"bob", "bob", "bobpw", "bob", nil},
		// uid matches case-insensitively; the entry's own name comes back.
		{"ALICE", "ALICE", "alicepw", "alice", nil},
		{"wrong password", "alice", "wrong", "", ldap.ErrInvalidCredentials},
		{"another user's password", "alice", "bobpw", "", ldap.ErrInvalidCredentials},
		{"password case", "alice", "ALICEPW", "", ldap.ErrInvalidCredentials},
		{"unknown user", "carol", "carolpw", "", ldap.ErrUnknownUser},
		{"empty password", "alice", "", "", ldap.ErrInvalidCredentials},
		{"empty username", "", "alicepw", "", ldap.ErrUnknownUser},
		{"injection: star", "*", "alicepw", "", ldap.ErrUnknownUser},
		{"injection: close and reopen", "*)(uid=*", "alicepw", "", ldap.ErrUnknownUser},
		{"injection: or", "alice)(|(uid=*", "alicepw", "", ldap.ErrUnknownUser},
		{"injection: other user", "alice)(uid=bob", "bobpw", "", ldap.ErrUnknownUser},
		{"injection: prefix", "ali*", "alicepw", "", ldap.ErrUnknownUser},
		{"injection: objectClass", "*)(|(objectClass=*", "bobpw", "", ldap.ErrUnknownUser},
		{"injection: escaped star", `\2a`, "alicepw", "", ldap.ErrUnknownUser},
		{"injection: NUL", "alice\x00", "alicepw", "", ldap.ErrUnknownUser},
		{"not UTF-8", "alice\xff", "alicepw", "", ldap.ErrUnknownUser},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := d.Authenticate(t.Context(), tc.username, tc.password)
			if tc.wantErr != nil {
				if e != nil {
					t.Errorf("Authenticate returned entry %s with error %v", e.DN, err)
				}
				checkErr(t, err, []error{tc.wantErr}, []error{ldap.ErrUnavailable, ldap.ErrMisconfigured}, tc.password, srv.AdminPassword)
				return
			}
			if err != nil {
				t.Fatalf("Authenticate = %v", err)
			}
			user := map[string]slapdtest.User{"alice": slapdtest.Alice, "bob": slapdtest.Bob}[tc.wantUser]
			wantID := map[string]string{"alice": aliceID, "bob": bobID}[tc.wantUser]
			if e.DN != slapdtest.UserDN(tc.wantUser) || e.Username != user.UID || e.FullName != user.CN ||
				e.Email != user.Mail || e.UniqueID != wantID {
				t.Errorf("entry = %+v, want %s (%s, %q, %s, id %s)", e, slapdtest.UserDN(tc.wantUser), user.UID, user.CN, user.Mail, wantID)
			}
			if got := e.Base64UniqueID(); got != base64.StdEncoding.EncodeToString([]byte(wantID)) {
				t.Errorf("Base64UniqueID = %q", got)
			}
			for attr, want := range map[string][]string{
				"uid": {user.UID}, "cn": {user.CN}, "mail": {user.Mail},
				"objectClass": {"inetOrgPerson"}, "entryUUID": {wantID},
			} {
				if got := e.Attributes[attr]; !slices.Equal(got, want) {
					t.Errorf("Attributes[%s] = %q, want %q", attr, got, want)
				}
			}
			// The administrator reads userPassword; the entry must not.
			for name := range e.Attributes {
				if strings.Contains(strings.ToLower(name), "password") {
					t.Errorf("Attributes has %s", name)
				}
			}
		})
	}
}

// TestAuthenticateLiteralUsername checks that special characters are
// escaped, not refused: a user literally named "*)(uid=*" logs in as
// himself.
func TestAuthenticateLiteralUsername(t *testing.T) {
	t.Parallel()
	srv := slapdtest.Start(t)
	const odd = "*)(uid=*"
	dn := srv.AddUser(t, odd, "oddpw", "Odd One", "")
	d := ldap.New(configFor(srv))
	e, err := d.Authenticate(t.Context(), odd, "oddpw")
	if err != nil {
		t.Fatalf("Authenticate(%q) = %v", odd, err)
	}
	if !sameDN(t, e.DN, dn) || e.Username != odd || e.Email != "" {
		t.Errorf("entry = %s (%q, email %q), want %s", e.DN, e.Username, e.Email, dn)
	}
	// Alice's password still does not open any account through that name.
	_, err = d.Authenticate(t.Context(), odd, slapdtest.Alice.Password)
	checkErr(t, err, []error{ldap.ErrInvalidCredentials}, nil)
}

func TestAuthenticateAmbiguous(t *testing.T) {
	t.Parallel()
	for _, n := range []int{2, 3} { // 3 passes the search's size limit
		t.Run(fmt.Sprint(n, " matches"), func(t *testing.T) {
			srv := slapdtest.Start(t)
			for i := range n {
				srv.AddUser(t, fmt.Sprint("twin", i), "twinpw", "Twin", "")
			}
			c := configFor(srv)
			c.UserSearchPattern = "(cn={0})"
			e, err := ldap.New(c).Authenticate(t.Context(), "Twin", "twinpw")
			if e != nil {
				t.Errorf("entry %s authenticated", e.DN)
			}
			checkErr(t, err, []error{ldap.ErrAmbiguousUser, ldap.ErrUnknownUser}, []error{ldap.ErrUnavailable, ldap.ErrMisconfigured}, "twinpw")
		})
	}
}

func TestAuthenticateAnonymousSearch(t *testing.T) {
	t.Parallel()
	srv := slapdtest.Start(t)
	c := configFor(srv)
	c.SystemUserDN, c.SystemUserPassword = "", ""
	d := ldap.New(c)
	e, err := d.Authenticate(t.Context(), "alice", "alicepw")
	if err != nil {
		t.Fatalf("Authenticate = %v", err)
	}
	if e.DN != slapdtest.UserDN("alice") || e.UniqueID != entryUUID(t, srv, "alice") {
		t.Errorf("entry = %s (id %q)", e.DN, e.UniqueID)
	}
	_, err = d.Authenticate(t.Context(), "alice", "wrong")
	checkErr(t, err, []error{ldap.ErrInvalidCredentials}, nil)
}

// TestAuthenticateMisconfigured covers configurations the directory answers
// but cannot work with: they wrap ErrMisconfigured, never the user's
// ErrInvalidCredentials, nor ErrUnavailable.
func TestAuthenticateMisconfigured(t *testing.T) {
	t.Parallel()
	srv := slapdtest.Start(t)
	const systemPassword = "not-the-admin-password"
	for _, tc := range []struct {
		name   string
		modify func(*ldap.Config)
	}{
		{"wrong system password", func(c *ldap.Config) { c.SystemUserPassword = systemPassword }},
		{"unknown system user", func(c *ldap.Config) {
			c.SystemUserDN, c.SystemUserPassword = "cn=nobody,dc=example,dc=org", systemPassword
		}},
		{"system user without password", func(c *ldap.Config) { c.SystemUserPassword = "" }},
		{"missing search base", func(c *ldap.Config) { c.UserSearchBase = "ou=nobody,dc=example,dc=org" }},
		{"search base not a DN", func(c *ldap.Config) { c.UserSearchBase = "not a dn" }},
		{"absent unique id attribute", func(c *ldap.Config) { c.UserUniqueIDAttribute = "employeeNumber" }},
		{"absent user name attribute", func(c *ldap.Config) { c.UserNameAttribute = "displayName" }},
		{"invalid config", func(c *ldap.Config) { c.UserSearchPattern = "(uid=alice)" }},
		{"no server", func(c *ldap.Config) { c.Servers = nil }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := configFor(srv)
			tc.modify(&c)
			e, err := ldap.New(c).Authenticate(t.Context(), "alice", "alicepw")
			if e != nil {
				t.Errorf("entry %s authenticated", e.DN)
			}
			checkErr(t, err, []error{ldap.ErrMisconfigured},
				[]error{ldap.ErrInvalidCredentials, ldap.ErrUnknownUser, ldap.ErrUnavailable},
				systemPassword, srv.AdminPassword, "alicepw")
		})
	}
	t.Run("validation error kept", func(t *testing.T) {
		c := configFor(srv)
		c.UserSearchBase = ""
		_, err := ldap.New(c).Authenticate(t.Context(), "alice", "alicepw")
		if ve := (*api.ValidationError)(nil); !errors.As(err, &ve) || ve.Fields["user_search_base"] == nil {
			t.Errorf("err = %v, want the validation error of user_search_base", err)
		}
	})
}

func TestAuthenticateTLS(t *testing.T) {
	t.Parallel()
	srv := slapdtest.Start(t, slapdtest.WithTLS())
	for _, transport := range []string{ldap.TransportStartTLS, ldap.TransportTLS} {
		port := srv.Port
		if transport == ldap.TransportTLS {
			port = srv.TLSPort
		}
		for _, tc := range []struct {
			name    string
			host    string
			verify  bool
			trustCA bool
			ok      bool
		}{
			{"verified against the system pool", "127.0.0.1", true, false, false},
			{"not verified", "127.0.0.1", false, false, true},
			{"verified against the CA", "127.0.0.1", true, true, true},
			{"verified against the CA by name", "localhost", true, true, true},
		} {
			t.Run(transport+"/"+tc.name, func(t *testing.T) {
				c := configFor(srv)
				c.Servers = []ldap.Server{{Host: tc.host, Port: port}}
				c.TransportSecurity = transport
				c.VerifyCertificates = tc.verify
				if tc.trustCA {
					c.RootCAs = srv.CAPool
				}
				e, err := ldap.New(c).Authenticate(t.Context(), "alice", "alicepw")
				if tc.ok {
					if err != nil || e.DN != slapdtest.UserDN("alice") {
						t.Fatalf("Authenticate = %v, %v", e, err)
					}
					return
				}
				checkErr(t, err, []error{ldap.ErrUnavailable}, []error{ldap.ErrInvalidCredentials, ldap.ErrMisconfigured})
				if !strings.Contains(err.Error(), "certificate") {
					t.Errorf("err = %v, want it to name the certificate", err)
				}
			})
		}
	}
	for _, tc := range []struct {
		name, transport string
		port            int
	}{
		{"plain to the ldaps port", ldap.TransportNone, srv.TLSPort},
		{"ldaps to the plain port", ldap.TransportTLS, srv.Port},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := configFor(srv)
			c.Servers[0].Port, c.TransportSecurity, c.VerifyCertificates = tc.port, tc.transport, false
			_, err := ldap.New(c).Authenticate(t.Context(), "alice", "alicepw")
			checkErr(t, err, []error{ldap.ErrUnavailable}, []error{ldap.ErrInvalidCredentials})
		})
	}
}

// TestOutageAndRecovery stops the directory: logins fail with
// ErrUnavailable at once, not after the timeouts, and work again when it is
// back, with nothing to reset.
func TestOutageAndRecovery(t *testing.T) {
	t.Parallel()
	srv := slapdtest.Start(t)
	d := ldap.New(configFor(srv)) // default 5 s timeouts
	if _, err := d.Authenticate(t.Context(), "alice", "alicepw"); err != nil {
		t.Fatalf("before the outage: %v", err)
	}

	srv.Stop()
	start := time.Now()
	_, err := d.Authenticate(t.Context(), "alice", "alicepw")
	if elapsed := time.Since(start); elapsed > time.Second {
		t.Errorf("failing took %v; a refused connection must fail at once", elapsed)
	}
	checkErr(t, err, []error{ldap.ErrUnavailable}, []error{ldap.ErrInvalidCredentials, ldap.ErrMisconfigured}, "alicepw", srv.AdminPassword)
	if r := d.TestConnection(t.Context()); r.Success {
		t.Errorf("TestConnection during the outage = %+v", r)
	}

	srv.Restart()
	if _, err := d.Authenticate(t.Context(), "alice", "alicepw"); err != nil {
		t.Errorf("after Restart: %v", err)
	}
}

// TestUnresponsiveDirectory talks to a server that accepts connections and
// never answers, at each stage a directory can hang in: the bind, StartTLS,
// the TLS handshake.
func TestUnresponsiveDirectory(t *testing.T) {
	t.Parallel()
	const long = time.Minute // longer than the test may take
	for _, transport := range []string{ldap.TransportNone, ldap.TransportStartTLS, ldap.TransportTLS} {
		setup := func(t *testing.T, timeout time.Duration) (*blackhole, *ldap.Directory) {
			t.Helper()
			b := startBlackhole(t)
			c := ldap.Defaults(ldap.TypeLDAP)
			c.Servers = []ldap.Server{{Host: "127.0.0.1", Port: b.port}}
			c.TransportSecurity = transport
			c.SystemUserDN, c.SystemUserPassword = "cn=admin,dc=example,dc=org", "sysPW"
			c.UserSearchBase, c.UserSearchPattern = "dc=example,dc=org", "(uid={0})"
			c.UserNameAttribute, c.UserFullNameAttribute = "uid", "cn"
			c.DialTimeout, c.Timeout = timeout, timeout
			return b, ldap.New(c)
		}
		t.Run(transport+"/cancel", func(t *testing.T) {
			t.Parallel()
			b, d := setup(t, long)
			ctx, cancel := context.WithCancel(t.Context())
			done := make(chan error, 1)
			go func() {
				_, err := d.Authenticate(ctx, "alice", "alicepw")
				done <- err
			}()
			b.waitAccepted(t)
			cancel()
			select {
			case err := <-done:
				checkErr(t, err, []error{ldap.ErrUnavailable, context.Canceled}, []error{ldap.ErrInvalidCredentials}, "sysPW")
			case <-time.After(5 * time.Second):
				t.Fatal("Authenticate ignored the cancellation")
			}
		})
		t.Run(transport+"/context deadline", func(t *testing.T) {
			t.Parallel()
			_, d := setup(t, long)
			ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
			defer cancel()
			start := time.Now()
			_, err := d.Authenticate(ctx, "alice", "alicepw")
			if elapsed := time.Since(start); elapsed > 5*time.Second {
				t.Errorf("took %v for a 100ms deadline", elapsed)
			}
			checkErr(t, err, []error{ldap.ErrUnavailable, context.DeadlineExceeded}, nil, "sysPW")
		})
		t.Run(transport+"/timeout", func(t *testing.T) {
			t.Parallel()
			_, d := setup(t, 100*time.Millisecond)
			start := time.Now()
			_, err := d.Authenticate(t.Context(), "alice", "alicepw")
			elapsed := time.Since(start)
			if elapsed < 100*time.Millisecond || elapsed > 5*time.Second {
				t.Errorf("took %v with a 100ms timeout", elapsed)
			}
			checkErr(t, err, []error{ldap.ErrUnavailable}, []error{context.DeadlineExceeded}, "sysPW")
		})
		t.Run(transport+"/test connection", func(t *testing.T) {
			t.Parallel()
			_, d := setup(t, 100*time.Millisecond)
			if r := d.TestConnection(t.Context()); r.Success || len(r.Errors) != 1 {
				t.Errorf("TestConnection = %+v", r)
			}
		})
	}
}

// TestEmptyPasswordSendsNothing checks that an empty password is refused
// before any connection: the directory's first connection afterwards is the
// test's own.
func TestEmptyPasswordSendsNothing(t *testing.T) {
	t.Parallel()
	b := startBlackhole(t)
	c := ldap.Defaults(ldap.TypeLDAP)
	c.Servers = []ldap.Server{{Host: "127.0.0.1", Port: b.port}}
	c.TransportSecurity = ldap.TransportNone
	c.UserSearchBase, c.UserSearchPattern = "dc=example,dc=org", "(uid={0})"
	c.UserNameAttribute, c.UserFullNameAttribute = "uid", "cn"
	_, err := ldap.New(c).Authenticate(t.Context(), "alice", "")
	checkErr(t, err, []error{ldap.ErrInvalidCredentials}, []error{ldap.ErrUnavailable})

	mine, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", fmt.Sprint(b.port)))
	if err != nil {
		t.Fatal(err)
	}
	defer mine.Close()
	if first := b.waitAccepted(t); first.RemoteAddr().String() != mine.LocalAddr().String() {
		t.Errorf("the directory got a connection from %s before the test's own", first.RemoteAddr())
	}
}

func TestAuthenticateConcurrent(t *testing.T) {
	t.Parallel()
	srv := slapdtest.Start(t)
	d := ldap.New(configFor(srv))
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i := range cap(errs) {
		u := []slapdtest.User{slapdtest.Alice, slapdtest.Bob}[i%2]
		wg.Go(func() {
			e, err := d.Authenticate(t.Context(), u.UID, u.Password)
			if err == nil && e.Username != u.UID {
				err = fmt.Errorf("%s authenticated as %s", u.UID, e.Username)
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

// TestNoGoroutineLeak runs every way a call can end and checks that the
// connections' goroutines all end too.
func TestNoGoroutineLeak(t *testing.T) {
	srv := slapdtest.Start(t, slapdtest.WithTLS())
	b := startBlackhole(t)
	plain := configFor(srv)
	startTLS := configFor(srv)
	startTLS.TransportSecurity, startTLS.RootCAs = ldap.TransportStartTLS, srv.CAPool
	untrusted := configFor(srv)
	untrusted.Servers[0].Port, untrusted.TransportSecurity = srv.TLSPort, ldap.TransportTLS
	hung := configFor(srv)
	hung.Servers[0].Port = b.port
	down := configFor(srv)
	down.Servers[0].Port = closedPort(t)

	// Long timeouts, so that a connection left open cannot close itself
	// when its deadline passes before the check gives up.
	for _, c := range []*ldap.Config{&plain, &startTLS, &untrusted, &hung, &down} {
		c.DialTimeout, c.Timeout = time.Minute, time.Minute
	}

	checkGoroutines(t, func() {
		for _, tc := range []struct {
			cfg                ldap.Config
			username, password string
		}{
			{plain, "alice", "alicepw"},
			{plain, "alice", "wrong"},
			{plain, "carol", "x"},
			{startTLS, "bob", "bobpw"},
			{untrusted, "alice", "alicepw"},
			{down, "alice", "alicepw"},
		} {
			d := ldap.New(tc.cfg)
			_, _ = d.Authenticate(t.Context(), tc.username, tc.password)
			_ = d.TestConnection(t.Context())
			_, _ = d.TestLogin(t.Context(), tc.username, tc.password)
		}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() {
			defer close(done)
			_, _ = ldap.New(hung).Authenticate(ctx, "alice", "alicepw")
		}()
		b.waitAccepted(t)
		cancel()
		<-done
	})
}

// sameDN reports whether two spellings of a DN name the same entry; the
// server may escape differently than the client did.
func sameDN(t *testing.T, a, b string) bool {
	t.Helper()
	da, err := goldap.ParseDN(a)
	if err != nil {
		t.Fatalf("parse DN %q: %v", a, err)
	}
	db, err := goldap.ParseDN(b)
	if err != nil {
		t.Fatalf("parse DN %q: %v", b, err)
	}
	return da.Equal(db)
}
