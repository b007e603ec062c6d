package node_test

import (
	"net/http"
	"testing"

	"github.com/loggate/loggate/backend/alerts/definitions"
	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
)

// As in Graylog 4.0, the creator of an event definition or a notification
// owns it: with only the create permissions they see it in the listings
// and may read, change, schedule, run and delete it; another user with the
// same permissions may not.
func TestAlertOwners(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	h.Do("POST", "/roles", map[string]any{"name": "Alerting", "permissions": []string{"eventdefinitions:create", "eventnotifications:create", "streams:read"}},
		root).Want(t, http.StatusCreated)
	aliceID := h.CreateUser("alice", "alice-secret-1", "Reader", "Alerting")
	bobID := h.CreateUser("bob", "bob-secret-12", "Reader", "Alerting")
	alice, bob := nodetest.Basic("alice", "alice-secret-1"), nodetest.Basic("bob", "bob-secret-12")

	def := h.Do("POST", "/events/definitions?schedule=false", definitions.Example, alice).Want(t, http.StatusOK)
	did := def.Get("id").String()
	nid := h.Do("POST", "/events/notifications", map[string]any{"title": "hook", "description": "",
		"config": map[string]any{"type": "http-notification-v1", "url": "http://127.0.0.1:1/hook"}}, alice).Want(t, http.StatusOK).Get("id").String()

	for _, c := range []struct{ path, key, id string }{
		{"/events/definitions", "event_definitions", did},
		{"/events/notifications", "notifications", nid},
	} {
		if l := h.Do("GET", c.path, nil, alice).Want(t, http.StatusOK); l.Get("total").Int() != 1 || l.Get(c.key+".0.id").String() != c.id {
			t.Errorf("alice's %s: %s", c.path, l.Body)
		}
		if l := h.Do("GET", c.path, nil, bob).Want(t, http.StatusOK); l.Get("total").Int() != 0 {
			t.Errorf("bob's %s: %s", c.path, l.Body)
		}
		h.Do("GET", c.path+"/"+c.id, nil, alice).Want(t, http.StatusOK)
		h.Do("GET", c.path+"/"+c.id, nil, bob).Want(t, http.StatusForbidden)
	}
	// Her grants make them hers in /authz/shares/user/{userId} too.
	shared := h.Do("GET", "/authz/shares/user/"+aliceID, nil, alice).Want(t, http.StatusOK)
	if shared.Get("total").Int() != 2 || shared.Get(`entities.#(id=="grn::::event_definition:`+did+`").type`).String() != "event_definition" ||
		shared.Get(`entities.#(id=="grn::::notification:`+nid+`").title`).String() != "hook" ||
		shared.Get(`entities.#(id=="grn::::notification:`+nid+`").owners.0.id`).String() != "grn::::user:"+aliceID ||
		shared.Get("context.grantee_capabilities.grn::::event_definition:"+did).String() != "own" {
		t.Errorf("alice's shares: %s", shared.Body)
	}
	if one := h.Do("GET", "/authz/shares/user/"+aliceID+"?entity_type=notification", nil, root).Want(t, http.StatusOK); one.Get("total").Int() != 1 {
		t.Errorf("alice's notifications shares: %s", one.Body)
	}
	if none := h.Do("GET", "/authz/shares/user/"+bobID, nil, bob).Want(t, http.StatusOK); none.Get("total").Int() != 0 {
		t.Errorf("bob's shares: %s", none.Body)
	}
	h.Do("PUT", "/events/definitions/"+did+"/schedule", nil, alice).Want(t, http.StatusNoContent)
	h.Do("PUT", "/events/definitions/"+did+"/schedule", nil, bob).Want(t, http.StatusForbidden)
	h.Do("PUT", "/events/definitions/"+did+"?schedule=false", string(def.Body), alice).Want(t, http.StatusOK)
	h.Do("DELETE", "/events/notifications/"+nid, nil, bob).Want(t, http.StatusForbidden)
	h.Do("DELETE", "/events/notifications/"+nid, nil, alice).Want(t, http.StatusNoContent)
	h.Do("DELETE", "/events/definitions/"+did, nil, bob).Want(t, http.StatusForbidden)
	h.Do("DELETE", "/events/definitions/"+did, nil, alice).Want(t, http.StatusNoContent)
	if n := h.Do("GET", "/events/definitions", nil, root).Want(t, http.StatusOK).Get("total").Int(); n != 0 {
		t.Errorf("%d definitions after alice deleted hers", n)
	}
	if n := h.Do("GET", "/authz/shares/user/"+aliceID, nil, alice).Want(t, http.StatusOK).Get("total").Int(); n != 0 {
		t.Errorf("%d shares after alice deleted what she owned", n)
	}
}
