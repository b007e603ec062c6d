package ldap

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"time"

	goldap "github.com/go-ldap/ldap/v3"
)

// Directory authenticates users against the directory of one Config. It
// keeps no connection between calls and is safe for concurrent use.
type Directory struct {
	cfg         Config
	invalid     error // cfg.Validate(), refused by Authenticate
	host        string
	addr        string // host:port; "" without a server
	url         string // for messages
	dialTimeout time.Duration
	timeout     time.Duration
	attrs       []string // the attributes a user search asks for
}

// New returns a Directory for cfg. An invalid cfg is accepted, because
// TestConnection works on partial configurations as Graylog's does;
// Authenticate and TestLogin refuse it with its validation error.
func New(cfg Config) *Directory {
	d := &Directory{
		cfg:         cfg,
		invalid:     cfg.Validate(),
		dialTimeout: cfg.DialTimeout,
		timeout:     cfg.Timeout,
		// "*" is every user attribute; entryUUID is operational and only
		// returned when asked for by name.
		attrs: []string{"*", cfg.uniqueIDAttribute()},
	}
	if d.dialTimeout <= 0 {
		d.dialTimeout = DefaultDialTimeout
	}
	if d.timeout <= 0 {
		d.timeout = DefaultTimeout
	}
	if len(cfg.Servers) > 0 {
		srv := cfg.Servers[0]
		d.host = srv.Host
		d.addr = net.JoinHostPort(srv.Host, strconv.Itoa(srv.Port))
		scheme := "ldap://"
		if cfg.TransportSecurity == TransportTLS {
			scheme = "ldaps://"
		}
		d.url = scheme + d.addr
	}
	return d
}

// URL is the directory's address as an LDAP URL, for messages.
func (d *Directory) URL() string { return d.url }

// Authenticate checks username and password against the directory: it
// binds as the system user, searches UserSearchBase for the single entry
// the pattern finds for the (escaped) username, and binds as that entry with
// password. An empty password is refused before anything is sent.
//
// The error wraps ErrInvalidCredentials, ErrUnknownUser (also for an
// ambiguous username, then with ErrAmbiguousUser), ErrUnavailable or
// ErrMisconfigured; it never contains a password.
func (d *Directory) Authenticate(ctx context.Context, username, password string) (*Entry, error) {
	if err := d.precheck(username); err != nil {
		return nil, err
	}
	if password == "" {
		// An LDAP bind with a DN and no password is an unauthenticated
		// bind, which servers answer with success.
		return nil, fmt.Errorf("%w: empty password", ErrInvalidCredentials)
	}
	s, err := d.open(ctx)
	if err != nil {
		return nil, err
	}
	defer s.close()
	e, err := s.findUser(d, username)
	if err != nil {
		return nil, err
	}
	if err := s.bindUser(e.DN, password); err != nil {
		return nil, err
	}
	return e, nil
}

// precheck refuses what cannot be searched for.
func (d *Directory) precheck(username string) error {
	if d.invalid != nil {
		return fmt.Errorf("%w: %w", ErrMisconfigured, d.invalid)
	}
	if username == "" {
		return fmt.Errorf("%w: empty username", ErrUnknownUser)
	}
	return nil
}

// findUser searches for the one entry of username. The size limit of 2 is
// enough to tell one match from several without reading a whole directory
// when the pattern is too broad.
func (s *session) findUser(d *Directory, username string) (*Entry, error) {
	s.arm(s.timeout)
	filter := UserFilter(d.cfg.UserSearchPattern, username)
	req := goldap.NewSearchRequest(d.cfg.UserSearchBase, goldap.ScopeWholeSubtree,
		goldap.NeverDerefAliases, 2, max(1, int(s.timeout/time.Second)), false,
		filter, d.attrs, nil)
	res, err := s.conn.Search(req)
	if err != nil && !(goldap.IsErrorWithCode(err, goldap.LDAPResultSizeLimitExceeded) && res != nil && len(res.Entries) > 1) {
		return nil, s.fail(fmt.Sprintf("search %s under %q", filter, d.cfg.UserSearchBase), err)
	}
	switch len(res.Entries) {
	case 0:
		return nil, fmt.Errorf("%w: no entry under %q matches %s", ErrUnknownUser, d.cfg.UserSearchBase, filter)
	case 1:
		return newEntry(d.cfg, res.Entries[0])
	default:
		return nil, fmt.Errorf("%w: %w: %s under %q", ErrUnknownUser, ErrAmbiguousUser, filter, d.cfg.UserSearchBase)
	}
}
