package inputs_test

import (
	"context"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/loggate/loggate/internal/testclock"

	"github.com/loggate/loggate/backend/logs/inputs"
	"github.com/loggate/loggate/backend/store/bolt"
	"github.com/loggate/loggate/router/routertest"
)

var start = time.Date(2021, 3, 4, 5, 6, 7, 891_234_000, time.UTC)

type env struct {
	t      testing.TB
	path   string
	opts   []inputs.Option
	clock  *testclock.Clock
	st     *bolt.Store
	svc    *inputs.Service
	states *inputs.States
	routertest.Client
}

// newEnv serves the input routes over a fresh bolt store.
func newEnv(t testing.TB, opts ...inputs.Option) *env {
	t.Helper()
	e := &env{t: t, path: filepath.Join(t.TempDir(), "db"), opts: opts, clock: testclock.New(start)}
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
	e.svc = inputs.NewService(st, e.clock.Now, e.opts...)
	e.states = inputs.NewStates(e.clock.Now)
	e.H = routertest.Handler(inputs.NewHandler(e.svc, e.states, nil).Routes())
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

// create stores an input through the API and returns its id.
func (e *env) create(body string) string {
	e.t.Helper()
	rec := e.Admin("POST", "/system/inputs", body)
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
