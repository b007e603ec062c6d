package authservices_test

import (
	"encoding/json"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/loggate/loggate/auth/ldap/slapdtest"
)

const (
	connectionPath = "/system/authentication/services/test/backend/connection"
	loginPath      = "/system/authentication/services/test/backend/login"
)

// slapdBackend is a backend body for srv's directory at port, with the
// given password property (raw JSON, or "" to leave it out).
func slapdBackend(srv *slapdtest.Server, port int, password string) string {
	pw := ""
	if password != "" {
		pw = `"system_user_password":` + password + `,`
	}
	return `{"title":"slapd","config":{"type":"ldap","servers":[{"host":"` + srv.Host + `","port":` + strconv.Itoa(port) + `}],` +
		`"transport_security":"none","system_user_dn":"` + srv.AdminDN + `",` + pw +
		`"user_search_base":"` + slapdtest.PeopleDN + `","user_search_pattern":"(&(objectClass=inetOrgPerson)(uid={0}))",` +
		`"user_name_attribute":"uid","user_full_name_attribute":"cn"}}`
}

// testBody is a test request body.
func testBody(backendID, backend, user, password string) string {
	id := "null"
	if backendID != "" {
		id = `"` + backendID + `"`
	}
	login := "null"
	if user != "" {
		login = `{"username":"` + user + `","password":"` + password + `"}`
	}
	return `{"backend_id":` + id + `,"backend_configuration":` + backend + `,"user_login":` + login + `}`
}

// closedPort is a loopback port nothing listens on.
func closedPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	return port
}

type testResult struct {
	Success *bool          `json:"success"`
	Message string         `json:"message"`
	Errors  []string       `json:"errors"`
	Result  map[string]any `json:"result"`
}

func TestConnectionTest(t *testing.T) {
	srv := slapdtest.Start(t)
	e := newEnv(t)
	stored := e.create(t, slapdBackend(srv, srv.Port, `"`+srv.AdminPassword+`"`)).ID
	wrongStored := e.create(t, slapdBackend(srv, srv.Port, `"not-the-password"`)).ID
	closed := closedPort(t)
	partial := `{"title":"","config":{"type":"ldap","servers":[{"host":"` + srv.Host + `","port":` + strconv.Itoa(srv.Port) + `}],"transport_security":"none"}}`
	right := `"` + srv.AdminPassword + `"`
	cases := []struct {
		name, body string
		success    bool
		message    string
	}{
		{"right password", testBody("", slapdBackend(srv, srv.Port, right), "", ""), true, "Successfully connected to " + srv.URL()},
		{"set_value", testBody("", slapdBackend(srv, srv.Port, `{"set_value":`+right+`}`), "", ""), true, "Successfully connected"},
		{"wrong password", testBody("", slapdBackend(srv, srv.Port, `"wrong-pw-123"`), "", ""), false, "Couldn't establish connection to " + srv.URL()},
		{"unreachable", testBody("", slapdBackend(srv, closed, right), "", ""), false, "Couldn't establish connection to ldap://127.0.0.1:" + strconv.Itoa(closed)},
		{"partial config, anonymous", testBody("", partial, "", ""), true, "Successfully connected"},
		{"no servers", testBody("", `{"config":{"type":"ldap"}}`, "", ""), false, "Couldn't establish connection to <no server>"},
		{"stored password kept", testBody(stored, slapdBackend(srv, srv.Port, `{"keep_value":true}`), "", ""), true, "Successfully connected"},
		{"stored password, property absent", testBody(stored, slapdBackend(srv, srv.Port, ""), "", ""), true, "Successfully connected"},
		{"stored password is wrong", testBody(wrongStored, slapdBackend(srv, srv.Port, `{"keep_value":true}`), "", ""), false, "Couldn't establish connection"},
		{"new password beats the stored one", testBody(wrongStored, slapdBackend(srv, srv.Port, right), "", ""), true, "Successfully connected"},
		{"deleted password", testBody(stored, slapdBackend(srv, srv.Port, `{"delete_value":true}`), "", ""), false, "Couldn't establish connection"},
		{"keep without a backend", testBody("", slapdBackend(srv, srv.Port, `{"keep_value":true}`), "", ""), false, "Couldn't establish connection"},
		{"stored backend, other port", testBody(stored, slapdBackend(srv, closed, `{"keep_value":true}`), "", ""), false, "Couldn't establish connection"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var res testResult
			w := e.ok(t, call{method: "POST", path: connectionPath, body: c.body, perms: admin}, http.StatusOK, &res)
			if res.Success == nil || *res.Success != c.success || !strings.HasPrefix(res.Message, c.message) || res.Errors == nil || res.Result == nil {
				t.Errorf("answer %s, want success %v and a message starting %q", w.Body, c.success, c.message)
			}
			if !c.success && len(res.Errors) == 0 {
				t.Errorf("a failure without errors: %s", w.Body)
			}
			for _, secret := range []string{srv.AdminPassword, "not-the-password", "wrong-pw-123"} {
				if strings.Contains(w.Body.String(), secret) {
					t.Errorf("the answer shows a password: %s", w.Body)
				}
			}
		})
	}
}

func TestLoginTest(t *testing.T) {
	srv := slapdtest.Start(t)
	e := newEnv(t)
	stored := e.create(t, slapdBackend(srv, srv.Port, `"`+srv.AdminPassword+`"`)).ID
	backend := slapdBackend(srv, srv.Port, `"`+srv.AdminPassword+`"`)
	alice := slapdtest.Alice
	cases := []struct {
		name, body           string
		success, exists, got bool
		message              string
	}{
		{"success", testBody("", backend, alice.UID, alice.Password), true, true, true, "Successfully logged in <alice> into " + srv.URL()},
		{"stored password", testBody(stored, slapdBackend(srv, srv.Port, `{"keep_value":true}`), alice.UID, alice.Password), true, true, true, "Successfully logged in"},
		{"wrong password", testBody("", backend, alice.UID, "wrong"), false, true, false, "Login for user <alice> failed"},
		{"empty password", testBody("", backend, alice.UID, ""), false, true, false, "Login for user <alice> failed"},
		{"unknown user", testBody("", backend, "nobody", "pw"), false, false, false, "User <nobody> doesn't exist"},
		{"filter injection", testBody("", backend, "*)(uid=*", "pw"), false, false, false, "User <*)(uid=*> doesn't exist"},
		{"unreachable", testBody("", slapdBackend(srv, closedPort(t), `"x"`), alice.UID, alice.Password), false, false, false, "Couldn't establish connection"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var res testResult
			w := e.ok(t, call{method: "POST", path: loginPath, body: c.body, perms: admin}, http.StatusOK, &res)
			if res.Success == nil || *res.Success != c.success || !strings.HasPrefix(res.Message, c.message) {
				t.Fatalf("answer %s, want success %v and a message starting %q", w.Body, c.success, c.message)
			}
			if c.message == "Couldn't establish connection" {
				return
			}
			if res.Result["user_exists"] != c.exists || res.Result["login_success"] != c.got {
				t.Errorf("result %v, want user_exists %v login_success %v", res.Result, c.exists, c.got)
			}
			details, _ := res.Result["user_details"].(map[string]any)
			if c.exists && (details["uid"] != alice.UID || details["cn"] != alice.CN || details["email"] != alice.Mail) {
				t.Errorf("user_details %v", details)
			}
			if strings.Contains(w.Body.String(), srv.AdminPassword) || strings.Contains(w.Body.String(), alice.Password) {
				t.Errorf("the answer shows a password: %s", w.Body)
			}
		})
	}
}

func TestLoginTestValidation(t *testing.T) {
	e := newEnv(t)
	valid := backendJSON("T", `"pw"`)
	cases := []struct {
		name, body string
		fields     []string
	}{
		{"no user login", testBody("", valid, "", ""), []string{"user_login"}},
		{"blank username", testBody("", valid, " ", "pw"), []string{"user_login"}},
		{"invalid config", testBody("", `{"config":{"type":"ldap","servers":[{"host":"h","port":389}],"transport_security":"none"}}`, "alice", "pw"),
			[]string{"user_full_name_attribute", "user_name_attribute", "user_search_base", "user_search_pattern"}},
	}
	for _, c := range cases {
		w := e.do(t, call{method: "POST", path: loginPath, body: c.body, perms: admin})
		var f failure
		if err := json.Unmarshal(w.Body.Bytes(), &f); err != nil || w.Code != http.StatusBadRequest || !f.Failed {
			t.Errorf("%s: %d %s, want a 400 validation failure", c.name, w.Code, w.Body)
			continue
		}
		for _, field := range c.fields {
			if len(f.Errors[field]) == 0 {
				t.Errorf("%s: no failure for %s in %s", c.name, field, w.Body)
			}
		}
		if len(f.Errors) != len(c.fields) {
			t.Errorf("%s: failed fields %v, want %v", c.name, f.Errors, c.fields)
		}
	}
}

func TestBackendTestErrors(t *testing.T) {
	e := newEnv(t)
	id := e.create(t, backendJSON("T", `"pw"`)).ID
	const unknown = "5f1f0f0f0f0f0f0f0f0f0aaa"
	keep := backendJSON("T", `{"keep_value":true}`)
	exec := "authservicetestbackend:execute"
	cases := []struct {
		name string
		c    call
		want int
		msg  string
	}{
		{"anonymous", call{path: connectionPath, body: testBody("", keep, "", "")}, http.StatusUnauthorized, "Not authenticated"},
		{"no permission", call{path: connectionPath, body: testBody("", keep, "", ""), perms: []string{"authservicebackend:edit"}}, http.StatusForbidden, "Not authorized"},
		{"login, no permission", call{path: loginPath, body: testBody("", keep, "a", "b"), perms: []string{"authservicebackend:*"}}, http.StatusForbidden, "Not authorized"},
		{"stored password needs edit", call{path: connectionPath, body: testBody(id, keep, "", ""), perms: []string{exec, "authservicebackend:read:" + id}}, http.StatusForbidden, "Not authorized"},
		{"login: stored password needs edit", call{path: loginPath, body: testBody(id, keep, "a", "b"), perms: []string{exec}}, http.StatusForbidden, "Not authorized"},
		{"unknown backend needs edit too", call{path: connectionPath, body: testBody(unknown, keep, "", ""), perms: []string{exec}}, http.StatusForbidden, "Not authorized"},
		{"unknown backend", call{path: connectionPath, body: testBody(unknown, keep, "", ""), perms: admin}, http.StatusNotFound, "Couldn't find auth service backend " + unknown},
		{"no configuration", call{path: connectionPath, body: `{"backend_id":null}`, perms: admin}, http.StatusBadRequest, "backend_configuration is required"},
		{"unknown type", call{path: connectionPath, body: testBody("", `{"config":{"type":"kerberos"}}`, "", ""), perms: admin}, http.StatusBadRequest, "Unknown authentication service type"},
		{"no type", call{path: loginPath, body: testBody("", `{"config":{}}`, "a", "b"), perms: admin}, http.StatusBadRequest, "Unknown authentication service type"},
		{"unknown property", call{path: connectionPath, body: `{"backend_configuration":` + keep + `,"extra":1}`, perms: admin}, http.StatusBadRequest, "Unable to map property extra"},
		{"unknown login property", call{path: loginPath, body: `{"backend_configuration":` + keep + `,"user_login":{"user":"a"}}`, perms: admin}, http.StatusBadRequest, "Unable to map property user"},
		{"empty", call{path: loginPath, perms: admin}, http.StatusBadRequest, "Request body is mandatory"},
	}
	for _, c := range cases {
		c.c.method = "POST"
		w := e.do(t, c.c)
		var body struct{ Type, Message string }
		_ = json.Unmarshal(w.Body.Bytes(), &body)
		if w.Code != c.want || !strings.Contains(body.Message, c.msg) {
			t.Errorf("%s: %d %s, want %d %q", c.name, w.Code, w.Body, c.want, c.msg)
		}
	}
}

func TestActiveAuthenticates(t *testing.T) {
	srv := slapdtest.Start(t)
	e := newEnv(t)
	id := e.create(t, slapdBackend(srv, srv.Port, `{"set_value":"`+srv.AdminPassword+`"}`)).ID
	e.activate(t, id)
	a, err := e.svc.Active(t.Context())
	if err != nil || a == nil {
		t.Fatalf("Active = %v, %v", a, err)
	}
	entry, err := a.Directory.Authenticate(t.Context(), slapdtest.Bob.UID, slapdtest.Bob.Password)
	if err != nil || entry.Username != slapdtest.Bob.UID || entry.FullName != slapdtest.Bob.CN {
		t.Fatalf("Authenticate(bob) = %+v, %v", entry, err)
	}
	if _, err := a.Directory.Authenticate(t.Context(), slapdtest.Bob.UID, "wrong"); err == nil {
		t.Fatalf("a wrong password authenticated")
	}
}
