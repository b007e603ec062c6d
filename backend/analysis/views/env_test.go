package views_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/auth/permission"
	"github.com/loggate/loggate/backend/analysis/views"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/backend/store/bolt"
	"github.com/loggate/loggate/router/routertest"
)

// epoch is the fake clock's first time.
var epoch = time.Date(2021, 3, 4, 5, 6, 7, 890_000_000, time.UTC)

// clock is a fake clock that moves one second on every reading, so that
// views created one after the other have distinct, ordered created_at.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.t
	c.t = c.t.Add(time.Second)
	return t
}

// env is a views service on a real bolt store, served through the router.
type env struct {
	t    *testing.T
	path string
	st   store.Store
	svc  *views.Service
	routertest.Client
	clock *clock
}

func newEnv(t *testing.T) *env {
	t.Helper()
	return newWrappedEnv(t, nil)
}

// newWrappedEnv is newEnv with the store wrapped by wrap.
func newWrappedEnv(t *testing.T, wrap func(store.Store) store.Store) *env {
	t.Helper()
	e := &env{t: t, path: filepath.Join(t.TempDir(), "db"), clock: &clock{t: epoch}}
	e.open(wrap)
	return e
}

// open opens the store at e.path, wrapped by wrap when it is not nil.
func (e *env) open(wrap func(store.Store) store.Store) {
	e.t.Helper()
	st, err := bolt.Open(e.path, nil)
	if err != nil {
		e.t.Fatalf("bolt.Open: %v", err)
	}
	e.t.Cleanup(func() { _ = st.Close() })
	e.st = st
	if wrap != nil {
		e.st = wrap(st)
	}
	e.svc = views.NewService(e.st, e.clock.now)
	e.H = routertest.Handler(views.NewHandler(e.svc, nil).Routes())
}

// reopen closes the store and opens it again, as a restart does.
func (e *env) reopen() {
	e.t.Helper()
	if err := e.st.Close(); err != nil {
		e.t.Fatalf("Close: %v", err)
	}
	e.open(nil)
}

// user returns a principal named name holding perms.
func user(t testing.TB, name string, perms ...string) *auth.Principal {
	t.Helper()
	set, err := permission.NewSet(perms)
	if err != nil {
		t.Fatalf("NewSet(%q): %v", perms, err)
	}
	return &auth.Principal{UserID: "id-" + name, Username: name, Permissions: set}
}

// add creates a view through the service, owned by owner.
func (e *env) add(owner string, typ views.Type, title, description string) views.View {
	e.t.Helper()
	v, err := e.svc.Create(context.Background(), views.View{
		Type: typ, Title: title, Description: description, SearchID: "5f0000000000000000000001",
		Properties: []string{}, Requires: map[string]json.RawMessage{}, State: map[string]json.RawMessage{},
	}, owner)
	if err != nil {
		e.t.Fatalf("Create: %v", err)
	}
	return v
}

// viewBody returns a valid ViewDTO body with some fields replaced or, for a
// nil value, removed.
func viewBody(t testing.TB, typ views.Type, title string, with map[string]any) string {
	t.Helper()
	m := map[string]any{
		"type": typ, "title": title, "summary": "s", "description": "d",
		"search_id": "5f0000000000000000000001", "properties": []string{"p"}, "requires": map[string]any{},
		"state": map[string]any{"q1": map[string]any{
			"selected_fields": []string{"source"}, "titles": map[string]any{"tab": map[string]string{"title": "Tab"}},
			"widgets":        []any{map[string]any{"id": "w1", "type": "messages", "config": map[string]any{}}},
			"widget_mapping": map[string]any{"w1": []string{"st1"}}, "positions": map[string]any{"w1": map[string]any{"col": 1}},
			"formatting": nil, "display_mode_settings": map[string]any{},
		}},
	}
	for k, v := range with {
		if v == nil {
			delete(m, k)
			continue
		}
		m[k] = v
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// decodeJSON decodes a response body.
func decodeJSON[T any](t testing.TB, w *httptest.ResponseRecorder) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(w.Body.Bytes(), &v); err != nil {
		t.Fatalf("decode %s: %v", w.Body, err)
	}
	return v
}

// sameJSON reports whether two JSON documents are equal as values.
func sameJSON(t testing.TB, a, b []byte) bool {
	t.Helper()
	return routertest.SameJSON(t, a, b)
}

// wantStatus fails unless w has the status and its body contains msg.
func wantStatus(t testing.TB, w *httptest.ResponseRecorder, status int, msg string) {
	t.Helper()
	if w.Code != status {
		t.Fatalf("status %d, want %d; body %s", w.Code, status, w.Body)
	}
	if msg != "" && !bytes.Contains(w.Body.Bytes(), []byte(msg)) {
		t.Fatalf("body %s does not contain %q", w.Body, msg)
	}
}

// sameValue reports whether two decoded JSON values are equal, comparing
// them as JSON so that []string and []any of the same strings are equal.
func sameValue(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}
