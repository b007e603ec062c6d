package roles_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/loggate/loggate/backend/access/users"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
	"github.com/loggate/loggate/router/api"
)

func TestBuiltins(t *testing.T) {
	h := nodetest.Start(t)
	r := h.Do("GET", "/roles", nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	if r.Get("total").Int() != 9 || r.Get(`roles.#(name=="Admin").permissions`).Raw != `["*"]` || !r.Get(`roles.#(name=="Reader").read_only`).Bool() ||
		!r.Get(`roles.#(name=="Views Manager").read_only`).Bool() {
		t.Errorf("built-in roles: %s", r.Body)
	}
	h.Do("GET", "/roles/reader", nil, nodetest.AsRoot()).Want(t, http.StatusOK) // case-insensitive
	h.Do("PUT", "/roles/Admin", map[string]any{"name": "Admin", "permissions": []string{}}, nodetest.AsRoot()).WantError(t, http.StatusBadRequest, "Cannot update read only role Admin")
	h.Do("DELETE", "/roles/Reader", nil, nodetest.AsRoot()).WantError(t, http.StatusBadRequest, "Cannot delete read only system role Reader")
	// Clients assign them by name.
	h.CreateUser("dash", "pw", "Reader", "Dashboard Creator")
	h.Restart() // rewritten at start, not duplicated
	if n := h.Do("GET", "/roles", nil, nodetest.AsRoot()).Get("total").Int(); n != 9 {
		t.Errorf("%d roles after a restart", n)
	}
}

func TestCRUD(t *testing.T) {
	h := nodetest.Start(t)
	body := map[string]any{"name": "Monitoring", "description": "metrics only", "permissions": []string{"metrics:*"}, "read_only": true}
	r := h.Do("POST", "/roles", body, nodetest.AsRoot()).Want(t, http.StatusCreated)
	if !strings.HasSuffix(r.Header.Get("Location"), "/api/roles/Monitoring") || r.Get("read_only").Bool() || r.Get("permissions").Raw != `["metrics:*"]` {
		t.Errorf("created: %v %s", r.Header.Get("Location"), r.Body)
	}
	h.Do("POST", "/roles", body, nodetest.AsRoot()).WantError(t, http.StatusBadRequest, "Role Monitoring already exists.")
	h.Do("POST", "/roles", map[string]any{"name": "", "permissions": []string{}}, nodetest.AsRoot()).WantError(t, http.StatusBadRequest, "name must not be empty")
	h.Do("POST", "/roles", map[string]any{"name": "x", "permissions": []string{"a:,"}}, nodetest.AsRoot()).WantError(t, http.StatusBadRequest, "")
	for _, bad := range []string{"*", "a,b", "a:b", " pad"} {
		h.Do("POST", "/roles", map[string]any{"name": bad, "permissions": []string{}}, nodetest.AsRoot()).WantError(t, http.StatusBadRequest, "nvalid role name")
	}
	h.Do("PUT", "/roles/monitoring", map[string]any{"name": "Monitor", "description": "renamed", "permissions": []string{"metrics:read"}}, nodetest.AsRoot()).Want(t, http.StatusOK)
	h.Do("GET", "/roles/Monitoring", nil, nodetest.AsRoot()).WantError(t, http.StatusNotFound, "Couldn't find role Monitoring")
	got := h.Do("GET", "/roles/Monitor", nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	if got.Get("description").String() != "renamed" {
		t.Errorf("after rename: %s", got.Body)
	}
	h.Do("DELETE", "/roles/Monitor", nil, nodetest.AsRoot()).Want(t, http.StatusNoContent)
	h.Do("DELETE", "/roles/Monitor", nil, nodetest.AsRoot()).WantError(t, http.StatusNotFound, "")
}

func TestMembers(t *testing.T) {
	h := nodetest.Start(t)
	h.Do("POST", "/roles", map[string]any{"name": "Ops", "permissions": []string{"streams:read"}}, nodetest.AsRoot()).Want(t, http.StatusCreated)
	h.CreateUser("olga", "pw")
	h.Do("PUT", "/roles/Ops/members/olga", `{}`, nodetest.AsRoot()).Want(t, http.StatusNoContent)
	h.Do("PUT", "/roles/Ops/members/ghost", `{}`, nodetest.AsRoot()).WantError(t, http.StatusNotFound, "User ghost has not been found.")
	m := h.Do("GET", "/roles/Ops/members", nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	if m.Get("role").String() != "Ops" || m.Get("users.0.username").String() != "olga" || m.Get("users.0.session_active").Bool() {
		t.Errorf("members: %s", m.Body)
	}
	if !strings.Contains(h.Do("GET", "/users/olga", nil, nodetest.AsRoot()).Get("roles").Raw, "Ops") {
		t.Error("role not on the user")
	}
	// Deleting the role removes it from its members.
	h.Do("DELETE", "/roles/Ops", nil, nodetest.AsRoot()).Want(t, http.StatusNoContent)
	if strings.Contains(h.Do("GET", "/users/olga", nil, nodetest.AsRoot()).Get("roles").Raw, "Ops") {
		t.Error("deleted role still on the user")
	}
	h.Do("POST", "/roles", map[string]any{"name": "Ops", "permissions": []string{}}, nodetest.AsRoot()).Want(t, http.StatusCreated)
	h.Do("PUT", "/roles/Ops/members/olga", `{}`, nodetest.AsRoot()).Want(t, http.StatusNoContent)
	h.Do("DELETE", "/roles/Ops/members/olga", nil, nodetest.AsRoot()).Want(t, http.StatusNoContent)
	if h.Do("GET", "/roles/Ops/members", nil, nodetest.AsRoot()).Get("users.#").Int() != 0 {
		t.Error("member not removed")
	}
	h.Do("PUT", "/roles/Ops/members/olga", `{}`, nodetest.Basic("olga", "pw")).WantError(t, http.StatusForbidden, "")
}

// A user whose only role grants metrics:* reads /system/metrics and gets 403
// from everything else that needs a permission.
func TestMetricsOnlyRole(t *testing.T) {
	h := nodetest.Start(t)
	h.Do("POST", "/roles", map[string]any{"name": "Metrics", "permissions": []string{"metrics:*"}}, nodetest.AsRoot()).Want(t, http.StatusCreated)
	h.CreateUser("telegraf", "pw", "Metrics")
	as := nodetest.Basic("telegraf", "pw")
	h.Do("GET", "/system/metrics", nil, as).Want(t, http.StatusOK)
	h.Do("GET", "/system/metrics/names", nil, as).Want(t, http.StatusOK)
	h.Do("POST", "/system/metrics/multiple", map[string]any{"metrics": []string{"loggate.http.requests"}}, as).Want(t, http.StatusOK)
	for _, c := range []struct{ method, path string }{
		{"GET", "/system"}, {"GET", "/users"}, {"GET", "/roles"}, {"GET", "/system/loggers"},
		{"PUT", "/system/loggers/loggate/level/debug"}, {"GET", "/users/paginated"}, {"GET", "/users/admin"},
	} {
		r := h.Do(c.method, c.path, nil, as)
		// /system/loggers lists only what one may read: empty, not 403.
		if c.path == "/system/loggers" {
			r.Want(t, http.StatusOK)
			if r.Get("total").Int() != 0 {
				t.Errorf("metrics-only user sees loggers: %s", r.Body)
			}
			continue
		}
		r.WantError(t, http.StatusForbidden, "")
	}
	// The role's members lose its permissions at once when it changes.
	h.Do("PUT", "/roles/Metrics", map[string]any{"name": "Metrics", "permissions": []string{}}, nodetest.AsRoot()).Want(t, http.StatusOK)
	h.Do("GET", "/system/metrics", nil, as).WantError(t, http.StatusForbidden, "")
}

func TestRolesSurviveRestart(t *testing.T) {
	h := nodetest.Start(t)
	h.Do("POST", "/roles", map[string]any{"name": "Keep", "permissions": []string{"a:b"}}, nodetest.AsRoot()).Want(t, http.StatusCreated)
	h.CreateUser("kate", "pw", "Keep")
	h.Restart()
	h.Do("GET", "/roles/Keep", nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	if h.Do("GET", "/roles/Keep/members", nil, nodetest.AsRoot()).Get("users.0.username").String() != "kate" {
		t.Error("membership lost across restart")
	}
}

// A role or user that is gone by the time it is deleted or changed (another
// request deleted it meanwhile) is a 404, not a storage failure.
func TestDeletedMeanwhile(t *testing.T) {
	h := nodetest.Start(t)
	ctx := t.Context()
	if err := h.Node.Roles.Delete(ctx, "5f0000000000000000000099"); api.ErrorCode(err) != api.NotFound {
		t.Errorf("delete of a role deleted meanwhile: %v (code %v), want NotFound", err, api.ErrorCode(err))
	}
	err := h.Node.Users.Update(ctx, "5f0000000000000000000099", func(*users.User) error { return nil })
	if api.ErrorCode(err) != api.NotFound || !errors.Is(err, store.ErrNotFound) {
		t.Errorf("update of a user deleted meanwhile: %v (code %v), want NotFound wrapping store.ErrNotFound", err, api.ErrorCode(err))
	}
	if err := h.Node.Users.Delete(ctx, &users.User{ID: "5f0000000000000000000099", Username: "gone"}); api.ErrorCode(err) != api.NotFound {
		t.Errorf("delete of a user deleted meanwhile: %v (code %v), want NotFound", err, api.ErrorCode(err))
	}
}
