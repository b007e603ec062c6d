package ldap

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"sync"
	"time"

	goldap "github.com/go-ldap/ldap/v3"
)

// session is one connection to the directory, used for one call and closed.
// go-ldap's operations take no context, so the session enforces the
// caller's context and the timeouts through the socket's deadline: an
// expired deadline fails the blocked read or write at once, go-ldap's
// reader then closes the connection and the pending operation returns.
type session struct {
	ctx     context.Context
	raw     net.Conn
	conn    *goldap.Conn
	timeout time.Duration
	stop    func() bool // stops the context watch

	mu      sync.Mutex
	aborted bool // the context ended; deadlines may no longer move
}

// open dials the directory, secures the connection as configured and binds
// as the system user (anonymously when there is none).
func (d *Directory) open(ctx context.Context) (*session, error) {
	if d.addr == "" {
		return nil, fmt.Errorf("%w: no server configured", ErrMisconfigured)
	}
	dialer := net.Dialer{Timeout: d.dialTimeout}
	raw, err := dialer.DialContext(ctx, "tcp", d.addr)
	if err != nil {
		return nil, classify(ctx, "connect to "+d.url, err)
	}
	s := &session{ctx: ctx, raw: raw, timeout: d.timeout}
	s.stop = context.AfterFunc(ctx, s.abort)
	if err := s.start(d); err != nil {
		s.close()
		return nil, err
	}
	if err := s.bindSystem(d.cfg.SystemUserDN, d.cfg.SystemUserPassword); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

// start sets up TLS as configured and starts go-ldap on the connection.
func (s *session) start(d *Directory) error {
	s.arm(d.dialTimeout)
	switch d.cfg.TransportSecurity {
	case TransportTLS:
		tc := tls.Client(s.raw, d.tlsConfig())
		if err := tc.HandshakeContext(s.ctx); err != nil {
			return classify(s.ctx, "TLS handshake with "+d.url, err)
		}
		s.conn = goldap.NewConn(tc, true)
		s.conn.Start()
	case TransportStartTLS:
		s.conn = goldap.NewConn(s.raw, false)
		s.conn.Start()
		if err := s.conn.StartTLS(d.tlsConfig()); err != nil {
			return s.fail("StartTLS with "+d.url, err)
		}
	default:
		s.conn = goldap.NewConn(s.raw, false)
		s.conn.Start()
	}
	return nil
}

// bindSystem binds as dn, or anonymously when dn is empty. A refused bind is
// a configuration error, never the user's invalid credentials.
func (s *session) bindSystem(dn, password string) error {
	s.arm(s.timeout)
	if dn == "" {
		if err := s.conn.UnauthenticatedBind(""); err != nil {
			return s.fail("anonymous bind", err)
		}
		return nil
	}
	if password == "" {
		return fmt.Errorf("%w: system user %q has no password", ErrMisconfigured, dn)
	}
	if err := s.conn.Bind(dn, password); err != nil {
		if code, ok := serverResult(err); ok && code == goldap.LDAPResultInvalidCredentials {
			return fmt.Errorf("%w: bind as system user %q: invalid credentials", ErrMisconfigured, dn)
		}
		return s.fail(fmt.Sprintf("bind as system user %q", dn), err)
	}
	return nil
}

// bindUser binds as the user's entry. The caller has refused an empty
// password already: an LDAP server takes a bind with a DN and no password
// as an unauthenticated bind and answers success.
func (s *session) bindUser(dn, password string) error {
	s.arm(s.timeout)
	err := s.conn.Bind(dn, password)
	if err == nil {
		return nil
	}
	if code, ok := serverResult(err); ok && !unavailableResults[code] && contextErr(s.ctx) == nil {
		return fmt.Errorf("%w: bind as %q: %w", ErrInvalidCredentials, dn, err)
	}
	return s.fail(fmt.Sprintf("bind as %q", dn), err)
}

// fail classifies an operation's error.
func (s *session) fail(op string, err error) error { return classify(s.ctx, op, err) }

// arm gives the next operation d from now, or less if the context's
// deadline comes first.
func (s *session) arm(d time.Duration) {
	deadline := time.Now().Add(d)
	if cd, ok := s.ctx.Deadline(); ok && cd.Before(deadline) {
		deadline = cd
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.aborted {
		_ = s.raw.SetDeadline(deadline) // fails only on a closed conn, which fails the operation too
	}
}

// abort runs when the context ends: a deadline in the past fails whatever
// the connection is doing now.
func (s *session) abort() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.aborted = true
	_ = s.raw.SetDeadline(time.Unix(1, 0))
}

// close stops watching the context and closes the connection; go-ldap's
// goroutines end with it.
func (s *session) close() {
	s.stop()
	if s.conn != nil {
		// Close waits for go-ldap's message loop, which answers at once,
		// and closes the socket.
		_ = s.conn.Close()
		return
	}
	_ = s.raw.Close()
}

// tlsConfig verifies the server's certificate against RootCAs (nil: the
// system's pool) for the configured host name, unless VerifyCertificates is
// false.
func (d *Directory) tlsConfig() *tls.Config {
	return &tls.Config{
		ServerName:         d.host,
		RootCAs:            d.cfg.RootCAs,
		InsecureSkipVerify: !d.cfg.VerifyCertificates, //nolint:gosec // the administrator's explicit choice, as in Graylog
		MinVersion:         tls.VersionTLS12,
	}
}
