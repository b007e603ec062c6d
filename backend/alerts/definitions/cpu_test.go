package definitions_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson/primitive"

	"github.com/loggate/loggate/backend/alerts/definitions"
	"github.com/loggate/loggate/backend/alerts/events"
	"github.com/loggate/loggate/backend/alerts/scheduler"
	"github.com/loggate/loggate/backend/analysis/search"
	"github.com/loggate/loggate/backend/logs/indexsets"
	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/logs/messages/embedded"
	"github.com/loggate/loggate/backend/logs/messages/messagestest"
	"github.com/loggate/loggate/backend/logs/streams"
	"github.com/loggate/loggate/backend/store/bolt"
	"github.com/loggate/loggate/internal/testclock"
)

type cpuStreams []*streams.Stream

func (s cpuStreams) All() []*streams.Stream { return s }

type cpuSets []indexsets.IndexSet

func (s cpuSets) All(context.Context) ([]indexsets.IndexSet, error) { return s, nil }

// eventStore writes events to the store, and keeps them when seen is set.
type eventStore struct {
	ms   messages.Store
	seen *[]events.Event
}

func (w eventStore) WriteEvents(ctx context.Context, evs []events.Event) error {
	if w.seen != nil {
		*w.seen = append(*w.seen, evs...)
	}
	docs := make([]messages.Message, len(evs))
	for i, ev := range evs {
		docs[i] = ev.Document()
	}
	return w.ms.Write(ctx, "gl-events", docs)
}

// cpuTime is the CPU time the process has used, user and system.
func cpuTime(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// envInt reads a positive integer from the environment.
func envInt(t *testing.T, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		t.Fatalf("%s=%q: want a positive number", name, v)
	}
	return n
}

// TestAggregationCPU runs 100 aggregation definitions every 5 s over the
// newest of the stored messages, on the settable clock, and measures the
// CPU time that takes against the 5 s intervals it covers: the share of
// one core the event processing would use, which must stay at most 20%.
// Every definition reads every message of its window (the four kinds of
// queries below match most of them), so the cost grows with the messages
// per window, not with the messages stored. It runs over 20,000 messages
// written at 200 a second (1,000 per window); LOGGATE_BENCH_ALERTS=
// <messages> (make bench-alerts: 1,000,000) runs it over more and for 12
// rounds, and LOGGATE_BENCH_ALERTS_RATE=<messages per second> spreads them
// thinner or denser in time.
func TestAggregationCPU(t *testing.T) {
	n := envInt(t, "LOGGATE_BENCH_ALERTS", 20_000)
	rate := envInt(t, "LOGGATE_BENCH_ALERTS_RATE", 200)
	rounds := 4
	if os.Getenv("LOGGATE_BENCH_ALERTS") != "" {
		rounds = 12
	}
	const (
		defs  = 100
		every = 5 * time.Second
	)
	ctx := context.Background()
	ms, g, end := storeMessages(t, n, rate)
	// The definitions cover the last rounds×5 s of the data.
	clock := testclock.New(end.Add(-time.Duration(rounds) * every))
	ds, sched, _ := newRig(t, ms, g, clock, rigOptions{})
	// Four kinds of definitions, 25 each: errors per source, slow
	// requests per status, bytes per method, distinct client addresses.
	kinds := []struct{ query, group, fn, field string }{
		{"level:3", "source", "count", ""},
		{"facility:nginx", "http_status", "avg", "took"},
		{"http_method:GET OR http_method:POST", "http_method", "sum", "bytes"},
		{"", "", "card", "client_ip"},
	}
	for i := range defs {
		k := kinds[i%len(kinds)]
		saveAggregation(t, ds, fmt.Sprintf("d%03d", i), k.query, k.group, k.fn, k.field, float64(i), every, every)
	}
	if _, err := sched.RunDue(ctx); err != nil { // the windows ending now
		t.Fatal(err)
	}
	stopProfile := func() {}
	if path := os.Getenv("LOGGATE_BENCH_ALERTS_PROFILE"); path != "" {
		// A CPU profile of the rounds only, not of writing the messages.
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			t.Fatal(err)
		}
		stopProfile = func() { pprof.StopCPUProfile(); _ = f.Close() }
	}
	before, wall := cpuTime(t), time.Now()
	fired := 0
	for range rounds {
		clock.Advance(every)
		ran, err := sched.RunDue(ctx)
		if err != nil {
			t.Fatal(err)
		}
		fired += ran
	}
	used, took := cpuTime(t)-before, time.Since(wall)
	stopProfile()
	if fired != defs*rounds {
		t.Fatalf("%d firings, want %d", fired, defs*rounds)
	}
	share := float64(used) / float64(time.Duration(rounds)*every)
	t.Logf("%d messages at %d/s (%d per 5 s window): %d definitions × %d rounds took %v CPU (%v wall) for %v of schedule: %.1f%% of one core",
		n, rate, rate*5, defs, rounds, used.Round(time.Millisecond), took.Round(time.Millisecond), time.Duration(rounds)*every, share*100)
	if share > 0.20 {
		t.Errorf("the definitions use %.1f%% of one core, more than 20%%", share*100)
	}
}

// storeMessages writes n generated messages, rate a second, into an
// embedded store and returns it with the generator and the newest
// message's time.
func storeMessages(t *testing.T, n, rate int) (messages.Store, *messagestest.Generator, time.Time) {
	ctx := context.Background()
	ms, err := embedded.Open(filepath.Join(t.TempDir(), "messages"), embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ms.Close() })
	start := messagestest.BenchStart
	g := messagestest.NewGenerator(1, start)
	batch := make([]messages.Message, 0, 1000)
	var end time.Time
	for i := 1; i <= n; i++ {
		m := g.Next()
		// The generator writes about 1,000 messages a second; rescale.
		m.Timestamp = start.Add(time.Duration(float64(m.Timestamp.Sub(start)) * 1000 / float64(rate))).Truncate(time.Millisecond)
		end = m.Timestamp
		if batch = append(batch, m); len(batch) == cap(batch) || i == n {
			if err := ms.Write(ctx, "graylog", batch); err != nil {
				t.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	if err := ms.Flush(ctx, uint64(n)); err != nil {
		t.Fatal(err)
	}
	if err := ms.WaitMerges(ctx); err != nil {
		t.Fatal(err)
	}
	return ms, g, end
}

// rigOptions vary newRig.
type rigOptions struct {
	proc definitions.ProcessorOptions
	// seen, when set, receives the events made.
	seen *[]events.Event
	// wrap, when set, wraps the search the processor uses.
	wrap func(definitions.Searcher) definitions.Searcher
	// alone registers the processor as a plain job: every firing searches
	// alone, nothing is prepared.
	alone bool
}

// newRig returns definitions, a scheduler and a processor over ms on the
// clock, the processor writing its events to ms.
func newRig(t *testing.T, ms messages.Store, g *messagestest.Generator, clock *testclock.Clock, o rigOptions) (*definitions.Service, *scheduler.Scheduler, *definitions.Processor) {
	docs, err := bolt.Open(filepath.Join(t.TempDir(), "db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = docs.Close() })
	ss := cpuStreams{{ID: g.DefaultStream, IndexSetID: "is1"}, {ID: g.WebStream, IndexSetID: "is1"}}
	sets := cpuSets{{ID: "is1", IndexPrefix: "graylog"}, {ID: "ev", IndexPrefix: "gl-events", IndexTemplateType: ptr(indexsets.TemplateEvents)}}
	var svc definitions.Searcher = search.NewService(ms, ss, sets, search.Options{Now: clock.Now})
	if o.wrap != nil {
		svc = o.wrap(svc)
	}
	sched := scheduler.New(docs, clock.Now, "n1", func() bool { return true }, func() string { return primitive.NewObjectID().Hex() }, scheduler.Options{})
	ds := definitions.NewService(docs, sched)
	proc := definitions.NewProcessor(ds, svc, eventStore{ms, o.seen}, nil, func() []string { return []string{g.DefaultStream, g.WebStream} }, clock.Now, "bench", o.proc)
	if o.alone {
		sched.Register(definitions.TypeExecutionJob, struct{ scheduler.Job }{proc})
	} else {
		sched.Register(definitions.TypeExecutionJob, proc)
	}
	return ds, sched, proc
}

// saveAggregation stores and schedules an aggregation definition of one
// series, grouped by group (none when ""), firing when the series is above
// threshold.
func saveAggregation(t *testing.T, ds *definitions.Service, title, query, group, fn, field string, threshold float64, within, every time.Duration) definitions.Definition {
	t.Helper()
	body := map[string]any{"title": title, "description": "", "priority": 2, "alert": true,
		"config": map[string]any{"type": "aggregation-v1", "query": query, "streams": []string{}, "group_by": groupBy(group),
			"series":           []map[string]any{{"id": "s", "function": fn, "field": nullable(field)}},
			"conditions":       map[string]any{"expression": map[string]any{"expr": ">", "left": map[string]any{"expr": "number-ref", "ref": "s"}, "right": map[string]any{"expr": "number", "value": threshold}}},
			"search_within_ms": within.Milliseconds(), "execute_every_ms": every.Milliseconds()},
		"key_spec": []string{}, "notification_settings": map[string]any{"grace_period_ms": 0}}
	b, _ := json.Marshal(body)
	return saveDefinition(t, ds, b, "s")
}

// saveDefinition stores and schedules the definition of a request body,
// its ids made of id.
func saveDefinition(t *testing.T, ds *definitions.Service, body []byte, id string) definitions.Definition {
	t.Helper()
	d, err := definitions.ParseDefinition(body, func() string { return id })
	if err != nil {
		t.Fatal(err)
	}
	if d, err = ds.Save(context.Background(), d, true); err != nil {
		t.Fatal(err)
	}
	return d
}

// runAfter moves clock by d and runs the firings then due.
func runAfter(t *testing.T, clock *testclock.Clock, sched *scheduler.Scheduler, d time.Duration) {
	t.Helper()
	clock.Advance(d)
	if _, err := sched.RunDue(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func ptr[T any](v T) *T { return &v }

func groupBy(f string) []string {
	if f == "" {
		return []string{}
	}
	return []string{f}
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}
