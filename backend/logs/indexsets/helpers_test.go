package indexsets_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/backend/logs/indexsets"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/backend/store/bolt"
	"github.com/loggate/loggate/router/routertest"
)

// epoch is the fake clock's time: every creation_date the service sets.
var epoch = time.Date(2021, 3, 4, 5, 6, 7, 890_000_000, time.UTC)

func clock() time.Time { return epoch }

// fakeStreams answers UsingIndexSet from a map of index set id to stream
// titles, or with err.
type fakeStreams struct {
	mu    sync.Mutex
	using map[string][]string
	err   error
}

func (f *fakeStreams) UsingIndexSet(_ context.Context, id string) ([]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.using[id], f.err
}

// fakeStats answers the stats of per, or err.
type fakeStats struct {
	per map[string]indexsets.IndexSetStats
	err error
}

func (f *fakeStats) IndexSetStats(_ context.Context, id string) (int64, int64, int64, error) {
	s := f.per[id]
	return s.Indices, s.Documents, s.Size, f.err
}

// env is a seeded service on a real embedded store, with two more index
// sets: "Custom" (writable) and "Archive" (read only).
type env struct {
	t       testing.TB
	path    string
	st      store.Store
	svc     *indexsets.Service
	h       http.Handler
	streams *fakeStreams
	stats   *fakeStats
	ids     map[string]string // default, events, system, custom, archive
}

func openStore(t testing.TB, path string) store.Store {
	t.Helper()
	st, err := bolt.Open(path, indexsets.Indexes)
	if err != nil {
		t.Fatalf("bolt.Open: %v", err)
	}
	return st
}

func newEnv(t testing.TB) *env {
	t.Helper()
	e := &env{t: t, path: filepath.Join(t.TempDir(), "db"), streams: &fakeStreams{}, stats: &fakeStats{}}
	e.st = openStore(t, e.path)
	t.Cleanup(func() { e.st.Close() })
	var err error
	e.svc, err = indexsets.NewService(context.Background(), e.st, nil, e.stats, clock)
	if err != nil {
		t.Fatalf("NewService: %v", err)
	}
	e.svc.SetStreams(e.streams)
	e.h = routertest.Handler(indexsets.NewHandler(e.svc).Routes())
	ctx := context.Background()
	e.ids = map[string]string{}
	if e.ids["default"], err = e.svc.DefaultID(ctx); err != nil {
		t.Fatalf("DefaultID: %v", err)
	}
	if e.ids["events"], e.ids["system"], err = e.svc.Builtin(ctx); err != nil {
		t.Fatalf("Builtin: %v", err)
	}
	e.ids["custom"] = e.create("Custom", "custom", true)
	e.ids["archive"] = e.create("Archive", "archive", false)
	e.streams.using = map[string][]string{e.ids["events"]: {"All events"}}
	e.stats.per = map[string]indexsets.IndexSetStats{}
	for i, name := range []string{"default", "events", "system", "custom", "archive"} {
		n := int64(i + 1)
		e.stats.per[e.ids[name]] = indexsets.IndexSetStats{Indices: n, Documents: 100 * n, Size: 10_000 * n}
	}
	return e
}

// create stores an index set through the service, as POST would.
func (e *env) create(title, prefix string, writable bool) string {
	e.t.Helper()
	req := indexsets.CreateRequest{}
	if err := json.Unmarshal([]byte(body(map[string]any{"title": title, "index_prefix": prefix, "writable": writable})), &req); err != nil {
		e.t.Fatal(err)
	}
	is, err := req.IndexSet(clock())
	if err != nil {
		e.t.Fatalf("IndexSet: %v", err)
	}
	is, err = e.svc.Create(context.Background(), is)
	if err != nil {
		e.t.Fatalf("Create: %v", err)
	}
	return is.ID
}

// expand replaces {default}, {events}, … in s by the ids of the env.
func (e *env) expand(s string) string {
	for k, v := range e.ids {
		s = strings.ReplaceAll(s, "{"+k+"}", v)
	}
	return s
}

// do serves a request as a principal holding perms; perms nil is an
// anonymous request.
func (e *env) do(method, path, body string, perms []string) *httptest.ResponseRecorder {
	e.t.Helper()
	var req *http.Request
	if body == "" {
		req = httptest.NewRequest(method, e.expand(path), nil)
	} else {
		req = httptest.NewRequest(method, e.expand(path), strings.NewReader(e.expand(body)))
		req.Header.Set("Content-Type", "application/json")
	}
	if perms != nil {
		req = req.WithContext(auth.WithPrincipal(req.Context(), routertest.Principal(e.t, perms...)))
	}
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	return rec
}

// body returns a complete create request; overrides replace or (nil) remove
// its properties.
func body(overrides map[string]any) string {
	b := map[string]any{
		"title":                               "Nginx",
		"description":                         "Nginx access logs",
		"writable":                            true,
		"index_prefix":                        "nginx",
		"shards":                              2,
		"replicas":                            1,
		"rotation_strategy_class":             indexsets.SizeBasedRotation,
		"rotation_strategy":                   map[string]any{"type": indexsets.SizeBasedRotation + "Config", "max_size": 1 << 20},
		"retention_strategy_class":            indexsets.ClosingRetention,
		"retention_strategy":                  map[string]any{"type": indexsets.ClosingRetention + "Config", "max_number_of_indices": 7},
		"creation_date":                       "2020-01-02T03:04:05.678Z",
		"index_analyzer":                      "standard",
		"index_optimization_max_num_segments": 2,
		"index_optimization_disabled":         true,
		"field_type_refresh_interval":         2000,
	}
	for k, v := range overrides {
		if v == nil {
			delete(b, k)
			continue
		}
		b[k] = v
	}
	out, err := json.Marshal(b)
	if err != nil {
		panic(err)
	}
	return string(out)
}

var errBroken = errors.New("broken")

func decodeInto(s string, v any) error { return json.Unmarshal([]byte(s), v) }
