package metrics_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/system/metrics"
)

func TestAccessorsReturnTheSameMetric(t *testing.T) {
	r := metrics.New(time.Now)
	if c := r.Counter("c"); c != r.Counter("c") {
		t.Error("Counter returned two counters for one name")
	}
	if m := r.Meter("m"); m != r.Meter("m") {
		t.Error("Meter returned two meters for one name")
	}
	if h := r.Histogram("h"); h != r.Histogram("h") {
		t.Error("Histogram returned two histograms for one name")
	}
	if tm := r.Timer("t"); tm != r.Timer("t") {
		t.Error("Timer returned two timers for one name")
	}
}

func TestKindConflictPanics(t *testing.T) {
	register := map[string]func(r *metrics.Registry){
		"counter":   func(r *metrics.Registry) { r.Counter("x") },
		"meter":     func(r *metrics.Registry) { r.Meter("x") },
		"histogram": func(r *metrics.Registry) { r.Histogram("x") },
		"timer":     func(r *metrics.Registry) { r.Timer("x") },
		"gauge":     func(r *metrics.Registry) { r.Gauge("x", func() any { return 1 }) },
	}
	for have, first := range register {
		for want, second := range register {
			t.Run(have+" then "+want, func(t *testing.T) {
				r := metrics.New(time.Now)
				first(r)
				msg := panicOf(func() { second(r) })
				if have == want {
					if msg != "" {
						t.Fatalf("asking again for a %s panicked: %s", want, msg)
					}
					return
				}
				wantMsg := fmt.Sprintf(`metrics: "x" is already registered as a %s, not a %s`, have, want)
				if msg != wantMsg {
					t.Errorf("panic = %q, want %q", msg, wantMsg)
				}
			})
		}
	}
}

func panicOf(f func()) (msg string) {
	defer func() {
		if p := recover(); p != nil {
			msg = fmt.Sprint(p)
		}
	}()
	f()
	return ""
}

func TestGaugeIsReplaced(t *testing.T) {
	r := metrics.New(time.Now)
	r.Gauge("g", func() any { return 1 })
	r.Gauge("g", func() any { return "two" })
	got, ok := r.MarshalMetric("g")
	if !ok || string(got) != `{"value":"two"}` {
		t.Errorf("MarshalMetric(g) = %s, %v; want the second gauge", got, ok)
	}
}

func TestNilGaugePanics(t *testing.T) {
	if msg := panicOf(func() { metrics.New(time.Now).Gauge("g", nil) }); msg != `metrics: gauge "g" has no function` {
		t.Errorf("panic = %q", msg)
	}
}

func TestNamesAreSorted(t *testing.T) {
	r := metrics.New(time.Now)
	for _, name := range []string{"org.b", "a", "org.a.z", "Z", "org.a"} {
		r.Counter(name)
	}
	r.Gauge("m", func() any { return 0 })
	want := []string{"Z", "a", "m", "org.a", "org.a.z", "org.b"}
	if got := r.Names(); !slices.Equal(got, want) {
		t.Errorf("Names() = %q, want %q", got, want)
	}
}

// TestConcurrentUse is for the race detector: metrics are created, updated
// and read from many goroutines at once.
func TestConcurrentUse(t *testing.T) {
	clk := newFakeClock()
	r := metrics.New(clk.now)
	r.Gauge("g", func() any { return r.Counter("c").Count() }) // a gauge may use the registry
	const workers, rounds = 8, 500
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range rounds {
				r.Counter("c").Inc(1)
				r.Meter("m").Mark(1)
				r.Histogram("h").Update(int64(i))
				r.Timer("t").Update(time.Duration(i))
				r.Counter(fmt.Sprintf("per.worker.%d", w)).Inc(1)
				if i%50 == 0 {
					clk.add(time.Second)
					if _, err := json.Marshal(r); err != nil {
						t.Errorf("MarshalJSON: %v", err)
					}
					r.Timer("t").Rate1()
				}
			}
		})
	}
	wg.Wait()
	const total = workers * rounds
	if c, m, h, tm := r.Counter("c").Count(), r.Meter("m").Count(), r.Histogram("h").Count(), r.Timer("t").Count(); c != total || m != total || h != total || tm != total {
		t.Errorf("counts = %d, %d, %d, %d; want %d", c, m, h, tm, total)
	}
	if got := len(r.Names()); got != 5+workers {
		t.Errorf("%d names, want %d: %s", got, 5+workers, strings.Join(r.Names(), ", "))
	}
}
