package ui

import (
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

func serve(t *testing.T, h *Handler, method, path string, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, path, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// Every page URL of Graylog 4.0 is the page; files are served under the
// version with their types and a year's caching; anything else under /ui/
// is a 404, not the page.
func TestServe(t *testing.T) {
	h, err := New()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/", "/search?q=source%3Aweb-1&rangetype=relative&relative=300", "/streams", "/streams/abc/search",
		"/system/overview", "/system/users/tokens/local:admin", "/system/logging", "/login", "/no/such/page"} {
		rec := serve(t, h, "GET", p)
		if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "text/html; charset=utf-8" ||
			rec.Header().Get("Cache-Control") != "no-cache" || !strings.Contains(rec.Body.String(), `<div id="app">`) {
			t.Errorf("GET %s: %d %q %q, want the page, not cached", p, rec.Code, rec.Header().Get("Content-Type"), rec.Header().Get("Cache-Control"))
		}
	}
	for _, tc := range []struct{ path, ctype string }{
		{"app/main.js", "text/javascript; charset=utf-8"},
		{"app/style.css", "text/css; charset=utf-8"},
		{"vendor/preact.module.js", "text/javascript; charset=utf-8"},
		{"vendor/uPlot.min.css", "text/css; charset=utf-8"},
		{"vendor/VERSIONS", "text/plain; charset=utf-8"},
		{"vendor/LICENSE.preact", "text/plain; charset=utf-8"},
	} {
		rec := serve(t, h, "GET", h.Base()+tc.path)
		if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != tc.ctype ||
			rec.Header().Get("Cache-Control") != "public, max-age=31536000, immutable" || rec.Header().Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("GET %s: %d %q %q", tc.path, rec.Code, rec.Header().Get("Content-Type"), rec.Header().Get("Cache-Control"))
		}
	}
	for _, p := range []string{"/ui/0123456789ab/app/main.js", h.Base() + "app/nothing.js", h.Base() + "vendor/preact.module.js.map", "/ui/"} {
		if rec := serve(t, h, "GET", p); rec.Code != http.StatusNotFound || rec.Header().Get("Cache-Control") != "no-cache" {
			t.Errorf("GET %s: %d %q, want an uncached 404", p, rec.Code, rec.Header().Get("Cache-Control"))
		}
	}
	if rec := serve(t, h, "POST", "/search"); rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST /search: %d, want 405", rec.Code)
	}
	if rec := serve(t, h, "HEAD", "/search"); rec.Code != http.StatusOK || rec.Body.Len() != 0 || rec.Header().Get("Content-Length") == "" {
		t.Errorf("HEAD /search: %d, %d bytes, length %q", rec.Code, rec.Body.Len(), rec.Header().Get("Content-Length"))
	}
}

// Compressed for clients that take gzip, the same bytes once inflated.
func TestGzip(t *testing.T) {
	h, _ := New()
	plain := serve(t, h, "GET", h.Base()+"vendor/uPlot.esm.js")
	for _, accept := range []string{"gzip", "br, gzip;q=0.8", "deflate, gzip"} {
		rec := serve(t, h, "GET", h.Base()+"vendor/uPlot.esm.js", "Accept-Encoding", accept)
		if rec.Header().Get("Content-Encoding") != "gzip" || rec.Body.Len() >= plain.Body.Len() {
			t.Fatalf("Accept-Encoding %q: %q, %d bytes", accept, rec.Header().Get("Content-Encoding"), rec.Body.Len())
		}
		zr, err := gzip.NewReader(rec.Body)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(zr)
		if string(b) != plain.Body.String() {
			t.Fatal("inflated file differs")
		}
	}
	for _, accept := range []string{"", "gzip;q=0", "gzip;q=0.0", "gzip; q=0.000", "gzip;Q=0", "br"} {
		if rec := serve(t, h, "GET", h.Base()+"vendor/uPlot.esm.js", "Accept-Encoding", accept); rec.Header().Get("Content-Encoding") != "" {
			t.Errorf("Accept-Encoding %q: compressed", accept)
		}
	}
}

// The page loads nothing from elsewhere: every URL in it is under the
// version, and its policy allows scripts only from loggate and the import
// map by its hash.
func TestPageLoadsOnlyFromLoggate(t *testing.T) {
	h, _ := New()
	rec := serve(t, h, "GET", "/search")
	page := rec.Body.String()
	for _, m := range regexp.MustCompile(`(?:href|src)="([^"]*)"|"(?:preact|preact/hooks|htm|uplot)":"([^"]*)"`).FindAllStringSubmatch(page, -1) {
		u := m[1] + m[2]
		if u == "/api/api-browser/" {
			continue
		}
		if !strings.HasPrefix(u, h.Base()) || serve(t, h, "GET", u).Code != http.StatusOK {
			t.Errorf("the page refers to %s, not a file of %s", u, h.Base())
		}
	}
	csp := rec.Header().Get("Content-Security-Policy")
	i := strings.Index(page, `<script type="importmap">`) + len(`<script type="importmap">`)
	j := strings.Index(page[i:], "</script>")
	sum := sha256.Sum256([]byte(page[i : i+j]))
	if !strings.Contains(csp, "script-src 'self' 'sha256-"+base64.StdEncoding.EncodeToString(sum[:])+"'") || !strings.Contains(csp, "connect-src 'self'") {
		t.Errorf("policy %q does not allow exactly loggate and the import map", csp)
	}
	for _, f := range h.files {
		if regexp.MustCompile(`(?i)(src|href)=["']https?://|import\s*\(?\s*["']https?://`).Match(f.body) {
			t.Error("a shipped file loads from another origin")
		}
	}
}

// FuzzAcceptsGzip reads any Accept-Encoding without panicking; "gzip"
// itself is always taken, an explicit q=0 never.
func FuzzAcceptsGzip(f *testing.F) {
	for _, s := range []string{"gzip", "br, gzip;q=0.8", "gzip;q=0", "GZIP ; q=0", "", ",,;", "identity"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		req := httptest.NewRequest("GET", "/", nil)
		req.Header.Set("Accept-Encoding", s)
		got := acceptsGzip(req)
		if s == "gzip" && !got || strings.TrimSpace(s) == "gzip;q=0" && got {
			t.Fatalf("acceptsGzip(%q) = %v", s, got)
		}
	})
}
