package sessions_test

import (
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
)

var (
	uuid       = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	validUntil = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+0000$`)
)

func TestLogin(t *testing.T) {
	h := nodetest.Start(t)
	r := h.Do("POST", "/system/sessions", `{"username":"admin", "password":"adminpass", "host":""}`).Want(t, http.StatusOK)
	if !uuid.MatchString(r.Get("session_id").String()) {
		t.Errorf("session_id %q is not a UUID", r.Get("session_id"))
	}
	if !validUntil.MatchString(r.Get("valid_until").String()) {
		t.Errorf("valid_until %q is not like 2016-10-24T16:08:57.854+0000", r.Get("valid_until"))
	}
	vu, err := time.Parse("2006-01-02T15:04:05.000-0700", r.Get("valid_until").String())
	if err != nil {
		t.Fatal(err)
	}
	if d := vu.Sub(h.Clock.Now()); d < 8*time.Hour-time.Second || d > 8*time.Hour+time.Second {
		t.Errorf("valid_until is %v from now, want the 8 h default", d)
	}
	if r.Get("username").String() != "admin" || r.Get("user_id").String() != "local:admin" {
		t.Errorf("username/user_id: %s", r.Body)
	}
	h.Do("GET", "/cluster", nil, nodetest.Session(r.Get("session_id").String())).Want(t, http.StatusOK)
}

func TestLoginErrors(t *testing.T) {
	h := nodetest.Start(t)
	r := h.Do("POST", "/system/sessions", map[string]string{"username": "admin", "password": "nope"})
	r.Want(t, http.StatusUnauthorized)
	if got := r.Header.Get("WWW-Authenticate"); got != `Basic realm="Graylog Server session"` {
		t.Errorf("WWW-Authenticate %q", got)
	}
	h.Do("POST", "/system/sessions", map[string]string{"username": "ghost", "password": "x"}).Want(t, http.StatusUnauthorized)
	h.Do("POST", "/system/sessions", map[string]string{"username": "admin"}).WantError(t, http.StatusBadRequest, "Missing required properties: password.")
	h.Do("POST", "/system/sessions", `{}`).WantError(t, http.StatusBadRequest, "Missing required properties: username, password.")
	h.Do("POST", "/system/sessions", nil).WantError(t, http.StatusBadRequest, "Request body is mandatory")
	h.Do("POST", "/system/sessions", `{"username":1,"password":2}`).WantError(t, http.StatusBadRequest, "Missing required properties")
}

func TestValidate(t *testing.T) {
	h := nodetest.Start(t)
	id := h.Login("admin", "adminpass")
	for _, c := range []struct {
		name  string
		opt   nodetest.ReqOption
		valid bool
	}{
		{"valid session", nodetest.Session(id), true},
		{"unknown session", nodetest.Session("d1b6e0b4-6f3f-4a4b-8b0e-2b1d3c4e5f60"), false},
		{"no credentials", nodetest.Header("X-Nothing", "1"), false},
		{"undefined", nodetest.Basic("undefined", "session"), false},
	} {
		r := h.Do("GET", "/system/sessions", nil, c.opt).Want(t, http.StatusOK)
		if r.Get("is_valid").Bool() != c.valid {
			t.Errorf("%s: is_valid %v", c.name, r.Get("is_valid"))
		}
		if !r.Get("session_id").Exists() || !r.Get("username").Exists() {
			t.Errorf("%s: session_id and username keys missing: %s", c.name, r.Body)
		}
	}
}

func TestLogout(t *testing.T) {
	h := nodetest.Start(t)
	id := h.Login("admin", "adminpass")
	h.Do("DELETE", "/system/sessions/"+id, nil, nodetest.Session(id)).Want(t, http.StatusNoContent)
	h.Do("GET", "/cluster", nil, nodetest.Session(id)).Want(t, http.StatusUnauthorized)
	h.Do("DELETE", "/system/sessions/"+id, nil).Want(t, http.StatusUnauthorized)
}

func TestExpiryAndExtension(t *testing.T) {
	h := nodetest.Start(t)
	h.CreateUser("short", "shortpass")
	uid := h.Do("GET", "/users/short", nil, nodetest.AsRoot()).Get("id").String()
	h.Do("PUT", "/users/"+uid, map[string]any{"session_timeout_ms": 60000}, nodetest.AsRoot()).Want(t, http.StatusNoContent)
	id := h.Login("short", "shortpass")

	// Used every 40 s, the one-minute session stays alive.
	for range 3 {
		h.Clock.Advance(40 * time.Second)
		h.Do("GET", "/cluster", nil, nodetest.Session(id)).Want(t, http.StatusOK)
	}
	// Background polling does not extend it.
	h.Clock.Advance(40 * time.Second)
	h.Do("GET", "/cluster", nil, nodetest.Session(id), nodetest.Header("X-Graylog-No-Session-Extension", "true")).Want(t, http.StatusOK)
	h.Clock.Advance(30 * time.Second)
	h.Do("GET", "/cluster", nil, nodetest.Session(id)).Want(t, http.StatusUnauthorized)
	if h.Do("GET", "/system/sessions", nil, nodetest.Session(id)).Get("is_valid").Bool() {
		t.Error("expired session still valid")
	}
}

func TestSessionSurvivesRestart(t *testing.T) {
	h := nodetest.Start(t)
	id := h.Login("admin", "adminpass")
	h.Clock.Advance(time.Hour)
	h.Do("GET", "/cluster", nil, nodetest.Session(id)).Want(t, http.StatusOK) // extends
	h.Restart()
	// 7.5 h after the extension: alive only if the extension was written.
	h.Clock.Advance(7*time.Hour + 30*time.Minute)
	h.Do("GET", "/cluster", nil, nodetest.Session(id)).Want(t, http.StatusOK)
}

func TestLoginReusesSession(t *testing.T) {
	h := nodetest.Start(t)
	id := h.Login("admin", "adminpass")
	r := h.Do("POST", "/system/sessions", map[string]string{"username": "admin", "password": "adminpass"}, nodetest.Session(id)).Want(t, http.StatusOK)
	if r.Get("session_id").String() != id {
		t.Errorf("login with a valid session got a new one: %s", r.Get("session_id"))
	}
}

func TestDisabledUserCannotLogIn(t *testing.T) {
	h := nodetest.Start(t)
	uid := h.CreateUser("bob", "bobpass")
	sid := h.Login("bob", "bobpass")
	h.Do("PUT", "/users/"+uid+"/status/disabled", nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	h.Do("POST", "/system/sessions", map[string]string{"username": "bob", "password": "bobpass"}).Want(t, http.StatusUnauthorized)
	h.Do("GET", "/users/bob", nil, nodetest.Session(sid)).Want(t, http.StatusUnauthorized)
}

// Service accounts cannot start sessions; they use tokens (or Basic auth).
func TestServiceAccountCannotLogIn(t *testing.T) {
	h := nodetest.Start(t)
	h.Do("POST", "/users", map[string]any{"username": "sidecar", "password": "pw", "email": "s@example.org",
		"full_name": "Sidecar", "permissions": []string{}, "service_account": true}, nodetest.AsRoot()).Want(t, http.StatusCreated)
	u := h.Do("GET", "/users/sidecar", nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	if !u.Get("service_account").Bool() {
		t.Fatalf("service_account not stored: %s", u.Body)
	}
	login := map[string]string{"username": "sidecar", "password": "pw"}
	for range 2 { // the second answer comes from the credential cache
		h.Do("POST", "/system/sessions", login).WantError(t, http.StatusBadRequest, "Cannot login with service account sidecar")
	}
	tok, _ := h.CreateToken(u.Get("id").String(), "t", nodetest.Basic("sidecar", "pw"))
	h.Do("GET", "/cluster", nil, nodetest.Token(tok)).Want(t, http.StatusOK)
	// Turned into a normal account, it can.
	h.Do("PUT", "/users/"+u.Get("id").String(), map[string]any{"service_account": false}, nodetest.AsRoot()).Want(t, http.StatusNoContent)
	h.Do("POST", "/system/sessions", login).Want(t, http.StatusOK)
}
