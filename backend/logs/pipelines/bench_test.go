package pipelines_test

import (
	"context"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/logs/grok"
	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/logs/pipelines"
	"github.com/loggate/loggate/backend/logs/pipelines/functions"
	"github.com/loggate/loggate/backend/store"
	"github.com/loggate/loggate/backend/system/metrics"
)

// benchRules is the pipeline of the benchmark: grok, regex,
// set_field, to_long and route_to_stream.
var benchRules = []string{
	`rule "grok" when true then set_fields(grok("%{IPV4:client} %{WORD:verb} %{NOTSPACE:path}", to_string($message.message))); end`,
	`rule "regex" when true then let m = regex("status=(\\d+)", to_string($message.message)); set_field("status_text", m["0"]); end`,
	`rule "set" when true then set_field("env", "prod"); end`,
	`rule "long" when has_field("status_text") then set_field("status", to_long($message.status_text)); end`,
	`rule "route" when to_long($message.status) >= 500 then route_to_stream(id: "s1"); end`,
}

const benchPipeline = `pipeline "bench"
stage 0 match either
rule "grok"
rule "regex"
rule "set"
stage 1 match either
rule "long"
stage 2 match either
rule "route"
end`

// newBenchEnv builds the benchmark pipeline with the real grok service.
func newBenchEnv(tb testing.TB) *env { return newBenchEnvOf(tb, benchRules, benchPipeline) }

// newBenchEnvOf builds a pipeline of rules with the real grok service; no
// pipeline when it is empty.
func newBenchEnvOf(tb testing.TB, rules []string, pipeline string) *env {
	st := openStore(tb)
	e := &env{st: st}
	e.clock = newEnv(tb, nil).clock
	g, err := grok.NewService(context.Background(), openGrokStore(tb), e.clock.Now)
	if err != nil {
		tb.Fatal(err)
	}
	// The registry runs on the real clock, as in production, so that the
	// rule meters cost what they cost there.
	e.reg, e.grok = metrics.New(time.Now), g
	lib := functions.New(functions.Deps{Streams: fakeStreams{}, Grok: g, Now: e.clock.Now})
	if e.svc, err = pipelines.NewService(context.Background(), st, lib, e.reg, e.clock.Now); err != nil {
		tb.Fatal(err)
	}
	e.in = pipelines.NewInterpreter(e.svc, e.reg, e.clock.Now)
	for _, r := range rules {
		e.rule(tb, r)
	}
	if pipeline != "" {
		e.pipeline(tb, pipeline, defaultStream)
	}
	return e
}

func openGrokStore(tb testing.TB) store.Store { return openStoreWith(tb, grok.Indexes) }

func benchMessage() messages.Message {
	return message(field("message", "10.0.0.1 GET /index.html status=503"), field("source", "web-1"))
}

// TestBenchPipeline checks what the benchmark's pipeline does, so that the
// figure is for work done.
func TestBenchPipeline(t *testing.T) {
	e := newBenchEnv(t)
	out := e.process(benchMessage())[0]
	for k, want := range map[string]any{"client": "10.0.0.1", "verb": "GET", "path": "/index.html", "status": int64(503), "env": "prod"} {
		if got := get(out, k); got != want {
			t.Errorf("%s = %#v, want %#v", k, got, want)
		}
	}
	if len(out.Streams) != 2 || out.Streams[1] != "s1" {
		t.Errorf("streams = %v", out.Streams)
	}
}

// maxBenchAllocs bounds the allocations of the benchmark's message: the
// message's fields outgrowing their slice, its streams, the regexp
// package's match indexes, and the values rules set (the texts grok and
// regex cut out, a long). The interpreter's own work (contexts, argument
// slots, match results) allocates nothing once warm.
const maxBenchAllocs = 9

// TestBenchPipelineAllocs keeps the benchmark's allocations at their
// bound.
func TestBenchPipelineAllocs(t *testing.T) {
	if raceEnabled || testing.CoverMode() != "" {
		t.Skip("the race detector and coverage allocate of their own")
	}
	e := newBenchEnv(t)
	ctx := context.Background()
	msg := benchMessage()
	var out []messages.Message
	n := testing.AllocsPerRun(200, func() {
		m := msg
		// A slice of its own, as a decoded message has.
		m.Fields = slices.Clip(slices.Clone(msg.Fields))
		out = e.in.Process(ctx, m, out[:0])
	})
	// The copy of the fields is the test's.
	if n -= 1; n > maxBenchAllocs {
		t.Errorf("%v allocations per message, want at most %d", n, maxBenchAllocs)
	}
}

// TestAddedFields: the interpreter tells how many fields the last message
// got (client, verb, path, status_text, env, status), so that processing
// can read messages with that room; a message the rules leave alone makes
// it 0.
func TestAddedFields(t *testing.T) {
	e := newBenchEnv(t)
	if got := e.in.AddedFields(); got != 0 {
		t.Fatalf("before any message: %d", got)
	}
	e.process(benchMessage())
	if got := e.in.AddedFields(); got != 6 {
		t.Errorf("after the benchmark's message: %d, want 6", got)
	}
	e.process(message(field("message", "no address here"), field("source", "web-1")))
	if got := e.in.AddedFields(); got != 1 {
		t.Errorf("after a message only set_field changes: %d, want 1 (env)", got)
	}
}

// BenchmarkPipeline5Rules is the cost per message of the five-rule
// pipeline (the bound: 5 µs).
func BenchmarkPipeline5Rules(b *testing.B) {
	b.Run("all", func(b *testing.B) { runBench(b, newBenchEnv(b)) })
	// The same without the grok rule, to tell grok's share.
	b.Run("no-grok", func(b *testing.B) {
		runBench(b, newBenchEnvOf(b, benchRules[1:], strings.Replace(benchPipeline, "rule \"grok\"\n", "", 1)))
	})
	// The node's ingest benchmark's pipeline (cmd/loggate/node,
	// BenchmarkIngestTCPPipeline) on one of its access log lines: the
	// pipeline's share of that benchmark's CPU.
	b.Run("access-log", func(b *testing.B) {
		runBenchOf(b, newBenchEnvOf(b, accessLogRules, benchPipeline), accessLogMessage)
	})
}

var accessLogRules = []string{
	`rule "grok" when true then set_fields(grok("%{IPV4:client} - - \"%{WORD:verb} %{NOTSPACE:request} HTTP/%{NUMBER:httpversion}\" %{NUMBER:response}", to_string($message.message))); end`,
	`rule "regex" when true then let m = regex("\" (\\d{3}) (\\d+) ", to_string($message.message)); set_field("size", m["1"]); end`,
	`rule "set" when true then set_field("env", "prod"); end`,
	`rule "long" when has_field("response") then set_field("status", to_long($message.response)); end`,
	`rule "route" when to_long($message.status) >= 500 then route_to_stream(name: "Errors"); end`,
}

func accessLogMessage() messages.Message {
	return message(field("message", `10.2.171.13 - - "GET /api/v1/orders/42 HTTP/1.1" 500 3187 "-" "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36"`),
		field("source", "web-3"))
}

func runBench(b *testing.B, e *env) { runBenchOf(b, e, benchMessage) }

func runBenchOf(b *testing.B, e *env, msg func() messages.Message) {
	ctx := context.Background()
	var out []messages.Message
	b.ReportAllocs()
	cpu := cpuTime()
	for b.Loop() {
		m := msg()
		out = e.in.Process(ctx, m, out[:0])
	}
	// On a shared machine the wall clock counts other processes' work;
	// the CPU time this process spent is the cost.
	b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
}

// cpuTime is the user and system CPU time of this process.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestAccessLogBenchPipeline checks what the access-log benchmark's
// pipeline does.
func TestAccessLogBenchPipeline(t *testing.T) {
	out := newBenchEnvOf(t, accessLogRules, benchPipeline).process(accessLogMessage())[0]
	for k, want := range map[string]any{"client": "10.2.171.13", "verb": "GET", "request": "/api/v1/orders/42", "httpversion": "1.1",
		"response": "500", "size": "3187", "status": int64(500), "env": "prod"} {
		if got := get(out, k); got != want {
			t.Errorf("%s = %#v, want %#v", k, got, want)
		}
	}
	if len(out.Streams) != 2 || out.Streams[1] != "s1" {
		t.Errorf("streams = %v", out.Streams)
	}
}
