package apibrowser_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

func TestPageAndAssets(t *testing.T) {
	_, h := newFixture(t)
	cases := []struct {
		name, path  string
		status      int
		contentType string
		contains    string // in the body
		location    string
	}{
		{"without slash redirects", "/api-browser", http.StatusFound, "", "", "api-browser/"},
		{"with slash is the page", "/api-browser/", http.StatusOK, "text/html; charset=utf-8", `id="login-form"`, ""},
		{"index.html", "/api-browser/index.html", http.StatusOK, "text/html; charset=utf-8", `<script src="app.js" defer>`, ""},
		{"script", "/api-browser/app.js", http.StatusOK, "text/javascript; charset=utf-8", "X-Requested-By", ""},
		{"style", "/api-browser/app.css", http.StatusOK, "text/css; charset=utf-8", ".op-head", ""},
		{"OpenAPI document", "/api-browser/openapi.json", http.StatusOK, "application/json", `"openapi":"3.0.3"`, ""},
		{"unknown asset", "/api-browser/secrets.txt", http.StatusNotFound, "application/json", `"type":"ApiError"`, ""},
		{"no directory listing", "/api-browser/assets", http.StatusNotFound, "application/json", `"HTTP 404 Not Found"`, ""},
		{"no nested paths", "/api-browser/x/app.js", http.StatusNotFound, "application/json", `"type":"ApiError"`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := get(t, h, c.path)
			if w.Code != c.status {
				t.Fatalf("status %d, want %d: %s", w.Code, c.status, w.Body)
			}
			if got := w.Header().Get("Content-Type"); got != c.contentType {
				t.Errorf("Content-Type %q, want %q", got, c.contentType)
			}
			if !strings.Contains(w.Body.String(), c.contains) {
				t.Errorf("body does not contain %q:\n%.300s", c.contains, w.Body)
			}
			if got := w.Header().Get("Location"); got != c.location {
				t.Errorf("Location %q, want %q", got, c.location)
			}
		})
	}
}

func TestRedirectResolvesToThePage(t *testing.T) {
	_, h := newFixture(t)
	srv := httptest.NewServer(http.StripPrefix("/api", h))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/api/api-browser")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Request.URL.Path != "/api/api-browser/" {
		t.Errorf("GET /api/api-browser ended at %d %s, want 200 /api/api-browser/", resp.StatusCode, resp.Request.URL.Path)
	}
}

func TestPageHeaders(t *testing.T) {
	_, h := newFixture(t)
	w := get(t, h, "/api-browser/")
	csp := w.Header().Get("Content-Security-Policy")
	for _, want := range []string{"script-src 'self'", "connect-src 'self'", "form-action 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("Content-Security-Policy %q lacks %q", csp, want)
		}
	}
	if w.Header().Get("X-Content-Type-Options") != "nosniff" {
		t.Error("the page may be sniffed")
	}
	etag := w.Header().Get("ETag")
	if etag == "" {
		t.Fatal("no ETag")
	}
	if w := get(t, h, "/api-browser/", "If-None-Match", etag); w.Code != http.StatusNotModified {
		t.Errorf("revalidation with the ETag: %d, want 304", w.Code)
	}
	if other := get(t, h, "/api-browser/app.js").Header().Get("ETag"); other == etag || other == "" {
		t.Errorf("app.js has ETag %q, the page %q: want distinct ones", other, etag)
	}
}

// The page must not put server data into HTML, nor keep credentials.
func TestScriptAvoidsUnsafeSinks(t *testing.T) {
	_, h := newFixture(t)
	js := get(t, h, "/api-browser/app.js").Body.String()
	for _, bad := range []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "localStorage", "sessionStorage", "document.cookie", "eval("} {
		if strings.Contains(js, bad) {
			t.Errorf("app.js uses %s", bad)
		}
	}
}

func TestHead(t *testing.T) {
	_, h := newFixture(t)
	for _, path := range []string{"/api-browser/", "/api-browser/app.js", "/api-browser/openapi.json", "/api-docs", "/api-docs/users"} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("HEAD", path, nil))
		if w.Code != http.StatusOK {
			t.Errorf("HEAD %s: %d, want 200", path, w.Code)
		}
	}
}

func TestAPIDocs(t *testing.T) {
	_, h := newFixture(t)
	cases := []struct {
		name, path string
		status     int
		check      func(t *testing.T, body gjson.Result)
	}{
		{"listing", "/api-docs", http.StatusOK, func(t *testing.T, b gjson.Result) {
			if b.Get("swaggerVersion").String() != "1.2" || b.Get("apiVersion").String() != "4.0.0+test" {
				t.Errorf("versions: %s", b.Raw)
			}
			var names []string
			for _, a := range b.Get("apis").Array() {
				names = append(names, a.Get("name").String()+"="+a.Get("path").String())
				if a.Get("description").String() == "" {
					t.Errorf("%s has no description", a.Get("name"))
				}
			}
			want := "ApiBrowser=/api-browser ApiDocs=/api-docs Authz/Roles=/authz/roles Hello World=/ System/Sessions=/system/sessions Users=/users"
			if got := strings.Join(names, " "); got != want {
				t.Errorf("apis\n%s\nwant\n%s", got, want)
			}
		}},
		{"global listing", "/api-docs/global", http.StatusOK, func(t *testing.T, b gjson.Result) {
			if len(b.Get("apis").Array()) != 6 {
				t.Errorf("global listing: %s", b.Raw)
			}
		}},
		{"resource", "/api-docs/users", http.StatusOK, func(t *testing.T, b gjson.Result) {
			for field, want := range map[string]string{
				"resourcePath": "/users", "swaggerVersion": "1.2", "apiVersion": "4.0.0+test", "basePath": "/", "models": "{}",
				"apis.#": "4", "apis.0.path": "/users", "apis.0.operations.#": "2",
				"apis.0.operations.0.method": "GET", "apis.0.operations.0.deprecated": "true",
				"apis.0.operations.0.nickname":                  "getUsers",
				"apis.0.operations.0.responseMessages.#.code":   "[401,403]",
				"apis.0.operations.1.method":                    "POST",
				"apis.0.operations.1.parameters.0.paramType":    "body",
				"apis.0.operations.1.parameters.0.defaultValue": `{"username":"jdoe","password":"secret"}`,
				"apis.1.path":                                "/users/paginated",
				"apis.1.operations.0.parameters.#.name":      `["page","per_page","query","sort","order"]`,
				"apis.1.operations.0.parameters.1.type":      "integer",
				"apis.2.path":                                "/users/{userId}",
				"apis.2.operations.0.parameters.0.paramType": "path",
				"apis.3.path":                                "/users/{username}",
			} {
				got := b.Get(field)
				if s := got.String(); s != want && got.Raw != want {
					t.Errorf("%s = %s, want %s", field, got.Raw, want)
				}
			}
		}},
		{"two-segment resource", "/api-docs/system/sessions", http.StatusOK, func(t *testing.T, b gjson.Result) {
			if b.Get("resourcePath").String() != "/system/sessions" || b.Get("apis.#").Int() != 2 {
				t.Errorf("%s", b.Raw)
			}
			if n := b.Get("apis.1.operations.0.notes").String(); !strings.Contains(n, "authenticated") {
				t.Errorf("notes %q do not say who may call", n)
			}
		}},
		{"global resource", "/api-docs/global/system/sessions", http.StatusOK, func(t *testing.T, b gjson.Result) {
			if b.Get("resourcePath").String() != "/system/sessions" {
				t.Errorf("%s", b.Raw)
			}
		}},
		{"regexp variable", "/api-docs/api-docs", http.StatusOK, func(t *testing.T, b gjson.Result) {
			if b.Get(`apis.#(path=="/api-docs/{route}").operations.0.parameters.0.description`).String() != "Matches .+" {
				t.Errorf("%s", b.Raw)
			}
		}},
		{"unknown resource", "/api-docs/nothing/here", http.StatusNotFound, func(t *testing.T, b gjson.Result) {
			if b.Get("type").String() != "ApiError" || b.Get("message").String() != "No API resource at /nothing/here" {
				t.Errorf("%s", b.Raw)
			}
		}},
		{"a route is not a resource", "/api-docs/users/paginated", http.StatusNotFound, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := get(t, h, c.path)
			if w.Code != c.status {
				t.Fatalf("status %d, want %d: %s", w.Code, c.status, w.Body)
			}
			if !json.Valid(w.Body.Bytes()) {
				t.Fatalf("not JSON: %s", w.Body)
			}
			for k, want := range map[string]string{
				"Access-Control-Allow-Origin":  "*",
				"Access-Control-Allow-Methods": "GET",
				"Access-Control-Allow-Headers": "Content-Type, api_key, Authorization",
			} {
				if got := w.Header().Get(k); got != want {
					t.Errorf("%s: %q, want %q", k, got, want)
				}
			}
			if c.check != nil {
				c.check(t, gjson.ParseBytes(w.Body.Bytes()))
			}
		})
	}
}

// Only /api-docs carries Graylog's unconditional CORS headers.
func TestNoCORSOutsideAPIDocs(t *testing.T) {
	_, h := newFixture(t)
	for _, path := range []string{"/api-browser/", "/api-browser/openapi.json"} {
		if got := get(t, h, path).Header().Get("Access-Control-Allow-Origin"); got != "" {
			t.Errorf("%s: Access-Control-Allow-Origin %q", path, got)
		}
	}
}

// Every resource of the listing is served by /api-docs/{route}, except the
// API root, whose path "/" names the listing itself (as in Graylog).
func TestListingResolves(t *testing.T) {
	_, h := newFixture(t)
	for _, a := range gjson.Parse(get(t, h, "/api-docs").Body.String()).Get("apis").Array() {
		path := a.Get("path").String()
		if path == "/" {
			continue
		}
		w := get(t, h, "/api-docs"+path)
		if w.Code != http.StatusOK || gjson.Get(w.Body.String(), "resourcePath").String() != path {
			t.Errorf("GET /api-docs%s: %d %s", path, w.Code, w.Body)
		}
	}
}
