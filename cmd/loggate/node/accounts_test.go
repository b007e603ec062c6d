package node_test

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/loggate/loggate/auth/cache/redistest"
	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
)

// TestSelfPermissionsOfNonASCIINames: a user whose name holds a letter
// that strings.ToLower maps outside its case folding (U+0130 'İ' becomes
// 'i') keeps the permissions on their own account. They were lower-cased
// into users:edit:ilker, which does not imply users:edit:İlker.
func TestSelfPermissionsOfNonASCIINames(t *testing.T) {
	h := nodetest.Start(t)
	id := h.CreateUser("İlker", "password1")
	me := nodetest.Basic("İlker", "password1")
	for _, c := range []struct {
		method, path string
		body         any
		want         int
	}{
		{"GET", "/users/id/" + id, nil, http.StatusOK},
		{"GET", "/users/" + id + "/tokens", nil, http.StatusOK},
		{"POST", "/users/" + id + "/tokens/ci", nil, http.StatusOK},
		{"PUT", "/users/" + id + "/password", map[string]any{"old_password": "password1", "password": "password2"}, http.StatusNoContent},
	} {
		if r := h.Do(c.method, c.path, c.body, me); r.Status != c.want {
			t.Errorf("%s %s as İlker: %d %s, want %d", c.method, c.path, r.Status, r.Body, c.want)
		}
	}
}

// TestLongPasswordIs400: bcrypt reads 72 bytes of a password; a longer one
// is refused with a 400 on creation and change. It was a 500.
func TestLongPasswordIs400(t *testing.T) {
	h := nodetest.Start(t)
	long := strings.Repeat("p", 80)
	h.Do("POST", "/users", map[string]any{
		"username": "longpw", "password": long, "email": "a@b.c", "full_name": "L", "permissions": []string{},
	}, nodetest.AsRoot()).WantError(t, http.StatusBadRequest, "at most 72 bytes")
	id := h.CreateUser("shortpw", "password1")
	h.Do("PUT", "/users/"+id+"/password", map[string]any{"old_password": "password1", "password": long},
		nodetest.Basic("shortpw", "password1")).WantError(t, http.StatusBadRequest, "at most 72 bytes")
}

// TestServiceAccountFlagIsTheAdministrators: a service account may not
// start sessions, and it cannot clear its own flag: every user holds
// users:edit on their own account, so with its token it did, then logged
// in. An administrator may change the flag; an account made a service
// account loses its sessions.
func TestServiceAccountFlagIsTheAdministrators(t *testing.T) {
	h := nodetest.Start(t)
	root := nodetest.AsRoot()
	h.Do("POST", "/users", map[string]any{
		"username": "robot", "password": "password1", "email": "r@example.org", "full_name": "Robot",
		"permissions": []string{}, "service_account": true,
	}, root).Want(t, http.StatusCreated)
	id := h.Do("GET", "/users/robot", nil, root).Want(t, http.StatusOK).Get("id").String()
	tok, _ := h.CreateToken(id, "ci", nodetest.Basic("robot", "password1"))
	login := map[string]string{"username": "robot", "password": "password1", "host": ""}
	h.Do("POST", "/system/sessions", login).Want(t, http.StatusBadRequest)
	h.Do("PUT", "/users/"+id, map[string]any{"service_account": false}, nodetest.Token(tok)).Want(t, http.StatusForbidden)
	h.Do("POST", "/system/sessions", login).Want(t, http.StatusBadRequest)

	h.Do("PUT", "/users/"+id, map[string]any{"service_account": false}, root).Want(t, http.StatusNoContent)
	sid := h.Do("POST", "/system/sessions", login).Want(t, http.StatusOK).Get("session_id").String()
	h.Do("PUT", "/users/"+id, map[string]any{"service_account": true}, root).Want(t, http.StatusNoContent)
	h.Do("GET", "/users/robot", nil, nodetest.Session(sid)).Want(t, http.StatusUnauthorized)
	// Unchanged, the flag may be sent by the user as it stands.
	h.Do("PUT", "/users/"+id, map[string]any{"service_account": true, "full_name": "Robot 2"}, nodetest.Token(tok)).Want(t, http.StatusNoContent)
}

// TestRootUsernameNotRevealedByTiming: a wrong password for the root user
// takes as long as for any other: the root's SHA-256 took microseconds,
// every other check a bcrypt comparison, so the answer's time told which
// username was the root's.
func TestRootUsernameNotRevealedByTiming(t *testing.T) {
	h := nodetest.Start(t)
	fastest := func(user string) time.Duration {
		best := time.Hour
		for range 3 {
			start := time.Now()
			h.Do("POST", "/system/sessions", map[string]string{"username": user, "password": "wrong-password", "host": ""}).Want(t, http.StatusUnauthorized)
			best = min(best, time.Since(start))
		}
		return best
	}
	root, unknown := fastest(nodetest.RootUser), fastest("nobody-here")
	// A bcrypt comparison of cost 10 takes milliseconds, a SHA-256
	// microseconds: a fourth of the unknown user's time tells them apart
	// on any machine.
	if root*4 < unknown {
		t.Errorf("a wrong root password is answered in %v, an unknown user's in %v", root, unknown)
	}
}

// TestOldRootPasswordRefusedAfterChange: with Redis, the credential cache
// outlives a restart; the root's cached password checks are keyed with
// its hash, so that once root_password_sha2 changes the old password is
// refused. It kept logging in for the cache's lifetime.
func TestOldRootPasswordRefusedAfterChange(t *testing.T) {
	redis := redistest.Start(t)
	h := nodetest.Start(t, nodetest.WithRedis(redis.Addr))
	h.Do("GET", "/users/"+nodetest.RootUser, nil, nodetest.AsRoot()).Want(t, http.StatusOK) // cached now

	sum := sha256.Sum256([]byte("a-brand-new-root-password"))
	h.Config.RootPasswordSHA2 = hex.EncodeToString(sum[:])
	h.Restart()
	h.Do("GET", "/users/"+nodetest.RootUser, nil, nodetest.Basic(nodetest.RootUser, "a-brand-new-root-password")).Want(t, http.StatusOK)
	h.Do("GET", "/users/"+nodetest.RootUser, nil, nodetest.AsRoot()).Want(t, http.StatusUnauthorized)
}
