package forward

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/logs/outputs"
	"github.com/loggate/loggate/backend/logs/streams"
	"github.com/loggate/loggate/internal/poll"
)

const (
	streamA = "5f0000000000000000000001"
	streamB = "5f0000000000000000000002"
	streamC = "5f0000000000000000000003"
	outX    = "6a0000000000000000000001"
	outY    = "6a0000000000000000000002"
	outBad  = "6a0000000000000000000003"
)

func gelfOutput(id string, port int, extra ...any) outputs.Summary {
	cfg := map[string]any{"hostname": "127.0.0.1", "port": port, "protocol": "TCP", "reconnect_delay": 5}
	for i := 0; i+1 < len(extra); i += 2 {
		cfg[extra[i].(string)] = extra[i+1]
	}
	return outputs.Summary{ID: id, Title: "out " + id, Type: outputs.GELFType, Configuration: cfg}
}

func newRouter(t *testing.T) *Router {
	t.Helper()
	r := NewRouter(RouterOptions{FlushTimeout: 50 * time.Millisecond})
	t.Cleanup(r.Close)
	return r
}

func routed(text string, streams ...string) *messages.Message {
	m := msg(text)
	m.Streams = streams
	return m
}

func TestRouterForward(t *testing.T) {
	rx, ry := listen(t, "", nil), listen(t, "", nil)
	r := newRouter(t)
	err := r.Apply(map[string][]string{
		streamA: {outX},
		streamB: {outX, outY, outX},
		streamC: {outY, "6a00000000000000000000ff"}, // an output that does not exist
	}, []outputs.Summary{gelfOutput(outX, rx.port()), gelfOutput(outY, ry.port())})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []*messages.Message{
		routed("A and B", streamA, streamB),
		routed("no stream"),
		routed("unknown stream", "5f00000000000000000000ff"),
		routed("C", streamC),
	} {
		r.Forward(m)
	}
	// Each output gets a message once however many of its streams it
	// matched; messages of no stream of an output never reach it.
	for _, tc := range []struct {
		rcv  *receiver
		want []string
	}{
		{rx, []string{"A and B"}},
		{ry, []string{"A and B", "C"}},
	} {
		for _, w := range tc.want {
			if got := tc.rcv.next(); got.Message != w {
				t.Errorf("got %q, want %q", got.Message, w)
			}
		}
	}
	poll.Until(t, "counters", func() bool {
		s := r.Stats()
		return s[outX].Sent == 1 && s[outY].Sent == 2
	})
	select {
	case m := <-rx.msgs:
		t.Errorf("output X also got %q", m.Message)
	default:
	}
}

func TestRouterApplyReconciles(t *testing.T) {
	rx, ry, ry2 := listen(t, "", nil), listen(t, "", nil), listen(t, "", nil)
	r := newRouter(t)
	routes := map[string][]string{streamA: {outX, outY}}
	outs := []outputs.Summary{gelfOutput(outX, rx.port()), gelfOutput(outY, ry.port())}
	if err := r.Apply(routes, outs); err != nil {
		t.Fatal(err)
	}
	r.Forward(routed("first", streamA))
	rx.next()
	ry.next()
	before := r.running[outX]

	// Unchanged: the same forwarder keeps its connection.
	if err := r.Apply(routes, outs); err != nil {
		t.Fatal(err)
	}
	if r.running[outX] != before {
		t.Error("an unchanged output was restarted")
	}

	// Y's configuration changes: it restarts towards the new port, and its
	// old connection is closed.
	oldY := r.running[outY]
	outs[1] = gelfOutput(outY, ry2.port())
	if err := r.Apply(routes, outs); err != nil {
		t.Fatal(err)
	}
	if r.running[outY] == oldY || r.running[outX] != before {
		t.Error("only the changed output should restart")
	}
	poll.Until(t, "the old connection to close", func() bool { return len(ry.closed) == 1 })
	r.Forward(routed("second", streamA))
	if got := ry2.next(); got.Message != "second" {
		t.Errorf("new Y got %q", got.Message)
	}
	if got := rx.next(); got.Message != "second" {
		t.Errorf("X got %q", got.Message)
	}

	// X is gone: it stops and its connection closes.
	if err := r.Apply(routes, outs[1:]); err != nil {
		t.Fatal(err)
	}
	poll.Until(t, "X's connection to close", func() bool { return len(rx.closed) == 1 })
	if _, ok := r.Stats()[outX]; ok {
		t.Error("removed output still running")
	}
	r.Forward(routed("third", streamA))
	if got := ry2.next(); got.Message != "third" {
		t.Errorf("Y got %q", got.Message)
	}

	// A stream detached from its outputs forwards nothing, though the
	// output keeps running: after re-attaching, the next message Y gets is
	// the one sent since.
	if err := r.Apply(map[string][]string{}, outs[1:]); err != nil {
		t.Fatal(err)
	}
	r.Forward(routed("fourth", streamA))
	if err := r.Apply(routes, outs[1:]); err != nil {
		t.Fatal(err)
	}
	r.Forward(routed("fifth", streamA))
	if got := ry2.next(); got.Message != "fifth" {
		t.Errorf("Y got %q, want the message after re-attaching", got.Message)
	}
}

func TestRouterApplyErrors(t *testing.T) {
	rx := listen(t, "", nil)
	r := newRouter(t)
	bad := gelfOutput(outBad, rx.port(), "protocol", "SMTP")
	other := outputs.Summary{ID: "6a0000000000000000000009", Type: "org.example.KafkaOutput", Configuration: map[string]any{}}
	err := r.Apply(map[string][]string{streamA: {outX, outBad, other.ID}},
		[]outputs.Summary{gelfOutput(outX, rx.port()), bad, other})
	if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), outBad) || !strings.Contains(err.Error(), "protocol") {
		t.Fatalf("err = %v, want the bad output's configuration error", err)
	}
	if strings.Contains(err.Error(), other.ID) {
		t.Errorf("an output of another type is an error: %v", err)
	}
	stats := r.Stats()
	if _, ok := stats[outX]; !ok || len(stats) != 1 {
		t.Errorf("running %v, want only the valid GELF output", stats)
	}
	r.Forward(routed("still forwarded", streamA))
	if got := rx.next(); got.Message != "still forwarded" {
		t.Errorf("got %q", got.Message)
	}
	// Fixed, the output starts on the next Apply.
	bad.Configuration["protocol"] = "TCP"
	if err := r.Apply(map[string][]string{streamA: {outX, outBad}}, []outputs.Summary{gelfOutput(outX, rx.port()), bad}); err != nil {
		t.Fatal(err)
	}
	if _, ok := r.Stats()[outBad]; !ok {
		t.Error("fixed output not started")
	}
}

func TestRouterClose(t *testing.T) {
	rx := listen(t, "", nil)
	r := NewRouter(RouterOptions{FlushTimeout: time.Second})
	if err := r.Apply(map[string][]string{streamA: {outX}}, []outputs.Summary{gelfOutput(outX, rx.port())}); err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		r.Forward(routed("m"+itoa(i), streamA))
	}
	r.Close()
	// Close flushed the queue.
	for i := range 50 {
		if got := rx.next(); got.Message != "m"+itoa(i) {
			t.Fatalf("message %d: %q", i, got.Message)
		}
	}
	r.Forward(routed("after close", streamA)) // must not panic nor send
	if err := r.Apply(nil, nil); err == nil {
		t.Error("Apply after Close succeeded")
	}
	select {
	case m := <-rx.msgs:
		t.Errorf("received %q after Close", m.Message)
	default:
	}
}

type fakeStreams []*streams.Stream

func (f fakeStreams) All() []*streams.Stream { return f }

type fakeOutputs struct {
	outs []outputs.Summary
	err  error
}

func (f *fakeOutputs) List(context.Context) ([]outputs.Summary, error) { return f.outs, f.err }

func TestRouterSync(t *testing.T) {
	rx := listen(t, "", nil)
	r := newRouter(t)
	ss := fakeStreams{
		{ID: streamA, Outputs: []string{outX}},
		{ID: streamB, Outputs: []string{}},
		{ID: streamC, Outputs: []string{outX}, Disabled: true},
	}
	outSrc := &fakeOutputs{outs: []outputs.Summary{gelfOutput(outX, rx.port())}}
	if err := r.Sync(context.Background(), ss, outSrc); err != nil {
		t.Fatal(err)
	}
	r.Forward(routed("synced", streamA))
	if got := rx.next(); got.Message != "synced" {
		t.Errorf("got %q", got.Message)
	}
	outSrc.err = errors.New("store down")
	if err := r.Sync(context.Background(), ss, outSrc); err == nil || !strings.Contains(err.Error(), "store down") {
		t.Errorf("err = %v", err)
	}
	if _, ok := r.Stats()[outX]; !ok {
		t.Error("a failed listing stopped the outputs")
	}

	got := StreamOutputs(ss)
	if len(got) != 2 || len(got[streamA]) != 1 || len(got[streamC]) != 1 {
		t.Errorf("StreamOutputs = %v", got)
	}
}

func TestRouterRun(t *testing.T) {
	rx := listen(t, "", nil)
	r := newRouter(t)
	outSrc := &fakeOutputs{outs: []outputs.Summary{gelfOutput(outX, rx.port())}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.Run(ctx, fakeStreams{{ID: streamA, Outputs: []string{outX}}}, outSrc, time.Millisecond)
	}()
	poll.Until(t, "the output to start", func() bool { _, ok := r.Stats()[outX]; return ok })
	cancel()
	<-done
}
