package ldap_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	legacyldap "github.com/loggate/loggate/legacy/ldap"
	"github.com/loggate/loggate/router/api"
)

// request is a 3.x settings PUT for a directory at uri.
func request(uri string) legacyldap.SettingsRequest {
	return legacyldap.SettingsRequest{
		Enabled: true, SystemUsername: "cn=admin,dc=example,dc=org", SystemPassword: ptr("adminpass"),
		LdapURI: uri, SearchBase: "ou=people,dc=example,dc=org",
		SearchPattern: "(&(objectClass=inetOrgPerson)(uid={0}))", DisplayNameAttribute: "cn",
		DefaultGroup: "Reader", AdditionalDefaultGroups: []string{"Admin", "No Such Role"},
		GroupMapping:    map[string]string{"cn=admins,ou=groups,dc=example,dc=org": "Admin"},
		GroupSearchBase: ptr("ou=groups,dc=example,dc=org"), GroupIDAttribute: ptr("cn"),
		GroupSearchPattern: ptr("(objectClass=groupOfNames)"),
	}
}

func TestSettingsEmpty(t *testing.T) {
	e := newEnv(t)
	got, err := e.svc.Settings(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, legacyldap.EmptyDisabled()) {
		t.Errorf("got %+v, want the empty, disabled settings", got)
	}
}

func TestSaveCreatesInactiveBackendAndRendersIt(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	if err := e.svc.Save(ctx, request("ldap://ldap.example.org")); err != nil {
		t.Fatal(err)
	}
	b := e.onlyBackend(t)
	if b.Title != "LDAP - ldap://ldap.example.org" || b.Description != legacyldap.DescriptionAPI || !b.PasswordSet ||
		b.Config.UserNameAttribute != "uid" || b.Config.Servers[0].Port != 389 {
		t.Errorf("backend %+v", b)
	}
	if want := []string{e.roleID(t, "Reader"), e.roleID(t, "Admin")}; !reflect.DeepEqual(b.DefaultRoles, want) {
		t.Errorf("default roles %v, want %v", b.DefaultRoles, want)
	}
	if id, _ := e.backends.ActiveID(ctx); id != "" {
		t.Fatalf("saved settings activated backend %s", id)
	}
	if !strings.Contains(e.logs.String(), "not applied") {
		t.Errorf("no warning about the group mapping in %s", e.logs)
	}
	want := legacyldap.SettingsResponse{
		Enabled: false, SystemUsername: "cn=admin,dc=example,dc=org", SystemPasswordSet: true,
		LdapURI: "ldap://ldap.example.org:389", SearchBase: "ou=people,dc=example,dc=org",
		SearchPattern: "(&(objectClass=inetOrgPerson)(uid={0}))", DisplayNameAttribute: "cn",
		DefaultGroup: "Reader", AdditionalDefaultGroups: []string{"Admin"},
		GroupMapping:    map[string]string{"cn=admins,ou=groups,dc=example,dc=org": "Admin"},
		GroupSearchBase: "ou=groups,dc=example,dc=org", GroupIDAttribute: "cn", GroupSearchPattern: "(objectClass=groupOfNames)",
	}
	assertSettings(t, e, want)

	// Activated through the 4.0 API it reads enabled; a later save keeps
	// it active and, with a null password, keeps the password.
	if err := e.backends.SetActive(ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	req := request("ldaps://ldap2.example.org:1636")
	req.SystemPassword, req.GroupMapping, req.AdditionalDefaultGroups = nil, nil, nil
	if err := e.svc.Save(ctx, req); err != nil {
		t.Fatal(err)
	}
	if id, _ := e.backends.ActiveID(ctx); id != b.ID {
		t.Errorf("active backend %q after a save, want %s", id, b.ID)
	}
	want.Enabled, want.LdapURI, want.AdditionalDefaultGroups = true, "ldaps://ldap2.example.org:1636", []string{}
	assertSettings(t, e, want)
	if nb := e.onlyBackend(t); nb.ID != b.ID || !nb.PasswordSet {
		t.Errorf("update made %+v", nb)
	}

	if err := e.svc.Delete(ctx); err != nil {
		t.Fatal(err)
	}
	if bs, _ := e.backends.List(ctx); len(bs) != 0 {
		t.Errorf("backends left after delete: %+v", bs)
	}
	if id, _ := e.backends.ActiveID(ctx); id != "" {
		t.Errorf("active backend %q after delete", id)
	}
	assertSettings(t, e, legacyldap.EmptyDisabled())
	if err := e.svc.Delete(ctx); err != nil {
		t.Errorf("second delete: %v", err)
	}
}

func assertSettings(t *testing.T, e *env, want legacyldap.SettingsResponse) {
	t.Helper()
	got, err := e.svc.Settings(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("settings\n got %+v\nwant %+v", got, want)
	}
}

func TestSaveInvalid(t *testing.T) {
	e := newEnv(t)
	tests := []struct {
		name  string
		edit  func(*legacyldap.SettingsRequest)
		field string
	}{
		{"bad-uri", func(r *legacyldap.SettingsRequest) { r.LdapURI = "http://x" }, "ldap_uri"},
		{"no-search-base", func(r *legacyldap.SettingsRequest) { r.SearchBase = "" }, "search_base"},
		{"bad-pattern", func(r *legacyldap.SettingsRequest) { r.SearchPattern = "(uid={0}" }, "search_pattern"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := request("ldap://h")
			tc.edit(&req)
			err := e.svc.Save(context.Background(), req)
			var v *api.ValidationError
			if !errors.As(err, &v) || len(v.Fields[tc.field]) == 0 {
				t.Fatalf("got %v, want a validation error on %s", err, tc.field)
			}
			if bs, _ := e.backends.List(context.Background()); len(bs) != 0 {
				t.Errorf("invalid settings stored: %+v", bs)
			}
		})
	}
}

func TestGroupMappingKept(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	if m, err := e.svc.GroupMapping(ctx); err != nil || len(m) != 0 || m == nil {
		t.Fatalf("initial mapping %v, %v", m, err)
	}
	m := map[string]string{"devs": "Reader", "cn=ops,dc=x": "Admin"}
	if err := e.svc.SaveGroupMapping(ctx, m); err != nil {
		t.Fatal(err)
	}
	if got, err := e.svc.GroupMapping(ctx); err != nil || !reflect.DeepEqual(got, m) {
		t.Errorf("mapping %v, %v; want %v", got, err, m)
	}
	if !strings.Contains(e.logs.String(), "LDAP group mapping is not applied") {
		t.Errorf("no warning logged: %s", e.logs)
	}
	// Settings saved afterwards without a mapping keep it.
	req := request("ldap://h")
	req.GroupMapping = nil
	if err := e.svc.Save(ctx, req); err != nil {
		t.Fatal(err)
	}
	if got, _ := e.svc.GroupMapping(ctx); !reflect.DeepEqual(got, m) {
		t.Errorf("mapping after save %v, want %v", got, m)
	}
}

func TestGroupsRefusals(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	wantErr := func(msg string) {
		t.Helper()
		_, err := e.svc.Groups(ctx)
		if api.ErrorCode(err) != api.Invalid || err.Error() != msg {
			t.Errorf("got %v, want 400 %q", err, msg)
		}
	}
	wantErr("LDAP is disabled.")
	req := request("ldap://127.0.0.1:1")
	req.GroupSearchBase = nil
	if err := e.svc.Save(ctx, req); err != nil {
		t.Fatal(err)
	}
	wantErr("LDAP is disabled.") // saved, not active
	if err := e.backends.SetActive(ctx, e.onlyBackend(t).ID); err != nil {
		t.Fatal(err)
	}
	wantErr("LDAP group configuration settings are not set.")
}
