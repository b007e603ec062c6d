// Package smtptest runs a real SMTP server for tests: Debian's
// python3-aiosmtpd as a private child process on a free loopback port, in
// plain, STARTTLS or SMTPS mode, with or without AUTH, writing what it
// receives into a directory the test reads.
//
// When python3-aiosmtpd is not installed the test is skipped with a message
// saying so, or fails when LOGGATE_REQUIRE_SERVICES=1 (as in CI).
package smtptest

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	_ "embed"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loggate/loggate/internal/servicetest"
)

//go:embed smtpd.py
var script []byte

// Modes of the server's transport security.
const (
	Plain    = "plain"
	StartTLS = "starttls"
	SMTPS    = "smtps"
)

// Options choose the server's mode and credentials.
type Options struct {
	Mode string // Plain when empty
	// User and Password, when set, are required (AUTH).
	User, Password string
}

// Server is a running SMTP server owned by one test.
type Server struct {
	Host string
	Port int
	// TLS trusts the server's self-signed certificate.
	TLS *tls.Config

	dir string
	srv servicetest.Server
}

// Message is one message the server received.
type Message struct {
	MailFrom string   `json:"mail_from"`
	RcptTos  []string `json:"rcpt_tos"`
	Content  string   `json:"content"`
	Login    *string  `json:"login"`
	TLS      bool     `json:"tls"`
}

// python is Debian's interpreter, which python3-aiosmtpd installs into
// (a python3 earlier on PATH may be another one).
const python = "/usr/bin/python3"

// Start starts an SMTP server for tb and stops it when tb ends.
func Start(tb testing.TB, o Options) *Server {
	tb.Helper()
	bin := servicetest.Find(tb, "python3-aiosmtpd", "apt-get install python3-aiosmtpd", func() (string, error) {
		if err := exec.Command(python, "-c", "import aiosmtpd").Run(); err != nil {
			return "", err
		}
		return python, nil
	})
	if o.Mode == "" {
		o.Mode = Plain
	}
	dir := tb.TempDir()
	s := &Server{Host: "127.0.0.1", dir: filepath.Join(dir, "mail")}
	if err := os.Mkdir(s.dir, 0o700); err != nil {
		tb.Fatal(err)
	}
	py := filepath.Join(dir, "smtpd.py")
	if err := os.WriteFile(py, script, 0o600); err != nil {
		tb.Fatal(err)
	}
	cert, key, pool, err := selfSigned(dir)
	if err != nil {
		tb.Fatal(err)
	}
	s.TLS = &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"}
	tb.Cleanup(func() { s.srv.Stop() })
	err = servicetest.Retry(func() error {
		if s.Port, err = servicetest.FreePort(); err != nil {
			return err
		}
		addr := net.JoinHostPort(s.Host, strconv.Itoa(s.Port))
		s.srv = servicetest.Server{Name: "aiosmtpd", Addr: addr, Log: filepath.Join(dir, "smtpd.log"),
			Cmd: func() *exec.Cmd {
				args := []string{py, "--port", strconv.Itoa(s.Port), "--dir", s.dir, "--mode", o.Mode, "--cert", cert, "--key", key}
				if o.User != "" {
					args = append(args, "--auth", o.User+":"+o.Password)
				}
				return exec.Command(bin, args...)
			},
			Ready: func(pid int) error { return s.banner(addr, o.Mode == SMTPS, pid) }}
		return s.srv.Launch()
	})
	if err != nil {
		tb.Fatalf("smtptest: %v", err)
	}
	return s
}

// banner reads the greeting and checks that it names process pid.
func (s *Server) banner(addr string, useTLS bool, pid int) error {
	var c net.Conn
	var err error
	d := &net.Dialer{Timeout: 250 * time.Millisecond}
	if useTLS {
		c, err = tls.DialWithDialer(d, "tcp", addr, s.TLS)
	} else {
		c, err = d.Dial("tcp", addr)
	}
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if !strings.HasPrefix(line, "220 smtptest-"+strconv.Itoa(pid)+" ") {
		return fmt.Errorf("%w: %q", servicetest.ErrNotOurs, line)
	}
	return nil
}

// Messages returns what the server received, in order.
func (s *Server) Messages() ([]Message, error) {
	names, err := filepath.Glob(filepath.Join(s.dir, "*.json"))
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	out := make([]Message, 0, len(names))
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			return nil, err
		}
		var m Message
		if err := json.Unmarshal(b, &m); err != nil {
			return nil, fmt.Errorf("%s: %w", n, err)
		}
		out = append(out, m)
	}
	return out, nil
}

// selfSigned writes a certificate for 127.0.0.1 and its key, and returns
// their paths and a pool that trusts the certificate.
func selfSigned(dir string) (cert, key string, pool *x509.CertPool, err error) {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return "", "", nil, err
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, BasicConstraintsValid: true, IsCA: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &priv.PublicKey, priv)
	if err != nil {
		return "", "", nil, err
	}
	keyDER, err := x509.MarshalECPrivateKey(priv)
	if err != nil {
		return "", "", nil, err
	}
	cert, key = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		return "", "", nil, err
	}
	if err := os.WriteFile(key, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		return "", "", nil, err
	}
	parsed, err := x509.ParseCertificate(der)
	if err != nil {
		return "", "", nil, err
	}
	pool = x509.NewCertPool()
	pool.AddCert(parsed)
	return cert, key, pool, nil
}
