package ldap

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"sort"
	"strconv"
	"strings"
	"time"

	goldap "github.com/go-ldap/ldap/v3"

	"github.com/loggate/loggate/auth/ldap"
)

// defaultGroupPattern finds the usual LDAP group classes when the 3.x
// settings name no group search pattern.
const defaultGroupPattern = "(|(objectClass=groupOfNames)(objectClass=groupOfUniqueNames)(objectClass=posixGroup)(objectClass=group))"

// groupPageSize pages group searches; Active Directory caps unpaged ones.
const groupPageSize = 500

// groupFilter is the group search filter: pattern (or the default) and,
// for one user's groups, membership by DN or uid, as Graylog 3.x's
// LdapConnector.findGroups.
func groupFilter(pattern, memberDN, uid string) string {
	if strings.TrimSpace(pattern) == "" {
		pattern = defaultGroupPattern
	}
	if !strings.HasPrefix(pattern, "(") {
		pattern = "(" + pattern + ")"
	}
	if memberDN == "" {
		return pattern
	}
	dn := goldap.EscapeFilter(memberDN)
	member := "(|(member=" + dn + ")(uniqueMember=" + dn + ")"
	if uid != "" {
		member += "(memberUid=" + goldap.EscapeFilter(uid) + ")"
	}
	return "(&" + pattern + member + "))"
}

// searchGroups connects as cfg's system user and returns the values of
// idAttr of the entries under base matching filter, sorted.
func searchGroups(ctx context.Context, cfg ldap.Config, base, filter, idAttr string) ([]string, error) {
	if len(cfg.Servers) == 0 {
		return nil, fmt.Errorf("no LDAP server configured")
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = ldap.DefaultTimeout
	}
	dialTimeout := cfg.DialTimeout
	if dialTimeout <= 0 {
		dialTimeout = ldap.DefaultDialTimeout
	}
	srv := cfg.Servers[0]
	addr := net.JoinHostPort(srv.Host, strconv.Itoa(srv.Port))
	tlsConfig := &tls.Config{
		ServerName: srv.Host, RootCAs: cfg.RootCAs, MinVersion: tls.VersionTLS12,
		InsecureSkipVerify: !cfg.VerifyCertificates, //nolint:gosec // the administrator's explicit choice, as in Graylog
	}
	url := "ldap://" + addr
	if cfg.TransportSecurity == ldap.TransportTLS {
		url = "ldaps://" + addr
	}
	conn, err := goldap.DialURL(url, goldap.DialWithDialer(&net.Dialer{Timeout: dialTimeout}), goldap.DialWithTLSConfig(tlsConfig))
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", url, err)
	}
	defer conn.Close()
	// The connection dies with the request.
	stop := context.AfterFunc(ctx, func() { _ = conn.Close() })
	defer stop()
	conn.SetTimeout(timeout)
	if cfg.TransportSecurity == ldap.TransportStartTLS {
		if err := conn.StartTLS(tlsConfig); err != nil {
			return nil, fmt.Errorf("StartTLS with %s: %w", url, err)
		}
	}
	if cfg.SystemUserDN != "" {
		if err := conn.Bind(cfg.SystemUserDN, cfg.SystemUserPassword); err != nil {
			return nil, fmt.Errorf("bind as %s: %w", cfg.SystemUserDN, err)
		}
	}
	req := goldap.NewSearchRequest(base, goldap.ScopeWholeSubtree, goldap.NeverDerefAliases, 0, int(timeout/time.Second),
		false, filter, []string{idAttr}, nil)
	res, err := conn.SearchWithPaging(req, groupPageSize)
	if err != nil {
		return nil, fmt.Errorf("search %s for groups: %w", base, err)
	}
	groups := []string{}
	seen := map[string]bool{}
	for _, e := range res.Entries {
		for _, v := range e.GetEqualFoldAttributeValues(idAttr) {
			if !seen[v] {
				seen[v] = true
				groups = append(groups, v)
			}
		}
	}
	sort.Strings(groups)
	return groups, nil
}
