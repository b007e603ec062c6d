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
	tok, tid := pinnedToken(t, h, gm, "old-script", user)
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

// TestHeadFollowsGetOnOldPaths: an old client's HEAD is converted as its
// GET is, since the router answers HEAD for every GET route. It passed the
// version changes unconverted and met the 4.0 routes: a 404 where the GET
// was a 200.
func TestHeadFollowsGetOnOldPaths(t *testing.T) {
	h := nodetest.Start(t)
	h.CreateUser("bob", "bobpass12")
	bob := nodetest.Basic("bob", "bobpass12")
	v24 := nodetest.Header("X-API-Version", "2.4")
	for _, c := range []struct {
		path string
		opts []nodetest.ReqOption
	}{
		{"/users/bob/tokens", []nodetest.ReqOption{bob, v24}},
		{"/count/total", []nodetest.ReqOption{nodetest.AsRoot(), v24}},
		{"/count/total", []nodetest.ReqOption{nodetest.AsRoot()}},
		{"/search/universal/relative/terms?query=%2A&field=source&range=0", []nodetest.ReqOption{nodetest.AsRoot(), v24}},
	} {
		get := h.Do("GET", c.path, nil, c.opts...)
		head := h.Do("HEAD", c.path, nil, c.opts...)
		if get.Status != http.StatusOK || head.Status != get.Status || len(head.Body) != 0 {
			t.Errorf("%s: GET %d, HEAD %d with %d bytes of body", c.path, get.Status, head.Status, len(head.Body))
		}
	}
}

// TestOldClientsDoNotGetAPIRelease: a token pinned to an old release is
// for an old client, which must not meet api_release, loggate's own field
// that no Graylog release had (a client refusing unknown properties, as
// Jackson does by default, would fail on it). 4.0 clients see it.
func TestOldClientsDoNotGetAPIRelease(t *testing.T) {
	h := nodetest.Start(t)
	id := h.CreateUser("bob", "bobpass12")
	bob := nodetest.Basic("bob", "bobpass12")
	tok, _ := pinnedToken(t, h, id, "script", bob)
	list := h.Do("GET", "/users/bob/tokens", nil, tok).Want(t, http.StatusOK)
	if got := list.Header.Get("X-Api-Version"); got != "2.4" {
		t.Fatalf("served as %q, want 2.4", got)
	}
	if list.Get("tokens.0.api_release").Exists() || !list.Get("tokens.0.name").Exists() {
		t.Errorf("the 2.4 client's token list: %s", list.Body)
	}
}

// pinnedToken creates, as a 4.0 client, a token of the user pinned to
// release 2.4, which the answer must show, and returns it as a credential
// with its id.
func pinnedToken(t *testing.T, h *nodetest.Harness, userID, name string, as nodetest.ReqOption) (nodetest.ReqOption, string) {
	t.Helper()
	created := h.Do("POST", "/users/"+userID+"/tokens/"+name+"?api_release=2.4", nil, as).Want(t, http.StatusOK)
	if created.Get("api_release").String() != "2.4" {
		t.Fatalf("a 4.0 client creating a pinned token does not see its release: %s", created.Body)
	}
	return nodetest.Token(created.Get("token").String()), created.Get("id").String()
}
