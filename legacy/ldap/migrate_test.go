package ldap_test

import (
	"context"
	"errors"
	"testing"

	legacyldap "github.com/loggate/loggate/legacy/ldap"
)

func TestPlanAndApply(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	reader, admin := e.roleID(t, "Reader"), e.roleID(t, "Admin")
	enabled := legacyldap.Document{
		ID: "5c9a1b2c3d4e5f6a7b8c9d0e", Enabled: true, SystemUsername: "cn=admin,dc=example,dc=org",
		SystemPassword: encryptLegacy(t, "adminpass", oldSalt, oldSecret, 7), SystemPasswordSalt: oldSalt,
		LdapURI: "ldap://ldap.example.org:389", UseStartTLS: true, SearchBase: "dc=example,dc=org",
		PrincipalSearchPattern: "(uid={0})", UsernameAttribute: "cn", DefaultGroup: reader,
		AdditionalDefaultGroups: []string{admin, roleGone},
		GroupMapping:            map[string]string{"admins": admin, "ghosts": roleGone},
		GroupSearchBase:         "ou=groups,dc=example,dc=org", GroupIDAttribute: "cn",
	}
	disabled := enabled
	disabled.ID, disabled.Enabled = "5c9a1b2c3d4e5f6a7b8c9d0f", false

	// A wrong secret plans a backend without the password, and says why.
	plans, err := e.svc.Plan(ctx, []legacyldap.Document{enabled}, "wrong-secret-but-long-enough")
	if err != nil {
		t.Fatal(err)
	}
	if p := plans[0]; !p.PasswordStored || !errors.Is(p.PasswordError, legacyldap.ErrDecrypt) || p.Backend.Password.Value() != "" {
		t.Errorf("plan with a wrong secret: %+v", p)
	}

	plans, err = e.svc.Plan(ctx, []legacyldap.Document{disabled, enabled}, oldSecret)
	if err != nil {
		t.Fatal(err)
	}
	if plans[0].Skip != legacyldap.SkipDisabled || plans[1].Skip != "" || plans[1].PasswordError != nil ||
		plans[1].Backend.Password.Value() != "adminpass" || len(plans[1].Backend.DefaultRoles) != 2 ||
		plans[1].GroupMapping["admins"] != "Admin" || plans[1].GroupMapping["ghosts"] != roleGone {
		t.Fatalf("plans %+v", plans)
	}
	if bs, _ := e.backends.List(ctx); len(bs) != 0 {
		t.Fatalf("planning created %d backends", len(bs))
	}
	done, err := e.svc.Apply(ctx, plans)
	if err != nil {
		t.Fatal(err)
	}
	b := e.onlyBackend(t)
	if done[1].BackendID != b.ID || done[0].BackendID != "" || b.Title != "LDAP - ldap://ldap.example.org:389" ||
		b.Description != legacyldap.DescriptionLDAP || !b.PasswordSet || b.Config.TransportSecurity != "start_tls" {
		t.Errorf("applied %+v, backend %+v", done, b)
	}
	if id, _ := e.backends.ActiveID(ctx); id != "" {
		t.Errorf("migration activated %s", id)
	}
	s, err := e.svc.Settings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s.Enabled || s.GroupMapping["admins"] != "Admin" || s.GroupSearchBase != "ou=groups,dc=example,dc=org" || s.DefaultGroup != "Reader" {
		t.Errorf("settings of the migrated backend %+v", s)
	}

	// The second run has nothing to do.
	again, err := e.svc.Plan(ctx, []legacyldap.Document{disabled, enabled}, oldSecret)
	if err != nil {
		t.Fatal(err)
	}
	if again[1].Skip != legacyldap.SkipMigrated {
		t.Errorf("second plan %+v", again[1])
	}
	if _, err := e.svc.Apply(ctx, again); err != nil {
		t.Fatal(err)
	}
	if nb := e.onlyBackend(t); nb.ID != b.ID {
		t.Errorf("second run changed the backends: %+v", nb)
	}
	// Deleting the settings does not make the document migrate again.
	if err := e.svc.Delete(ctx); err != nil {
		t.Fatal(err)
	}
	if again, _ = e.svc.Plan(ctx, []legacyldap.Document{enabled}, oldSecret); again[0].Skip != legacyldap.SkipMigrated {
		t.Errorf("plan after delete %+v", again[0])
	}
}
