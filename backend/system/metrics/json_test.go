package metrics_test

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/system/metrics"
)

// keysOf returns the keys of a JSON object in the order written.
func keysOf(t *testing.T, raw []byte) []string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("not a JSON object: %s: %v", raw, err)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		return bytes.Index(raw, []byte(`"`+a+`":`)) - bytes.Index(raw, []byte(`"`+b+`":`))
	})
	return keys
}

// sampleRegistry holds one metric of each kind with known values, read 6 s
// after it was created: the moving averages have taken in one interval.
func sampleRegistry() *metrics.Registry {
	clk := newFakeClock()
	r := metrics.New(clk.now)
	r.Counter("org.c").Inc(3)
	r.Gauge("org.g", func() any { return 42 })
	r.Meter("org.m").Mark(5)
	for _, v := range []int64{4, 1, 3, 2} {
		r.Histogram("org.h").Update(v)
		r.Timer("org.t").Update(time.Duration(v) * time.Second)
	}
	clk.set(6 * time.Second)
	return r
}

var (
	histogramKeys = []string{"count", "max", "mean", "min", "p50", "p75", "p95", "p98", "p99", "p999", "stddev"}
	meterKeys     = []string{"count", "m15_rate", "m1_rate", "m5_rate", "mean_rate", "units"}
	timerKeys     = []string{"count", "max", "mean", "min", "p50", "p75", "p95", "p98", "p99", "p999", "stddev", "m15_rate", "m1_rate", "m5_rate", "mean_rate", "duration_units", "rate_units"}
)

func TestDump(t *testing.T) {
	raw, err := json.Marshal(sampleRegistry())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := keysOf(t, raw), []string{"version", "gauges", "counters", "histograms", "meters", "timers"}; !slices.Equal(got, want) {
		t.Fatalf("dump keys = %q, want %q", got, want)
	}
	var d struct {
		Version    string
		Gauges     map[string]json.RawMessage
		Counters   map[string]json.RawMessage
		Histograms map[string]json.RawMessage
		Meters     map[string]json.RawMessage
		Timers     map[string]json.RawMessage
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	if d.Version != "4.0.0" {
		t.Errorf("version = %q", d.Version)
	}
	for section, m := range map[string]map[string]json.RawMessage{"gauges": d.Gauges, "counters": d.Counters, "histograms": d.Histograms, "meters": d.Meters, "timers": d.Timers} {
		if len(m) != 1 {
			t.Errorf("%s holds %d metrics, want 1", section, len(m))
		}
	}
	tests := []struct {
		name   string
		raw    json.RawMessage
		keys   []string
		values map[string]any
	}{
		{"gauge", d.Gauges["org.g"], []string{"value"}, map[string]any{"value": 42.0}},
		{"counter", d.Counters["org.c"], []string{"count"}, map[string]any{"count": 3.0}},
		{"histogram", d.Histograms["org.h"], histogramKeys, map[string]any{
			"count": 4.0, "max": 4.0, "min": 1.0, "mean": 2.5, "p50": 3.0, "p75": 4.0, "p999": 4.0, "stddev": math.Sqrt(1.25),
		}},
		{"meter", d.Meters["org.m"], meterKeys, map[string]any{
			"count": 5.0, "m1_rate": 1.0, "m5_rate": 1.0, "m15_rate": 1.0, "mean_rate": 5 / 6.0, "units": "events/second",
		}},
		{"timer", d.Timers["org.t"], timerKeys, map[string]any{
			"count": 4.0, "max": 4.0, "min": 1.0, "mean": 2.5, "p50": 3.0, "stddev": math.Sqrt(1.25),
			"m1_rate": 0.8, "mean_rate": 4 / 6.0, "duration_units": "seconds", "rate_units": "calls/second",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkObject(t, tt.raw, tt.keys, tt.values)
		})
	}
}

// checkObject checks that raw is an object with exactly keys, in that order,
// and the given values.
func checkObject(t *testing.T, raw []byte, keys []string, values map[string]any) {
	t.Helper()
	if got := keysOf(t, raw); !slices.Equal(got, keys) {
		t.Errorf("keys = %q, want %q", got, keys)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	for k, want := range values {
		got := m[k]
		if f, ok := want.(float64); ok {
			if g, ok := got.(float64); !ok || math.Abs(g-f) > 1e-9*math.Abs(f) {
				t.Errorf("%s = %v, want %v", k, got, want)
			}
		} else if got != want {
			t.Errorf("%s = %v, want %v", k, got, want)
		}
	}
}

func TestMarshalMetric(t *testing.T) {
	r := sampleRegistry()
	tests := []struct {
		name string
		keys []string
		ok   bool
	}{
		{"org.c", []string{"count"}, true},
		{"org.g", []string{"value"}, true},
		{"org.h", histogramKeys, true},
		{"org.m", meterKeys, true},
		{"org.t", timerKeys, true},
		{"org", nil, false},
	}
	for _, tt := range tests {
		raw, ok := r.MarshalMetric(tt.name)
		if ok != tt.ok {
			t.Errorf("MarshalMetric(%q) found = %v, want %v", tt.name, ok, tt.ok)
			continue
		}
		if ok {
			if got := keysOf(t, raw); !slices.Equal(got, tt.keys) {
				t.Errorf("MarshalMetric(%q) keys = %q, want %q", tt.name, got, tt.keys)
			}
		}
	}
	if raw, _ := r.MarshalMetric("org.c"); string(raw) != `{"count":3}` {
		t.Errorf("counter = %s, want {\"count\":3}", raw)
	}
}

func TestFailingGauges(t *testing.T) {
	tests := []struct {
		name string
		f    func() any
		want string
	}{
		{"panic", func() any { panic("boom") }, `{"error":"panic: boom"}`},
		{"NaN", func() any { return math.NaN() }, `{"error":"json: unsupported value: NaN"}`},
		{"channel", func() any { return make(chan int) }, `{"error":"json: unsupported type: chan int"}`},
		{"nil", func() any { return nil }, `{"value":null}`},
		{"object", func() any { return map[string]int{"a": 1} }, `{"value":{"a":1}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := metrics.New(time.Now)
			r.Gauge("g", tt.f)
			r.Counter("c").Inc(1)
			raw, err := json.Marshal(r)
			if err != nil {
				t.Fatalf("a failing gauge broke the dump: %v", err)
			}
			var d struct{ Gauges map[string]json.RawMessage }
			if err := json.Unmarshal(raw, &d); err != nil {
				t.Fatal(err)
			}
			if got := string(d.Gauges["g"]); got != tt.want {
				t.Errorf("gauge = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestEmptyDump(t *testing.T) {
	raw, err := json.Marshal(metrics.New(time.Now))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"version":"4.0.0","gauges":{},"counters":{},"histograms":{},"meters":{},"timers":{}}`
	if string(raw) != want {
		t.Errorf("empty dump = %s, want %s", raw, want)
	}
}
