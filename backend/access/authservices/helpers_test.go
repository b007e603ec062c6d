package authservices_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/backend/access/authservices"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/backend/store/bolt"
	"github.com/loggate/loggate/router/routertest"
)

var epoch = time.Date(2021, 3, 4, 5, 6, 7, 0, time.UTC)

func clock() time.Time { return epoch }

// admin holds every permission.
var admin = []string{"*"}

// roleIDs are the roles fakeRoles knows, by id.
var roleIDs = map[string]string{
	"5f1f0f0f0f0f0f0f0f0f0f01": "Reader",
	"5f1f0f0f0f0f0f0f0f0f0f02": "Admin",
}

const (
	readerID = "5f1f0f0f0f0f0f0f0f0f0f01"
	adminID  = "5f1f0f0f0f0f0f0f0f0f0f02"
)

// fakeRoles answers from roleIDs.
type fakeRoles struct{}

func (fakeRoles) Exists(_ context.Context, id string) (bool, error) {
	_, ok := roleIDs[id]
	return ok, nil
}

func (fakeRoles) Titles(_ context.Context, ids []string) (map[string]string, error) {
	out := map[string]string{}
	for _, id := range ids {
		if t, ok := roleIDs[id]; ok {
			out[id] = t
		}
	}
	return out, nil
}

// countingSealer counts the decryptions of a real sealer.
type countingSealer struct {
	authservices.Sealer
	opens atomic.Int64
}

func (c *countingSealer) Open(sealed string) (string, error) {
	c.opens.Add(1)
	return c.Sealer.Open(sealed)
}

func newSealer() *countingSealer {
	return &countingSealer{Sealer: auth.DeriveKeys("test secret 0123456789").Sealer("x")}
}

// env is a service over a real bolt store, served through the real router.
type env struct {
	path   string
	st     store.Store
	sealer *countingSealer
	svc    *authservices.Service
	h      http.Handler
}

func newEnv(t testing.TB) *env {
	t.Helper()
	e := &env{path: filepath.Join(t.TempDir(), "db"), sealer: newSealer()}
	e.open(t)
	return e
}

// open (re)opens the store at e.path and builds a fresh service on it.
func (e *env) open(t testing.TB) {
	t.Helper()
	st, err := bolt.Open(e.path, nil)
	if err != nil {
		t.Fatalf("bolt.Open: %v", err)
	}
	t.Cleanup(func() { _ = st.Close() })
	e.st = st
	e.svc = authservices.NewService(st, e.sealer, fakeRoles{}, clock)
	e.h = routertest.Handler(authservices.NewHandler(e.svc).Routes())
}

// reopen closes the store and opens it again, as a restart does.
func (e *env) reopen(t testing.TB) {
	t.Helper()
	if err := e.st.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	e.open(t)
}

// call is one request; nil perms means an anonymous request.
type call struct {
	method, path, body string
	perms              []string
}

func (e *env) do(t testing.TB, c call) *httptest.ResponseRecorder {
	t.Helper()
	var r *http.Request
	if c.body != "" {
		r = httptest.NewRequest(c.method, c.path, strings.NewReader(c.body))
		r.Header.Set("Content-Type", "application/json")
	} else {
		r = httptest.NewRequest(c.method, c.path, nil)
	}
	if c.perms != nil {
		r = r.WithContext(auth.WithPrincipal(r.Context(), routertest.Principal(t, c.perms...)))
	}
	w := httptest.NewRecorder()
	e.h.ServeHTTP(w, r)
	return w
}

// ok makes a call that must answer status, and decodes the body into out.
func (e *env) ok(t testing.TB, c call, status int, out any) *httptest.ResponseRecorder {
	t.Helper()
	w := e.do(t, c)
	if w.Code != status {
		t.Fatalf("%s %s: %d %s, want %d", c.method, c.path, w.Code, w.Body, status)
	}
	if out != nil {
		if err := json.Unmarshal(w.Body.Bytes(), out); err != nil {
			t.Fatalf("%s %s: decode %s: %v", c.method, c.path, w.Body, err)
		}
	}
	return w
}

// backendJSON is a valid LDAP backend body with the given title and
// password property (raw JSON, or "" to leave it out).
func backendJSON(title, password string) string {
	pw := ""
	if password != "" {
		pw = `"system_user_password":` + password + `,`
	}
	return `{"title":"` + title + `","description":"d ` + title + `","default_roles":["` + readerID + `"],"config":{"type":"ldap",` +
		`"servers":[{"host":"127.0.0.1","port":389}],"transport_security":"none","verify_certificates":true,` +
		`"system_user_dn":"cn=admin,dc=example,dc=org",` + pw +
		`"user_search_base":"ou=people,dc=example,dc=org","user_search_pattern":"(&(objectClass=inetOrgPerson)(uid={0}))",` +
		`"user_name_attribute":"uid","user_full_name_attribute":"cn"}}`
}

// backendOut is a backend as served.
type backendOut struct {
	ID           string         `json:"id"`
	Title        string         `json:"title"`
	Description  string         `json:"description"`
	DefaultRoles []string       `json:"default_roles"`
	Config       map[string]any `json:"config"`
}

func (b backendOut) passwordSet(t testing.TB) bool {
	t.Helper()
	pw, ok := b.Config["system_user_password"].(map[string]any)
	if !ok || len(pw) != 1 {
		t.Fatalf("system_user_password = %#v, want {\"is_set\":bool}", b.Config["system_user_password"])
	}
	set, ok := pw["is_set"].(bool)
	if !ok {
		t.Fatalf("is_set = %#v", pw["is_set"])
	}
	return set
}

// create creates a backend through the API and returns it.
func (e *env) create(t testing.TB, body string) backendOut {
	t.Helper()
	var out struct {
		Backend backendOut `json:"backend"`
	}
	e.ok(t, call{method: "POST", path: "/system/authentication/services/backends", body: body, perms: admin}, http.StatusOK, &out)
	if out.Backend.ID == "" {
		t.Fatalf("created backend has no id")
	}
	return out.Backend
}

// activate makes id the active backend ("" for none).
func (e *env) activate(t testing.TB, id string) {
	t.Helper()
	body := `{"active_backend":null}`
	if id != "" {
		body = `{"active_backend":"` + id + `"}`
	}
	e.ok(t, call{method: "POST", path: "/system/authentication/services/configuration", body: body, perms: admin}, http.StatusOK, nil)
}

// open2 replaces e's service and handler with new ones on the same store,
// as a second node would have.
func (e *env) open2(t testing.TB) {
	t.Helper()
	e.svc = authservices.NewService(e.st, e.sealer, fakeRoles{}, clock)
	e.h = routertest.Handler(authservices.NewHandler(e.svc).Routes())
}
