// Package ldap authenticates users against an LDAP or Active Directory
// server, as Graylog 4.0's "ldap" and "active-directory" authentication
// service backends do: bind as a system user, find the user's entry with a
// search filter, then bind as that entry with the user's password.
//
// A Directory holds no connection between calls: each authentication dials,
// works and closes, as Graylog does, so a directory that restarts or
// changes needs nothing from the caller.
package ldap

import (
	"crypto/x509"
	"errors"
	"fmt"
	"strings"
	"time"

	goldap "github.com/go-ldap/ldap/v3"
	"github.com/loggate/loggate/router/api"
)

// Backend types, the values of Config.Type.
const (
	TypeLDAP            = "ldap"
	TypeActiveDirectory = "active-directory"
)

// Transport security modes, the values of Config.TransportSecurity.
const (
	TransportNone     = "none"
	TransportTLS      = "tls"       // ldaps://
	TransportStartTLS = "start_tls" // ldap:// upgraded with the StartTLS operation
)

// Defaults for the timeouts, used where Config leaves them zero.
const (
	DefaultDialTimeout = 5 * time.Second
	DefaultTimeout     = 5 * time.Second
)

// The Active Directory defaults of Graylog 4.0's ADAuthServiceBackendConfig.
const (
	ADUserSearchPattern     = "(&(objectClass=user)(|(userPrincipalName={0})(sAMAccountName={0})))"
	ADUserNameAttribute     = "userPrincipalName"
	ADUserFullNameAttribute = "displayName"
	// ADUniqueIDAttribute is always the unique id of an AD user; an AD
	// config has no setting for it.
	ADUniqueIDAttribute = "objectGUID"
)

// LDAPUniqueIDAttribute is the default Config.UserUniqueIDAttribute of an
// LDAP backend.
const LDAPUniqueIDAttribute = "entryUUID"

// UsernamePlaceholder stands for the escaped username in
// Config.UserSearchPattern.
const UsernamePlaceholder = "{0}"

// Server is one directory server address.
type Server struct {
	Host string `json:"host"`
	Port int    `json:"port"`
}

// Config is the connection and search configuration of a Graylog 4.0 LDAP
// or Active Directory backend. The JSON names are Graylog's; the fields that
// have no plain JSON form in Graylog (the encrypted system password, trust
// anchors, timeouts) are left to the caller.
type Config struct {
	Type               string   `json:"type"`
	Servers            []Server `json:"servers"`
	TransportSecurity  string   `json:"transport_security"`
	VerifyCertificates bool     `json:"verify_certificates"`
	// SystemUserDN is the DN the searches bind as; empty means an
	// anonymous bind.
	SystemUserDN string `json:"system_user_dn"`
	// SystemUserPassword is the plain password of SystemUserDN. Keeping it
	// encrypted at rest is the caller's job; this package never puts it
	// in an error.
	SystemUserPassword string `json:"-"`
	UserSearchBase     string `json:"user_search_base"`
	// UserSearchPattern is an LDAP filter in which {0} stands for the
	// username, escaped before it is put in.
	UserSearchPattern string `json:"user_search_pattern"`
	// UserUniqueIDAttribute names the attribute that identifies a user for
	// good (LDAP only; Active Directory always uses objectGUID).
	UserUniqueIDAttribute string `json:"user_unique_id_attribute,omitempty"`
	UserNameAttribute     string `json:"user_name_attribute"`
	UserFullNameAttribute string `json:"user_full_name_attribute"`

	// RootCAs verifies the server's certificate; nil means the system's
	// trust store.
	RootCAs *x509.CertPool `json:"-"`
	// DialTimeout bounds connecting, TLS handshake included; Timeout bounds
	// each LDAP operation. Zero means DefaultDialTimeout and DefaultTimeout.
	DialTimeout time.Duration `json:"-"`
	Timeout     time.Duration `json:"-"`
}

// Defaults returns the configuration a new backend of the given type starts
// from, before the request's fields are applied: certificates are verified,
// an LDAP backend identifies users by entryUUID and an Active Directory
// backend gets Graylog's search pattern and attribute names.
func Defaults(typ string) Config {
	c := Config{Type: typ, VerifyCertificates: true}
	switch typ {
	case TypeActiveDirectory:
		c.UserSearchPattern = ADUserSearchPattern
		c.UserNameAttribute = ADUserNameAttribute
		c.UserFullNameAttribute = ADUserFullNameAttribute
	case TypeLDAP:
		c.UserUniqueIDAttribute = LDAPUniqueIDAttribute
	}
	return c
}

// Validate checks c as Graylog does before it stores a backend. It returns
// nil or an *api.ValidationError naming the fields that failed by their JSON
// names.
func (c Config) Validate() error {
	var v api.ValidationError
	c.ValidateInto(&v)
	return v.Err()
}

// ValidateInto adds c's failures to v, for callers that validate the fields
// around the config (a backend's title) in the same answer.
func (c Config) ValidateInto(v *api.ValidationError) {
	switch c.Type {
	case TypeLDAP, TypeActiveDirectory:
	default:
		v.Add("type", "Unknown backend type %q; must be %q or %q.", c.Type, TypeLDAP, TypeActiveDirectory)
	}
	switch {
	case len(c.Servers) == 0:
		v.Add("servers", "Server list cannot be empty.")
	case len(c.Servers) > 1:
		v.Add("servers", "Currently only a single server URL is supported.")
	}
	for _, s := range c.Servers {
		if blank(s.Host) {
			v.Add("servers", "Server host cannot be empty.")
		}
		if s.Port < 1 || s.Port > 65535 {
			v.Add("servers", "Server port must be between 1 and 65535.")
		}
	}
	switch c.TransportSecurity {
	case TransportNone, TransportTLS, TransportStartTLS:
	default:
		v.Add("transport_security", "Transport security must be %q, %q or %q.", TransportNone, TransportTLS, TransportStartTLS)
	}
	if blank(c.UserSearchBase) {
		v.Add("user_search_base", "User search base cannot be empty.")
	}
	if msg := checkPattern(c.UserSearchPattern); msg != "" {
		v.Add("user_search_pattern", "%s", msg)
	}
	if c.Type == TypeLDAP && blank(c.UserUniqueIDAttribute) {
		v.Add("user_unique_id_attribute", "User unique ID attribute cannot be empty.")
	}
	if blank(c.UserNameAttribute) {
		v.Add("user_name_attribute", "User name attribute cannot be empty.")
	}
	if blank(c.UserFullNameAttribute) {
		v.Add("user_full_name_attribute", "User full name attribute cannot be empty.")
	}
}

// checkPattern returns what is wrong with a user search pattern, or "".
func checkPattern(p string) string {
	switch {
	case blank(p):
		return "User search pattern cannot be empty."
	case !strings.Contains(p, UsernamePlaceholder):
		return "User search pattern must contain the username placeholder " + UsernamePlaceholder + "."
	}
	if _, err := goldap.CompileFilter(UserFilter(p, "user")); err != nil {
		// Show go-ldap's reason without its result code, which means
		// nothing to the administrator reading the form.
		var le *goldap.Error
		if errors.As(err, &le) && le.Err != nil {
			err = le.Err
		}
		return "User search pattern is not a valid LDAP filter: " + strings.TrimPrefix(err.Error(), "ldap: ") + "."
	}
	return ""
}

// UserFilter puts username into pattern in place of every {0}, escaped as
// RFC 4515 requires, so that no username can change the filter's structure:
// "*)(uid=*" matches only a user literally named so.
func UserFilter(pattern, username string) string {
	return strings.ReplaceAll(pattern, UsernamePlaceholder, goldap.EscapeFilter(username))
}

// uniqueIDAttribute is the attribute that identifies a user.
func (c Config) uniqueIDAttribute() string {
	if c.Type == TypeActiveDirectory {
		return ADUniqueIDAttribute
	}
	return c.UserUniqueIDAttribute
}

func blank(s string) bool { return strings.TrimSpace(s) == "" }

// String formats c for logs and error messages with the system password
// redacted; %v and %+v use it.
func (c Config) String() string { return fmt.Sprintf("%+v", c.redacted()) }

// GoString is String for %#v.
func (c Config) GoString() string { return fmt.Sprintf("%#v", c.redacted()) }

// redactedConfig is Config without its methods, so formatting it does not
// recurse into String.
type redactedConfig Config

func (c Config) redacted() redactedConfig {
	if c.SystemUserPassword != "" {
		c.SystemUserPassword = "<redacted>"
	}
	return redactedConfig(c)
}
