package ldap

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/bson/primitive"

	"github.com/loggate/loggate/auth/ldap"
	"github.com/loggate/loggate/backend/access/authservices"
	"github.com/loggate/loggate/router/api"
)

// Descriptions of migrated backends, Graylog 4.0's.
const (
	DescriptionLDAP = "Migrated from legacy LDAP configuration."
	DescriptionAD   = "Migrated from legacy Active Directory configuration."
)

// Default ports when ldap_uri names none, those of the URI schemes.
const (
	portLDAP  = 389
	portLDAPS = 636
)

// ParseURI reads a 3.x ldap_uri into the server and whether it is ldaps://.
func ParseURI(uri string) (ldap.Server, bool, error) {
	u, err := url.Parse(strings.TrimSpace(uri))
	if err != nil {
		return ldap.Server{}, false, api.Invalidf("ldap_uri", "Invalid LDAP URI %q.", uri)
	}
	var tls bool
	switch strings.ToLower(u.Scheme) {
	case "ldap", "":
		// 3.3's form sends "//host:port/" when the scheme field is left
		// alone, and 3.3 connected to it over plain LDAP.
	case "ldaps":
		tls = true
	default:
		return ldap.Server{}, false, api.Invalidf("ldap_uri", "Invalid LDAP URI %q: the scheme must be ldap or ldaps.", uri)
	}
	host := u.Hostname()
	if host == "" {
		return ldap.Server{}, false, api.Invalidf("ldap_uri", "Invalid LDAP URI %q: no host.", uri)
	}
	port := portLDAP
	if tls {
		port = portLDAPS
	}
	if p := u.Port(); p != "" {
		if port, err = strconv.Atoi(p); err != nil || port < 1 || port > 65535 {
			return ldap.Server{}, false, api.Invalidf("ldap_uri", "Invalid LDAP URI %q: bad port.", uri)
		}
	}
	return ldap.Server{Host: host, Port: port}, tls, nil
}

// FormatURI is the ldap_uri of a backend's server.
func FormatURI(c ldap.Config) string {
	if len(c.Servers) == 0 {
		return ""
	}
	scheme := "ldap://"
	if c.TransportSecurity == ldap.TransportTLS {
		scheme = "ldaps://"
	}
	return scheme + net.JoinHostPort(c.Servers[0].Host, strconv.Itoa(c.Servers[0].Port))
}

// Title is the title Graylog 4.0's migration gives the backend of d.
func Title(d Document) string {
	if d.ActiveDirectory {
		return "Active Directory - " + d.LdapURI
	}
	return "LDAP - " + d.LdapURI
}

// ToConfig converts the connection and user search settings of d to a 4.0
// directory configuration, as V20201103145400_LegacyAuthServiceMigration
// does. The system password is left to the caller.
func ToConfig(d Document) (ldap.Config, error) {
	srv, tls, err := ParseURI(d.LdapURI)
	if err != nil {
		return ldap.Config{}, err
	}
	typ := ldap.TypeLDAP
	if d.ActiveDirectory {
		typ = ldap.TypeActiveDirectory
	}
	c := ldap.Defaults(typ)
	c.Servers = []ldap.Server{srv}
	switch {
	case d.UseStartTLS:
		c.TransportSecurity = ldap.TransportStartTLS
	case tls:
		c.TransportSecurity = ldap.TransportTLS
	default:
		c.TransportSecurity = ldap.TransportNone
	}
	c.VerifyCertificates = !d.TrustAllCertificates
	c.SystemUserDN = d.SystemUsername
	c.UserSearchBase = d.SearchBase
	c.UserSearchPattern = d.PrincipalSearchPattern
	c.UserFullNameAttribute = d.UsernameAttribute
	c.UserNameAttribute = "uid"
	if d.ActiveDirectory {
		c.UserNameAttribute = "sAMAccountName"
	}
	return c, nil
}

// ToBackend converts d to the backend Graylog 4.0's migration creates:
// title and description naming its origin, the config of ToConfig, the
// given system password and, as default roles, d's default group and
// additional default groups that are valid ObjectIds for which roleExists
// is true.
func ToBackend(d Document, password authservices.EncryptedValue, roleExists func(id string) bool) (authservices.BackendInput, error) {
	cfg, err := ToConfig(d)
	if err != nil {
		return authservices.BackendInput{}, err
	}
	in := authservices.BackendInput{
		Title: Title(d), Description: DescriptionLDAP, Config: cfg, Password: password,
		DefaultRoles: []string{},
	}
	if d.ActiveDirectory {
		in.Description = DescriptionAD
	}
	seen := map[string]bool{}
	for _, id := range append([]string{d.DefaultGroup}, d.AdditionalDefaultGroups...) {
		if _, err := primitive.ObjectIDFromHex(id); err != nil || seen[id] || !roleExists(id) {
			continue
		}
		seen[id] = true
		in.DefaultRoles = append(in.DefaultRoles, id)
	}
	return in, nil
}

// fromBackend renders a backend's configuration in the 3.x API shape,
// without the parts a backend does not hold (roles, groups, enabled).
func fromBackend(c ldap.Config, passwordSet bool) SettingsResponse {
	r := EmptyDisabled()
	r.SystemUsername = c.SystemUserDN
	r.SystemPasswordSet = passwordSet
	r.LdapURI = FormatURI(c)
	r.UseStartTLS = c.TransportSecurity == ldap.TransportStartTLS
	r.TrustAllCertificates = !c.VerifyCertificates
	r.ActiveDirectory = c.Type == ldap.TypeActiveDirectory
	r.SearchBase = c.UserSearchBase
	r.SearchPattern = c.UserSearchPattern
	r.DisplayNameAttribute = c.UserFullNameAttribute
	return r
}

// docError names the document a conversion failure is about.
func docError(d Document, err error) error {
	if d.ID == "" {
		return fmt.Errorf("ldap_settings document: %w", err)
	}
	return fmt.Errorf("ldap_settings document %s: %w", d.ID, err)
}
