package node_test

import (
	"net/http"
	"slices"
	"testing"

	"github.com/loggate/loggate/auth/ldap/slapdtest"
	"github.com/loggate/loggate/cmd/loggate/config"
	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
)

// Graylog 3.3's authentication pages through a listener pinned to 3.3: the
// realm configuration loads, a PUT is kept across a restart and read back
// as it was sent, a bad realm is a 400, the 3.3 permissions apply, and
// "legacy-ldap" is the active directory backend: unticking it stops new
// directory logins.
func TestAuthenticationConfig33(t *testing.T) {
	h := nodetest.Start(t, nodetest.WithConfig(func(c *config.Config) {
		c.CompatListeners = []config.Listener{{Address: "127.0.0.1:0", Release: "3.3"}}
	}))
	dir := slapdtest.Start(t)
	h.CreateUser("reader", "readerpw")
	h.Do("POST", "/users", map[string]any{
		"username": "auditor", "password": "auditorpw", "email": "a@example.org", "full_name": "Auditor",
		"permissions": []string{"clusterconfigentry:read"},
	}, nodetest.AsRoot()).Want(t, http.StatusCreated)
	activateLDAP(t, h, dir)
	alice := nodetest.Basic(slapdtest.Alice.UID, slapdtest.Alice.Password)
	h.Do("GET", "/cluster", nil, alice).Want(t, http.StatusOK)

	// The 3.3 web interface sends X-Requested-By with every request.
	as33 := func(user nodetest.ReqOption) []nodetest.ReqOption {
		return []nodetest.ReqOption{user, nodetest.Via(h.Node.CompatAddrs()[0]), nodetest.Header("X-Requested-By", "XMLHttpRequest")}
	}
	const path = "/system/authentication/config"
	got := h.Do("GET", path, nil, as33(nodetest.AsRoot())...).Want(t, http.StatusOK)
	if got.Get("realm_order").Raw != `["mongodb-session","access-token","legacy-ldap","mongodb-password","root-user"]` || got.Get("disabled_realms").Raw != `[]` {
		t.Fatalf("realm configuration with a directory backend active: %s", got.Body)
	}

	t.Run("permissions", func(t *testing.T) {
		h.Do("GET", path, nil, as33(nodetest.Basic("reader", "readerpw"))...).Want(t, http.StatusOK)
		h.Do("PUT", path, map[string]any{"realm_order": []string{}, "disabled_realms": []string{"legacy-ldap"}},
			as33(nodetest.Basic("reader", "readerpw"))...).Want(t, http.StatusForbidden)
		h.Do("GET", path, nil, as33(nodetest.Basic("auditor", "auditorpw"))...).Want(t, http.StatusOK)
		h.Do("PUT", path, map[string]any{"realm_order": []string{}, "disabled_realms": []string{"legacy-ldap"}},
			as33(nodetest.Basic("auditor", "auditorpw"))...).Want(t, http.StatusForbidden)
		h.Do("GET", "/cluster", nil, alice).Want(t, http.StatusOK) // nothing was deactivated
	})

	t.Run("bad realm", func(t *testing.T) {
		h.Do("PUT", path, map[string]any{"realm_order": []string{"mongodb-session", "kerberos"}, "disabled_realms": []string{}},
			as33(nodetest.AsRoot())...).WantError(t, http.StatusBadRequest, `Unknown realm "kerberos" in realm_order; known realms are mongodb-session, access-token, legacy-ldap, mongodb-password, root-user`)
		h.Do("PUT", path, map[string]any{"realm_order": []string{}, "disabled_realms": []string{"root-user"}},
			as33(nodetest.AsRoot())...).WantError(t, http.StatusBadRequest, `Realm "root-user" cannot be disabled: loggate always offers it`)
	})

	t.Run("round trip", func(t *testing.T) {
		sent := map[string][]string{
			"realm_order":     {"root-user", "mongodb-password", "legacy-ldap", "access-token", "mongodb-session"},
			"disabled_realms": {"legacy-ldap"},
		}
		put := h.Do("PUT", path, sent, as33(nodetest.AsRoot())...).Want(t, http.StatusOK)
		if !slices.Contains(put.Header.Values("Warning"), `299 - "The realm order is kept but not applied: loggate checks a password against the local account first and against the directory only for users without one"`) {
			t.Errorf("no warning that the order is not applied: %q", put.Header.Values("Warning"))
		}
		// Unticking legacy-ldap deactivated the directory backend: a
		// directory user not logged in before is refused.
		if c := h.Do("GET", "/system/authentication/services/configuration", nil, nodetest.AsRoot()).Want(t, http.StatusOK); c.Get("configuration.active_backend").Raw != "null" {
			t.Errorf("active backend after unticking legacy-ldap: %s", c.Body)
		}
		h.Do("GET", "/cluster", nil, nodetest.Basic(slapdtest.Bob.UID, slapdtest.Bob.Password)).Want(t, http.StatusUnauthorized)
		h.Restart()
		got := h.Do("GET", path, nil, as33(nodetest.AsRoot())...).Want(t, http.StatusOK)
		if got.Get("realm_order").Raw != `["root-user","mongodb-password","legacy-ldap","access-token","mongodb-session"]` || got.Get("disabled_realms").Raw != `["legacy-ldap"]` {
			t.Errorf("GET after PUT and restart: %s", got.Body)
		}
	})
}
