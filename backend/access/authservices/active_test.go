package authservices_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

const (
	configPath = "/system/authentication/services/configuration"
	activePath = "/system/authentication/services/active-backend"
)

type configuration struct {
	Configuration struct {
		ActiveBackend *string `json:"active_backend"`
	} `json:"configuration"`
}

func (c configuration) active() string {
	if c.Configuration.ActiveBackend == nil {
		return "<null>"
	}
	return *c.Configuration.ActiveBackend
}

type activeBackend struct {
	Backend *backendOut `json:"backend"`
	Context struct {
		BackendsTotal *int `json:"backends_total"`
	} `json:"context"`
}

func TestConfiguration(t *testing.T) {
	e := newEnv(t)
	var c configuration
	w := e.ok(t, call{method: "GET", path: configPath, perms: admin}, http.StatusOK, &c)
	if c.active() != "<null>" || !strings.Contains(w.Body.String(), `"active_backend":null`) {
		t.Fatalf("initial configuration %s", w.Body)
	}
	var ab activeBackend
	w = e.ok(t, call{method: "GET", path: activePath, perms: admin}, http.StatusOK, &ab)
	if ab.Backend != nil || ab.Context.BackendsTotal == nil || *ab.Context.BackendsTotal != 0 || !strings.Contains(w.Body.String(), `"backend":null`) {
		t.Fatalf("initial active backend %s", w.Body)
	}

	a := e.create(t, backendJSON("A", "")).ID
	b := e.create(t, backendJSON("B", "")).ID
	steps := []struct {
		name, path, body string
		want             string // active id after the step, "<null>" for none
	}{
		{"activate A", configPath, `{"active_backend":"` + a + `"}`, a},
		{"activate B by the alias", activePath, `{"active_backend":"` + b + `"}`, b},
		{"deactivate", configPath, `{"active_backend":null}`, "<null>"},
		{"activate A by the alias", activePath, `{"active_backend":"` + a + `"}`, a},
		{"blank deactivates", activePath, `{"active_backend":""}`, "<null>"},
		{"absent deactivates", configPath, `{}`, "<null>"},
	}
	for _, s := range steps {
		e.ok(t, call{method: "POST", path: s.path, body: s.body, perms: admin}, http.StatusOK, &c)
		if c.active() != s.want {
			t.Errorf("%s: answered %s, want %s", s.name, c.active(), s.want)
		}
		e.ok(t, call{method: "GET", path: configPath, perms: admin}, http.StatusOK, &c)
		if c.active() != s.want {
			t.Errorf("%s: GET says %s, want %s", s.name, c.active(), s.want)
		}
		ab = activeBackend{}
		e.ok(t, call{method: "GET", path: activePath, perms: admin}, http.StatusOK, &ab)
		got := "<null>"
		if ab.Backend != nil {
			got = ab.Backend.ID
		}
		if got != s.want || *ab.Context.BackendsTotal != 2 {
			t.Errorf("%s: active-backend %s total %d, want %s total 2", s.name, got, *ab.Context.BackendsTotal, s.want)
		}
	}
}

func TestConfigurationErrors(t *testing.T) {
	e := newEnv(t)
	id := e.create(t, backendJSON("A", "")).ID
	e.activate(t, id)
	const unknown = "5f1f0f0f0f0f0f0f0f0f0aaa"
	cases := []struct {
		c       call
		want    int
		message string
	}{
		{call{method: "POST", path: configPath, body: `{"active_backend":"` + unknown + `"}`, perms: admin}, http.StatusNotFound, "Couldn't find auth service backend " + unknown},
		{call{method: "POST", path: activePath, body: `{"active_backend":"` + unknown + `"}`, perms: admin}, http.StatusNotFound, "Couldn't find auth service backend " + unknown},
		{call{method: "POST", path: configPath, body: `{"active_backend":1}`, perms: admin}, http.StatusBadRequest, "must be a string"},
		{call{method: "POST", path: configPath, body: `{"active":null}`, perms: admin}, http.StatusBadRequest, "Unable to map property active"},
		{call{method: "POST", path: configPath, body: ``, perms: admin}, http.StatusBadRequest, "Request body is mandatory"},
		{call{method: "GET", path: configPath}, http.StatusUnauthorized, "Not authenticated"},
		{call{method: "GET", path: configPath, perms: []string{"authserviceglobalconfig:edit"}}, http.StatusForbidden, "Not authorized"},
		{call{method: "POST", path: configPath, body: `{"active_backend":null}`, perms: []string{"authserviceglobalconfig:read"}}, http.StatusForbidden, "Not authorized"},
		{call{method: "POST", path: activePath, body: `{"active_backend":null}`, perms: []string{"authserviceglobalconfig:read"}}, http.StatusForbidden, "Not authorized"},
		{call{method: "GET", path: activePath, perms: []string{"authservicebackend:read"}}, http.StatusForbidden, "Not authorized"},
		// The active backend itself needs reading too.
		{call{method: "GET", path: activePath, perms: []string{"authserviceglobalconfig:read"}}, http.StatusForbidden, "Not authorized"},
		{call{method: "GET", path: activePath, perms: []string{"authserviceglobalconfig:read", "authservicebackend:read:" + id}}, http.StatusOK, ""},
	}
	for _, c := range cases {
		w := e.do(t, c.c)
		var body struct{ Message string }
		_ = json.Unmarshal(w.Body.Bytes(), &body)
		if w.Code != c.want || !strings.Contains(body.Message, c.message) {
			t.Errorf("%s %s %s with %q: %d %s, want %d %q", c.c.method, c.c.path, c.c.body, c.c.perms, w.Code, w.Body, c.want, c.message)
		}
	}
	if got, _ := e.svc.ActiveID(t.Context()); got != id {
		t.Errorf("refused requests changed the active backend to %q", got)
	}
}

func TestActive(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	if a, err := e.svc.Active(ctx); a != nil || err != nil {
		t.Fatalf("Active with none = %v, %v", a, err)
	}
	id := e.create(t, strings.Replace(backendJSON("A", `"first"`), `["`+readerID+`"]`, `["`+readerID+`","`+adminID+`"]`, 1)).ID
	e.create(t, backendJSON("B", `"other"`))
	if a, err := e.svc.Active(ctx); a != nil || err != nil {
		t.Fatalf("Active before activation = %v, %v", a, err)
	}
	e.activate(t, id)
	a, err := e.svc.Active(ctx)
	if err != nil || a == nil {
		t.Fatalf("Active = %v, %v", a, err)
	}
	if a.BackendID != id || a.Directory == nil || a.Config.SystemUserPassword != "first" ||
		a.Config.SystemUserDN != "cn=admin,dc=example,dc=org" || len(a.DefaultRoles) != 2 || a.DefaultRoles[1] != adminID {
		t.Errorf("Active = %+v", a)
	}
	if a.Directory.URL() != "ldap://127.0.0.1:389" {
		t.Errorf("directory URL %q", a.Directory.URL())
	}
	opens := e.sealer.opens.Load()
	for range 3 {
		again, err := e.svc.Active(ctx)
		if err != nil || again != a {
			t.Fatalf("unchanged backend: Active = %p, %v; want the cached %p", again, err, a)
		}
	}
	if n := e.sealer.opens.Load() - opens; n != 0 {
		t.Errorf("a cached Active decrypted %d times", n)
	}

	// An edit of the active backend rebuilds it.
	e.ok(t, call{method: "PUT", path: backendsPath + "/" + id, body: strings.Replace(backendJSON("A", `{"set_value":"second"}`), `"port":389`, `"port":1389`, 1), perms: admin}, http.StatusOK, nil)
	b, err := e.svc.Active(ctx)
	if err != nil || b == a || b.Config.SystemUserPassword != "second" || b.Directory.URL() != "ldap://127.0.0.1:1389" {
		t.Fatalf("after an edit Active = %+v, %v", b, err)
	}
	if n := e.sealer.opens.Load() - opens; n != 1 {
		t.Errorf("rebuilding decrypted %d times, want 1", n)
	}
	// A backend without a password binds without one.
	e.ok(t, call{method: "PUT", path: backendsPath + "/" + id, body: backendJSON("A", `{"delete_value":true}`), perms: admin}, http.StatusOK, nil)
	if c, err := e.svc.Active(ctx); err != nil || c.Config.SystemUserPassword != "" {
		t.Fatalf("after deleting the password Active = %+v, %v", c, err)
	}
	e.activate(t, "")
	if a, err := e.svc.Active(ctx); a != nil || err != nil {
		t.Fatalf("Active after deactivation = %v, %v", a, err)
	}
}

func TestActiveSeesOtherWriters(t *testing.T) {
	// Another node (here: another service on the same store) edits the
	// active backend; this node's cached directory must not survive it.
	e := newEnv(t)
	id := e.create(t, backendJSON("A", `"first"`)).ID
	e.activate(t, id)
	if a, err := e.svc.Active(t.Context()); err != nil || a.Config.SystemUserPassword != "first" {
		t.Fatalf("Active = %+v, %v", a, err)
	}
	first := e.svc
	e.open2(t)
	e.ok(t, call{method: "PUT", path: backendsPath + "/" + id, body: backendJSON("A", `"second"`), perms: admin}, http.StatusOK, nil)
	if a, err := first.Active(t.Context()); err != nil || a.Config.SystemUserPassword != "second" {
		t.Fatalf("the first service's Active = %+v, %v after another wrote", a, err)
	}
}
