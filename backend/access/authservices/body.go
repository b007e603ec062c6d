package authservices

import (
	"strings"

	"github.com/loggate/loggate/auth/ldap"
	"github.com/loggate/loggate/router/api"
)

// backendBody is the request body of a backend write. Properties with a
// default are pointers, so that absent and null keep the default.
type backendBody struct {
	// ID is read and ignored: a new backend gets a new id and an update
	// keeps the path's, as Graylog's "the path ID wins".
	ID           *string     `json:"id"`
	Title        string      `json:"title"`
	Description  *string     `json:"description"`
	DefaultRoles []string    `json:"default_roles"`
	Config       *configBody `json:"config"`
}

type configBody struct {
	Type                  string          `json:"type"`
	Servers               []ldap.Server   `json:"servers"`
	TransportSecurity     *string         `json:"transport_security"`
	VerifyCertificates    *bool           `json:"verify_certificates"`
	SystemUserDN          *string         `json:"system_user_dn"`
	SystemUserPassword    *EncryptedValue `json:"system_user_password"`
	UserSearchBase        *string         `json:"user_search_base"`
	UserSearchPattern     *string         `json:"user_search_pattern"`
	UserUniqueIDAttribute *string         `json:"user_unique_id_attribute"`
	UserNameAttribute     *string         `json:"user_name_attribute"`
	UserFullNameAttribute *string         `json:"user_full_name_attribute"`
}

// parseBackend decodes a backend write, strictly as Graylog's model does.
// It does not validate: see Service.validate.
func parseBackend(body []byte) (BackendInput, error) {
	var b backendBody
	if err := api.DecodeBytes(body, &b, true); err != nil {
		return BackendInput{}, err
	}
	return b.input(), nil
}

func (b backendBody) input() BackendInput {
	in := BackendInput{Title: b.Title, DefaultRoles: dedupe(b.DefaultRoles)}
	if b.Description != nil {
		in.Description = *b.Description
	}
	if b.Config != nil {
		in.Config, in.Password = b.Config.config()
	}
	return in
}

// config starts from the defaults of the config's type and applies what the
// body sets.
func (c configBody) config() (ldap.Config, EncryptedValue) {
	cfg := ldap.Defaults(c.Type)
	cfg.Servers = c.Servers
	set := func(dst *string, v *string) {
		if v != nil {
			*dst = *v
		}
	}
	set(&cfg.TransportSecurity, c.TransportSecurity)
	set(&cfg.SystemUserDN, c.SystemUserDN)
	set(&cfg.UserSearchBase, c.UserSearchBase)
	set(&cfg.UserSearchPattern, c.UserSearchPattern)
	set(&cfg.UserNameAttribute, c.UserNameAttribute)
	set(&cfg.UserFullNameAttribute, c.UserFullNameAttribute)
	// Active Directory always identifies users by objectGUID; the
	// property, which its Graylog config lacks, is ignored.
	if c.Type != ldap.TypeActiveDirectory {
		set(&cfg.UserUniqueIDAttribute, c.UserUniqueIDAttribute)
	}
	if c.VerifyCertificates != nil {
		cfg.VerifyCertificates = *c.VerifyCertificates
	}
	var pw EncryptedValue
	if c.SystemUserPassword != nil {
		pw = *c.SystemUserPassword
	}
	return cfg, pw
}

// dedupe drops repeated ids, keeping the first: Graylog keeps default roles
// in a set.
func dedupe(ids []string) []string {
	out := make([]string, 0, len(ids))
	seen := make(map[string]bool, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

func blank(s string) bool { return strings.TrimSpace(s) == "" }

// failureBody is Graylog's ValidationResult, the body of a
// ValidationFailureException: no "type", every message of a field in a list.
type failureBody struct {
	Failed       bool                `json:"failed"`
	Errors       map[string][]string `json:"errors"`
	ErrorContext map[string][]string `json:"error_context"`
}

func newFailureBody(v *api.ValidationError) failureBody {
	return failureBody{Failed: true, Errors: v.Fields, ErrorContext: map[string][]string{}}
}
