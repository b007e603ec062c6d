package sessions_test

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/loggate/loggate/auth/cache/redistest"
	"github.com/loggate/loggate/backend/access/sessions"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/cmd/loggate/config"
	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
	"github.com/loggate/loggate/internal/poll"
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

// storedSessions returns every stored session record with the key it is
// stored under.
func storedSessions(t *testing.T, st store.Store) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := st.List(t.Context(), sessions.Collection, func(id string, doc []byte) error {
		out[id] = string(doc)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// The store holds keyed hashes of session ids only: a copy of it logs no one
// in, while the sessions keep working, extensions included.
func TestSessionIDsNotStored(t *testing.T) {
	h := nodetest.Start(t)
	id := h.Login("admin", "adminpass")
	h.Clock.Advance(time.Hour)
	h.Do("GET", "/cluster", nil, nodetest.Session(id)).Want(t, http.StatusOK) // an extension
	if err := h.Node.Sessions.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	stored := storedSessions(t, h.Node.Store)
	if len(stored) != 1 {
		t.Fatalf("stored sessions %v", stored)
	}
	for key, doc := range stored {
		if strings.Contains(key, id) || strings.Contains(doc, id) {
			t.Errorf("the session id is stored in clear: %s %s", key, doc)
		}
		// Presenting what the store holds is no session.
		h.Do("GET", "/cluster", nil, nodetest.Session(key)).Want(t, http.StatusUnauthorized)
	}
	h.Clock.Advance(7*time.Hour + 30*time.Minute) // alive thanks to the stored extension
	h.Do("GET", "/cluster", nil, nodetest.Session(id)).Want(t, http.StatusOK)
}

// Sessions stored with their id in clear by an earlier release count as
// expired: refused, never a crash, and purged when the node starts.
func TestLegacyClearSessionsExpire(t *testing.T) {
	st := nodetest.SharedStore(t)
	const legacy = "0f3d7c2e-8a4b-4c1d-9e2f-3a4b5c6d7e8f"
	doc := fmt.Sprintf(`{"id":%q,"user_id":"local:admin","username":"admin","last_access":%q,"timeout_ms":28800000,"host":"","client_address":"127.0.0.1"}`,
		legacy, time.Now().UTC().Format(time.RFC3339Nano))
	if err := st.Insert(t.Context(), sessions.Collection, legacy, []byte(doc)); err != nil {
		t.Fatal(err)
	}
	h := nodetest.StartOn(t, st)
	h.Do("GET", "/cluster", nil, nodetest.Session(legacy)).Want(t, http.StatusUnauthorized)
	if r := h.Do("GET", "/users/admin", nil, nodetest.AsRoot()).Want(t, http.StatusOK); r.Get("session_active").Bool() {
		t.Errorf("a legacy session counts as active: %s", r.Body)
	}
	poll.Until(t, "the legacy session to be purged at start", func() bool {
		_, ok := storedSessions(t, st)[legacy]
		return !ok
	})
	// New sessions work beside it.
	h.Do("GET", "/cluster", nil, nodetest.Session(h.Login("admin", "adminpass"))).Want(t, http.StatusOK)
}

// eachCache runs fn on a node with user bob (password pw), who has a token,
// once per credential cache sessions must be ended in: in-process and Redis.
func eachCache(t *testing.T, fn func(t *testing.T, h *nodetest.Harness, uid, tok string)) {
	for name, opts := range map[string][]nodetest.Option{
		"memory": nil,
		"redis":  {nodetest.WithRedis(redistest.Start(t).Addr)},
	} {
		t.Run(name, func(t *testing.T) {
			h := nodetest.Start(t, opts...)
			uid := h.CreateUser("bob", "pw")
			tok, _ := h.CreateToken(uid, "t", nodetest.Basic("bob", "pw"))
			fn(t, h, uid, tok)
		})
	}
}

// A password change ends every other session of the user: the one that made
// the change stays, a reset by an administrator ends them all; tokens stay.
func TestPasswordChangeEndsOtherSessions(t *testing.T) {
	eachCache(t, func(t *testing.T, h *nodetest.Harness, uid, tok string) {
		mine, other := h.Login("bob", "pw"), h.Login("bob", "pw")
		for _, s := range []string{mine, other} {
			h.Do("GET", "/cluster", nil, nodetest.Session(s)).Want(t, http.StatusOK) // cached
		}
		h.Do("PUT", "/users/"+uid+"/password", map[string]string{"old_password": "pw", "password": "pw-two"},
			nodetest.Session(mine)).Want(t, http.StatusNoContent)
		h.Do("GET", "/cluster", nil, nodetest.Session(other)).Want(t, http.StatusUnauthorized)
		h.Do("GET", "/cluster", nil, nodetest.Session(mine)).Want(t, http.StatusOK)
		h.Do("GET", "/cluster", nil, nodetest.Token(tok)).Want(t, http.StatusOK)

		h.Do("PUT", "/users/"+uid+"/password", map[string]string{"password": "pw-three"}, nodetest.AsRoot()).Want(t, http.StatusNoContent)
		h.Do("GET", "/cluster", nil, nodetest.Session(mine)).Want(t, http.StatusUnauthorized)
		h.Do("GET", "/cluster", nil, nodetest.Token(tok)).Want(t, http.StatusOK)
	})
}

// Disabling a user ends their sessions for good; their tokens are refused
// while the account is disabled and work again once it is enabled.
func TestDisableEndsSessionsForGood(t *testing.T) {
	eachCache(t, func(t *testing.T, h *nodetest.Harness, uid, tok string) {
		sid := h.Login("bob", "pw")
		h.Do("GET", "/cluster", nil, nodetest.Session(sid)).Want(t, http.StatusOK) // cached
		for _, status := range []string{"disabled", "deleted"} {
			h.Do("PUT", "/users/"+uid+"/status/"+status, nil, nodetest.AsRoot()).Want(t, http.StatusOK)
			h.Do("GET", "/cluster", nil, nodetest.Session(sid)).Want(t, http.StatusUnauthorized)
			h.Do("GET", "/cluster", nil, nodetest.Token(tok)).Want(t, http.StatusUnauthorized)
			h.Do("PUT", "/users/"+uid+"/status/enabled", nil, nodetest.AsRoot()).Want(t, http.StatusOK)
			h.Do("GET", "/cluster", nil, nodetest.Session(sid)).Want(t, http.StatusUnauthorized)
			h.Do("GET", "/cluster", nil, nodetest.Token(tok)).Want(t, http.StatusOK)
			sid = h.Login("bob", "pw")
			h.Do("GET", "/cluster", nil, nodetest.Session(sid)).Want(t, http.StatusOK)
		}
	})
}

// A session timeout too long for a time.Duration (Graylog takes any long;
// Long.MAX_VALUE is how clients say "never") used to overflow: the login
// answered valid_until = now, every session was dead on arrival and the user
// was shown session_timeout_ms -1.
func TestHugeSessionTimeout(t *testing.T) {
	h := nodetest.Start(t)
	uid := h.CreateUser("long", "longpass")
	const never = int64(9223372036854775807)
	h.Do("PUT", "/users/"+uid, map[string]any{"session_timeout_ms": never}, nodetest.AsRoot()).Want(t, http.StatusNoContent)
	r := h.Do("POST", "/system/sessions", map[string]string{"username": "long", "password": "longpass"}).Want(t, http.StatusOK)
	vu, err := time.Parse("2006-01-02T15:04:05.000-0700", r.Get("valid_until").String())
	if err != nil {
		t.Fatal(err)
	}
	if !vu.After(h.Clock.Now().Add(100 * 365 * 24 * time.Hour)) {
		t.Errorf("valid_until %s, want centuries away", r.Get("valid_until"))
	}
	sid := r.Get("session_id").String()
	h.Clock.Advance(30 * 24 * time.Hour)
	h.Do("GET", "/cluster", nil, nodetest.Session(sid)).Want(t, http.StatusOK)
	if got := h.Do("GET", "/users/long", nil, nodetest.AsRoot()).Get("session_timeout_ms").Int(); got != never {
		t.Errorf("session_timeout_ms = %d, want %d as set", got, never)
	}
}

// The 2.x login field host is unused (Graylog 4.0 ignores it), but it was
// stored as sent: any user could put megabytes into every session record,
// which each purge and each user listing reads back.
func TestLoginHostNotStoredWhole(t *testing.T) {
	h := nodetest.Start(t)
	host := strings.Repeat("h", 4<<20)
	h.Do("POST", "/system/sessions", map[string]string{"username": "admin", "password": "adminpass", "host": host}).Want(t, http.StatusOK)
	for key, doc := range storedSessions(t, h.Node.Store) {
		if len(doc) > 4096 {
			t.Errorf("session %s is stored in %d bytes", key, len(doc))
		}
	}
}

// Behind a trusted proxy the web interface has no session yet: it validates
// with only the trusted header and takes the session Graylog 4.0 creates on
// the fly (session_id and username in the answer) for its later requests.
// session_id was always null, so the interface went on without one.
func TestValidateMakesSessionForTrustedHeader(t *testing.T) {
	h := nodetest.Start(t, nodetest.WithConfig(func(c *config.Config) { c.TrustedProxies = "127.0.0.1/32, ::1" }))
	h.CreateUser("carol", "carolpass")
	h.Do("PUT", "/system/authentication/http-header-auth-config", map[string]any{"enabled": true, "username_header": "X-Remote-User"},
		nodetest.AsRoot()).Want(t, http.StatusOK)
	r := h.Do("GET", "/system/sessions", nil, nodetest.Header("X-Remote-User", "carol")).Want(t, http.StatusOK)
	sid := r.Get("session_id").String()
	if !r.Get("is_valid").Bool() || !uuid.MatchString(sid) || r.Get("username").String() != "carol" {
		t.Fatalf("validation with the trusted header: %s", r.Body)
	}
	h.Do("GET", "/cluster", nil, nodetest.Session(sid)).Want(t, http.StatusOK)
	h.Do("DELETE", "/system/sessions/"+sid, nil, nodetest.Session(sid)).Want(t, http.StatusNoContent)
	h.Do("GET", "/cluster", nil, nodetest.Session(sid)).Want(t, http.StatusUnauthorized)
	// Other credentials, and a session, make none.
	for _, as := range []nodetest.ReqOption{nodetest.Basic("carol", "carolpass"), nodetest.Session(h.Login("carol", "carolpass"))} {
		if r := h.Do("GET", "/system/sessions", nil, as).Want(t, http.StatusOK); !r.Get("is_valid").Bool() || r.Get("session_id").Type != gjson.Null {
			t.Errorf("validation made a session: %s", r.Body)
		}
	}
}
