package definitions_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/alerts/definitions"
	"github.com/loggate/loggate/backend/alerts/events"
	"github.com/loggate/loggate/backend/analysis/search"
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
