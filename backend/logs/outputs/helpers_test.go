package outputs_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/logs/outputs"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/backend/store/bolt"
	"github.com/loggate/loggate/router/routertest"
)

var now = time.Date(2021, 1, 2, 3, 4, 5, 678_901_000, time.UTC)

func clock() time.Time { return now }

// fakeStreams is the streams service as outputs use it: streams that exist
// and the outputs attached to each.
type fakeStreams struct {
	mu        sync.Mutex
	outputs   map[string][]string // stream id → output ids
	removeErr error
}

func newStreams(ids ...string) *fakeStreams {
	f := &fakeStreams{outputs: map[string][]string{}}
	for _, id := range ids {
		f.outputs[id] = nil
	}
	return f
}

func (f *fakeStreams) AddOutput(_ context.Context, streamID, outputID string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	outs, ok := f.outputs[streamID]
	if !ok {
		return fmt.Errorf("stream %s: %w", streamID, store.ErrNotFound)
	}
	if !slices.Contains(outs, outputID) {
		f.outputs[streamID] = append(outs, outputID)
	}
	return nil
}

func (f *fakeStreams) RemoveOutput(_ context.Context, outputID string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.removeErr != nil {
		return f.removeErr
	}
	for sid, outs := range f.outputs {
		f.outputs[sid] = slices.DeleteFunc(outs, func(id string) bool { return id == outputID })
	}
	return nil
}

// of returns the outputs attached to a stream.
func (f *fakeStreams) of(streamID string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.outputs[streamID])
}

type env struct {
	t       testing.TB
	path    string
	st      *bolt.Store
	streams *fakeStreams
	svc     *outputs.Service
	routertest.Client
}

// newEnv serves the output routes over a fresh bolt store, with streams s1
// and s2.
func newEnv(t testing.TB) *env {
	t.Helper()
	e := &env{t: t, path: filepath.Join(t.TempDir(), "db"), streams: newStreams("s1", "s2")}
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
	e.svc = outputs.NewService(st, e.streams, clock)
	e.H = routertest.Handler(outputs.NewHandler(e.svc).Routes())
}

// with returns e reporting to t, for use inside a fuzz target.
func (e *env) with(t testing.TB) *env {
	c := *e
	c.t = t
	return &c
}

// reopen closes the store and builds everything again from the file.
func (e *env) reopen() {
	e.t.Helper()
	if err := e.st.Close(); err != nil {
		e.t.Fatal(err)
	}
	e.open()
}

// create stores an output through the API and returns it.
func (e *env) create(body string) outputs.Summary {
	e.t.Helper()
	rec := e.Admin("POST", "/system/outputs", body)
	if rec.Code != http.StatusCreated {
		e.t.Fatalf("create: %d %s", rec.Code, rec.Body)
	}
	return routertest.Decode[outputs.Summary](e.t, rec)
}

func (e *env) count() int {
	e.t.Helper()
	n, err := e.st.Count(context.Background(), outputs.Collection)
	if err != nil {
		e.t.Fatal(err)
	}
	return n
}

var errBroken = errors.New("streams are broken")
