package rewrite_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/loggate/loggate/rewrite"
)

func TestParseTemplate(t *testing.T) {
	tests := []struct {
		pattern string
		names   []string
	}{
		{"/", nil},
		{"/users", nil},
		{"/users/{username}/tokens/{token}", []string{"username", "token"}},
		{"/system/ldap/settings", nil},
		{"/{a}/{b}/{c}", []string{"a", "b", "c"}},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			tmpl, err := rewrite.ParseTemplate(tt.pattern)
			if err != nil {
				t.Fatalf("ParseTemplate: %v", err)
			}
			if got := tmpl.Names(); !slices.Equal(got, tt.names) {
				t.Errorf("Names() = %q, want %q", got, tt.names)
			}
			if got := tmpl.String(); got != tt.pattern {
				t.Errorf("String() = %q, want %q", got, tt.pattern)
			}
		})
	}
}

func TestParseTemplateErrors(t *testing.T) {
	for _, pattern := range []string{
		"",
		"users",
		"//users",
		"/users/",
		"/users//tokens",
		"/users/{}",
		"/users/{name",
		"/users/name}",
		"/users/x{name}",
		"/users/{name}x",
		"/users/{na{me}",
		"/{a}/{a}",
	} {
		t.Run(pattern, func(t *testing.T) {
			_, err := rewrite.ParseTemplate(pattern)
			if !errors.Is(err, rewrite.ErrInvalidTemplate) {
				t.Errorf("ParseTemplate(%q) error = %v, want ErrInvalidTemplate", pattern, err)
			}
		})
	}
}

func TestMustTemplatePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("MustTemplate of an invalid pattern did not panic")
		}
	}()
	rewrite.MustTemplate("no-slash")
}

func TestTemplateMatch(t *testing.T) {
	tokens := rewrite.MustTemplate("/users/{username}/tokens/{token}")
	list := rewrite.MustTemplate("/users/{username}/tokens")
	ldap := rewrite.MustTemplate("/system/ldap/settings")
	root := rewrite.MustTemplate("/")
	tests := []struct {
		name string
		tmpl rewrite.Template
		path string
		want []string // nil: no match
	}{
		{"hit", tokens, "/users/GM/tokens/icinga", []string{"GM", "icinga"}},
		{"trailing slash", list, "/users/GM/tokens/", []string{"GM"}},
		{"trailing slash after value", tokens, "/users/GM/tokens/icinga/", []string{"GM", "icinga"}},
		{"escaped value kept escaped", tokens, "/users/a%2Fb/tokens/x%20y", []string{"a%2Fb", "x%20y"}},
		{"literal only", ldap, "/system/ldap/settings", []string{}},
		{"root", root, "/", []string{}},
		{"two trailing slashes", list, "/users/GM/tokens//", nil},
		{"empty value", tokens, "/users//tokens/x", nil},
		{"empty last value", tokens, "/users/GM/tokens/", nil},
		{"missing segment", tokens, "/users/GM/tokens", nil},
		{"extra segment", list, "/users/GM/tokens/x", nil},
		{"literal prefix of segment", ldap, "/system/ldap/settingsX", nil},
		{"literal mismatch", tokens, "/user/GM/tokens/x", nil},
		{"case sensitive", ldap, "/System/ldap/settings", nil},
		{"no leading slash", list, "users/GM/tokens", nil},
		{"empty path", list, "", nil},
		{"root only matches root", root, "/users", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dst := []string{"keep"}
			got, ok := tt.tmpl.Match(tt.path, dst)
			if ok != (tt.want != nil) {
				t.Fatalf("Match(%q) ok = %v, want %v", tt.path, ok, tt.want != nil)
			}
			if !slices.Equal(got, append([]string{"keep"}, tt.want...)) {
				t.Errorf("Match(%q) = %q, want %q after the existing element", tt.path, got, tt.want)
			}
		})
	}
}

func TestTemplateMatchAllocs(t *testing.T) {
	tmpl := rewrite.MustTemplate("/users/{username}/tokens/{token}")
	var buf [4]string
	for _, path := range []string{"/users/GM/tokens/icinga", "/streams/5e1c3a/outputs", "/users/GM/tokens"} {
		if n := testing.AllocsPerRun(100, func() { tmpl.Match(path, buf[:0]) }); n != 0 {
			t.Errorf("Match(%q) allocates %v times, want 0", path, n)
		}
	}
}

func TestTemplateExpand(t *testing.T) {
	tests := []struct {
		pattern string
		vals    []string
		want    string
	}{
		{"/", nil, "/"},
		{"/system/ldap/settings", nil, "/system/ldap/settings"},
		{"/users/{userId}/tokens/{token}", []string{"5e1c3a", "icinga"}, "/users/5e1c3a/tokens/icinga"},
		{"/users/{username}", []string{"a/b c?"}, "/users/a%2Fb%20c%3F"},
		{"/users/{username}", []string{"jörg"}, "/users/j%C3%B6rg"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := rewrite.MustTemplate(tt.pattern).Expand(tt.vals...); got != tt.want {
				t.Errorf("Expand(%q) = %q, want %q", tt.vals, got, tt.want)
			}
		})
	}
}

func TestTemplateExpandWrongCount(t *testing.T) {
	tmpl := rewrite.MustTemplate("/users/{username}/tokens/{token}")
	for _, vals := range [][]string{nil, {"a"}, {"a", "b", "c"}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Expand(%q) did not panic", vals)
				}
			}()
			tmpl.Expand(vals...)
		}()
	}
}
