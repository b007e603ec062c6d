package router

import (
	"net/http"
	"os"
	"regexp"
	"testing"
)

// headerValue reads the map directly, so every name the router passes it
// must be in canonical form: a name spelt otherwise would never be found.
func TestHeaderNamesCanonical(t *testing.T) {
	call := regexp.MustCompile(`headerValue\([^,]+, "([^"]+)"\)`)
	found := 0
	for _, file := range []string{"identity.go", "router.go", "middleware.go"} {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range call.FindAllStringSubmatch(string(src), -1) {
			found++
			if name := m[1]; http.CanonicalHeaderKey(name) != name {
				t.Errorf("%s: header name %q is not canonical (%q)", file, name, http.CanonicalHeaderKey(name))
			}
		}
	}
	if found < 4 {
		t.Errorf("found %d header names, want at least 4", found)
	}
	h := http.Header{}
	h.Add("x-requested-with", "XMLHttpRequest")
	if got := headerValue(h, "X-Requested-With"); got != h.Get("X-Requested-With") || got == "" {
		t.Errorf("headerValue %q, Get %q", got, h.Get("X-Requested-With"))
	}
	if got := headerValue(h, "Authorization"); got != "" {
		t.Errorf("absent header: %q", got)
	}
}
