package authservices_test

import (
	"encoding/json"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
)

const backendsPath = "/system/authentication/services/backends"

func TestBackendLifecycle(t *testing.T) {
	e := newEnv(t)
	created := e.create(t, backendJSON("Corporate", `"s3cret"`))
	if created.Title != "Corporate" || created.Description != "d Corporate" || !reflect.DeepEqual(created.DefaultRoles, []string{readerID}) {
		t.Errorf("created %+v", created)
	}
	if !created.passwordSet(t) {
		t.Errorf("password not set after a plain string")
	}
	wantConfig := map[string]any{
		"type": "ldap", "servers": []any{map[string]any{"host": "127.0.0.1", "port": 389.0}},
		"transport_security": "none", "verify_certificates": true, "system_user_dn": "cn=admin,dc=example,dc=org",
		"system_user_password": map[string]any{"is_set": true}, "user_search_base": "ou=people,dc=example,dc=org",
		"user_search_pattern": "(&(objectClass=inetOrgPerson)(uid={0}))", "user_unique_id_attribute": "entryUUID",
		"user_name_attribute": "uid", "user_full_name_attribute": "cn",
	}
	if !reflect.DeepEqual(created.Config, wantConfig) {
		t.Errorf("config\n got %v\nwant %v", created.Config, wantConfig)
	}

	var got struct {
		Backend backendOut `json:"backend"`
	}
	e.ok(t, call{method: "GET", path: backendsPath + "/" + created.ID, perms: admin}, http.StatusOK, &got)
	if !reflect.DeepEqual(got.Backend, created) {
		t.Errorf("GET = %+v, want %+v", got.Backend, created)
	}

	// The path id wins over the body's.
	body := strings.Replace(backendJSON("Renamed", `{"keep_value":true}`), `{"title"`, `{"id":"000000000000000000000000","title"`, 1)
	e.ok(t, call{method: "PUT", path: backendsPath + "/" + created.ID, body: body, perms: admin}, http.StatusOK, &got)
	if got.Backend.ID != created.ID || got.Backend.Title != "Renamed" || !got.Backend.passwordSet(t) {
		t.Errorf("PUT = %+v", got.Backend)
	}
	e.ok(t, call{method: "GET", path: backendsPath + "/" + created.ID, perms: admin}, http.StatusOK, &got)
	if got.Backend.Title != "Renamed" {
		t.Errorf("after PUT, GET title = %q", got.Backend.Title)
	}

	e.ok(t, call{method: "DELETE", path: backendsPath + "/" + created.ID, perms: admin}, http.StatusNoContent, nil)
	w := e.do(t, call{method: "GET", path: backendsPath + "/" + created.ID, perms: admin})
	if w.Code != http.StatusNotFound {
		t.Errorf("GET after DELETE: %d", w.Code)
	}
}

func TestActiveDirectoryDefaults(t *testing.T) {
	e := newEnv(t)
	b := e.create(t, `{"title":"AD","config":{"type":"active-directory","servers":[{"host":"dc.example.org","port":636}],`+
		`"transport_security":"tls","user_search_base":"dc=example,dc=org","user_unique_id_attribute":"ignored"}}`)
	for k, want := range map[string]any{
		"user_search_pattern":      "(&(objectClass=user)(|(userPrincipalName={0})(sAMAccountName={0})))",
		"user_name_attribute":      "userPrincipalName",
		"user_full_name_attribute": "displayName",
		"verify_certificates":      true,
		"system_user_dn":           "",
	} {
		if b.Config[k] != want {
			t.Errorf("config[%s] = %#v, want %#v", k, b.Config[k], want)
		}
	}
	if _, ok := b.Config["user_unique_id_attribute"]; ok {
		t.Errorf("an AD config has user_unique_id_attribute: %v", b.Config)
	}
	if b.Description != "" || b.DefaultRoles == nil || len(b.DefaultRoles) != 0 || b.passwordSet(t) {
		t.Errorf("defaults: %+v", b)
	}
}

// failure is Graylog's ValidationFailureException body.
type failure struct {
	Failed       bool                `json:"failed"`
	Errors       map[string][]string `json:"errors"`
	ErrorContext map[string]any      `json:"error_context"`
}

func TestBackendValidation(t *testing.T) {
	e := newEnv(t)
	valid := backendJSON("T", `"pw"`)
	cases := []struct {
		name, body string
		fields     []string
	}{
		{"blank title", strings.Replace(valid, `"title":"T"`, `"title":"  "`, 1), []string{"title"}},
		{"no config", `{"title":"T"}`, []string{"servers", "transport_security", "type", "user_full_name_attribute", "user_name_attribute", "user_search_base", "user_search_pattern"}},
		{"unknown type", strings.Replace(valid, `"type":"ldap"`, `"type":"kerberos"`, 1), []string{"type"}},
		{"no servers", strings.Replace(valid, `[{"host":"127.0.0.1","port":389}]`, `[]`, 1), []string{"servers"}},
		{"two servers", strings.Replace(valid, `[{"host":"127.0.0.1","port":389}]`, `[{"host":"a","port":389},{"host":"b","port":389}]`, 1), []string{"servers"}},
		{"bad port", strings.Replace(valid, `"port":389`, `"port":0`, 1), []string{"servers"}},
		{"bad transport", strings.Replace(valid, `"none"`, `"ssl"`, 1), []string{"transport_security"}},
		{"pattern without placeholder", strings.Replace(valid, `(uid={0})`, `(uid=x)`, 1), []string{"user_search_pattern"}},
		{"pattern not a filter", strings.Replace(valid, `(&(objectClass=inetOrgPerson)(uid={0}))`, `(uid={0}`, 1), []string{"user_search_pattern"}},
		{"blank unique id", strings.Replace(valid, `"user_name_attribute"`, `"user_unique_id_attribute":"","user_name_attribute"`, 1), []string{"user_unique_id_attribute"}},
		{"unknown role", strings.Replace(valid, readerID, "5f1f0f0f0f0f0f0f0f0f0fff", 1), []string{"default_roles"}},
		{"several", strings.Replace(strings.Replace(valid, `"title":"T"`, `"title":""`, 1), `"user_search_base":"ou=people,dc=example,dc=org"`, `"user_search_base":""`, 1), []string{"title", "user_search_base"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, m := range []struct{ method, path string }{{"POST", backendsPath}, {"PUT", ""}} {
				path := m.path
				if m.method == "PUT" {
					path = backendsPath + "/" + e.create(t, valid).ID
				}
				w := e.do(t, call{method: m.method, path: path, body: c.body, perms: admin})
				if w.Code != http.StatusBadRequest {
					t.Fatalf("%s: %d %s, want 400", m.method, w.Code, w.Body)
				}
				var raw map[string]any
				var f failure
				_ = json.Unmarshal(w.Body.Bytes(), &raw)
				if err := json.Unmarshal(w.Body.Bytes(), &f); err != nil {
					t.Fatalf("%s: %v", w.Body, err)
				}
				if _, hasType := raw["type"]; hasType || !f.Failed || f.ErrorContext == nil {
					t.Errorf("%s: body %s is not a ValidationFailureException body", m.method, w.Body)
				}
				var fields []string
				for k, msgs := range f.Errors {
					if len(msgs) == 0 || msgs[0] == "" {
						t.Errorf("field %s without a message", k)
					}
					fields = append(fields, k)
				}
				slices.Sort(fields)
				if !slices.Equal(fields, c.fields) {
					t.Errorf("%s: failed fields %v, want %v (%s)", m.method, fields, c.fields, w.Body)
				}
			}
		})
	}
	if n, _ := e.svc.Count(t.Context()); n != len(cases) {
		t.Errorf("%d backends stored, want only the %d valid ones created for the PUTs", n, len(cases))
	}
}

func TestBackendDecodeErrors(t *testing.T) {
	e := newEnv(t)
	id := e.create(t, backendJSON("T", "")).ID
	const secret = "TopSecretValue42"
	cases := []struct {
		name, body, message string
	}{
		{"empty", "", "Request body is mandatory"},
		{"syntax", `{"title":`, "Unable to parse JSON"},
		{"unknown property", `{"title":"T","colour":"red"}`, "Unable to map property colour"},
		{"unknown config property", `{"title":"T","config":{"type":"ldap","colour":"red"}}`, "Unable to map property colour"},
		{"wrong type", `{"title":"T","config":{"type":"ldap","servers":[{"host":"h","port":"389"}]}}`, "must be an integer"},
		{"empty object", `{"title":"T","config":{"type":"ldap","system_user_password":{}}}`, "encrypted value"},
		{"two forms", `{"title":"T","config":{"type":"ldap","system_user_password":{"set_value":"` + secret + `","keep_value":true}}}`, "encrypted value"},
		{"keep false", `{"title":"T","config":{"type":"ldap","system_user_password":{"keep_value":false}}}`, "encrypted value"},
		{"delete false", `{"title":"T","config":{"type":"ldap","system_user_password":{"delete_value":false}}}`, "encrypted value"},
		{"set null", `{"title":"T","config":{"type":"ldap","system_user_password":{"set_value":null}}}`, "encrypted value"},
		{"set number", `{"title":"T","config":{"type":"ldap","system_user_password":{"set_value":42}}}`, "encrypted value"},
		{"number", `{"title":"T","config":{"type":"ldap","system_user_password":42}}`, "encrypted value"},
		{"read form", `{"title":"T","config":{"type":"ldap","system_user_password":{"is_set":true}}}`, "encrypted value"},
		{"unknown form", `{"title":"T","config":{"type":"ldap","system_user_password":{"value":"` + secret + `"}}}`, "encrypted value"},
	}
	for _, c := range cases {
		for _, m := range []struct{ method, path string }{{"POST", backendsPath}, {"PUT", backendsPath + "/" + id}} {
			w := e.do(t, call{method: m.method, path: m.path, body: c.body, perms: admin})
			var body struct{ Type, Message string }
			_ = json.Unmarshal(w.Body.Bytes(), &body)
			if w.Code != http.StatusBadRequest || body.Type != "ApiError" || !strings.Contains(body.Message, c.message) {
				t.Errorf("%s %s: %d %s, want 400 ApiError containing %q", c.name, m.method, w.Code, w.Body, c.message)
			}
			if strings.Contains(w.Body.String(), secret) {
				t.Errorf("%s %s: the answer %s echoes the secret", c.name, m.method, w.Body)
			}
		}
	}
	if n, _ := e.svc.Count(t.Context()); n != 1 {
		t.Errorf("%d backends stored after refused writes, want 1", n)
	}
}

func TestBackendNotFound(t *testing.T) {
	e := newEnv(t)
	const id = "5f1f0f0f0f0f0f0f0f0f0aaa"
	for _, c := range []call{
		{method: "GET", path: backendsPath + "/" + id},
		{method: "PUT", path: backendsPath + "/" + id, body: backendJSON("T", "")},
		{method: "DELETE", path: backendsPath + "/" + id},
		{method: "GET", path: backendsPath + "/" + id + "/users"},
	} {
		c.perms = admin
		w := e.do(t, c)
		var body struct{ Type, Message string }
		_ = json.Unmarshal(w.Body.Bytes(), &body)
		if w.Code != http.StatusNotFound || body.Message != "Couldn't find auth service backend "+id {
			t.Errorf("%s %s: %d %s", c.method, c.path, w.Code, w.Body)
		}
	}
}

func TestActiveBackendCannotBeDeleted(t *testing.T) {
	e := newEnv(t)
	id := e.create(t, backendJSON("T", "")).ID
	e.activate(t, id)
	w := e.do(t, call{method: "DELETE", path: backendsPath + "/" + id, perms: admin})
	var body struct{ Type, Message string }
	_ = json.Unmarshal(w.Body.Bytes(), &body)
	if w.Code != http.StatusBadRequest || body.Message != "Authentication service backend "+id+" is still in use" {
		t.Fatalf("DELETE of the active backend: %d %s", w.Code, w.Body)
	}
	if _, err := e.svc.Get(t.Context(), id); err != nil {
		t.Fatalf("the active backend is gone: %v", err)
	}
	e.activate(t, "")
	e.ok(t, call{method: "DELETE", path: backendsPath + "/" + id, perms: admin}, http.StatusNoContent, nil)
}

func TestBackendList(t *testing.T) {
	e := newEnv(t)
	ids := map[string]string{}
	for _, title := range []string{"charlie", "Alpha", "bravo", "delta"} {
		ids[title] = e.create(t, backendJSON(title, "")).ID
	}
	e.activate(t, ids["bravo"])
	type listing struct {
		Total, Count, Page, PerPage int
		GrandTotal                  *int `json:"grand_total"`
		Query                       string
		Backends                    []backendOut
		Context                     struct {
			ActiveBackend *backendOut `json:"active_backend"`
		}
	}
	titles := func(l listing) []string {
		var out []string
		for _, b := range l.Backends {
			out = append(out, b.Title)
		}
		return out
	}
	cases := []struct {
		name, query string
		perms       []string
		want        []string
		total       int
		active      string
	}{
		{"default sort", "", admin, []string{"Alpha", "bravo", "charlie", "delta"}, 4, "bravo"},
		{"desc", "?order=desc", admin, []string{"delta", "charlie", "bravo", "Alpha"}, 4, "bravo"},
		{"page", "?per_page=2&page=2", admin, []string{"charlie", "delta"}, 4, "bravo"},
		{"query", "?query=a", admin, []string{"Alpha", "bravo", "charlie", "delta"}, 4, "bravo"},
		{"query title", "?query=title:ha", admin, []string{"Alpha", "charlie"}, 2, "bravo"},
		{"query description", "?query=description:%22d%20delta%22", admin, []string{"delta"}, 1, "bravo"},
		{"filtered", "", []string{"authservicebackend:read:" + ids["delta"], "authservicebackend:read:" + ids["Alpha"]}, []string{"Alpha", "delta"}, 2, ""},
		{"filtered with active", "", []string{"authservicebackend:read:" + ids["bravo"]}, []string{"bravo"}, 1, "bravo"},
		{"none readable", "", []string{"users:read"}, nil, 0, ""},
	}
	for _, c := range cases {
		var l listing
		e.ok(t, call{method: "GET", path: backendsPath + c.query, perms: c.perms}, http.StatusOK, &l)
		if !slices.Equal(titles(l), c.want) || l.Total != c.total || l.Count != len(c.want) {
			t.Errorf("%s: %v total %d count %d, want %v total %d", c.name, titles(l), l.Total, l.Count, c.want, c.total)
		}
		if l.GrandTotal == nil || *l.GrandTotal != 4 || l.Backends == nil {
			t.Errorf("%s: grand_total %v, backends %v", c.name, l.GrandTotal, l.Backends)
		}
		got := ""
		if l.Context.ActiveBackend != nil {
			got = l.Context.ActiveBackend.Title
		}
		if got != c.active {
			t.Errorf("%s: active backend %q, want %q", c.name, got, c.active)
		}
	}
	for _, q := range []string{"?sort=port", "?order=up", "?page=0", "?query=host:x", `?query=%22open`} {
		if w := e.do(t, call{method: "GET", path: backendsPath + q, perms: admin}); w.Code != http.StatusBadRequest {
			t.Errorf("GET %s: %d, want 400", q, w.Code)
		}
	}
}

func TestBackendPermissions(t *testing.T) {
	e := newEnv(t)
	id := e.create(t, backendJSON("T", "")).ID
	other := e.create(t, backendJSON("U", "")).ID
	one := backendsPath + "/" + id
	body := backendJSON("V", "")
	cases := []struct {
		c    call
		want int
	}{
		{call{method: "GET", path: backendsPath}, http.StatusUnauthorized},
		{call{method: "GET", path: one}, http.StatusUnauthorized},
		{call{method: "GET", path: one, perms: []string{"authservicebackend:read:" + other}}, http.StatusForbidden},
		{call{method: "GET", path: one, perms: []string{"authservicebackend:read:" + id}}, http.StatusOK},
		{call{method: "POST", path: backendsPath, body: body, perms: []string{"authservicebackend:edit"}}, http.StatusForbidden},
		{call{method: "PUT", path: one, body: body, perms: []string{"authservicebackend:edit:" + other, "authservicebackend:read"}}, http.StatusForbidden},
		{call{method: "PUT", path: one, body: body, perms: []string{"authservicebackend:edit:" + id}}, http.StatusOK},
		{call{method: "DELETE", path: one, perms: []string{"authservicebackend:edit:" + id, "authservicebackend:delete:" + other}}, http.StatusForbidden},
		{call{method: "DELETE", path: one, perms: []string{"authservicebackend:delete:" + id}}, http.StatusNoContent},
		{call{method: "POST", path: backendsPath, body: body, perms: []string{"authservicebackend:create"}}, http.StatusOK},
	}
	for _, c := range cases {
		if w := e.do(t, c.c); w.Code != c.want {
			t.Errorf("%s %s with %q: %d %s, want %d", c.c.method, c.c.path, c.c.perms, w.Code, w.Body, c.want)
		}
	}
	// The refused PUT left U alone; the allowed one renamed T to V before
	// the delete, and the last POST added a V.
	b, err := e.svc.Get(t.Context(), other)
	if err != nil || b.Title != "U" {
		t.Errorf("other backend: %+v, %v", b, err)
	}
	if n, _ := e.svc.Count(t.Context()); n != 2 {
		t.Errorf("%d backends, want 2", n)
	}
}

func TestDefaultRolesAreDeduplicated(t *testing.T) {
	e := newEnv(t)
	body := strings.Replace(backendJSON("T", ""), `["`+readerID+`"]`, `["`+adminID+`","`+readerID+`","`+adminID+`"]`, 1)
	b := e.create(t, body)
	if !slices.Equal(b.DefaultRoles, []string{adminID, readerID}) {
		t.Errorf("default_roles = %v", b.DefaultRoles)
	}
}
