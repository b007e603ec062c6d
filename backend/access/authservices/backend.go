package authservices

import (
	"encoding/json"
	"fmt"

	"github.com/loggate/loggate/auth/ldap"
	"github.com/loggate/loggate/router/api"
)

// Backend is a stored authentication service backend, Graylog 4.0's
// AuthServiceBackendDTO.
type Backend struct {
	ID           string
	Title        string
	Description  string
	DefaultRoles []string // role ids
	// Config is the directory configuration. Its SystemUserPassword is
	// always empty: the password stays sealed until Active needs it.
	Config ldap.Config
	// PasswordSet reports whether a system user password is stored.
	PasswordSet bool

	sealed string // the sealed system user password, or ""
}

// MarshalJSON writes Graylog's backend JSON, with the password as
// {"is_set":bool} and, for Active Directory, no unique id attribute.
func (b Backend) MarshalJSON() ([]byte, error) {
	return api.Marshal(backendJSON[passwordState]{
		ID: b.ID, Title: b.Title, Description: b.Description, DefaultRoles: nonNil(b.DefaultRoles),
		Config: newConfigJSON(b.Config, passwordState{IsSet: b.PasswordSet}),
	})
}

// BackendInput is a backend as a client writes it.
type BackendInput struct {
	Title        string
	Description  string
	DefaultRoles []string
	// Config is the directory configuration, Graylog's defaults of its type
	// filled in; its SystemUserPassword is ignored in favour of Password.
	Config   ldap.Config
	Password EncryptedValue
}

// backendJSON is a backend's JSON, on the wire (P = passwordState) and in
// the store (P = *sealedValue).
type backendJSON[P any] struct {
	ID           string        `json:"id"`
	Title        string        `json:"title"`
	Description  string        `json:"description"`
	DefaultRoles []string      `json:"default_roles"`
	Config       configJSON[P] `json:"config"`
	CreatedAt    *api.Time     `json:"created_at,omitempty"`
	UpdatedAt    *api.Time     `json:"updated_at,omitempty"`
}

type configJSON[P any] struct {
	Type                  string        `json:"type"`
	Servers               []ldap.Server `json:"servers"`
	TransportSecurity     string        `json:"transport_security"`
	VerifyCertificates    bool          `json:"verify_certificates"`
	SystemUserDN          string        `json:"system_user_dn"`
	SystemUserPassword    P             `json:"system_user_password"`
	UserSearchBase        string        `json:"user_search_base"`
	UserSearchPattern     string        `json:"user_search_pattern"`
	UserUniqueIDAttribute *string       `json:"user_unique_id_attribute,omitempty"`
	UserNameAttribute     string        `json:"user_name_attribute"`
	UserFullNameAttribute string        `json:"user_full_name_attribute"`
}

func newConfigJSON[P any](c ldap.Config, password P) configJSON[P] {
	out := configJSON[P]{
		Type: c.Type, Servers: nonNil(c.Servers), TransportSecurity: c.TransportSecurity,
		VerifyCertificates: c.VerifyCertificates, SystemUserDN: c.SystemUserDN, SystemUserPassword: password,
		UserSearchBase: c.UserSearchBase, UserSearchPattern: c.UserSearchPattern,
		UserNameAttribute: c.UserNameAttribute, UserFullNameAttribute: c.UserFullNameAttribute,
	}
	// Graylog's Active Directory config has no such property; objectGUID
	// is implied.
	if c.Type != ldap.TypeActiveDirectory {
		attr := c.UserUniqueIDAttribute
		out.UserUniqueIDAttribute = &attr
	}
	return out
}

func (c configJSON[P]) config() ldap.Config {
	out := ldap.Config{
		Type: c.Type, Servers: c.Servers, TransportSecurity: c.TransportSecurity,
		VerifyCertificates: c.VerifyCertificates, SystemUserDN: c.SystemUserDN,
		UserSearchBase: c.UserSearchBase, UserSearchPattern: c.UserSearchPattern,
		UserNameAttribute: c.UserNameAttribute, UserFullNameAttribute: c.UserFullNameAttribute,
	}
	if c.UserUniqueIDAttribute != nil {
		out.UserUniqueIDAttribute = *c.UserUniqueIDAttribute
	}
	return out
}

// document is the stored form of b.
func (b Backend) document(created, updated api.Time) ([]byte, error) {
	var sealed *sealedValue
	if b.sealed != "" {
		sealed = &sealedValue{EncryptedValue: b.sealed}
	}
	return api.Marshal(backendJSON[*sealedValue]{
		ID: b.ID, Title: b.Title, Description: b.Description, DefaultRoles: nonNil(b.DefaultRoles),
		Config:    newConfigJSON(b.Config, sealed),
		CreatedAt: &created, UpdatedAt: &updated,
	})
}

// stored is a decoded backend document with its timestamps.
type stored struct {
	Backend
	created api.Time
}

func decodeBackend(doc []byte) (stored, error) {
	var d backendJSON[*sealedValue]
	if err := json.Unmarshal(doc, &d); err != nil {
		return stored{}, fmt.Errorf("stored backend: %w", err)
	}
	b := Backend{
		ID: d.ID, Title: d.Title, Description: d.Description, DefaultRoles: nonNil(d.DefaultRoles),
		Config: d.Config.config(),
	}
	if p := d.Config.SystemUserPassword; p != nil && p.EncryptedValue != "" {
		b.sealed, b.PasswordSet = p.EncryptedValue, true
	}
	out := stored{Backend: b}
	if d.CreatedAt != nil {
		out.created = *d.CreatedAt
	}
	return out, nil
}

// nonNil makes a nil slice an empty one, which clients read as [] not null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
