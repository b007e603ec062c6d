package grok_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/backend/logs/grok"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/backend/store/bolt"
	"github.com/loggate/loggate/router/routertest"
)

var epoch = time.Date(2021, 3, 4, 5, 6, 7, 0, time.UTC)

func clock() time.Time { return epoch }

// openStore opens a bolt store at path, closed when the test ends.
func openStore(t testing.TB, path string) *bolt.Store {
	t.Helper()
	st, err := bolt.Open(path, grok.Indexes)
	if err != nil {
		t.Fatalf("bolt.Open: %v", err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// seeded is a store file with the default patterns installed, made once:
// installing them costs one fsync per pattern, and most tests start there.
var seeded struct {
	once sync.Once
	dir  string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if seeded.dir != "" {
		_ = os.RemoveAll(seeded.dir)
	}
	os.Exit(code)
}

// copySeeded copies the seeded store file to path.
func copySeeded(t testing.TB, path string) {
	t.Helper()
	seeded.once.Do(func() {
		if seeded.dir, seeded.err = os.MkdirTemp("", "grok-seeded"); seeded.err != nil {
			return
		}
		st, err := bolt.Open(filepath.Join(seeded.dir, "db"), grok.Indexes)
		if err != nil {
			seeded.err = err
			return
		}
		_, seeded.err = grok.NewService(context.Background(), st, clock)
		if err := st.Close(); seeded.err == nil {
			seeded.err = err
		}
	})
	if seeded.err != nil {
		t.Fatalf("seeding the template store: %v", seeded.err)
	}
	b, err := os.ReadFile(filepath.Join(seeded.dir, "db"))
	if err == nil {
		err = os.WriteFile(path, b, 0o600)
	}
	if err != nil {
		t.Fatalf("copying the template store: %v", err)
	}
}

// env is a service on a fresh store with the default patterns, served
// through the real router.
type env struct {
	t   testing.TB
	st  store.Store
	svc *grok.Service
	h   http.Handler
}

func newEnv(t testing.TB) *env {
	t.Helper()
	path := filepath.Join(t.TempDir(), "db")
	copySeeded(t, path)
	st := openStore(t, path)
	svc, err := grok.NewService(context.Background(), st, clock)
	if err != nil {
		t.Fatalf("NewService: %v", err)
	}
	return &env{t: t, st: st, svc: svc, h: routertest.Handler(grok.NewHandler(svc).Routes())}
}

// call is one request; perms nil means an anonymous request.
type call struct {
	method, path string
	ctype, body  string
	perms        []string
}

// admin holds every permission a grok route asks for.
var admin = []string{"inputs:read", "inputs:create", "inputs:edit"}

func (e *env) do(c call) *httptest.ResponseRecorder {
	e.t.Helper()
	r := httptest.NewRequest(c.method, c.path, strings.NewReader(c.body))
	if c.ctype == "" && c.body != "" {
		c.ctype = "application/json"
	}
	if c.ctype != "" {
		r.Header.Set("Content-Type", c.ctype)
	}
	if c.perms != nil {
		r = r.WithContext(auth.WithPrincipal(r.Context(), routertest.Principal(e.t, c.perms...)))
	}
	w := httptest.NewRecorder()
	e.h.ServeHTTP(w, r)
	return w
}

// ok makes a request that must answer want and decodes the body into out,
// when out is not nil.
func (e *env) ok(c call, want int, out any) *httptest.ResponseRecorder {
	e.t.Helper()
	w := e.do(c)
	if w.Code != want {
		e.t.Fatalf("%s %s: %d %s, want %d", c.method, c.path, w.Code, w.Body, want)
	}
	if out != nil {
		if err := json.Unmarshal(w.Body.Bytes(), out); err != nil {
			e.t.Fatalf("%s %s: decoding %s: %v", c.method, c.path, w.Body, err)
		}
	}
	return w
}

// byName returns the stored pattern of that name.
func (e *env) byName(name string) (grok.Pattern, bool) {
	e.t.Helper()
	for _, p := range e.svc.All() {
		if p.Name == name {
			return p, true
		}
	}
	return grok.Pattern{}, false
}

// names returns the stored names, in listing order.
func names(ps []grok.Pattern) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Name
	}
	return out
}

// errorBody is either of Graylog's error bodies.
type errorBody struct {
	Type             string                         `json:"type"`
	Message          string                         `json:"message"`
	ValidationErrors map[string][]map[string]string `json:"validation_errors"`
}

// messages returns every message of an error body.
func (b errorBody) messages() string {
	var all []string
	if b.Message != "" {
		all = append(all, b.Message)
	}
	for _, errs := range b.ValidationErrors {
		for _, e := range errs {
			all = append(all, e["error"])
		}
	}
	return strings.Join(all, "\n")
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
