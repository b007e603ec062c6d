package inputs_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/backend/inputs"
	"github.com/loggate/loggate/backend/store/bolt"
	"github.com/loggate/loggate/router/routertest"
)

// fakeClock is a settable clock.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

var start = time.Date(2021, 3, 4, 5, 6, 7, 891_234_000, time.UTC)

type env struct {
	t      testing.TB
	path   string
	opts   []inputs.Option
	clock  *fakeClock
	st     *bolt.Store
	svc    *inputs.Service
	states *inputs.States
	h      http.Handler
}

// newEnv serves the input routes over a fresh bolt store.
func newEnv(t testing.TB, opts ...inputs.Option) *env {
	t.Helper()
	e := &env{t: t, path: filepath.Join(t.TempDir(), "db"), opts: opts, clock: &fakeClock{t: start}}
	e.open()
	t.Cleanup(func() { _ = e.st.Close() })
	return e
}

func (e *env) open() {
	e.t.Helper()
	st, err := bolt.Open(e.path, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	e.st = st
	e.svc = inputs.NewService(st, e.clock.now, e.opts...)
	e.states = inputs.NewStates(e.clock.now)
	e.h = routertest.Handler(inputs.NewHandler(e.svc, e.states, nil).Routes())
}

// reopen closes the store and builds everything again from the file.
func (e *env) reopen() {
	e.t.Helper()
	if err := e.st.Close(); err != nil {
		e.t.Fatal(err)
	}
	e.open()
}

// with returns e reporting to t, for use inside a fuzz target.
func (e *env) with(t testing.TB) *env {
	c := *e
	c.t = t
	return &c
}

func principal(t testing.TB, perms ...string) *auth.Principal {
	t.Helper()
	return routertest.Principal(t, perms...)
}

// do serves a request as p (anonymous when nil).
func (e *env) do(p *auth.Principal, method, path, body string) *httptest.ResponseRecorder {
	e.t.Helper()
	return routertest.Serve(e.h, p, method, path, body)
}

// admin serves a request with every permission.
func (e *env) admin(method, path, body string) *httptest.ResponseRecorder {
	e.t.Helper()
	return e.do(principal(e.t, "*"), method, path, body)
}

// create stores an input through the API and returns its id.
func (e *env) create(body string) string {
	e.t.Helper()
	rec := e.admin("POST", "/system/inputs", body)
	if rec.Code != http.StatusCreated {
		e.t.Fatalf("create: %d %s", rec.Code, rec.Body)
	}
	return routertest.Decode[struct {
		ID string `json:"id"`
	}](e.t, rec).ID
}

func (e *env) count() int {
	e.t.Helper()
	n, err := e.st.Count(context.Background(), inputs.Collection)
	if err != nil {
		e.t.Fatal(err)
	}
	return n
}
