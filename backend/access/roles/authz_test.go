package roles_test

import (
	"net/http"
	"testing"

	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
)

func TestAuthzRoles(t *testing.T) {
	h := nodetest.Start(t)
	h.Do("POST", "/roles", map[string]any{"name": "Ops", "description": "operators", "permissions": []string{"streams:read"}}, nodetest.AsRoot()).Want(t, http.StatusCreated)
	h.CreateUser("otto", "pw")
	h.CreateUser("olga", "pw")

	list := h.Do("GET", "/authz/roles?per_page=3&sort=name&order=asc", nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	if list.Get("total").Int() != 10 || list.Get("count").Int() != 3 || list.Get("grand_total").Int() != 10 {
		t.Errorf("envelope: %s", list.Body)
	}
	if got := list.Get("roles.#.name").Raw; got != `["Admin","Alerts Manager","Dashboard Creator"]` {
		t.Errorf("page 1 sorted by name: %s", got)
	}
	ops := h.Do("GET", "/authz/roles?query=name:ops", nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	opsID := ops.Get("roles.0.id").String()
	if ops.Get("total").Int() != 1 || opsID == "" || ops.Get("roles.0.description").String() != "operators" {
		t.Fatalf("query: %s", ops.Body)
	}

	h.Do("PUT", "/authz/roles/"+opsID+"/assignees", []string{"otto", "olga"}, nodetest.AsRoot()).Want(t, http.StatusNoContent)
	h.Do("PUT", "/authz/roles/"+opsID+"/assignees", []string{"ghost"}, nodetest.AsRoot()).WantError(t, http.StatusNotFound, "User ghost has not been found.")
	h.Do("PUT", "/authz/roles/"+opsID+"/assignees", `"otto"`, nodetest.AsRoot()).WantError(t, http.StatusBadRequest, "")
	h.Do("PUT", "/authz/roles/"+opsID+"/assignees", []string{"olga"}, nodetest.Basic("otto", "pw")).WantError(t, http.StatusForbidden, "Not allowed to edit roles of user olga")

	a := h.Do("GET", "/authz/roles/"+opsID+"/assignees", nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	if a.Get("total").Int() != 2 {
		t.Errorf("assignees: %s", a.Body)
	}
	ctxUsers := h.Do("GET", "/authz/roles?query=name:ops", nil, nodetest.AsRoot()).Get("context.users." + opsID + ".#.username").Raw
	if ctxUsers != `["olga","otto"]` {
		t.Errorf("context users: %s", ctxUsers)
	}
	of := h.Do("GET", "/authz/roles/user/otto", nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	if got := of.Get("roles.#.name").Raw; got != `["Ops","Reader"]` {
		t.Errorf("roles of otto: %s", got)
	}
	h.Do("GET", "/authz/roles/user/ghost", nil, nodetest.AsRoot()).WantError(t, http.StatusNotFound, "ghost")

	h.Do("DELETE", "/authz/roles/"+opsID+"/assignee/otto", nil, nodetest.AsRoot()).Want(t, http.StatusNoContent)
	if h.Do("GET", "/authz/roles/"+opsID+"/assignees", nil, nodetest.AsRoot()).Get("total").Int() != 1 {
		t.Error("unassign did not remove")
	}
	g := h.Do("GET", "/authz/roles/"+opsID, nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	if g.Get("name").String() != "Ops" || g.Get("read_only").Bool() {
		t.Errorf("get: %s", g.Body)
	}
	reader := h.Do("GET", "/authz/roles?query=name:reader", nil, nodetest.AsRoot()).Get("roles.0.id").String()
	h.Do("DELETE", "/authz/roles/"+reader, nil, nodetest.AsRoot()).WantError(t, http.StatusBadRequest, "Cannot delete read only system role Reader")
	h.Do("DELETE", "/authz/roles/"+opsID, nil, nodetest.Basic("otto", "pw")).WantError(t, http.StatusForbidden, "")
	h.Do("DELETE", "/authz/roles/"+opsID, nil, nodetest.AsRoot()).Want(t, http.StatusNoContent)
	h.Do("GET", "/authz/roles/"+opsID, nil, nodetest.AsRoot()).WantError(t, http.StatusNotFound, "")
	if h.Do("GET", "/users/olga", nil, nodetest.AsRoot()).Get("roles").Raw != `["Reader"]` {
		t.Error("deleted role still assigned")
	}
	h.Do("GET", "/authz/roles", nil, nodetest.Basic("otto", "pw")).WantError(t, http.StatusForbidden, "")
}
