package ldap_test

import (
	"fmt"
	"strings"
	"testing"

	legacyldap "github.com/loggate/loggate/legacy/ldap"
)

const mongoexportDoc = `{"_id":{"$oid":"5c9a1b2c3d4e5f6a7b8c9d0e"},"enabled":true,"system_username":"cn=admin,dc=example,dc=org",
"system_password":"00ff","system_password_salt":"a1b2c3d4e5f60718","ldap_uri":"ldap://ldap.example.org:389","use_start_tls":true,
"trust_all_certificates":false,"active_directory":false,"search_base":"ou=people,dc=example,dc=org",
"principal_search_pattern":"(uid={0})","username_attribute":"cn","default_group":"5f1f0f0f0f0f0f0f0f0f0f01",
"additional_default_groups":["5f1f0f0f0f0f0f0f0f0f0f02"],
"group_mapping_list":[{"group":"cn=admins,ou=groups,dc=example,dc=org","role_id":"5f1f0f0f0f0f0f0f0f0f0f02"}],
"group_search_base":"ou=groups,dc=example,dc=org","group_id_attribute":"cn","group_search_pattern":"(objectClass=groupOfNames)"}`

func TestParseDocuments(t *testing.T) {
	apiShape := `{"enabled":true,"system_username":"","system_password_set":false,"ldap_uri":"ldap://h:389","use_start_tls":false,
"trust_all_certificates":false,"active_directory":false,"search_base":"dc=x","search_pattern":"(uid={0})","display_name_attribute":"cn",
"default_group":"Reader","group_mapping":{"g":"Admin"},"group_search_base":"","group_id_attribute":"","additional_default_groups":[],"group_search_pattern":""}`
	tests := []struct {
		name  string
		in    string
		check func(t *testing.T, ds []legacyldap.Document)
	}{
		{"mongoexport", mongoexportDoc, func(t *testing.T, ds []legacyldap.Document) {
			d := ds[0]
			if len(ds) != 1 || d.ID != "5c9a1b2c3d4e5f6a7b8c9d0e" || !d.UseStartTLS || d.PrincipalSearchPattern != "(uid={0})" ||
				d.GroupMapping["cn=admins,ou=groups,dc=example,dc=org"] != "5f1f0f0f0f0f0f0f0f0f0f02" || d.RolesByName ||
				d.AdditionalDefaultGroups[0] != "5f1f0f0f0f0f0f0f0f0f0f02" || d.SystemPasswordSalt != "a1b2c3d4e5f60718" {
				t.Errorf("parsed %+v", ds)
			}
		}},
		{"array-and-string-id", `[` + mongoexportDoc + `,{"_id":"abc","enabled":false,"ldap_uri":"ldap://x","principal_search_pattern":"p","group_mapping":{"g":"r"}}]`,
			func(t *testing.T, ds []legacyldap.Document) {
				if len(ds) != 2 || ds[1].ID != "abc" || ds[1].Enabled || ds[1].GroupMapping["g"] != "r" {
					t.Errorf("parsed %+v", ds)
				}
			}},
		{"lines", mongoexportDoc + "\n" + strings.Replace(mongoexportDoc, "5c9a", "6c9a", 1) + "\n", func(t *testing.T, ds []legacyldap.Document) {
			if len(ds) != 2 || ds[1].ID != "6c9a1b2c3d4e5f6a7b8c9d0e" {
				t.Errorf("parsed %+v", ds)
			}
		}},
		{"api-shape", apiShape, func(t *testing.T, ds []legacyldap.Document) {
			d := ds[0]
			if !d.RolesByName || d.DefaultGroup != "Reader" || d.PrincipalSearchPattern != "(uid={0})" || d.UsernameAttribute != "cn" ||
				!strings.HasPrefix(d.ID, "sha256:") || d.GroupMapping["g"] != "Admin" {
				t.Errorf("parsed %+v", d)
			}
			again, err := legacyldap.ParseDocuments([]byte(apiShape))
			if err != nil || again[0].ID != d.ID {
				t.Errorf("fingerprint not stable: %v %v", again, err)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ds, err := legacyldap.ParseDocuments([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, ds)
		})
	}
}

func TestParseDocumentsRejects(t *testing.T) {
	for _, in := range []string{"", "  ", "null", "[null]", "42", `{"enabled":true}`, `{"_id":{"x":1},"ldap_uri":"ldap://h"}`, `{"ldap_uri":"ldap://h"`, `[{"ldap_uri":1}]`} {
		if ds, err := legacyldap.ParseDocuments([]byte(in)); err == nil {
			t.Errorf("ParseDocuments(%q) = %+v, want an error", in, ds)
		}
	}
}

func TestDocumentStringHidesPassword(t *testing.T) {
	ds, err := legacyldap.ParseDocuments([]byte(mongoexportDoc))
	if err != nil {
		t.Fatal(err)
	}
	if s := ds[0].String(); strings.Contains(s, "00ff") {
		t.Errorf("String leaks the password: %s", s)
	}
}

func FuzzParseDocuments(f *testing.F) {
	f.Add([]byte(mongoexportDoc))
	f.Add([]byte(`[{"_id":"a","ldap_uri":"ldap://h","principal_search_pattern":"p"}]`))
	f.Add([]byte(`{"ldap_uri":"ldaps://h","search_pattern":"(uid={0})","default_group":"Reader"}`))
	f.Add([]byte(`{"_id":{"$oid":""}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		ds, err := legacyldap.ParseDocuments(b)
		if err != nil {
			return
		}
		for _, d := range ds {
			if d.ID == "" || d.LdapURI == "" {
				t.Fatalf("accepted a document without id or URI: %+v", d)
			}
			// Whatever parses converts or is refused, never panics.
			_, _ = legacyldap.ToConfig(d)
		}
	})
}

// TestFormattingHidesSecrets: no way of printing a request or a stored
// document shows its passwords.
func TestFormattingHidesSecrets(t *testing.T) {
	const secret = "hunter2-secret"
	pw := secret
	for name, v := range map[string]any{
		"settings request": legacyldap.SettingsRequest{SystemPassword: &pw},
		"test request":     legacyldap.TestRequest{SystemPassword: &pw, Password: secret},
		"document":         legacyldap.Document{SystemPassword: secret},
	} {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
			if out := fmt.Sprintf(verb, v); strings.Contains(out, secret) {
				t.Errorf("%s with %s: %s", name, verb, out)
			}
		}
	}
}
