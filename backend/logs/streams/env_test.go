package streams_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/auth/permission"
	"github.com/loggate/loggate/backend/logs/outputs"
	"github.com/loggate/loggate/backend/logs/streams"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/backend/store/bolt"
	"github.com/loggate/loggate/router/api"
	"github.com/loggate/loggate/router/routertest"
)

// Index set ids of the fake index set service.
const (
	defaultSet  = "5f00000000000000000000a1"
	eventsSet   = "5f00000000000000000000a2"
	systemSet   = "5f00000000000000000000a3"
	readOnlySet = "5f00000000000000000000a4"
	otherSet    = "5f00000000000000000000a5"
)

// epoch is the fake clock's time.
var epoch = time.Date(2021, 3, 4, 5, 6, 7, 890_000_000, time.UTC)

// fakeIndexSets stands in for the index set service.
type fakeIndexSets struct {
	mu       sync.Mutex
	writable map[string]bool
	calls    int // of DefaultID and Builtin
	err      error
}

func newIndexSets() *fakeIndexSets {
	return &fakeIndexSets{writable: map[string]bool{
		defaultSet: true, eventsSet: true, systemSet: true, readOnlySet: false, otherSet: true,
	}}
}

func (f *fakeIndexSets) Writable(_ context.Context, id string) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	w, ok := f.writable[id]
	if !ok {
		return false, fmt.Errorf("index set %s: %w", id, store.ErrNotFound)
	}
	return w, nil
}

func (f *fakeIndexSets) DefaultID(context.Context) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	return defaultSet, f.err
}

func (f *fakeIndexSets) Builtin(context.Context) (string, string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	return eventsSet, systemSet, f.err
}

// fakeOutputs stands in for the output service.
type fakeOutputs struct {
	mu   sync.Mutex
	byID map[string]outputs.Summary
}

func (f *fakeOutputs) Get(_ context.Context, id string) (outputs.Summary, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	o, ok := f.byID[id]
	if !ok {
		return outputs.Summary{}, fmt.Errorf("output %s: %w", id, store.ErrNotFound)
	}
	return o, nil
}

func (f *fakeOutputs) add(id, title string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.byID[id] = outputs.Summary{
		ID: id, Title: title, Type: "org.graylog2.outputs.GelfOutput", CreatorUserID: "admin",
		CreatedAt: api.Time{Time: epoch}, Configuration: map[string]any{"hostname": "gelf.example.org", "port": 12201},
	}
}

func (f *fakeOutputs) remove(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.byID, id)
}

// env is a stream service on a real bolt store, served through the real
// router.
type env struct {
	t    testing.TB
	path string
	st   *bolt.Store
	ix   *fakeIndexSets
	outs *fakeOutputs
	svc  *streams.Service
	h    http.Handler
}

func newEnv(t testing.TB) *env {
	t.Helper()
	e := &env{t: t, path: filepath.Join(t.TempDir(), "db"), ix: newIndexSets(), outs: &fakeOutputs{byID: map[string]outputs.Summary{}}}
	e.open()
	t.Cleanup(func() { e.st.Close() })
	return e
}

// open opens the store and starts the service on it.
func (e *env) open() {
	e.t.Helper()
	st, err := bolt.Open(e.path, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	e.st = st
	svc, err := streams.NewService(context.Background(), st, e.ix, e.outs, func() time.Time { return epoch })
	if err != nil {
		e.t.Fatal(err)
	}
	e.svc = svc
	e.h = routertest.Handler(streams.NewHandler(svc).Routes())
}

// restart closes the store and opens it again with a new service, as a
// restart of loggate does.
func (e *env) restart() {
	e.t.Helper()
	if err := e.st.Close(); err != nil {
		e.t.Fatal(err)
	}
	e.open()
}

// response is a recorded response.
type response struct {
	*httptest.ResponseRecorder
}

// get returns a gjson path of the body.
func (r response) get(path string) gjson.Result { return gjson.GetBytes(r.Body.Bytes(), path) }

// do sends a request as p (anonymous when nil). A string body is sent as
// is, anything else as JSON.
func (e *env) do(p *auth.Principal, method, path string, body any) response {
	e.t.Helper()
	var rd *bytes.Reader
	switch b := body.(type) {
	case nil:
		rd = bytes.NewReader(nil)
	case string:
		rd = bytes.NewReader([]byte(b))
	default:
		buf, err := json.Marshal(b)
		if err != nil {
			e.t.Fatal(err)
		}
		rd = bytes.NewReader(buf)
	}
	req := httptest.NewRequest(method, path, rd)
	req.Header.Set("Content-Type", "application/json")
	if p != nil {
		req = req.WithContext(auth.WithPrincipal(req.Context(), p))
	}
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	return response{rec}
}

// want fails unless the response has the status.
func (r response) want(t testing.TB, status int) response {
	t.Helper()
	if r.Code != status {
		t.Fatalf("status %d, want %d; body %s", r.Code, status, r.Body)
	}
	return r
}

// wantError fails unless the response is an ApiError with the status and a
// message containing msg.
func (r response) wantError(t testing.TB, status int, msg string) {
	t.Helper()
	r.want(t, status)
	if r.get("type").String() != "ApiError" || !strings.Contains(r.get("message").String(), msg) {
		t.Errorf("body %s, want an ApiError containing %q", r.Body, msg)
	}
}

// wantInvalid fails unless the response is a ValidationApiError naming the
// field.
func (r response) wantInvalid(t testing.TB, field string) {
	t.Helper()
	r.want(t, http.StatusBadRequest)
	if r.get("type").String() != "ValidationApiError" || !r.get("validation_errors."+field+".0.error").Exists() {
		t.Errorf("body %s, want a ValidationApiError for %s", r.Body, field)
	}
}

// admin may do anything.
var admin = func() *auth.Principal {
	set, err := permission.NewSet([]string{"*"})
	if err != nil {
		panic(err)
	}
	return &auth.Principal{UserID: "id", Username: "user", Permissions: set}
}()

func as(t testing.TB, perms ...string) *auth.Principal {
	t.Helper()
	return routertest.Principal(t, perms...)
}

// createStream creates a stream as admin and returns its id.
func (e *env) createStream(body map[string]any) string {
	e.t.Helper()
	if _, ok := body["index_set_id"]; !ok {
		body["index_set_id"] = defaultSet
	}
	r := e.do(admin, "POST", "/streams", body).want(e.t, http.StatusCreated)
	id := r.get("stream_id").String()
	if len(id) != 24 {
		e.t.Fatalf("stream_id %q", id)
	}
	return id
}

// createRule adds a rule as admin and returns its id.
func (e *env) createRule(streamID string, body map[string]any) string {
	e.t.Helper()
	r := e.do(admin, "POST", "/streams/"+streamID+"/rules", body).want(e.t, http.StatusCreated)
	return r.get("streamrule_id").String()
}

// count returns the number of stored streams.
func (e *env) count() int {
	e.t.Helper()
	n, err := e.st.Count(context.Background(), streams.Collection)
	if err != nil {
		e.t.Fatal(err)
	}
	return n
}

// Output ids of the fake output service.
const (
	outputA = "5f00000000000000000000b1"
	outputB = "5f00000000000000000000b2"
)

// idsOf returns the ids of a JSON array of objects, in order.
func idsOf(list gjson.Result) []string {
	ids := []string{}
	for _, v := range list.Array() {
		ids = append(ids, v.Get("id").String())
	}
	return ids
}

// keysOf returns the sorted keys of a JSON object.
func keysOf(obj gjson.Result) []string {
	var keys []string
	for k := range obj.Map() {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
