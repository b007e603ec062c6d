package authservices_test

import (
	"net/http"
	"testing"

	"github.com/loggate/loggate/backend/access/authservices"
)

func TestPersistence(t *testing.T) {
	e := newEnv(t)
	kept := e.create(t, backendJSON("Kept", `"bindpw"`))
	gone := e.create(t, backendJSON("Gone", ""))
	e.ok(t, call{method: "DELETE", path: backendsPath + "/" + gone.ID, perms: admin}, http.StatusNoContent, nil)
	e.activate(t, kept.ID)
	e.ok(t, call{method: "PUT", path: headerAuthPath, body: `{"enabled":true,"username_header":"X-Remote"}`, perms: admin}, http.StatusOK, nil)

	e.reopen(t)

	var got struct {
		Backend backendOut `json:"backend"`
	}
	e.ok(t, call{method: "GET", path: backendsPath + "/" + kept.ID, perms: admin}, http.StatusOK, &got)
	if got.Backend.Title != kept.Title || !got.Backend.passwordSet(t) {
		t.Errorf("after a restart: %+v", got.Backend)
	}
	if w := e.do(t, call{method: "GET", path: backendsPath + "/" + gone.ID, perms: admin}); w.Code != http.StatusNotFound {
		t.Errorf("the deleted backend is back: %d", w.Code)
	}
	if id, err := e.svc.ActiveID(t.Context()); id != kept.ID || err != nil {
		t.Errorf("active backend after a restart: %q, %v", id, err)
	}
	a, err := e.svc.Active(t.Context())
	if err != nil || a == nil || a.Config.SystemUserPassword != "bindpw" {
		t.Errorf("Active after a restart = %+v, %v", a, err)
	}
	var h authservices.HeaderAuthConfig
	e.ok(t, call{method: "GET", path: headerAuthPath, perms: admin}, http.StatusOK, &h)
	if h != (authservices.HeaderAuthConfig{Enabled: true, UsernameHeader: "X-Remote"}) {
		t.Errorf("header auth after a restart: %+v", h)
	}
	if n, _ := e.svc.Count(t.Context()); n != 1 {
		t.Errorf("%d backends after a restart, want 1", n)
	}
}
