package graylog_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loggate/loggate/web/graylog"
)

// dir writes files (name → content) into a fresh directory.
func dir(t *testing.T, files map[string]string) string {
	t.Helper()
	d := t.TempDir()
	for name, content := range files {
		p := filepath.Join(d, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

func serve(t *testing.T, d string) *graylog.Handler {
	t.Helper()
	h, err := graylog.New(graylog.Options{Dir: d, RootTimeZone: "Europe/Berlin",
		APIURL: func() string { return "http://logs.example.org:9000/api/" }})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func get(h http.Handler, method, path string) (int, string, http.Header) {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
	b, _ := io.ReadAll(rec.Result().Body)
	return rec.Code, string(b), rec.Header()
}

func TestServesBuiltInterface(t *testing.T) {
	const index = `<html><head><title>Graylog</title></head><body><script src="/config.js"></script>` +
		`<script src="/vendor.1a2b.js"></script><script src="app.1a2b.js"></script></body></html>`
	// Served based at "/", so that app.1a2b.js loads from every page path.
	const served = `<html><head><base href="/"><title>Graylog</title></head><body><script src="/config.js"></script>` +
		`<script src="/vendor.1a2b.js"></script><script src="app.1a2b.js"></script></body></html>`
	h := serve(t, dir(t, map[string]string{
		"index.html":     index,
		"app.1a2b.js":    "console.log('graylog')",
		"vendor.1a2b.js": "console.log('vendor')",
		"fonts/x.woff2":  "font",
		"../outside.txt": "secret",
	}))
	for _, c := range []struct {
		method, path string
		status       int
		body         string
	}{
		{"GET", "/", 200, served},
		{"GET", "/search?q=source%3Aweb-1&rangetype=relative&relative=300", 200, served},
		{"GET", "/system/users/tokens/local:admin", 200, served},
		{"GET", "/index.html", 200, served},
		{"HEAD", "/streams", 200, ""},
		{"GET", "/app.1a2b.js", 200, "console.log('graylog')"},
		{"GET", "/vendor.1a2b.js", 200, "console.log('vendor')"},
		{"GET", "/assets/app.1a2b.js", 200, "console.log('graylog')"},
		{"GET", "/assets/fonts/x.woff2", 200, "font"},
		{"GET", "/assets/fonts/", 404, ""},
		{"GET", "/fonts", 200, served}, // a folder is no file: a page path
		{"GET", "/assets/nope.js", 404, ""},
		{"GET", "/assets/../../outside.txt", 200, served}, // cleaned to /outside.txt: a page path
		{"POST", "/", 405, ""},
	} {
		code, body, _ := get(h, c.method, c.path)
		if code != c.status || (c.body != "" && body != c.body) {
			t.Errorf("%s %s: %d %q, want %d %q", c.method, c.path, code, body, c.status, c.body)
		}
	}
}

func TestConfigJS(t *testing.T) {
	h := serve(t, dir(t, map[string]string{"index.html": "<html></html>"}))
	code, body, hdr := get(h, "GET", "/config.js")
	want := `window.appConfig = {"gl2AppPathPrefix":"","gl2ServerUrl":"http://logs.example.org:9000/api/","isCloud":false,"pluginUISettings":{},"rootTimeZone":"Europe/Berlin"};` + "\n"
	if code != 200 || body != want || !strings.HasPrefix(hdr.Get("Content-Type"), "application/javascript") {
		t.Errorf("/config.js: %d %s %q\nwant %q", code, hdr.Get("Content-Type"), body, want)
	}
}

// Graylog's server package holds module.json, and a webpack build writes it
// beside its own index.html: the page is made from it as Graylog makes it,
// config.js first, vendor bundles, then the polyfill, the builtins, other
// chunks and the application last.
func TestPageFromModuleManifest(t *testing.T) {
	h := serve(t, dir(t, map[string]string{
		"index.html": `<html><script src="/vendor.1c.js"></script></html>`,
		// 3.3's build lists the app first; Graylog loads it last.
		"module.json": `{"files":{"js":["app.9f.js","builtins.9f.js","plugin.js","polyfill.9f.js"],"css":["app.9f.css"],
"chunks":{"app":{"entry":"app.9f.js"},"builtins":{"entry":"builtins.9f.js"},"polyfill":{"entry":"polyfill.9f.js"}}}}`,
		"vendor-module.json": `{"files":{"js":["vendor.1c.js"],"css":[]}}`,
	}))
	_, body, _ := get(h, "GET", "/system/overview")
	order := []string{`href="/assets/app.9f.css"`, `src="/config.js"`, `src="/assets/vendor.1c.js"`, `src="/assets/polyfill.9f.js"`,
		`src="/assets/builtins.9f.js"`, `src="/assets/plugin.js"`, `src="/assets/app.9f.js"`}
	last := -1
	for _, s := range order {
		i := strings.Index(body, s)
		if i <= last {
			t.Fatalf("page lacks %s after the previous element, or has it out of order:\n%s", s, body)
		}
		last = i
	}
}

func TestUnusableDirectories(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, dir, want string
	}{
		{"missing", filepath.Join(t.TempDir(), "nope"), "no such file"},
		{"a file", file, "is not a directory"},
		{"empty", t.TempDir(), "neither index.html nor module.json"},
		{"bad manifest", dir(t, map[string]string{"module.json": "{"}), "unreadable module.json"},
		{"no bundles", dir(t, map[string]string{"module.json": `{"files":{"js":[]}}`}), "names no JavaScript"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := graylog.New(graylog.Options{Dir: c.dir, APIURL: func() string { return "" }})
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "web_interface_dir") {
				t.Fatalf("New: %v, want an error naming web_interface_dir and %q", err, c.want)
			}
			if c.name == "empty" && !errors.Is(err, graylog.ErrNoInterface) {
				t.Errorf("%v is not ErrNoInterface", err)
			}
		})
	}
}

// TestSymlinksStayInDir: a symbolic link in web_interface_dir serves no file
// from outside it. os.DirFS followed links anywhere, so one link served any
// file the server could read (/etc/passwd), to anyone. Links within the
// directory still work.
func TestSymlinksStayInDir(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(outside, []byte("root:secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	d := dir(t, map[string]string{"index.html": "<html><head></head></html>", "real.js": "inside"})
	for link, target := range map[string]string{"leak.js": outside, "etc": "/etc", "alias.js": "real.js"} {
		if err := os.Symlink(target, filepath.Join(d, link)); err != nil {
			t.Fatal(err)
		}
	}
	h := serve(t, d)
	for _, p := range []string{"/assets/leak.js", "/leak.js", "/assets/etc/passwd", "/etc/passwd"} {
		if code, body, _ := get(h, "GET", p); code == http.StatusOK && strings.Contains(body, "root:") {
			t.Errorf("GET %s: %d %.40q, a file outside web_interface_dir", p, code, body)
		}
	}
	if code, body, _ := get(h, "GET", "/assets/alias.js"); code != http.StatusOK || body != "inside" {
		t.Errorf("a link within the directory: %d %q", code, body)
	}
}

// TestPageRefusesFraming: the page, which holds the signed-in interface,
// may not be framed by other sites (clickjacking), and no answer is
// content-sniffed.
func TestPageRefusesFraming(t *testing.T) {
	h := serve(t, dir(t, map[string]string{"index.html": "<html><head></head></html>", "app.js": "x"}))
	for _, p := range []string{"/", "/system/users"} {
		_, _, hdr := get(h, "GET", p)
		if hdr.Get("X-Frame-Options") != "DENY" || hdr.Get("Content-Security-Policy") != "frame-ancestors 'none'" {
			t.Errorf("GET %s: X-Frame-Options %q, Content-Security-Policy %q", p, hdr.Get("X-Frame-Options"), hdr.Get("Content-Security-Policy"))
		}
	}
	for _, p := range []string{"/", "/config.js", "/assets/app.js", "/app.js"} {
		if _, _, hdr := get(h, "GET", p); hdr.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("GET %s: no X-Content-Type-Options: nosniff", p)
		}
	}
}
