package pipelines_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/logs/grok"
	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/logs/pipelines"
	"github.com/loggate/loggate/backend/logs/pipelines/functions"
	"github.com/loggate/loggate/backend/logs/streams"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/backend/store/bolt"
	"github.com/loggate/loggate/backend/system/metrics"
	"github.com/loggate/loggate/internal/testclock"
)

var t0 = time.Date(2020, 12, 1, 10, 0, 0, 0, time.UTC)

// fakeStreams are streams s1 ("Errors"), s2 ("Web") and a paused s3.
type fakeStreams struct{}

func (fakeStreams) Enabled(id string) bool { return id == "s1" || id == "s2" }
func (fakeStreams) EnabledTitled(title string) []string {
	switch title {
	case "Errors":
		return []string{"s1"}
	case "Web":
		return []string{"s2"}
	}
	return nil
}

type env struct {
	st    store.Store
	clock *testclock.Clock
	svc   *pipelines.Service
	in    *pipelines.Interpreter
	reg   *metrics.Registry
	grok  *grok.Service // only in environments with grok patterns
}

func openStore(t testing.TB) store.Store { return openStoreWith(t, pipelines.Indexes) }

func openStoreWith(t testing.TB, indexes []store.Index) store.Store {
	st, err := bolt.Open(filepath.Join(t.TempDir(), "db"), indexes)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// newEnv returns a service and interpreter on st (a new store when nil).
func newEnv(t testing.TB, st store.Store) *env {
	if st == nil {
		st = openStore(t)
	}
	e := &env{st: st, clock: testclock.New(t0)}
	e.reg = metrics.New(e.clock.Now)
	lib := functions.New(functions.Deps{Streams: fakeStreams{}, Now: e.clock.Now})
	svc, err := pipelines.NewService(context.Background(), st, lib, e.reg, e.clock.Now)
	if err != nil {
		t.Fatal(err)
	}
	e.svc = svc
	e.in = pipelines.NewInterpreter(svc, e.reg, e.clock.Now)
	return e
}

func (e *env) rule(t testing.TB, src string) string {
	t.Helper()
	r, err := e.svc.CreateRule(context.Background(), nil, src)
	if err != nil {
		t.Fatalf("rule %q: %v", src, err)
	}
	return *r.ID
}

func (e *env) pipeline(t testing.TB, src string, streamIDs ...string) string {
	t.Helper()
	p, err := e.svc.CreatePipeline(context.Background(), nil, src)
	if err != nil {
		t.Fatalf("pipeline %q: %v", src, err)
	}
	for _, sid := range streamIDs {
		c, _ := e.svc.Connection(sid)
		c.StreamID = sid
		c.PipelineIDs = append(c.PipelineIDs, *p.ID)
		if _, err := e.svc.Connect(context.Background(), []pipelines.Connection{c}); err != nil {
			t.Fatal(err)
		}
	}
	return *p.ID
}

func message(fields ...messages.Field) messages.Message {
	return messages.Message{ID: "m1", Timestamp: t0, Fields: fields}
}

func field(k string, v any) messages.Field { return messages.Field{Key: k, Value: v} }

// process runs one message and returns what came out.
func (e *env) process(m messages.Message) []messages.Message {
	return e.in.Process(context.Background(), m, nil)
}

const defaultStream = streams.DefaultStreamID
