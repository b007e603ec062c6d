package processing_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/logs/processing"
	"github.com/loggate/loggate/backend/logs/streams"
	"github.com/loggate/loggate/internal/testclock"
)

// processorFunc is a MessageProcessor from a function.
type processorFunc func(ctx context.Context, msgs []*messages.Message) []*messages.Message

func (f processorFunc) Process(ctx context.Context, msgs []*messages.Message) []*messages.Message {
	return f(ctx, msgs)
}

// TestProcessorOrder: the message processors run in the configured order,
// 4.0's default putting the pipeline processor before the Message Filter
// Chain; a disabled processor does not run; streams a pipeline routes to
// are kept by stream matching.
func TestProcessorOrder(t *testing.T) {
	cases := []struct {
		name  string
		order []string // nil: the default
		// sawExtracted is whether the pipeline saw the filter's field.
		sawExtracted, extracted bool
		streams                 []string
	}{
		{"default: pipelines first", nil, false, true, []string{"piped", "by-rule", "default"}},
		{"filter chain first", []string{processing.FilterChainClass, processing.PipelineClass}, true, true, []string{"piped", "by-rule", "default"}},
		{"filter chain disabled", []string{processing.PipelineClass}, false, false, []string{"piped", "default"}},
		{"pipeline disabled", []string{processing.FilterChainClass}, false, true, []string{"by-rule", "default"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			piped := e.stream(streams.Stream{Title: "piped"})
			byRule := e.stream(streams.Stream{Title: "by-rule", Rules: []streams.Rule{rule(streams.RulePresence, "extracted", "")}})
			names := map[string]string{piped: "piped", byRule: "by-rule", streams.DefaultStreamID: "default"}
			saw := false
			r := e.start(processing.Options{}, func(p *processing.Processor) {
				p.AddFilter(processorFunc(func(_ context.Context, msgs []*messages.Message) []*messages.Message {
					for _, m := range msgs {
						m.SetField("extracted", "yes")
					}
					return msgs
				}))
				p.Register(processing.PipelineClass, processorFunc(func(_ context.Context, msgs []*messages.Message) []*messages.Message {
					for _, m := range msgs {
						_, has := m.Get("extracted")
						saw = saw || has
						if c.order == nil && !slices.Equal(m.Streams, []string{streams.DefaultStreamID}) {
							t.Errorf("the pipeline got a message on %v, want the default stream only", m.Streams)
						}
						m.Streams = append(m.Streams, piped)
					}
					// Dropping a message: it is not stored.
					return slices.DeleteFunc(msgs, func(m *messages.Message) bool { return m.ID == "drop" })
				}))
				if c.order != nil {
					p.SetOrder(func(context.Context) ([]string, error) { return c.order, nil })
				}
			})
			r.flushed(e.journal(msg("keep", "message", "m"), msg("drop", "message", "m")))
			hits := e.all()
			if saw != c.sawExtracted {
				t.Errorf("pipeline saw the extracted field: %v, want %v", saw, c.sawExtracted)
			}
			ids := map[string]bool{}
			for _, h := range hits {
				ids[h.Message.ID] = true
			}
			wantDrop := !slices.Contains(c.order, processing.PipelineClass) && c.order != nil
			if !ids["keep"] || ids["drop"] != wantDrop {
				t.Fatalf("stored %v", ids)
			}
			m := hits[slices.IndexFunc(hits, func(h messages.Hit) bool { return h.Message.ID == "keep" })].Message
			if _, ok := m.Get("extracted"); ok != c.extracted {
				t.Errorf("extracted field present: %v, want %v", ok, c.extracted)
			}
			var got []string
			for _, id := range m.Streams {
				got = append(got, names[id])
			}
			slices.Sort(got)
			want := slices.Sorted(slices.Values(c.streams))
			if !slices.Equal(got, want) {
				t.Errorf("streams %v, want %v", got, c.streams)
			}
		})
	}
}

func TestDefaultOrder(t *testing.T) {
	got := processing.DefaultOrder([]string{processing.FilterChainClass, "org.graylog.plugins.map.geoip.processor.GeoIpProcessor", processing.PipelineClass})
	want := []string{"org.graylog.plugins.map.geoip.processor.GeoIpProcessor", processing.PipelineClass, processing.FilterChainClass}
	if !slices.Equal(got, want) {
		t.Errorf("%v, want %v", got, want)
	}
}

// TestOrderCache: disabled processors are left out; the stored
// configuration is read once per TTL; a failing read keeps the last one.
func TestOrderCache(t *testing.T) {
	clk := testclock.New(epoch)
	reads := 0
	var fail error
	order := []string{"a", "b", "c"}
	c := processing.NewOrderCache(func(context.Context) ([]string, []string, error) {
		reads++
		return order, []string{"b"}, fail
	}, time.Second, clk.Now)
	ctx := context.Background()
	got, _ := c.Order(ctx)
	if !slices.Equal(got, []string{"a", "c"}) {
		t.Errorf("%v", got)
	}
	order = []string{"c", "a"}
	c.Order(ctx)
	if reads != 1 {
		t.Errorf("%d reads within the TTL", reads)
	}
	clk.Advance(time.Second)
	if got, _ := c.Order(ctx); !slices.Equal(got, []string{"c", "a"}) {
		t.Errorf("after the TTL: %v", got)
	}
	fail = errors.New("store down")
	clk.Advance(time.Second)
	if got, err := c.Order(ctx); err != nil || !slices.Equal(got, []string{"c", "a"}) {
		t.Errorf("failing read: %v %v", got, err)
	}
}
