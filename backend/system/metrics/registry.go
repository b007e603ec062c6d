// Package metrics is loggate's metrics registry and the Graylog 4.0
// /system/metrics resource. It follows Dropwizard Metrics, which Graylog
// uses: counters, gauges, meters with 1/5/15-minute moving averages,
// histograms and timers over an exponentially decaying reservoir, serialized
// as Dropwizard's metrics-json module does (rates per second, durations in
// seconds).
//
// Moving averages advance lazily whenever a metric is marked or read. A
// registry on the real clock (time.Now) keeps a timer that marks the end of
// each 5-second interval, so that marking a meter never reads the clock;
// nothing else runs in the background.
//
// The listings of the resource (/system/metrics/multiple and
// /system/metrics/namespace/{namespace}) describe meters, histograms and
// timers in Graylog's own shapes (MetricUtils.map: "rate", "time", timer
// statistics in whole microseconds) rather than metrics-json's, as Graylog
// does; the dump and the single-metric resource use metrics-json's.
package metrics

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// metricType is the type of a metric, as the /system/metrics listings name
// it.
type metricType string

const (
	typeGauge     metricType = "gauge"
	typeCounter   metricType = "counter"
	typeMeter     metricType = "meter"
	typeHistogram metricType = "histogram"
	typeTimer     metricType = "timer"
)

// metric is implemented by every registered metric.
type metric interface {
	typ() metricType
	// dump returns the metric-json form of the metric (the dump and the
	// single-metric resource).
	dump() any
	// summary returns the form Graylog's listings (/multiple, /namespace)
	// use, which differs from metrics-json for meters, histograms and timers.
	summary() any
}

// Registry holds named metrics. Its accessors are safe for concurrent use;
// hot paths should look a metric up once and keep the pointer, as lookups take
// a lock.
//
// A name belongs to one kind of metric for the life of the registry: asking
// for a name registered as another kind is a programming error and panics,
// like registering two metrics of different types under one name does in
// Dropwizard.
type Registry struct {
	clock *clock

	mu      sync.RWMutex
	metrics map[string]metric
}

// New returns an empty registry whose metrics read time from now (time.Now in
// production).
func New(now func() time.Time) *Registry {
	return &Registry{clock: newClock(now), metrics: make(map[string]metric)}
}

// Counter returns the counter called name, creating it if needed.
func (r *Registry) Counter(name string) *Counter {
	return getOrCreate(r, name, typeCounter, func() *Counter { return new(Counter) })
}

// Meter returns the meter called name, creating it if needed.
func (r *Registry) Meter(name string) *Meter {
	return getOrCreate(r, name, typeMeter, func() *Meter { return newMeter(r.clock) })
}

// Histogram returns the histogram called name, creating it if needed.
func (r *Registry) Histogram(name string) *Histogram {
	return getOrCreate(r, name, typeHistogram, func() *Histogram { return newHistogram(r.clock) })
}

// Timer returns the timer called name, creating it if needed.
func (r *Registry) Timer(name string) *Timer {
	return getOrCreate(r, name, typeTimer, func() *Timer { return newTimer(r.clock) })
}

// Gauge registers f as the gauge called name, replacing an earlier gauge of
// that name. f is called whenever the gauge is read, without registry locks
// held; its result must marshal to JSON. A panic or an unmarshalable value is
// reported as the gauge's error instead of failing the whole dump.
func (r *Registry) Gauge(name string, f func() any) {
	if f == nil {
		panic(fmt.Sprintf("metrics: gauge %q has no function", name))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if m, ok := r.metrics[name]; ok && m.typ() != typeGauge {
		panic(conflict(name, m.typ(), typeGauge))
	}
	r.metrics[name] = gauge(f)
}

func getOrCreate[M metric](r *Registry, name string, want metricType, create func() M) M {
	r.mu.RLock()
	m, ok := r.metrics[name]
	r.mu.RUnlock()
	if !ok {
		r.mu.Lock()
		defer r.mu.Unlock()
		if m, ok = r.metrics[name]; !ok {
			m = create()
			r.metrics[name] = m
		}
	}
	typed, ok := m.(M)
	if !ok {
		panic(conflict(name, m.typ(), want))
	}
	return typed
}

func conflict(name string, have, want metricType) string {
	return fmt.Sprintf("metrics: %q is already registered as a %s, not a %s", name, have, want)
}

// RemoveMatching unregisters the metrics whose names match, such as those
// of a deleted input (Dropwizard's removeMatching), and returns how many.
// Metrics already handed out keep working but are no longer reported.
func (r *Registry) RemoveMatching(match func(name string) bool) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for name := range r.metrics {
		if match(name) {
			delete(r.metrics, name)
			n++
		}
	}
	return n
}

// Names returns the names of all metrics, sorted.
func (r *Registry) Names() []string {
	r.mu.RLock()
	names := make([]string, 0, len(r.metrics))
	for name := range r.metrics {
		names = append(names, name)
	}
	r.mu.RUnlock()
	slices.Sort(names)
	return names
}

// lookup returns the named metric.
func (r *Registry) lookup(name string) (metric, bool) {
	r.mu.RLock()
	m, ok := r.metrics[name]
	r.mu.RUnlock()
	return m, ok
}

type entry struct {
	name string
	m    metric
}

// entries returns the metrics accepted by keep, sorted by name. Callers read
// the metrics after the lock is released, so that a gauge may use the
// registry.
func (r *Registry) entries(keep func(name string) bool) []entry {
	r.mu.RLock()
	var out []entry
	for name, m := range r.metrics {
		if keep(name) {
			out = append(out, entry{name, m})
		}
	}
	r.mu.RUnlock()
	slices.SortFunc(out, func(a, b entry) int { return strings.Compare(a.name, b.name) })
	return out
}

// clock measures time from the registry's creation, so that metrics can keep
// instants in atomic integers.
type clock struct {
	now   func() time.Time
	epoch time.Time

	// real is set when now is time.Now. Meters then learn the current
	// 5-second interval from published, which a timer advances at each
	// interval's end, instead of reading the clock on every mark. Another
	// clock (a test's) cannot announce its moves, so it is read.
	real      bool
	start     sync.Once
	published atomic.Int64
}

func newClock(now func() time.Time) *clock {
	return &clock{now: now, epoch: now(), real: reflect.ValueOf(now).Pointer() == reflect.ValueOf(time.Now).Pointer()}
}

// interval returns the index of the current moving-average interval,
// counted from the epoch: it is shared by all meters of the registry.
func (c *clock) interval() int64 {
	if !c.real {
		return c.nanos() / tickInterval
	}
	c.start.Do(c.publish)
	return c.published.Load()
}

// intervalAt returns the interval of an instant read from the clock, and
// brings the published one up to it.
func (c *clock) intervalAt(now int64) int64 {
	i := now / tickInterval
	if c.real {
		c.start.Do(c.publish)
		c.advance(i)
	}
	return i
}

// publish stores the current interval and arranges to run again when it
// ends. A timer that fires late leaves the marks of those few milliseconds
// in the interval before.
func (c *clock) publish() {
	now := c.nanos()
	c.advance(now / tickInterval)
	time.AfterFunc(time.Duration(tickInterval-now%tickInterval), c.publish)
}

// advance moves the published interval forward to i, never back.
func (c *clock) advance(i int64) {
	for p := c.published.Load(); p < i && !c.published.CompareAndSwap(p, i); p = c.published.Load() {
	}
}

// nanos returns the nanoseconds elapsed since the epoch.
func (c *clock) nanos() int64 { return int64(c.now().Sub(c.epoch)) }

// at converts an instant to nanoseconds since the epoch.
func (c *clock) at(t time.Time) int64 { return int64(t.Sub(c.epoch)) }
