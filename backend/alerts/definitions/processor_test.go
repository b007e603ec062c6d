package definitions_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/alerts/definitions"
	"github.com/loggate/loggate/backend/alerts/events"
	"github.com/loggate/loggate/backend/alerts/scheduler"
	"github.com/loggate/loggate/backend/analysis/search"
	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/internal/testclock"
)

// countingSearch counts the searches of the processor.
type countingSearch struct {
	definitions.Searcher
	alone, each atomic.Int64
}

func (c *countingSearch) Aggregate(ctx context.Context, r search.Request, a search.Aggregation) (*search.Aggregated, error) {
	c.alone.Add(1)
	return c.Searcher.Aggregate(ctx, r, a)
}

func (c *countingSearch) AggregateEach(ctx context.Context, r search.Request, parts []search.Part) ([]*search.Aggregated, error) {
	c.each.Add(1)
	return c.Searcher.AggregateEach(ctx, r, parts)
}

// eventsJSON is the events sorted by definition title and window, as
// JSON: what two runs are compared by. The ids, which derive from the
// definitions' ids, are left out.
func eventsJSON(t *testing.T, evs []events.Event, titles map[string]string) []string {
	t.Helper()
	var out []string
	for _, ev := range evs {
		title := titles[ev.EventDefinitionID]
		ev.ID, ev.EventDefinitionID = "", ""
		b, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, title+" "+string(b))
	}
	slices.Sort(out)
	return out
}

// TestPreparedFirings checks that definitions due together are evaluated
// over one read per query and run of overlapping windows, and make
// exactly the events they make when each searches alone: sharing the read
// changes the cost, not what an event contains or when it fires.
func TestPreparedFirings(t *testing.T) {
	ms, g, end := storeMessages(t, 30_000, 1000)
	kinds := []struct{ query, group, fn, field string }{
		{"level:3", "source", "count", ""},
		{"facility:nginx", "http_status", "avg", "took"},
		{"http_method:GET OR http_method:POST", "http_method", "sum", "bytes"},
		{"", "", "card", "client_ip"},
		{"", "http_method", "stddev", "took"},
	}
	run := func(alone bool) ([]string, *countingSearch) {
		var seen []events.Event
		var cs *countingSearch
		clock := testclock.New(end.Add(-20 * time.Second))
		ds, sched, _ := newRig(t, ms, g, clock, rigOptions{seen: &seen, alone: alone,
			wrap: func(s definitions.Searcher) definitions.Searcher { cs = &countingSearch{Searcher: s}; return cs }})
		titles := map[string]string{}
		for i := range 20 {
			k := kinds[i%len(kinds)]
			// Windows of 2 to 5 s every 2 to 5 s, some overlapping,
			// created at different times so that they are not aligned.
			within, every := time.Duration(2+i%4)*time.Second, time.Duration(2+i%3)*time.Second
			d := saveAggregation(t, ds, fmt.Sprintf("d%02d", i), k.query, k.group, k.fn, k.field, float64(i%3), within, every)
			titles[d.ID] = d.Title
			clock.Advance(137 * time.Millisecond)
		}
		for range 12 {
			clock.Advance(time.Second)
			if _, err := sched.RunDue(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		return eventsJSON(t, seen, titles), cs
	}
	want, alone := run(true)
	got, shared := run(false)
	if len(want) < 50 {
		t.Fatalf("only %d events: the test shows nothing", len(want))
	}
	if !slices.Equal(got, want) {
		t.Errorf("shared reads made %d events, alone %d; first difference:", len(got), len(want))
		for i := range min(len(got), len(want)) {
			if got[i] != want[i] {
				t.Errorf("got  %s\nwant %s", got[i], want[i])
				break
			}
		}
	}
	if alone.each.Load() != 0 || shared.each.Load() == 0 || shared.alone.Load()+shared.each.Load() >= alone.alone.Load()/2 {
		t.Errorf("searches: alone %d, shared %d single + %d shared; want shared reads to be far fewer", alone.alone.Load(), shared.alone.Load(), shared.each.Load())
	}
	t.Logf("%d events; %d searches alone, %d+%d shared", len(want), alone.alone.Load(), shared.alone.Load(), shared.each.Load())
}

// windowOf is an event's window and the count in its message.
func windowOf(t *testing.T, ev events.Event) (from, to time.Time, count int64) {
	t.Helper()
	if ev.TimerangeStart == nil || ev.TimerangeEnd == nil {
		t.Fatalf("event without a window: %+v", ev)
	}
	_, v, ok := strings.Cut(ev.Message, "count()=")
	n, err := strconv.ParseFloat(v, 64)
	if !ok || err != nil {
		t.Fatalf("message %q has no count", ev.Message)
	}
	return ev.TimerangeStart.Time, ev.TimerangeEnd.Time, int64(n)
}

// storedCount counts the stored messages of [from, to].
func storedCount(t *testing.T, ms messages.Store, from, to time.Time) int64 {
	t.Helper()
	res, err := ms.Search(context.Background(), messages.Query{From: from, To: to, Prefixes: []string{"graylog"}})
	if err != nil {
		t.Fatal(err)
	}
	return res.Total
}

// TestCatchup checks that a definition that fell behind makes up the
// missed windows in order, merged into searches of up to the catch-up
// window while it is further behind than that, then one by one: no
// message is counted twice or missed, and the windows stay aligned.
func TestCatchup(t *testing.T) {
	ms, g, end := storeMessages(t, 3000, 10) // 300 s of messages
	start := end.Add(-150 * time.Second)
	clock := testclock.New(start)
	var seen []events.Event
	ds, sched, _ := newRig(t, ms, g, clock, rigOptions{seen: &seen, proc: definitions.ProcessorOptions{CatchupWindow: 30 * time.Second}})
	saveAggregation(t, ds, "behind", "", "", "count", "", -1, 10*time.Second, 10*time.Second)
	clock.Advance(100 * time.Second)
	ran, err := sched.RunDue(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	s := func(n int) time.Time { return start.Add(time.Duration(n) * time.Second) }
	want := [][2]time.Time{
		{s(-10).Add(time.Millisecond), s(30)}, // 100 s behind: 30 s merged
		{s(30).Add(time.Millisecond), s(70)},  // 60 s behind: 30 s more
		{s(70).Add(time.Millisecond), s(80)},  // 20 s behind: one by one
		{s(80).Add(time.Millisecond), s(90)},
		{s(90).Add(time.Millisecond), s(100)},
	}
	if ran != len(want) || len(seen) != len(want) {
		t.Fatalf("%d firings, %d events; want %d of each", ran, len(seen), len(want))
	}
	var total int64
	for i, ev := range seen {
		from, to, n := windowOf(t, ev)
		if !from.Equal(want[i][0]) || !to.Equal(want[i][1]) {
			t.Errorf("window %d: %v – %v, want %v – %v", i, from, to, want[i][0], want[i][1])
		}
		if c := storedCount(t, ms, from, to); n != c {
			t.Errorf("window %d counted %d, the store has %d", i, n, c)
		}
		total += n
	}
	if all := storedCount(t, ms, want[0][0], s(100)); total != all || all == 0 {
		t.Errorf("the windows counted %d messages, the store has %d over them", total, all)
	}
}

// TestCatchupStopsAtIndexed checks that a definition catching up merges
// windows only up to what processing has indexed: the window itself was
// checked, but the merged search ended up to the catch-up window later,
// and the trigger moved past messages still in the journal, never to
// evaluate them. What is indexed later is caught up in turn.
func TestCatchupStopsAtIndexed(t *testing.T) {
	ms, g, end := storeMessages(t, 3000, 10) // 300 s of messages
	start := end.Add(-150 * time.Second)
	clock := testclock.New(start)
	indexed := start.Add(5 * time.Second) // processing lags: 5 s past the first window
	var seen []events.Event
	ds, sched, _ := newRig(t, ms, g, clock, rigOptions{seen: &seen, proc: definitions.ProcessorOptions{
		CatchupWindow: 30 * time.Second,
		Indexed:       func(context.Context) (time.Time, error) { return indexed, nil }}})
	saveAggregation(t, ds, "behind", "", "", "count", "", -1, 10*time.Second, 10*time.Second)
	clock.Advance(100 * time.Second)
	ctx := context.Background()
	if _, err := sched.RunDue(ctx); err != nil {
		t.Fatal(err)
	}
	for i, ev := range seen {
		if _, to, _ := windowOf(t, ev); to.After(indexed) {
			t.Errorf("event %d covers a window ending %v, after the indexed %v", i, to, indexed)
		}
	}
	// Processing catches up: every message is counted once.
	indexed = clock.Now()
	clock.Advance(definitions.IndexedRetry)
	if _, err := sched.RunDue(ctx); err != nil {
		t.Fatal(err)
	}
	s := func(n int) time.Time { return start.Add(time.Duration(n) * time.Second) }
	var total int64
	for _, ev := range seen {
		_, _, n := windowOf(t, ev)
		total += n
	}
	if all := storedCount(t, ms, s(-10).Add(time.Millisecond), s(100)); total != all || all == 0 {
		t.Errorf("the windows counted %d messages, the store has %d over them", total, all)
	}
}

// TestFilterKeepsEveryMessage checks that a filter definition makes one
// event per matching message of its window, as Graylog's does (paging
// through them in batches of 500), past 10,000 messages too: the rest
// were dropped, and the trigger moved on.
func TestFilterKeepsEveryMessage(t *testing.T) {
	ms, g, end := storeMessages(t, 12_000, 2000) // 6 s of messages
	clock := testclock.New(end.Add(-10 * time.Second))
	var seen []events.Event
	ds, sched, _ := newRig(t, ms, g, clock, rigOptions{seen: &seen})
	body := `{"title":"every message","description":"","priority":2,"alert":false,"config":{"type":"aggregation-v1","query":"","streams":[],
"group_by":[],"series":[],"conditions":null,"search_within_ms":10000,"execute_every_ms":10000},"key_spec":[],
"notification_settings":{"grace_period_ms":0,"backlog_size":0}}`
	saveDefinition(t, ds, []byte(body), "x")
	runAfter(t, clock, sched, 10*time.Second)
	from, to := end.Add(-10*time.Second).Add(time.Millisecond), end
	if want := storedCount(t, ms, from, to); int64(len(seen)) != want || want <= 10_000 {
		t.Errorf("%d events for a window with %d matching messages", len(seen), want)
	}
	ids := map[string]bool{}
	for _, ev := range seen {
		ids[ev.ID] = true
	}
	if len(ids) != len(seen) {
		t.Errorf("%d distinct events of %d", len(ids), len(seen))
	}
}

// TestWindowEndIndexed checks that a window ending after what processing
// has indexed is not evaluated but tried again 5 s later, unchanged, and
// is evaluated once its end is indexed: messages still in the journal are
// counted in their window, not lost.
func TestWindowEndIndexed(t *testing.T) {
	ms, g, end := storeMessages(t, 1000, 10)
	start := end.Add(-50 * time.Second)
	clock := testclock.New(start)
	indexed := start
	var seen []events.Event
	ds, sched, _ := newRig(t, ms, g, clock, rigOptions{seen: &seen, proc: definitions.ProcessorOptions{
		Indexed: func(context.Context) (time.Time, error) { return indexed, nil }}})
	d := saveAggregation(t, ds, "lagging", "", "", "count", "", -1, 10*time.Second, 10*time.Second)
	ctx := context.Background()
	if _, err := sched.RunDue(ctx); err != nil { // the window ending at start
		t.Fatal(err)
	}
	clock.Advance(10 * time.Second)
	indexed = start.Add(9 * time.Second)
	trigger := func() scheduler.Trigger {
		t.Helper()
		all, err := sched.Triggers(ctx)
		if err != nil || len(all) != 1 {
			t.Fatalf("triggers %v, %v", all, err)
		}
		return all[0]
	}
	before := trigger()
	if _, err := sched.RunDue(ctx); err != nil {
		t.Fatal(err)
	}
	after := trigger()
	if len(seen) != 1 || string(after.Data) != string(before.Data) || !after.NextTime.Equal(clock.Now().Add(definitions.IndexedRetry)) {
		t.Fatalf("window not indexed: %d events, data %s → %s, next %v; want only the first window's event, the data kept, the next try in 5 s",
			len(seen), before.Data, after.Data, after.NextTime)
	}
	clock.Advance(definitions.IndexedRetry)
	indexed = clock.Now()
	if _, err := sched.RunDue(ctx); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 2 || seen[1].EventDefinitionID != d.ID {
		t.Fatalf("%d events after the window was indexed, want 2", len(seen))
	}
	from, to, n := windowOf(t, seen[1])
	if !from.Equal(start.Add(time.Millisecond)) || !to.Equal(start.Add(10*time.Second)) || n != storedCount(t, ms, from, to) {
		t.Errorf("window %v – %v counted %d", from, to, n)
	}
}

// tableFake is a lookup table service with one table.
type tableFake map[string]string

func (f tableFake) LookupValue(_ context.Context, table, key string) (string, bool, error) {
	if table != "owners" {
		return "", false, errors.New("no such table")
	}
	v, ok := f[key]
	return v, ok, nil
}

// TestLookupFieldProvider checks lookup-v1 field providers: the source
// message's key field is looked up in the table and the value kept; a key
// the table lacks, or an unknown table, makes the field an error, which
// replaces what earlier providers gave and is left out of the event.
func TestLookupFieldProvider(t *testing.T) {
	ms, g, end := storeMessages(t, 2000, 100)
	clock := testclock.New(end.Add(-10 * time.Second))
	var seen []events.Event
	ds, sched, _ := newRig(t, ms, g, clock, rigOptions{seen: &seen, proc: definitions.ProcessorOptions{Lookups: tableFake{"GET": "web team"}}})
	body := `{"title":"by method","description":"","priority":2,"alert":false,"config":{"type":"aggregation-v1","query":"","streams":[],
"group_by":["http_method"],"series":[{"id":"c","function":"count","field":null}],
"conditions":{"expression":{"expr":">","left":{"expr":"number-ref","ref":"c"},"right":{"expr":"number","value":0}}},
"search_within_ms":10000,"execute_every_ms":10000},
"field_spec":{"owner":{"data_type":"string","providers":[{"type":"template-v1","template":"nobody","require_values":false},
{"type":"lookup-v1","table_name":"owners","key_field":"http_method"}]},
"other":{"data_type":"string","providers":[{"type":"lookup-v1","table_name":"missing","key_field":"http_method"}]}},
"key_spec":["owner"],"notification_settings":{"grace_period_ms":0,"backlog_size":0}}`
	saveDefinition(t, ds, []byte(body), "c")
	runAfter(t, clock, sched, 10*time.Second)
	methods := map[string]bool{}
	for _, ev := range seen {
		method, _, _ := strings.Cut(strings.TrimPrefix(ev.Message, "by method: "), " ")
		methods[method] = true
		owner, ok := ev.Fields["owner"]
		switch {
		case method == "GET" && (owner != "web team" || ev.Key == nil || *ev.Key != "web team"):
			t.Errorf("GET: owner %q, key %v; want the table's value", owner, ev.Key)
		case method != "GET" && ok:
			t.Errorf("%s: owner %q; the table has none, want no field", method, owner)
		}
		if v, ok := ev.Fields["other"]; ok {
			t.Errorf("%s: other = %q from an unknown table", method, v)
		}
	}
	if !methods["GET"] || len(methods) < 2 {
		t.Fatalf("events for %v: the test needs GET and another method", methods)
	}
}

// TestCatchupOff checks that an events_catchup_window of 0, read from the
// cluster's configuration, makes up missed windows one by one.
func TestCatchupOff(t *testing.T) {
	ms, g, end := storeMessages(t, 1000, 10)
	start := end.Add(-60 * time.Second)
	clock := testclock.New(start)
	var seen []events.Event
	ds, sched, _ := newRig(t, ms, g, clock, rigOptions{seen: &seen, proc: definitions.ProcessorOptions{
		CatchupWindow: time.Second, Catchup: func(context.Context) (time.Duration, error) { return 0, nil }}})
	saveAggregation(t, ds, "behind", "", "", "count", "", -1, 10*time.Second, 10*time.Second)
	runAfter(t, clock, sched, 50*time.Second)
	if len(seen) != 6 {
		t.Fatalf("%d windows, want the 6 windows of 10 s one by one", len(seen))
	}
	for i, ev := range seen {
		if from, to, _ := windowOf(t, ev); to.Sub(from) != 10*time.Second-time.Millisecond {
			t.Errorf("window %d: %v – %v", i, from, to)
		}
	}
}
