package node_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/loggate/loggate/cmd/loggate/config"
	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
)

// A client's release: the header, else the token's pin, else the
// listener's, else the default.
func TestReleaseResolution(t *testing.T) {
	h := nodetest.Start(t, nodetest.WithConfig(func(c *config.Config) {
		c.CompatListeners = []config.Listener{{Address: "127.0.0.1:0", Release: "3.3"}}
	}))
	gm := h.CreateUser("GM", "superpower")
	user := nodetest.Basic("GM", "superpower")
	pinned := h.Do("POST", "/users/"+gm+"/tokens/old-script?api_release=2.4", nil, user).Want(t, http.StatusOK)
	if pinned.Get("api_release").String() != "2.4" {
		t.Fatalf("pinned token: %s", pinned.Body)
	}
	tok := nodetest.Token(pinned.Get("token").String())
	plain, _ := h.CreateToken(gm, "new-script", user)
	via := nodetest.Via(h.Node.CompatAddrs()[0])

	for _, c := range []struct {
		name string
		opts []nodetest.ReqOption
		want string
	}{
		{"default", []nodetest.ReqOption{user}, "4.0"},
		{"pinned token", []nodetest.ReqOption{tok}, "2.4"},
		{"header beats the token", []nodetest.ReqOption{tok, nodetest.Header("X-API-Version", "3.0")}, "3.0"},
		{"listener", []nodetest.ReqOption{user, via}, "3.3"},
		{"token beats the listener", []nodetest.ReqOption{tok, via}, "2.4"},
		{"unpinned token on the listener", []nodetest.ReqOption{nodetest.Token(plain), via}, "3.3"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := h.Do("GET", "/users/GM/tokens", nil, c.opts...).Want(t, http.StatusOK)
			if got := r.Header.Get("X-Api-Version"); got != c.want {
				t.Errorf("served as %s, want %s", got, c.want)
			}
			// Token records have no id before 3.3.
			if hasID := r.Get("tokens.0.id").Exists(); hasID != (c.want >= "3.3") {
				t.Errorf("served as %s, token id present = %v: %s", c.want, hasID, r.Body)
			}
		})
	}

	// Unpinning takes effect at once, also for the cached token.
	tid := pinned.Get("id").String()
	h.Do("PUT", "/users/"+gm+"/tokens/"+tid+"/api_release", map[string]any{"api_release": nil}, user).Want(t, http.StatusOK)
	if got := h.Do("GET", "/users/GM/tokens", nil, tok).Header.Get("X-Api-Version"); got != "4.0" {
		t.Errorf("after unpinning served as %s", got)
	}
	h.Do("PUT", "/users/"+gm+"/tokens/"+tid+"/api_release", map[string]any{"api_release": "9.9"}, user).WantError(t, http.StatusBadRequest, "9.9")
	h.Do("POST", "/users/"+gm+"/tokens/x?api_release=banana", nil, user).WantError(t, http.StatusBadRequest, "banana")
	other := h.CreateUser("other", "pw")
	h.Do("PUT", "/users/"+gm+"/tokens/"+tid+"/api_release", map[string]any{"api_release": "2.4"}, nodetest.Basic("other", "pw")).WantError(t, http.StatusForbidden, "")
	_ = other
	// Survives a restart.
	h.Do("PUT", "/users/"+gm+"/tokens/"+tid+"/api_release", map[string]any{"api_release": "2.0"}, user).Want(t, http.StatusOK)
	h.Restart()
	if got := h.Do("GET", "/users/GM/tokens", nil, tok).Header.Get("X-Api-Version"); got != "2.0" {
		t.Errorf("after a restart served as %s", got)
	}
}

// Clients pinned below 2.5 by the operator may omit X-Requested-By;
// browsers and clients that merely claim an old release may not.
func TestCSRFExemption(t *testing.T) {
	h := nodetest.Start(t, nodetest.WithConfig(func(c *config.Config) {
		c.CompatListeners = []config.Listener{{Address: "127.0.0.1:0", Release: "2.4"}, {Address: "127.0.0.1:0", Release: "2.5"}}
	}))
	gm := h.CreateUser("GM", "superpower")
	user := nodetest.Basic("GM", "superpower")
	old := nodetest.Token(h.Do("POST", "/users/"+gm+"/tokens/old?api_release=2.4", nil, user).Want(t, http.StatusOK).Get("token").String())
	newer := nodetest.Token(h.Do("POST", "/users/"+gm+"/tokens/newer?api_release=2.5", nil, user).Want(t, http.StatusOK).Get("token").String())
	noCSRF := nodetest.Header("X-Requested-By", "")
	addrs := h.Node.CompatAddrs()

	for _, c := range []struct {
		name string
		opts []nodetest.ReqOption
		want int
	}{
		{"token pinned to 2.4", []nodetest.ReqOption{old}, http.StatusOK},
		{"listener pinned to 2.4", []nodetest.ReqOption{user, nodetest.Via(addrs[0])}, http.StatusOK},
		{"token pinned to 2.5", []nodetest.ReqOption{newer}, http.StatusBadRequest},
		{"listener pinned to 2.5", []nodetest.ReqOption{user, nodetest.Via(addrs[1])}, http.StatusBadRequest},
		{"header claims 2.4", []nodetest.ReqOption{user, nodetest.Header("X-API-Version", "2.4")}, http.StatusBadRequest},
		{"pinned, from a browser (Origin)", []nodetest.ReqOption{old, nodetest.Header("Origin", "http://evil.example")}, http.StatusBadRequest},
		{"pinned, with a cookie", []nodetest.ReqOption{old, nodetest.Header("Cookie", "a=b")}, http.StatusBadRequest},
	} {
		t.Run(c.name, func(t *testing.T) {
			opts := append([]nodetest.ReqOption{noCSRF}, c.opts...)
			r := h.Do("POST", "/users/GM/tokens/"+strings.ReplaceAll(c.name, " ", "-"), nil, opts...)
			if r.Status != c.want {
				t.Errorf("POST without X-Requested-By: %d %s, want %d", r.Status, r.Body, c.want)
			}
		})
	}
}

// compat_min_release refuses older clients with 410.
func TestMinRelease(t *testing.T) {
	h := nodetest.Start(t, nodetest.WithConfig(func(c *config.Config) { c.CompatMinRelease = "3.0" }))
	h.Do("GET", "/cluster", nil, nodetest.AsRoot(), nodetest.Header("X-API-Version", "2.4")).WantError(t, http.StatusGone, "API release 2.4 is no longer served")
	h.Do("GET", "/cluster", nil, nodetest.AsRoot(), nodetest.Header("X-API-Version", "3.0")).Want(t, http.StatusOK)
	h.Do("GET", "/cluster", nil, nodetest.AsRoot()).Want(t, http.StatusOK)
}
