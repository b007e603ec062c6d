package upstream

import (
	"net/http"
	"slices"
	"strings"
	"testing"
)

func TestChangedUser(t *testing.T) {
	tests := []struct {
		method, path string
		want         string
		ok           bool
	}{
		{"PUT", "/users/5f1", "5f1", true},
		{"PUT", "/users/local%3Aadmin", "local:admin", true},
		{"DELETE", "/users/bob", "bob", true},
		{"DELETE", "/users/id/5f1", "5f1", true},
		{"DELETE", "/users/b%20b", "b b", true},
		{"PUT", "/users/5f1/password", "", false},
		{"DELETE", "/users/5f1/tokens/abc", "", false},
		{"GET", "/users/bob", "", false},
		{"POST", "/users/bob", "", false},
		{"PUT", "/users/", "", false},
		{"PUT", "/streams/bob", "", false},
		{"DELETE", "/users/%zz", "", false},
	}
	for _, tt := range tests {
		got, ok := changedUser(tt.method, tt.path)
		if got != tt.want || ok != tt.ok {
			t.Errorf("changedUser(%s %s) = %q, %v; want %q, %v", tt.method, tt.path, got, ok, tt.want, tt.ok)
		}
	}
}

func FuzzChangedUser(f *testing.F) {
	for _, p := range []string{"/users/5f1", "/users/id/x", "/users/a%2Fb", "/users/id/", "/users//x", "/users/%"} {
		f.Add("PUT", p)
		f.Add("DELETE", p)
	}
	f.Fuzz(func(t *testing.T, method, path string) {
		got, ok := changedUser(method, path)
		if !ok {
			return
		}
		if got == "" || (method != "PUT" && method != "DELETE") || !strings.HasPrefix(path, "/users/") {
			t.Fatalf("changedUser(%q, %q) = %q", method, path, got)
		}
	})
}

func TestDropVaryAcceptEncoding(t *testing.T) {
	tests := []struct {
		in   []string
		want []string
	}{
		{nil, nil},
		{[]string{"Accept-Encoding"}, nil},
		{[]string{"Origin, accept-encoding"}, []string{"Origin"}},
		{[]string{"Accept-Encoding", "Origin"}, []string{"Origin"}},
	}
	for _, tt := range tests {
		h := http.Header{}
		if tt.in != nil {
			h["Vary"] = append([]string(nil), tt.in...)
		}
		dropVaryAcceptEncoding(h)
		if got := h["Vary"]; !slices.Equal(got, tt.want) {
			t.Errorf("Vary %q → %q; want %q", tt.in, got, tt.want)
		}
	}
}
