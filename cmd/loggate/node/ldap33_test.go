package node_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
)

// Graylog 3.3's LDAP form: its scheme-less URI is taken as 3.3 took it, and
// settings saved with LDAP enabled, kept as an inactive backend for review,
// come with a notification saying so until the backend is activated.
func TestLDAPForm33(t *testing.T) {
	h := nodetest.Start(t)
	as33 := []nodetest.ReqOption{nodetest.AsRoot(), nodetest.Header("X-API-Version", "3.3"), nodetest.Header("X-Requested-By", "XMLHttpRequest")}
	if got := h.Do("GET", "/system/ldap/settings", nil, as33...).Want(t, http.StatusOK).Get("ldap_uri").String(); got != "ldap://localhost:389" {
		t.Errorf("ldap_uri before anything is saved: %q, want 3.3's default", got)
	}
	h.Do("PUT", "/system/ldap/settings", map[string]any{
		"enabled": true, "system_username": "cn=admin,dc=example,dc=org", "system_password": "secret",
		"ldap_uri": "//127.0.0.1:3890/", "use_start_tls": false, "trust_all_certificates": false,
		"active_directory": false, "search_base": "dc=example,dc=org", "search_pattern": "(uid={0})",
		"display_name_attribute": "cn", "default_group": "Reader",
	}, as33...).Want(t, http.StatusNoContent)
	got := h.Do("GET", "/system/ldap/settings", nil, as33...).Want(t, http.StatusOK)
	if got.Get("ldap_uri").String() != "ldap://127.0.0.1:3890" || got.Get("enabled").Bool() {
		t.Fatalf("settings after the save: %s", got.Body)
	}
	check(t, h)
	details := notificationKeys(t, h)["legacy_ldap_config_migration/"]
	id := h.Do("GET", "/system/authentication/services/backends", nil, nodetest.AsRoot()).Want(t, http.StatusOK).Get("backends.0.id").String()
	if id == "" || details == "" || !strings.Contains(details, id) {
		t.Fatalf("no notification naming the inactive backend %q: %v", id, notificationKeys(t, h))
	}
	h.Do("POST", "/system/authentication/services/configuration", map[string]string{"active_backend": id},
		nodetest.AsRoot(), nodetest.Header("X-Requested-By", "cli")).Want(t, http.StatusOK)
	check(t, h)
	if d := notificationKeys(t, h)["legacy_ldap_config_migration/"]; d != "" {
		t.Errorf("the notification stays after activation: %s", d)
	}
	if !h.Do("GET", "/system/ldap/settings", nil, as33...).Want(t, http.StatusOK).Get("enabled").Bool() {
		t.Error("the 3.3 form shows LDAP off after activation")
	}
}
