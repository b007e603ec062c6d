package compat_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
)

// TestSpecExamples replays the curl calls of the specification and of
// Graylog's REST API documentation unchanged, on the default release: the
// session walkthrough and the pre-4.0 token calls keyed by username.
func TestSpecExamples(t *testing.T) {
	h := nodetest.Start(t)
	h.CreateUser("GM", "superpower")
	accept := nodetest.Header("Accept", "application/json")
	cli := nodetest.Header("X-Requested-By", "cli")

	// curl -u GM:superpower -H 'Accept: application/json' -X GET '…/api/cluster?pretty=true'
	cluster := h.Do("GET", "/cluster?pretty=true", nil, nodetest.Basic("GM", "superpower"), accept).Want(t, http.StatusOK)
	if !strings.Contains(string(cluster.Body), `"lb_status" : "alive"`) {
		t.Errorf("cluster:\n%s", cluster.Body)
	}

	// curl -i -X POST -H 'Content-Type: application/json' -H 'Accept: application/json'
	//   -H 'X-Requested-By: cli' '…/api/system/sessions' -d '{"username":"GM", "password":"superpower", "host":""}'
	login := h.Do("POST", "/system/sessions", `{"username":"GM", "password":"superpower", "host":""}`, accept, cli).Want(t, http.StatusOK)
	sid := login.Get("session_id").String()
	// curl -u <session_id>:session -H 'Accept: application/json' -X GET '…/api/cluster?pretty=true'
	h.Do("GET", "/cluster?pretty=true", nil, nodetest.Session(sid), accept).Want(t, http.StatusOK)

	// curl -u GM:superpower -H 'Accept: application/json' -H 'X-Requested-By: cli' -X POST '…/api/users/GM/tokens/icinga?pretty=true'
	created := h.Do("POST", "/users/GM/tokens/icinga?pretty=true", nil, nodetest.Basic("GM", "superpower"), accept, cli).Want(t, http.StatusOK)
	tok := created.Get("token").String()
	if created.Get("name").String() != "icinga" || created.Get("last_access").String() != "1970-01-01T00:00:00.000Z" || tok == "" {
		t.Fatalf("token creation:\n%s", created.Body)
	}
	// curl -u <token>:token -H 'Accept: application/json' -X GET '…/api/cluster?pretty=true'
	h.Do("GET", "/cluster?pretty=true", nil, nodetest.Token(tok), accept).Want(t, http.StatusOK)
	// curl -u GM:superpower -H 'Accept: application/json' -X GET '…/api/users/GM/tokens/?pretty=true'
	list := h.Do("GET", "/users/GM/tokens/?pretty=true", nil, nodetest.Basic("GM", "superpower"), accept).Want(t, http.StatusOK)
	if list.Get("tokens.0.token").String() != tok {
		t.Errorf("token list:\n%s", list.Body)
	}
	// curl -u GM:superpower -H 'Accept: application/json' -H 'X-Requested-By: cli' -X DELETE '…/api/users/GM/tokens/<token>?pretty=true'
	h.Do("DELETE", "/users/GM/tokens/"+tok+"?pretty=true", nil, nodetest.Basic("GM", "superpower"), accept, cli).Want(t, http.StatusNoContent)
	h.Do("GET", "/cluster", nil, nodetest.Token(tok)).Want(t, http.StatusUnauthorized)

	// PUT /system/loggers/{application-package}/level/debug with X-Requested-By.
	h.Do("PUT", "/system/loggers/loggate.auth/level/debug", nil, nodetest.AsRoot(), cli).Want(t, http.StatusNoContent)
	// POST /roles with a role body.
	h.Do("POST", "/roles", `{"name":"metrics","description":"Metrics only","permissions":["metrics:*"],"read_only":false}`,
		nodetest.AsRoot(), cli, nodetest.Header("Content-Type", "application/json")).Want(t, http.StatusCreated)
}

// Usernames are not resolved for anonymous callers, so old paths do not tell
// who exists.
func TestNoResolutionForAnonymousCallers(t *testing.T) {
	h := nodetest.Start(t)
	h.CreateUser("alice", "pw")
	for _, release := range []string{"3.0", ""} {
		for _, name := range []string{"alice", "nosuch"} {
			r := h.Do("GET", "/users/"+name+"/tokens", nil, nodetest.Header("X-API-Version", release))
			r.Want(t, http.StatusUnauthorized)
			// Answered through the router's error path: no login dialog
			// for browsers.
			xhr := h.Do("GET", "/users/"+name+"/tokens", nil, nodetest.Header("X-API-Version", release), nodetest.Header("X-Requested-With", "XMLHttpRequest"))
			if xhr.Header.Get("WWW-Authenticate") != "" {
				t.Errorf("%s %q: XHR 401 with WWW-Authenticate", name, release)
			}
		}
	}
}
