package compat_test

import (
	"fmt"
	"net/http"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
	"github.com/loggate/loggate/internal/golden"
)

// exchange is one old request and the response an old client expects.
type exchange struct {
	name    string
	method  string
	path    string // relative to /api, with {token} and {token_id} placeholders
	release string // X-API-Version, "" for the default release
	auth    string // "user" (GM:superpower) or "token"
	status  int
}

// The pre-4.0 token calls from Graylog's REST API documentation (branch
// 2.5), for user GM with password superpower, in each client release.
var exchanges = []exchange{
	{"default/create-token", "POST", "/users/GM/tokens/icinga?pretty=true", "", "user", 200},
	{"default/list-tokens-trailing-slash", "GET", "/users/GM/tokens/?pretty=true", "", "user", 200},
	{"default/use-token", "GET", "/users/GM?pretty=true", "", "token", 200},
	{"default/delete-token-by-value", "DELETE", "/users/GM/tokens/{token}?pretty=true", "", "user", 204},
	{"2.4/create-token", "POST", "/users/GM/tokens/icinga?pretty=true", "2.4", "user", 200},
	{"2.4/list-tokens", "GET", "/users/GM/tokens/?pretty=true", "2.4", "user", 200},
	{"2.4/delete-token-by-value", "DELETE", "/users/GM/tokens/{token}", "2.4", "user", 204},
	{"3.3/create-token", "POST", "/users/GM/tokens/icinga", "3.3", "user", 200},
	{"3.3/list-tokens", "GET", "/users/GM/tokens", "3.3", "user", 200},
	{"3.3/delete-token-by-id", "DELETE", "/users/GM/tokens/{token_id}", "3.3", "user", 204},
	{"3.3/change-password-by-username", "PUT", "/users/GM/password", "3.3", "user", 204},
	{"3.3/unknown-user", "GET", "/users/nobody/tokens", "3.3", "user", 404},
	{"4.0/username-is-not-an-id", "GET", "/users/GM/tokens", "4.0", "user", 404},
}

var (
	objectID  = regexp.MustCompile(`[0-9a-f]{24}`)
	apiBase   = regexp.MustCompile(`https?://[^/>]+/api`)
	timestamp = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}(Z|[+-]\d{4})`)
)

func TestGoldenExchanges(t *testing.T) {
	for _, ex := range exchanges {
		t.Run(ex.name, func(t *testing.T) {
			h := nodetest.Start(t)
			gm := h.CreateUser("GM", "superpower")
			user := nodetest.Basic("GM", "superpower")
			tok, tokID := h.CreateToken(gm, "setup", user)
			path := strings.NewReplacer("{token}", tok, "{token_id}", tokID).Replace(ex.path)
			opts := []nodetest.ReqOption{user, nodetest.Header("X-Requested-By", "cli")}
			if ex.auth == "token" {
				opts[0] = nodetest.Token(tok)
			}
			if ex.release != "" {
				opts = append(opts, nodetest.Header("X-API-Version", ex.release))
			}
			var body any
			if strings.HasSuffix(ex.path, "/password") {
				body = map[string]string{"old_password": "superpower", "password": "superpower2"}
			}
			r := h.Do(ex.method, path, body, opts...)
			if r.Status != ex.status {
				t.Fatalf("status %d, want %d: %s", r.Status, ex.status, r.Body)
			}
			got := render(ex, r, map[string]string{tok: "<token of setup>", gm: "<id of GM>", tokID: "<id of setup token>"})
			compare(t, filepath.Join("..", "fixtures", "compat", ex.name+".golden"), got)
			checkEffect(t, h, ex, gm, tok)
		})
	}
}

// checkEffect verifies the request reached the 4.0 backend converted.
func checkEffect(t *testing.T, h *nodetest.Harness, ex exchange, gm, tok string) {
	t.Helper()
	if ex.status >= 300 {
		return
	}
	user := nodetest.Basic("GM", "superpower")
	if strings.HasSuffix(ex.path, "/password") {
		user = nodetest.Basic("GM", "superpower2")
	}
	list := h.Do("GET", "/users/"+gm+"/tokens", nil, user).Want(t, http.StatusOK)
	names := list.Get("tokens.#.name").String()
	switch {
	case ex.method == "POST" && !strings.Contains(names, "icinga"):
		t.Errorf("token not created for GM: %s", names)
	case ex.method == "DELETE" && strings.Contains(list.Get("tokens.#.token").String(), tok):
		t.Errorf("token not deleted: %s", list.Body)
	}
}

func render(ex exchange, r *nodetest.Response, secrets map[string]string) string {
	var b strings.Builder
	rel := ex.release
	if rel == "" {
		rel = "(default)"
	}
	fmt.Fprintf(&b, "%s /api%s\nX-API-Version: %s\n\n", ex.method, ex.path, rel)
	fmt.Fprintf(&b, "%d\n", r.Status)
	var keys []string
	for k := range r.Header {
		if k == "X-Api-Version" || k == "Content-Type" || k == "Location" || k == "Warning" || k == "Deprecation" || k == "Link" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		for _, v := range r.Header.Values(k) {
			if k == "Location" || k == "Link" {
				// The test server's port and fresh ids vary.
				v = objectID.ReplaceAllString(apiBase.ReplaceAllString(v, "<api>"), "<id>")
			}
			fmt.Fprintf(&b, "%s: %s\n", k, v)
		}
	}
	body := string(r.Body)
	for secret, name := range secrets {
		body = strings.ReplaceAll(body, secret, name)
	}
	body = objectID.ReplaceAllString(body, "<id>")
	body = timestamp.ReplaceAllStringFunc(body, func(s string) string {
		if strings.HasPrefix(s, "1970-01-01") {
			return s
		}
		return "<time>"
	})
	// Fresh token values vary; their shape is checked elsewhere.
	body = regexp.MustCompile(`"token" ?: ?"[0-9a-v]{40,52}"`).ReplaceAllStringFunc(body, func(s string) string {
		i := strings.LastIndex(s[:len(s)-1], `"`)
		return s[:i] + `"<new token>"`
	})
	fmt.Fprintf(&b, "\n%s\n", body)
	return b.String()
}

func compare(t *testing.T, path, got string) {
	t.Helper()
	golden.Check(t, path, []byte(got))
}
