// Package slapdtest runs a real OpenLDAP slapd for tests: one private child
// process per Start, with its own configuration and database in the test's
// temporary directory, on free loopback ports, seeded with a few users.
//
// When slapd is not installed the test is skipped with a message saying so,
// or fails when LOGGATE_REQUIRE_SERVICES=1 (as in CI), so that a missing
// server never passes silently. LOGGATE_SLAPD names the binary when it is
// neither on PATH nor at /usr/sbin/slapd.
package slapdtest

import (
	"crypto/x509"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-ldap/ldap/v3"

	"github.com/loggate/loggate/internal/servicetest"
)

// The directory's fixed names. Every server has the same suffix and
// administrator, so tests can name entries without asking the server.
const (
	BaseDN        = "dc=example,dc=org"
	PeopleDN      = "ou=people," + BaseDN
	AdminDN       = "cn=admin," + BaseDN
	AdminPassword = "adminpass"
)

// Server is a slapd child process owned by one test. Its methods must be
// called from the test's goroutine; the directory itself may be used from
// any goroutine.
type Server struct {
	// Host is the loopback address slapd listens on.
	Host string
	// Port serves ldap:// (and StartTLS when TLS is enabled).
	Port int
	// TLSPort serves ldaps://; it is 0 unless the server was started WithTLS.
	TLSPort int
	// BaseDN, AdminDN and AdminPassword repeat the package constants.
	BaseDN, AdminDN, AdminPassword string
	// CACert is the PEM of the self-signed certificate slapd presents, and
	// CAPool a pool holding it; both are nil unless started WithTLS.
	CACert []byte
	CAPool *x509.CertPool

	tb   testing.TB
	bin  string
	dir  string
	conf string
	srv  servicetest.Server
}

// Option changes how Start configures the server.
type Option func(*options)

type options struct{ tls bool }

// WithTLS gives the server a self-signed certificate for 127.0.0.1 and
// localhost, enables StartTLS on Port and serves ldaps:// on TLSPort.
func WithTLS() Option { return func(o *options) { o.tls = true } }

// Start starts a slapd for tb, seeded with Alice and Bob under PeopleDN, and
// kills it when tb ends. It skips tb (or fails it, with
// LOGGATE_REQUIRE_SERVICES=1) when slapd is not installed.
func Start(tb testing.TB, opts ...Option) *Server {
	tb.Helper()
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	bin := servicetest.Find(tb, "slapd", "apt-get install slapd ldap-utils", lookSlapd)
	s := &Server{
		Host: "127.0.0.1", BaseDN: BaseDN, AdminDN: AdminDN, AdminPassword: AdminPassword,
		tb: tb, bin: bin, dir: tb.TempDir(),
	}
	// Registered after TempDir so slapd is killed before its directory is
	// removed, and before launching so a half-started server is killed too.
	tb.Cleanup(s.Stop)
	if err := s.configure(o); err != nil {
		tb.Fatalf("slapdtest: %v", err)
	}
	err := servicetest.Retry(func() error {
		if err := s.pickPorts(o.tls); err != nil {
			return err
		}
		return s.launch()
	})
	if err != nil {
		tb.Fatalf("slapdtest: %v", err)
	}
	if err := s.seed(); err != nil {
		tb.Fatalf("slapdtest: seed: %v", err)
	}
	return s
}

// URL is the server's ldap:// URL.
func (s *Server) URL() string { return "ldap://" + s.addr(s.Port) }

// TLSURL is the server's ldaps:// URL, or "" without TLS.
func (s *Server) TLSURL() string {
	if s.TLSPort == 0 {
		return ""
	}
	return "ldaps://" + s.addr(s.TLSPort)
}

// Stop kills the server and waits for it to exit; its data stays for
// Restart. Stopping a stopped server does nothing.
func (s *Server) Stop() { s.srv.Stop() }

// Restart stops the server if it is running and starts it again on the same
// ports with the same data.
func (s *Server) Restart() {
	s.tb.Helper()
	if err := s.srv.Restart(); err != nil {
		s.tb.Fatalf("slapdtest: restart: %v", err)
	}
}

// lookSlapd finds the slapd binary: LOGGATE_SLAPD when set, else slapd on
// PATH, else /usr/sbin/slapd, which is not on an ordinary user's PATH.
func lookSlapd() (string, error) {
	if p, ok := os.LookupEnv("LOGGATE_SLAPD"); ok {
		return exec.LookPath(p)
	}
	if p, err := exec.LookPath("slapd"); err == nil {
		return p, nil
	}
	return exec.LookPath("/usr/sbin/slapd")
}

// configure writes slapd.conf, the database directory and, for TLS, the
// certificate.
func (s *Server) configure(o options) error {
	if err := os.Mkdir(filepath.Join(s.dir, "db"), 0o700); err != nil {
		return err
	}
	var cert, key string
	if o.tls {
		cert, key = filepath.Join(s.dir, "cert.pem"), filepath.Join(s.dir, "key.pem")
		pemBytes, err := selfSigned(cert, key)
		if err != nil {
			return fmt.Errorf("certificate: %w", err)
		}
		s.CACert = pemBytes
		s.CAPool = x509.NewCertPool()
		s.CAPool.AppendCertsFromPEM(pemBytes)
	}
	s.conf = filepath.Join(s.dir, "slapd.conf")
	return os.WriteFile(s.conf, []byte(slapdConf(s.dir, ssha(AdminPassword), cert, key)), 0o600)
}

func (s *Server) pickPorts(withTLS bool) error {
	var err error
	if s.Port, err = servicetest.FreePort(); err != nil {
		return err
	}
	if withTLS {
		s.TLSPort, err = servicetest.FreePort()
	}
	return err
}

func (s *Server) addr(port int) string { return net.JoinHostPort(s.Host, strconv.Itoa(port)) }

// launch starts slapd on s.Port (and s.TLSPort) and waits until it answers.
func (s *Server) launch() error {
	pidFile := filepath.Join(s.dir, "slapd.pid")
	s.srv = servicetest.Server{
		Name: "slapd", Addr: s.URL(), Log: filepath.Join(s.dir, "slapd.log"),
		Cmd: func() *exec.Cmd {
			// A pid file left by the last run would pass for this one's.
			_ = os.Remove(pidFile)
			urls := s.URL() + "/"
			if s.TLSPort != 0 {
				urls += " " + s.TLSURL() + "/"
			}
			// -d 0 keeps slapd in the foreground, our child, without
			// debug output.
			return exec.Command(s.bin, "-f", s.conf, "-h", urls, "-d", "0")
		},
		// slapd writes its pid file only after binding every listener, so
		// a pid file with our pid means the ports are ours; then it must
		// answer a search of the root DSE.
		Ready: func(pid int) error {
			b, err := os.ReadFile(pidFile)
			if err != nil {
				return err
			}
			if got := strings.TrimSpace(string(b)); got != strconv.Itoa(pid) {
				return fmt.Errorf("pid file holds %q, not pid %d", got, pid)
			}
			return s.ping()
		},
	}
	return s.srv.Launch()
}

// ping reads the root DSE anonymously.
func (s *Server) ping() error {
	c, err := s.dial(time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	_, err = c.Search(ldap.NewSearchRequest("", ldap.ScopeBaseObject, ldap.NeverDerefAliases,
		1, 1, false, "(objectClass=*)", []string{"1.1"}, nil))
	return err
}

func (s *Server) dial(timeout time.Duration) (*ldap.Conn, error) {
	c, err := ldap.DialURL(s.URL(), ldap.DialWithDialer(&net.Dialer{Timeout: timeout}))
	if err != nil {
		return nil, err
	}
	c.SetTimeout(timeout)
	return c, nil
}
