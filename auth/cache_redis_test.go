package auth_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/loggate/loggate/auth/cache/redistest"
	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
)

// The credential cache on a real Redis: entries are keyed hashes, changes
// invalidate at once, and an outage falls back to the store without a 5xx or
// a wrong answer.
func TestRedisCredentialCache(t *testing.T) {
	srv := redistest.Start(t)
	h := nodetest.Start(t, nodetest.WithRedis(srv.Addr))
	id := h.CreateUser("rita", "pw-one")
	as := nodetest.Basic("rita", "pw-one")
	tok, tokID := h.CreateToken(id, "t", as)
	sid := h.Login("rita", "pw-one")
	for _, opt := range []nodetest.ReqOption{as, nodetest.Token(tok), nodetest.Session(sid)} {
		h.Do("GET", "/cluster", nil, opt).Want(t, http.StatusOK)
	}
	keys, err := srv.Client().Keys(t.Context(), "loggate:*").Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) < 3 {
		t.Fatalf("expected cached credentials in Redis, found %v", keys)
	}
	for _, k := range keys {
		for _, secret := range []string{"pw-one", tok, sid, "rita"} {
			if strings.Contains(k, secret) {
				t.Errorf("Redis key %q contains a secret or name", k)
			}
		}
		if v, _ := srv.Client().Get(t.Context(), k).Result(); strings.Contains(v, "pw-one") || strings.Contains(v, tok) || strings.Contains(v, sid) {
			t.Errorf("Redis value of %q contains a secret", k)
		}
	}

	// A deleted token is refused at once.
	h.Do("DELETE", "/users/"+id+"/tokens/"+tokID, nil, as).Want(t, http.StatusNoContent)
	h.Do("GET", "/cluster", nil, nodetest.Token(tok)).Want(t, http.StatusUnauthorized)

	// Keep what Redis holds now: the cached entries of rita's password.
	saved := map[string]string{}
	for _, k := range keys {
		if v, err := srv.Client().Dump(t.Context(), k).Result(); err == nil {
			saved[k] = v
		}
	}

	// Redis stops: authentication falls back to the store.
	srv.Stop()
	h.Do("GET", "/cluster", nil, as).Want(t, http.StatusOK)
	h.Do("GET", "/cluster", nil, nodetest.Session(sid)).Want(t, http.StatusOK)
	// A password change while Redis is down cannot invalidate Redis...
	h.Do("PUT", "/users/"+id+"/password", map[string]string{"old_password": "pw-one", "password": "pw-two"}, as).Want(t, http.StatusNoContent)
	h.Do("GET", "/cluster", nil, as).Want(t, http.StatusUnauthorized)
	// ...so when Redis returns with the old entries (as a Redis that kept
	// its data would), they are not trusted before the invalidation went
	// through.
	srv.Restart()
	for k, v := range saved {
		if err := srv.Client().RestoreReplace(t.Context(), k, 0, v).Err(); err != nil {
			t.Fatal(err)
		}
	}
	// (Whether the pause after the failure or the replayed invalidation
	// refuses it here, TestPendingInvalidationReplayed pins the latter.)
	h.Do("GET", "/cluster", nil, as).Want(t, http.StatusUnauthorized)
	h.Do("GET", "/cluster", nil, nodetest.Basic("rita", "pw-two")).Want(t, http.StatusOK)
	if n := h.Node.Metrics.Counter("loggate.auth.cache.failures").Count(); n == 0 {
		t.Error("cache failures were not counted")
	}
}
