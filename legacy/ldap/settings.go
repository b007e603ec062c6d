// Package legacyldap keeps Graylog 3.x's LDAP settings alive on top of the
// 4.0 authentication backends: it reads the 3.x settings in their API and
// MongoDB shapes, converts them to a backend as Graylog 4.0's
// V20201103145400_LegacyAuthServiceMigration does, and serves the removed
// /system/ldap API from the one backend that stands for them.
package ldap

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// SettingsRequest is Graylog 3.x's LdapSettingsRequest, the body of
// PUT /system/ldap/settings. Default groups are role names.
type SettingsRequest struct {
	Enabled        bool   `json:"enabled"`
	SystemUsername string `json:"system_username"`
	// SystemPassword nil keeps the stored password.
	SystemPassword          *string           `json:"system_password"`
	SystemPasswordSet       bool              `json:"system_password_set"`
	LdapURI                 string            `json:"ldap_uri"`
	UseStartTLS             bool              `json:"use_start_tls"`
	TrustAllCertificates    bool              `json:"trust_all_certificates"`
	ActiveDirectory         bool              `json:"active_directory"`
	SearchBase              string            `json:"search_base"`
	SearchPattern           string            `json:"search_pattern"`
	DisplayNameAttribute    string            `json:"display_name_attribute"`
	DefaultGroup            string            `json:"default_group"`
	GroupMapping            map[string]string `json:"group_mapping"`
	GroupSearchBase         *string           `json:"group_search_base"`
	GroupIDAttribute        *string           `json:"group_id_attribute"`
	AdditionalDefaultGroups []string          `json:"additional_default_groups"`
	GroupSearchPattern      *string           `json:"group_search_pattern"`
}

// String hides the password, so that logging a request cannot leak it.
func (r SettingsRequest) String() string {
	type plain SettingsRequest
	c := plain(r)
	c.SystemPassword = hidden(c.SystemPassword)
	return fmt.Sprintf("%+v", c)
}

// GoString is String, for %#v.
func (r SettingsRequest) GoString() string { return r.String() }

// SettingsResponse is Graylog 3.x's LdapSettingsResponse, the body of
// GET /system/ldap/settings: the request without the password, role names
// for role ids. The field order is Graylog's.
type SettingsResponse struct {
	Enabled                 bool              `json:"enabled"`
	SystemUsername          string            `json:"system_username"`
	SystemPasswordSet       bool              `json:"system_password_set"`
	LdapURI                 string            `json:"ldap_uri"`
	UseStartTLS             bool              `json:"use_start_tls"`
	TrustAllCertificates    bool              `json:"trust_all_certificates"`
	ActiveDirectory         bool              `json:"active_directory"`
	SearchBase              string            `json:"search_base"`
	SearchPattern           string            `json:"search_pattern"`
	DisplayNameAttribute    string            `json:"display_name_attribute"`
	DefaultGroup            string            `json:"default_group"`
	GroupMapping            map[string]string `json:"group_mapping"`
	GroupSearchBase         string            `json:"group_search_base"`
	GroupIDAttribute        string            `json:"group_id_attribute"`
	AdditionalDefaultGroups []string          `json:"additional_default_groups"`
	GroupSearchPattern      string            `json:"group_search_pattern"`
}

// EmptyDisabled is Graylog 3.x's LdapSettingsResponse.emptyDisabled(), the
// answer when nothing is configured.
func EmptyDisabled() SettingsResponse {
	return SettingsResponse{LdapURI: DefaultURI, GroupMapping: map[string]string{}, AdditionalDefaultGroups: []string{}}
}

// DefaultURI is Graylog 3.x's ldap_uri before anything is saved; the 3.3
// form starts from it.
const DefaultURI = "ldap://localhost:389"

// Document is one document of Graylog 3.x's ldap_settings collection, by
// its stored field names. Role references are role ids; the system
// password is AES-encrypted (see DecryptLegacyPassword).
type Document struct {
	ID                      string   `json:"-"`
	Enabled                 bool     `json:"enabled"`
	SystemUsername          string   `json:"system_username"`
	SystemPassword          string   `json:"system_password"`
	SystemPasswordSalt      string   `json:"system_password_salt"`
	LdapURI                 string   `json:"ldap_uri"`
	UseStartTLS             bool     `json:"use_start_tls"`
	TrustAllCertificates    bool     `json:"trust_all_certificates"`
	ActiveDirectory         bool     `json:"active_directory"`
	SearchBase              string   `json:"search_base"`
	PrincipalSearchPattern  string   `json:"principal_search_pattern"`
	UsernameAttribute       string   `json:"username_attribute"`
	DefaultGroup            string   `json:"default_group"`
	AdditionalDefaultGroups []string `json:"additional_default_groups"`
	// GroupMapping maps LDAP groups to role ids.
	GroupMapping       map[string]string `json:"group_mapping"`
	GroupSearchBase    string            `json:"group_search_base"`
	GroupIDAttribute   string            `json:"group_id_attribute"`
	GroupSearchPattern string            `json:"group_search_pattern"`
	// RolesByName is set for settings read in the API shape: the groups
	// and the mapping's values are then role names, not ids.
	RolesByName bool `json:"-"`
}

// String hides the encrypted password and its salt.
func (d Document) String() string {
	type plain Document
	c := plain(d)
	c.SystemPassword = hiddenString(c.SystemPassword)
	return fmt.Sprintf("%+v", c)
}

// redacted stands for a secret in formatted values.
const redacted = "<redacted>"

// hidden returns redacted in place of a set secret.
func hidden(secret *string) *string {
	if secret == nil {
		return nil
	}
	r := redacted
	return &r
}

// hiddenString returns redacted in place of a non-empty secret.
func hiddenString(secret string) string {
	if secret == "" {
		return ""
	}
	return redacted
}

// GoString is String, for %#v.
func (d Document) GoString() string { return d.String() }

// documentJSON adds what mongoexport and Graylog's storage put around the
// fields: an _id that is {"$oid":…} or a string, and the group mapping as
// Graylog 3.x stores it, a list of {"group","role_id"} (MongoDB keys cannot
// hold the dots of a DN), besides the older plain object.
type documentJSON struct {
	ID               json.RawMessage `json:"_id"`
	GroupMappingList []struct {
		Group  string `json:"group"`
		RoleID string `json:"role_id"`
	} `json:"group_mapping_list"`
	plainDocument
}

type plainDocument Document

// UnmarshalJSON reads a stored document, in mongoexport's extended JSON or
// as plain JSON.
func (d *Document) UnmarshalJSON(b []byte) error {
	var j documentJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*d = Document(j.plainDocument)
	id, err := parseObjectID(j.ID)
	if err != nil {
		return err
	}
	d.ID = id
	for _, m := range j.GroupMappingList {
		if d.GroupMapping == nil {
			d.GroupMapping = map[string]string{}
		}
		d.GroupMapping[m.Group] = m.RoleID
	}
	return nil
}

// parseObjectID reads an _id: {"$oid":"…"}, a string, or nothing.
func parseObjectID(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return "", nil
	}
	var s string
	if raw[0] == '"' {
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", fmt.Errorf("_id: %w", err)
		}
		return s, nil
	}
	var oid struct {
		OID string `json:"$oid"`
	}
	if err := json.Unmarshal(raw, &oid); err != nil {
		return "", fmt.Errorf("_id: %w", err)
	}
	if oid.OID == "" {
		return "", fmt.Errorf(`_id: want a string or {"$oid":…}`)
	}
	return oid.OID, nil
}
