package ldap_test

import (
	"errors"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loggate/loggate/auth/ldap"
	"github.com/loggate/loggate/auth/ldap/slapdtest"
)

// configFor is an LDAP backend for srv over plain ldap://, searching as the
// directory's administrator.
func configFor(srv *slapdtest.Server) ldap.Config {
	c := ldap.Defaults(ldap.TypeLDAP)
	c.Servers = []ldap.Server{{Host: srv.Host, Port: srv.Port}}
	c.TransportSecurity = ldap.TransportNone
	c.SystemUserDN, c.SystemUserPassword = srv.AdminDN, srv.AdminPassword
	c.UserSearchBase = slapdtest.PeopleDN
	c.UserSearchPattern = "(&(objectClass=inetOrgPerson)(uid={0}))"
	c.UserNameAttribute, c.UserFullNameAttribute = "uid", "cn"
	return c
}

// checkErr fails t unless err wraps every error in want and none in notWant,
// and its text holds none of the secrets.
func checkErr(t *testing.T, err error, want, notWant []error, secrets ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("err = nil, want %v", want)
	}
	for _, w := range want {
		if !errors.Is(err, w) {
			t.Errorf("err = %v, want it to wrap %v", err, w)
		}
	}
	for _, w := range notWant {
		if errors.Is(err, w) {
			t.Errorf("err = %v, must not wrap %v", err, w)
		}
	}
	for _, s := range secrets {
		if s != "" && strings.Contains(err.Error(), s) {
			t.Errorf("err %q contains the secret %q", err, s)
		}
	}
}

// blackhole is a TCP server that accepts connections and never answers, the
// way a hung directory behaves.
type blackhole struct {
	port     int
	accepted chan net.Conn // every accepted connection, in order
}

func startBlackhole(t *testing.T) *blackhole {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b := &blackhole{port: l.Addr().(*net.TCPAddr).Port, accepted: make(chan net.Conn, 16)}
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			b.accepted <- c
		}
	})
	t.Cleanup(func() {
		l.Close()
		wg.Wait()
		for {
			select {
			case c := <-b.accepted:
				c.Close()
			default:
				return
			}
		}
	})
	return b
}

// waitAccepted returns the next connection the blackhole accepted.
func (b *blackhole) waitAccepted(t *testing.T) net.Conn {
	t.Helper()
	select {
	case c := <-b.accepted:
		t.Cleanup(func() { c.Close() })
		return c
	case <-time.After(5 * time.Second):
		t.Fatal("no connection reached the blackhole")
		return nil
	}
}

// closedPort returns a loopback port nobody listens on.
func closedPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// checkGoroutines fails t if, once f has run, the number of goroutines does
// not come back to what it was before within a bounded wait: connections
// end their goroutines asynchronously, shortly after Close returns.
func checkGoroutines(t *testing.T, f func()) {
	t.Helper()
	before := runtime.NumGoroutine()
	f()
	deadline := time.Now().Add(5 * time.Second)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines before, %d after:\n%s", before, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
		}
		<-tick.C
	}
}
