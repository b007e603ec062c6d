package apibrowser

import (
	"errors"
	"strings"
	"testing"
)

func TestParseTemplate(t *testing.T) {
	cases := []struct {
		path, doc, shape string
		vars             []variable
	}{
		{"/", "/", "/", nil},
		{"/cluster", "/cluster", "/cluster", nil},
		{"/users/{userId}/tokens/{name}", "/users/{userId}/tokens/{name}", "/users/{}/tokens/{}",
			[]variable{{name: "userId"}, {name: "name"}}},
		{"/api-docs/{route:.+}", "/api-docs/{route}", "/api-docs/{}", []variable{{name: "route", pattern: ".+"}}},
		{"/system/indices/ranges/{index: [a-z_0-9]+}", "/system/indices/ranges/{index}", "/system/indices/ranges/{}",
			[]variable{{name: "index", pattern: "[a-z_0-9]+"}}},
		{"/views/{id:[0-9a-f]{24}}/default", "/views/{id}/default", "/views/{}/default",
			[]variable{{name: "id", pattern: "[0-9a-f]{24}"}}},
		{"/files/{name}.{ext}", "/files/{name}.{ext}", "/files/{}.{}", []variable{{name: "name"}, {name: "ext"}}},
	}
	for _, c := range cases {
		tpl, err := parseTemplate(c.path)
		if err != nil {
			t.Errorf("parseTemplate(%q): %v", c.path, err)
			continue
		}
		if got := tpl.String(); got != c.doc {
			t.Errorf("parseTemplate(%q).String() = %q, want %q", c.path, got, c.doc)
		}
		if got := tpl.shape(); got != c.shape {
			t.Errorf("parseTemplate(%q).shape() = %q, want %q", c.path, got, c.shape)
		}
		got := tpl.vars()
		if len(got) != len(c.vars) {
			t.Errorf("parseTemplate(%q).vars() = %+v, want %+v", c.path, got, c.vars)
			continue
		}
		for i := range got {
			if got[i] != c.vars[i] {
				t.Errorf("parseTemplate(%q).vars()[%d] = %+v, want %+v", c.path, i, got[i], c.vars[i])
			}
		}
	}
}

func TestParseTemplateErrors(t *testing.T) {
	for _, path := range []string{"", "users", "/users/{", "/users/}", "/users/{}", "/users/{:x}", "/a/{id}/b/{id}", "/a/{x{y}}"} {
		if _, err := parseTemplate(path); !errors.Is(err, errTemplate) {
			t.Errorf("parseTemplate(%q) = %v, want errTemplate", path, err)
		}
	}
}

func TestGroupOf(t *testing.T) {
	cases := []struct{ path, group, name string }{
		{"/", "/", "Hello World"},
		{"/users", "/users", "Users"},
		{"/users/{userId}/tokens", "/users", "Users"},
		{"/system", "/system", "System"},
		{"/system/sessions/{sessionId}", "/system/sessions", "System/Sessions"},
		{"/system/cluster_config", "/system/cluster_config", "System/ClusterConfig"},
		{"/cluster/{nodeId}/metrics/names", "/cluster", "Cluster"},
		{"/cluster/system/loggers", "/cluster/system", "Cluster/System"},
		{"/authz/roles/{roleId}", "/authz/roles", "Authz/Roles"},
		{"/api-docs/{route:.+}", "/api-docs", "ApiDocs"},
	}
	for _, c := range cases {
		tpl, err := parseTemplate(c.path)
		if err != nil {
			t.Fatalf("parseTemplate(%q): %v", c.path, err)
		}
		if g, n := groupOf(tpl); g != c.group || n != c.name {
			t.Errorf("groupOf(%q) = %q, %q; want %q, %q", c.path, g, n, c.group, c.name)
		}
	}
}

func TestOperationID(t *testing.T) {
	cases := []struct{ method, path, want string }{
		{"GET", "/", "getRoot"},
		{"GET", "/users/{userId}/tokens", "getUsersByUserIdTokens"},
		{"DELETE", "/system/sessions/{sessionId}", "deleteSystemSessionsBySessionId"},
		{"GET", "/api-docs/{route:.+}", "getApiDocsByRoute"},
		{"PUT", "/system/cluster_config", "putSystemClusterConfig"},
	}
	for _, c := range cases {
		tpl, err := parseTemplate(c.path)
		if err != nil {
			t.Fatalf("parseTemplate(%q): %v", c.path, err)
		}
		if got := operationID(c.method, tpl); got != c.want {
			t.Errorf("operationID(%s %s) = %q, want %q", c.method, c.path, got, c.want)
		}
	}
}

// FuzzParseTemplate checks that any template either fails cleanly or gives a
// documented path without patterns, with as many {name} placeholders as
// variables, each named once.
func FuzzParseTemplate(f *testing.F) {
	for _, s := range []string{"/", "/users/{userId}", "/api-docs/{route:.+}", "/v/{id:[0-9]{24}}/x", "/a/{b}.{c}", "/{", "/}", "//x//", "/a/{:}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, path string) {
		tpl, err := parseTemplate(path)
		if err != nil {
			return
		}
		doc := tpl.String()
		if !strings.HasPrefix(doc, "/") {
			t.Fatalf("%q documents as %q, which is not absolute", path, doc)
		}
		vars := tpl.vars()
		if n := strings.Count(doc, "{"); n < len(vars) {
			t.Fatalf("%q documents as %q with %d placeholders for %d variables", path, doc, n, len(vars))
		}
		if strings.Count(tpl.shape(), "{}") != len(vars) {
			t.Fatalf("%q has shape %q for %d variables", path, tpl.shape(), len(vars))
		}
		seen := map[string]bool{}
		for _, v := range vars {
			if v.name == "" || seen[v.name] || strings.ContainsAny(v.name, "{}/") {
				t.Fatalf("%q gives a bad variable %+v", path, v)
			}
			seen[v.name] = true
			if !strings.Contains(doc, "{"+v.name+"}") {
				t.Fatalf("%q documents as %q without {%s}", path, doc, v.name)
			}
		}
		// Documenting is idempotent: the documented path parses to itself.
		again, err := parseTemplate(doc)
		if err != nil || again.String() != doc {
			t.Fatalf("%q documents as %q, which parses to %q, %v", path, doc, again.String(), err)
		}
	})
}
