package tokens_test

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
)

var tokenValue = regexp.MustCompile(`^[0-9a-v]{1,52}$`)

func TestCreateListUse(t *testing.T) {
	h := nodetest.Start(t)
	id := h.CreateUser("ann", "pw")
	as := nodetest.Basic("ann", "pw")
	r := h.Do("POST", "/users/"+id+"/tokens/icinga", nil, as).Want(t, http.StatusOK)
	tok := r.Get("token").String()
	if !tokenValue.MatchString(tok) || len(tok) < 40 {
		t.Errorf("token %q is not 256 bits in base 32", tok)
	}
	if r.Get("name").String() != "icinga" || r.Get("last_access").String() != "1970-01-01T00:00:00.000Z" || r.Get("id").String() == "" {
		t.Errorf("created token: %s", r.Body)
	}
	list := h.Do("GET", "/users/"+id+"/tokens", nil, as).Want(t, http.StatusOK)
	if list.Get("tokens.#").Int() != 1 || list.Get("tokens.0.token").String() != tok || list.Get("tokens.0.id").String() != r.Get("id").String() {
		t.Errorf("list: %s", list.Body)
	}
	before := h.Clock.Now()
	h.Do("GET", "/cluster", nil, nodetest.Token(tok)).Want(t, http.StatusOK)
	last := h.Do("GET", "/users/"+id+"/tokens", nil, as).Get("tokens.0.last_access").String()
	at, err := time.Parse("2006-01-02T15:04:05.000Z", last)
	if err != nil || at.Before(before.Truncate(time.Millisecond)) {
		t.Errorf("last_access %q not updated by use at %v", last, before)
	}
}

func TestLastAccessSurvivesRestart(t *testing.T) {
	h := nodetest.Start(t)
	id := h.CreateUser("bea", "pw")
	tok, _ := h.CreateToken(id, "t", nodetest.Basic("bea", "pw"))
	h.Do("GET", "/cluster", nil, nodetest.Token(tok)).Want(t, http.StatusOK)
	// Restart flushes; what the new process reads is what was stored.
	h.Restart()
	last := h.Do("GET", "/users/"+id+"/tokens", nil, nodetest.Basic("bea", "pw")).Get("tokens.0.last_access").String()
	if last == "1970-01-01T00:00:00.000Z" {
		t.Errorf("last_access was not stored")
	}
}

func TestDeleteByIDAndValue(t *testing.T) {
	h := nodetest.Start(t)
	id := h.CreateUser("cid", "pw")
	as := nodetest.Basic("cid", "pw")
	tok1, id1 := h.CreateToken(id, "one", as)
	tok2, _ := h.CreateToken(id, "two", as)
	// Cache both, then delete: refused at once.
	h.Do("GET", "/cluster", nil, nodetest.Token(tok1)).Want(t, http.StatusOK)
	h.Do("GET", "/cluster", nil, nodetest.Token(tok2)).Want(t, http.StatusOK)
	h.Do("DELETE", "/users/"+id+"/tokens/"+id1, nil, as).Want(t, http.StatusNoContent)
	h.Do("DELETE", "/users/"+id+"/tokens/"+tok2, nil, as).Want(t, http.StatusNoContent)
	h.Do("GET", "/cluster", nil, nodetest.Token(tok1)).Want(t, http.StatusUnauthorized)
	h.Do("GET", "/cluster", nil, nodetest.Token(tok2)).Want(t, http.StatusUnauthorized)
	h.Do("DELETE", "/users/"+id+"/tokens/"+id1, nil, as).WantError(t, http.StatusNotFound, "Couldn't find access token for user cid")
	if n := h.Do("GET", "/users/"+id+"/tokens", nil, as).Get("tokens.#").Int(); n != 0 {
		t.Errorf("%d tokens left", n)
	}
}

func TestOwnerOnly(t *testing.T) {
	h := nodetest.Start(t)
	id := h.CreateUser("dan", "pw")
	otherID := h.CreateUser("eve", "pw")
	_, tokID := h.CreateToken(id, "mine", nodetest.Basic("dan", "pw"))
	// Administrators included.
	h.Do("GET", "/users/"+id+"/tokens", nil, nodetest.AsRoot()).WantError(t, http.StatusForbidden, "Cannot access other people's tokens.")
	h.Do("POST", "/users/"+id+"/tokens/x", nil, nodetest.AsRoot()).WantError(t, http.StatusForbidden, "Cannot access other people's tokens.")
	h.Do("DELETE", "/users/"+id+"/tokens/"+tokID, nil, nodetest.AsRoot()).WantError(t, http.StatusForbidden, "Cannot access other people's tokens.")
	// Other users get the same answer (a user who does not exist is a 404:
	// TestTokensOfUnknownUser).
	h.Do("GET", "/users/"+id+"/tokens", nil, nodetest.Basic("eve", "pw")).WantError(t, http.StatusForbidden, "Cannot access other people's tokens.")
	// Eve cannot delete Dan's token through her own path either.
	h.Do("DELETE", "/users/"+otherID+"/tokens/"+tokID, nil, nodetest.Basic("eve", "pw")).Want(t, http.StatusNotFound)
	// Root manages its own.
	tok, _ := h.CreateToken("local:admin", "root", nodetest.AsRoot())
	h.Do("GET", "/users/local:admin/tokens", nil, nodetest.Token(tok)).Want(t, http.StatusOK)
}

func TestDisabledOwnerTokenRefused(t *testing.T) {
	h := nodetest.Start(t)
	id := h.CreateUser("fay", "pw")
	tok, _ := h.CreateToken(id, "t", nodetest.Basic("fay", "pw"))
	h.Do("GET", "/cluster", nil, nodetest.Token(tok)).Want(t, http.StatusOK)
	h.Do("PUT", "/users/"+id+"/status/disabled", nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	h.Do("GET", "/cluster", nil, nodetest.Token(tok)).Want(t, http.StatusUnauthorized)
}

func TestTokensSurviveRestartEncrypted(t *testing.T) {
	h := nodetest.Start(t)
	id := h.CreateUser("gus", "pw")
	tok, _ := h.CreateToken(id, "t", nodetest.Basic("gus", "pw"))
	h.Restart()
	h.Do("GET", "/cluster", nil, nodetest.Token(tok)).Want(t, http.StatusOK)
	h.Stop()
	db, err := os.ReadFile(filepath.Join(h.Config.DataDir, "loggate.db"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(db, []byte(tok)) {
		t.Error("the token value is stored in plain text")
	}
	if !bytes.Contains(db, []byte("gus")) {
		t.Error("sanity: the store should contain the username")
	}
}

// The tokens of a user who does not exist are a 404 naming the user, as
// PUT /users/{userId} answers, for every form of the path; someone else's
// tokens stay a 403.
func TestTokensOfUnknownUser(t *testing.T) {
	h := nodetest.Start(t)
	id := h.CreateUser("dee", "pw")
	as := nodetest.Basic("dee", "pw")
	v40 := nodetest.Header("X-API-Version", "4.0")
	for _, c := range []struct {
		name, user string
		opts       []nodetest.ReqOption
	}{
		{"unknown name", "nosuch", nil},
		{"unknown id", "5f0000000000000000000000", nil},
		{"unknown name, 4.0", "nosuch", []nodetest.ReqOption{v40}},
		{"own username, 4.0", "dee", []nodetest.ReqOption{v40}},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, caller := range []nodetest.ReqOption{as, nodetest.AsRoot()} {
				h.Do("GET", "/users/"+c.user+"/tokens", nil, append([]nodetest.ReqOption{caller}, c.opts...)...).
					WantError(t, http.StatusNotFound, "Couldn't find user with ID "+c.user)
				h.Do("POST", "/users/"+c.user+"/tokens/t", nil, append([]nodetest.ReqOption{caller}, c.opts...)...).
					WantError(t, http.StatusNotFound, "Couldn't find user with ID "+c.user)
			}
		})
	}
	h.Do("GET", "/users/"+id+"/tokens", nil, nodetest.AsRoot()).WantError(t, http.StatusForbidden, "Cannot access other people's tokens.")
	h.Do("GET", "/users/local:admin/tokens", nil, as).WantError(t, http.StatusForbidden, "Cannot access other people's tokens.")
	h.Do("GET", "/users/"+id+"/tokens", nil).Want(t, http.StatusUnauthorized)
}
