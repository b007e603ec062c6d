package ingest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loggate/loggate/internal/testclock"

	"github.com/loggate/loggate/backend/logs/ingest"
	"github.com/loggate/loggate/backend/logs/inputs"
	"github.com/loggate/loggate/backend/logs/journal"
	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/system/metrics"
)

const nodeID = "5ca1ab1e-0000-4000-8000-000000000001"

func newClock() *testclock.Clock { return testclock.New(time.Date(2021, 3, 4, 5, 6, 7, 0, time.UTC)) }

// env is a runner on a real journal, with its collaborators.
type env struct {
	t       testing.TB
	j       *journal.Journal
	states  *inputs.States
	metrics *metrics.Registry
	clock   *testclock.Clock
	runner  *ingest.Runner
	ids     atomic.Int64
}

// newEnv opens a journal (tune adjusts its options) and a runner on it;
// both are closed when the test ends.
func newEnv(t testing.TB, tune func(*journal.Options, *ingest.Options)) *env {
	t.Helper()
	e := &env{t: t, clock: newClock()}
	jopts := journal.Options{}
	e.metrics = metrics.New(e.clock.Now)
	ropts := ingest.Options{
		NodeID:  nodeID,
		Now:     e.clock.Now,
		Metrics: e.metrics,
		NewID:   func() string { return fmt.Sprintf("id-%d", e.ids.Add(1)) },
	}
	if tune != nil {
		tune(&jopts, &ropts)
	}
	j, err := journal.Open(filepath.Join(t.TempDir(), "journal"), jopts)
	if err != nil {
		t.Fatalf("journal.Open: %v", err)
	}
	e.j = j
	e.states = inputs.NewStates(e.clock.Now)
	e.runner = ingest.NewRunner(j, e.states, ropts)
	t.Cleanup(func() {
		e.runner.Close()
		j.Close()
	})
	return e
}

// input returns a global input of the type listening on an ephemeral
// loopback port, with cfg's values on top.
func input(id, typ string, cfg map[string]any) inputs.Input {
	c := map[string]any{"bind_address": "127.0.0.1", "port": 0}
	for k, v := range cfg {
		c[k] = v
	}
	return inputs.Input{ID: id, Title: "test " + id, Type: typ, Global: true, Configuration: c}
}

// start applies the inputs and returns the address of the first.
func (e *env) start(ins ...inputs.Input) string {
	e.t.Helper()
	e.runner.Apply(context.Background(), ins)
	addr, ok := e.runner.Addr(ins[0].ID)
	if !ok {
		e.t.Fatalf("input %s is not running: %+v", ins[0].ID, e.states.Summary(ins[0]))
	}
	return addr.String()
}

// state returns an input's reported state and detail.
func (e *env) state(in inputs.Input) (string, string) {
	s := e.states.Summary(in)
	d := ""
	if s.DetailedMessage != nil {
		d = *s.DetailedMessage
	}
	return s.State, d
}

// records waits until the journal holds n records and returns them.
func (e *env) records(n int) []messages.Message {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := e.j.Wait(ctx, uint64(n-1)); err != nil {
		e.t.Fatalf("waiting for %d records (have %d): %v", n, e.j.End(), err)
	}
	var out []messages.Message
	for off := uint64(0); len(out) < n; {
		ents, err := e.j.Read(off, n-len(out))
		if err != nil {
			e.t.Fatalf("Read(%d): %v", off, err)
		}
		if len(ents) == 0 {
			break
		}
		for _, ent := range ents {
			var m messages.Message
			if err := m.UnmarshalBinary(ent.Data); err != nil {
				e.t.Fatalf("record %d: %v", ent.Offset, err)
			}
			out = append(out, m)
			off = ent.Offset + 1
		}
	}
	return out
}

// count returns a meter's or counter's count.
func (e *env) count(name string) int64 {
	e.t.Helper()
	raw, ok := e.metrics.MarshalMetric(name)
	if !ok {
		e.t.Fatalf("metric %s is not registered; have %v", name, e.metrics.Names())
	}
	var v struct {
		Count *int64 `json:"count"`
		Value *int64 `json:"value"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		e.t.Fatalf("metric %s: %v in %s", name, err, raw)
	}
	switch {
	case v.Count != nil:
		return *v.Count
	case v.Value != nil:
		return *v.Value
	}
	e.t.Fatalf("metric %s has no count or value: %s", name, raw)
	return 0
}

// fieldsOf returns a message's fields as a map, for comparisons.
func fieldsOf(m messages.Message) map[string]any {
	out := map[string]any{}
	for _, f := range m.Fields {
		out[f.Key] = f.Value
	}
	return out
}

// checkCommon checks the fields every message from the input must have.
func checkCommon(t testing.TB, m messages.Message, inputID string, local bool) {
	t.Helper()
	f := fieldsOf(m)
	if f["gl2_source_input"] != inputID || f["gl2_source_node"] != nodeID {
		t.Errorf("gl2_source_input/node = %v/%v, want %s/%s", f["gl2_source_input"], f["gl2_source_node"], inputID, nodeID)
	}
	if local && f["gl2_remote_ip"] != "127.0.0.1" {
		t.Errorf("gl2_remote_ip = %v, want 127.0.0.1", f["gl2_remote_ip"])
	}
	if p, ok := f["gl2_remote_port"].(int64); !ok || p <= 0 || p > 65535 {
		t.Errorf("gl2_remote_port = %#v, want an int64 port", f["gl2_remote_port"])
	}
	if id, ok := f["gl2_message_id"].(string); !ok || len(id) != 26 {
		t.Errorf("gl2_message_id = %#v, want a ULID", f["gl2_message_id"])
	}
	if m.ID == "" || len(m.Streams) != 0 {
		t.Errorf("ID = %q, Streams = %v; want an id and no streams", m.ID, m.Streams)
	}
}

// dial connects to a TCP address.
func dial(t testing.TB, network, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial(network, addr)
	if err != nil {
		t.Fatalf("dial %s %s: %v", network, addr, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// logSink is a slog.Handler that lets a test wait for a log message.
type logSink struct {
	msgs chan string
}

func newLogSink() *logSink { return &logSink{msgs: make(chan string, 1000)} }

func (l *logSink) Enabled(context.Context, slog.Level) bool { return true }
func (l *logSink) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *logSink) WithGroup(string) slog.Handler            { return l }

func (l *logSink) Handle(_ context.Context, r slog.Record) error {
	select {
	case l.msgs <- r.Message:
	default:
	}
	return nil
}

// wait waits for a message starting with prefix.
func (l *logSink) wait(t testing.TB, prefix string) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case m := <-l.msgs:
			if strings.HasPrefix(m, prefix) {
				return
			}
		case <-timeout:
			t.Fatalf("no log message %q", prefix)
		}
	}
}
