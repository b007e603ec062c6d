package router_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/loggate/loggate/cmd/loggate/config"
	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
)

func TestNotFoundAndMethodNotAllowed(t *testing.T) {
	h := nodetest.Start(t)
	h.Do("GET", "/no/such/thing", nil, nodetest.AsRoot()).WantError(t, http.StatusNotFound, "HTTP 404 Not Found")
	h.Do("PATCH", "/cluster", nil, nodetest.AsRoot()).WantError(t, http.StatusMethodNotAllowed, "HTTP 405 Method Not Allowed")
	h.Do("DELETE", "/system/metrics/names", nil, nodetest.AsRoot()).WantError(t, http.StatusMethodNotAllowed, "")
	head := h.Do("HEAD", "/cluster", nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	if len(head.Body) != 0 {
		t.Errorf("HEAD answered a body: %s", head.Body)
	}
}

func TestCSRFHeader(t *testing.T) {
	h := nodetest.Start(t)
	login := map[string]string{"username": nodetest.RootUser, "password": nodetest.RootPassword}
	for _, c := range []struct{ method, path string }{{"POST", "/system/sessions"}, {"PUT", "/users/local:admin"}, {"DELETE", "/roles/Reader"}} {
		r := h.Do(c.method, c.path, login, nodetest.AsRoot(), nodetest.Header("X-Requested-By", ""))
		r.WantError(t, http.StatusBadRequest, `CSRF protection header is missing. Please add a "X-Requested-By" header to your request.`)
	}
	// X-Requested-With does not count.
	h.Do("POST", "/system/sessions", login, nodetest.Header("X-Requested-By", ""), nodetest.Header("X-Requested-With", "XMLHttpRequest")).
		WantError(t, http.StatusBadRequest, "CSRF")
	// Old Sidecars are exempt, as in Graylog.
	h.Do("POST", "/system/sessions", login, nodetest.Header("X-Requested-By", ""), nodetest.Header("X-Graylog-Collector-Version", "0.1.6")).
		Want(t, http.StatusOK)
	// GET needs none.
	h.Do("GET", "/cluster", nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	// Unknown paths and wrong methods are answered first, as in Graylog.
	h.Do("POST", "/nonexistent", nil, nodetest.Header("X-Requested-By", "")).Want(t, http.StatusNotFound)
	h.Do("DELETE", "/system/cluster/nodes", nil, nodetest.Header("X-Requested-By", "")).Want(t, http.StatusMethodNotAllowed)
}

func TestTrailingSlash(t *testing.T) {
	h := nodetest.Start(t)
	for _, p := range []string{"/system/", "/roles/", "/users/local:admin/tokens/", "/"} {
		h.Do("GET", p, nil, nodetest.AsRoot()).Want(t, http.StatusOK)
	}
}

func TestUnauthorized(t *testing.T) {
	h := nodetest.Start(t)
	r := h.Do("GET", "/cluster", nil)
	r.Want(t, http.StatusUnauthorized)
	if got := r.Header.Get("WWW-Authenticate"); got != `Basic realm="Graylog Server"` {
		t.Errorf("WWW-Authenticate %q", got)
	}
	r = h.Do("GET", "/cluster", nil, nodetest.Header("X-Requested-With", "XMLHttpRequest"))
	r.Want(t, http.StatusUnauthorized)
	if got := r.Header.Get("WWW-Authenticate"); got != "" {
		t.Errorf("XHR request got WWW-Authenticate %q", got)
	}
	if r.Header.Get("Cache-Control") != "no-cache" {
		t.Errorf("XHR response without Cache-Control: no-cache")
	}
	h.Do("GET", "/cluster", nil, nodetest.Basic(nodetest.RootUser, "wrong")).Want(t, http.StatusUnauthorized)
	h.Do("GET", "/cluster", nil, nodetest.Basic("nobody", "x")).Want(t, http.StatusUnauthorized)
}

func TestCredentialForms(t *testing.T) {
	h := nodetest.Start(t)
	cases := []struct {
		name   string
		opt    nodetest.ReqOption
		status int
	}{
		{"undecodable base64", nodetest.RawAuthorization("Basic ****"), http.StatusBadRequest},
		{"no colon", nodetest.BasicRaw("adminadminpass"), http.StatusBadRequest},
		{"not basic", nodetest.RawAuthorization("Bearer abc"), http.StatusUnauthorized},
		{"undefined session is anonymous", nodetest.Basic("undefined", "session"), http.StatusUnauthorized},
		{"password with colon is split at the first", nodetest.BasicRaw("admin:adminpass:x"), http.StatusUnauthorized},
		{"password", nodetest.AsRoot(), http.StatusOK},
		{"unknown session", nodetest.Basic("0b7c3f52-1f3a-4c43-9d1e-2f0f1d7c9a11", "SESSION"), http.StatusUnauthorized},
		{"unknown token", nodetest.Basic("abc", "Token"), http.StatusUnauthorized},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := h.Do("GET", "/cluster", nil, c.opt)
			r.Want(t, c.status)
			if c.status == http.StatusBadRequest && r.Get("message").String() != "Invalid credentials in Authorization header" {
				t.Errorf("message %q", r.Get("message").String())
			}
		})
	}
}

func TestCORS(t *testing.T) {
	off := nodetest.Start(t)
	r := off.Do("GET", "/cluster", nil, nodetest.AsRoot(), nodetest.Header("Origin", "http://ui.example.org"))
	r.Want(t, http.StatusOK)
	if v := r.Header.Get("Access-Control-Allow-Origin"); v != "" {
		t.Errorf("CORS header %q sent with http_enable_cors = false", v)
	}

	// Graylog 4.0's headers: a literal "*", never the request's origin,
	// which with Allow-Credentials would let any web page use the
	// credentials a browser keeps for loggate.
	on := nodetest.Start(t, nodetest.WithConfig(func(c *config.Config) { c.HTTPEnableCORS = true }))
	r = on.Do("GET", "/cluster", nil, nodetest.AsRoot(), nodetest.Header("Origin", "http://ui.example.org"))
	r.Want(t, http.StatusOK)
	want := map[string]string{
		"Access-Control-Allow-Origin":      "*",
		"Access-Control-Allow-Credentials": "true",
		"Access-Control-Allow-Headers":     "Authorization, Content-Type, X-Graylog-No-Session-Extension, X-Requested-With, X-Requested-By",
		"Access-Control-Allow-Methods":     "GET, POST, PUT, DELETE, OPTIONS",
		"Access-Control-Max-Age":           "600",
	}
	for k, v := range want {
		if got := r.Header.Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	pre := on.Do("OPTIONS", "/users/local:admin/tokens/stolen", nil, nodetest.Header("Origin", "https://evil.example"),
		nodetest.Header("Access-Control-Request-Method", "POST"), nodetest.Header("Access-Control-Request-Headers", "authorization, x-requested-by"))
	pre.Want(t, http.StatusNoContent)
	if got := pre.Header.Get("Access-Control-Allow-Origin"); got != "*" {
		t.Errorf("preflight Access-Control-Allow-Origin %q, want *", got)
	}
	// Without Origin, no CORS headers even when enabled.
	r = on.Do("GET", "/cluster", nil, nodetest.AsRoot())
	if r.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Error("CORS headers without Origin")
	}
}

func TestBodyLimit(t *testing.T) {
	h := nodetest.Start(t, nodetest.WithConfig(func(c *config.Config) { c.HTTPMaxBodySize = 1024 }))
	big := `{"name":"r","description":"` + strings.Repeat("x", 2048) + `","permissions":[]}`
	h.Do("POST", "/roles", big, nodetest.AsRoot()).WantError(t, http.StatusRequestEntityTooLarge, "1024")

	// Without Content-Length (chunked), the limit still holds while reading.
	req, _ := http.NewRequest("POST", h.URL+"/roles", io.NopCloser(strings.NewReader(big)))
	req.ContentLength = -1
	req.SetBasicAuth(nodetest.RootUser, nodetest.RootPassword)
	req.Header.Set("X-Requested-By", "test")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("chunked oversize body: status %d, want 413", resp.StatusCode)
	}
	// Nothing was stored.
	h.Do("GET", "/roles/r", nil, nodetest.AsRoot()).Want(t, http.StatusNotFound)
}

func TestMalformedJSON(t *testing.T) {
	h := nodetest.Start(t)
	cases := []struct{ body, msg string }{
		{`{"name": "r", "permissions": [}`, "Unable to parse JSON"},
		{`{"name": "r", "permissions": "all"}`, "permissions must be an array"},
		{`{"name": "r", "permissions": [], "colour": "red"}`, "Unable to map property colour"},
		{``, "Request body is mandatory"},
		{`{"name":"r","permissions":[]} trailing`, "unexpected data after the JSON value"},
	}
	for _, c := range cases {
		h.Do("POST", "/roles", c.body, nodetest.AsRoot()).WantError(t, http.StatusBadRequest, c.msg)
	}
	h.Do("GET", "/roles/r", nil, nodetest.AsRoot()).Want(t, http.StatusNotFound)
}

func TestReleaseHeader(t *testing.T) {
	h := nodetest.Start(t)
	r := h.Do("GET", "/cluster", nil, nodetest.AsRoot())
	if got := r.Header.Get("X-API-Version"); got != "4.0" {
		t.Errorf("served as %q, want 4.0", got)
	}
	r = h.Do("GET", "/cluster", nil, nodetest.AsRoot(), nodetest.Header("X-API-Version", "2.4"))
	if got := r.Header.Get("X-API-Version"); got != "2.4" {
		t.Errorf("served as %q, want 2.4", got)
	}
	for _, bad := range []string{"5.0", "2.9", "two", "4"} {
		h.Do("GET", "/cluster", nil, nodetest.AsRoot(), nodetest.Header("X-API-Version", bad)).
			WantError(t, http.StatusBadRequest, "supported releases are 1.0 to 1.3, 2.0 to 2.5, 3.0 to 3.3 and 4.0")
	}
}

func TestGzip(t *testing.T) {
	h := nodetest.Start(t)
	big := h.Do("GET", "/users", nil, nodetest.AsRoot(), nodetest.Header("Accept-Encoding", "gzip"))
	big.Want(t, http.StatusOK)
	if big.Header.Get("Content-Encoding") != "gzip" {
		t.Errorf("a %d-byte answer was not compressed", len(big.Body))
	}
	zr, err := gzip.NewReader(bytes.NewReader(big.Body))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := io.ReadAll(zr)
	if err != nil || !strings.Contains(string(plain), `"users"`) {
		t.Fatalf("decompressed: %v %.80s", err, plain)
	}
	small := h.Do("GET", "/", nil, nodetest.Header("Accept-Encoding", "gzip"))
	if small.Header.Get("Content-Encoding") != "" {
		t.Error("an answer under 512 bytes was compressed")
	}
	off := nodetest.Start(t, nodetest.WithConfig(func(c *config.Config) { c.HTTPEnableGzip = false }))
	if off.Do("GET", "/users", nil, nodetest.AsRoot(), nodetest.Header("Accept-Encoding", "gzip")).Header.Get("Content-Encoding") != "" {
		t.Error("compressed with http_enable_gzip = false")
	}
}

// A body a JSON endpoint cannot read is a 415, as Jersey answers it: text/plain
// and form bodies for every client (a web page can send those across sites
// without asking), a missing Content-Type for all but clients the operator
// pinned below 2.5, whose old scripts have always been served without one.
func TestUnsupportedMediaType(t *testing.T) {
	h := nodetest.Start(t, nodetest.WithConfig(func(c *config.Config) {
		c.CompatListeners = []config.Listener{{Address: "127.0.0.1:0", Release: "2.4"}}
	}))
	pinned := nodetest.Token(h.Do("POST", "/users/local:admin/tokens/old?api_release=2.4", nil, nodetest.AsRoot()).Want(t, http.StatusOK).Get("token").String())
	old := nodetest.Via(h.Node.CompatAddrs()[0])
	const role = `{"name":"r%d","description":"d","permissions":[]}`
	for i, c := range []struct {
		name, contentType string
		opts              []nodetest.ReqOption
		want              int
	}{
		{"json", "application/json", nil, http.StatusCreated},
		{"json with charset", "application/json; charset=utf-8", nil, http.StatusCreated},
		{"+json", "application/vnd.graylog+json", nil, http.StatusCreated},
		{"text/plain", "text/plain", nil, http.StatusUnsupportedMediaType},
		{"form", "application/x-www-form-urlencoded", nil, http.StatusUnsupportedMediaType},
		{"multipart", "multipart/form-data; boundary=x", nil, http.StatusUnsupportedMediaType},
		{"malformed", "application/", nil, http.StatusUnsupportedMediaType},
		{"missing", "", nil, http.StatusUnsupportedMediaType},
		{"missing, header claims 2.4", "", []nodetest.ReqOption{nodetest.Header("X-API-Version", "2.4")}, http.StatusUnsupportedMediaType},
		{"missing, token pinned to 2.4", "", []nodetest.ReqOption{pinned}, http.StatusCreated},
		{"missing, listener pinned to 2.4", "", []nodetest.ReqOption{old}, http.StatusCreated},
		{"missing, pinned, from a browser", "", []nodetest.ReqOption{pinned, nodetest.Header("Origin", "http://evil.example")}, http.StatusUnsupportedMediaType},
		{"text/plain, token pinned to 2.4", "text/plain", []nodetest.ReqOption{pinned}, http.StatusUnsupportedMediaType},
		{"form, listener pinned to 2.4", "application/x-www-form-urlencoded", []nodetest.ReqOption{old}, http.StatusUnsupportedMediaType},
	} {
		t.Run(c.name, func(t *testing.T) {
			opts := append([]nodetest.ReqOption{nodetest.AsRoot(), nodetest.Header("Content-Type", c.contentType)}, c.opts...)
			if c.contentType == "" {
				opts = append(opts, nodetest.Header("Content-Type", ""))
			}
			r := h.Do("POST", "/roles", fmt.Sprintf(role, i), opts...)
			if c.want == http.StatusUnsupportedMediaType {
				r.WantError(t, c.want, "HTTP 415 Unsupported Media Type")
				return
			}
			r.Want(t, c.want)
		})
	}
	// No body, no question; grok patterns also read text/plain files.
	h.Do("PUT", "/system/processing/pause", nil, nodetest.AsRoot(), nodetest.Header("Content-Type", "text/plain")).Want(t, http.StatusNoContent)
	h.Do("POST", "/system/grok", "TXT %{WORD}\n", nodetest.AsRoot(), nodetest.Header("Content-Type", "text/plain")).Want(t, http.StatusAccepted)
}
