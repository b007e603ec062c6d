package metrics

import (
	"strings"
	"time"

	"github.com/loggate/loggate/router/api"
)

// metricsJSONVersion is the "version" of the dump: that of the metrics-json
// module Graylog 4.0 ships.
const metricsJSONVersion = "4.0.0"

// MarshalJSON writes the whole registry as metrics-json does, with each
// section's metrics sorted by name.
func (r *Registry) MarshalJSON() ([]byte, error) {
	d := dumpJSON{
		Version:    metricsJSONVersion,
		Gauges:     map[string]any{},
		Counters:   map[string]any{},
		Histograms: map[string]any{},
		Meters:     map[string]any{},
		Timers:     map[string]any{},
	}
	sections := map[metricType]map[string]any{
		typeGauge: d.Gauges, typeCounter: d.Counters, typeHistogram: d.Histograms,
		typeMeter: d.Meters, typeTimer: d.Timers,
	}
	for _, e := range r.entries(func(string) bool { return true }) {
		sections[e.m.typ()][e.name] = e.m.dump()
	}
	return api.Marshal(d)
}

// MarshalMetric writes one metric as it appears in the dump, such as
// {"count":3} for a counter. It reports false when there is no such metric.
func (r *Registry) MarshalMetric(name string) ([]byte, bool) {
	m, ok := r.lookup(name)
	if !ok {
		return nil, false
	}
	// The per-metric shapes hold only numbers, strings and marshaled
	// gauge values, which cannot fail to encode.
	buf, _ := api.Marshal(m.dump())
	return buf, true
}

type dumpJSON struct {
	Version    string         `json:"version"`
	Gauges     map[string]any `json:"gauges"`
	Counters   map[string]any `json:"counters"`
	Histograms map[string]any `json:"histograms"`
	Meters     map[string]any `json:"meters"`
	Timers     map[string]any `json:"timers"`
}

// quantiles are those metrics-json writes, in the order of its fields.
type quantiles struct {
	P50  float64 `json:"p50"`
	P75  float64 `json:"p75"`
	P95  float64 `json:"p95"`
	P98  float64 `json:"p98"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p999"`
}

func quantilesOf(s Snapshot, scale float64) quantiles {
	return quantiles{
		P50: s.Quantile(0.5) * scale, P75: s.Quantile(0.75) * scale, P95: s.Quantile(0.95) * scale,
		P98: s.Quantile(0.98) * scale, P99: s.Quantile(0.99) * scale, P999: s.Quantile(0.999) * scale,
	}
}

type histogramJSON struct {
	Count int64   `json:"count"`
	Max   int64   `json:"max"`
	Mean  float64 `json:"mean"`
	Min   int64   `json:"min"`
	quantiles
	Stddev float64 `json:"stddev"`
}

func (h *Histogram) dump() any {
	s := h.Snapshot()
	return histogramJSON{
		Count: h.Count(), Max: s.Max(), Mean: s.Mean(), Min: s.Min(),
		quantiles: quantilesOf(s, 1), Stddev: s.StdDev(),
	}
}

type rateJSON struct {
	M15Rate  float64 `json:"m15_rate"`
	M1Rate   float64 `json:"m1_rate"`
	M5Rate   float64 `json:"m5_rate"`
	MeanRate float64 `json:"mean_rate"`
}

func (r rates) json() rateJSON {
	return rateJSON{M15Rate: r.m15, M1Rate: r.m1, M5Rate: r.m5, MeanRate: r.mean}
}

type meterJSON struct {
	Count int64 `json:"count"`
	rateJSON
	Units string `json:"units"`
}

func (m *Meter) dump() any {
	r := m.rates()
	return meterJSON{Count: r.count, rateJSON: r.json(), Units: "events/second"}
}

type timerJSON struct {
	Count int64   `json:"count"`
	Max   float64 `json:"max"`
	Mean  float64 `json:"mean"`
	Min   float64 `json:"min"`
	quantiles
	Stddev float64 `json:"stddev"`
	rateJSON
	DurationUnits string `json:"duration_units"`
	RateUnits     string `json:"rate_units"`
}

// seconds converts nanoseconds: metrics-json is configured for durations in
// seconds.
const seconds = 1 / float64(time.Second)

func (t *Timer) dump() any {
	r := t.rates()
	s := t.Snapshot()
	return timerJSON{
		Count: r.count,
		Max:   float64(s.Max()) * seconds, Mean: s.Mean() * seconds, Min: float64(s.Min()) * seconds,
		quantiles: quantilesOf(s, seconds), Stddev: s.StdDev() * seconds,
		rateJSON: r.json(), DurationUnits: "seconds", RateUnits: "calls/second",
	}
}

// Graylog's listings (MetricUtils.map) describe meters, histograms and timers
// in their own shapes rather than metrics-json's; Telegraf's Graylog input
// reads these.

// listJSON is Graylog's MetricsSummaryResponse.
type listJSON struct {
	Total   int        `json:"total"`
	Metrics []listItem `json:"metrics"`
}

type listItem struct {
	FullName string     `json:"full_name"`
	Name     string     `json:"name"`
	Type     metricType `json:"type"`
	Metric   any        `json:"metric"`
}

func listItemOf(name string, m metric) listItem {
	return listItem{
		FullName: name,
		Name:     name[strings.LastIndexByte(name, '.')+1:],
		Type:     m.typ(),
		Metric:   m.summary(),
	}
}

type rateSummary struct {
	Total         float64 `json:"total"`
	Mean          float64 `json:"mean"`
	OneMinute     float64 `json:"one_minute"`
	FiveMinute    float64 `json:"five_minute"`
	FifteenMinute float64 `json:"fifteen_minute"`
}

func (r rates) summary() rateSummary {
	return rateSummary{Total: float64(r.count), Mean: r.mean, OneMinute: r.m1, FiveMinute: r.m5, FifteenMinute: r.m15}
}

type meterSummary struct {
	Rate     rateSummary `json:"rate"`
	RateUnit string      `json:"rate_unit"`
}

func (m *Meter) summary() any {
	return meterSummary{Rate: m.rates().summary(), RateUnit: "events/second"}
}

// Graylog truncates histogram statistics to whole numbers (Java's long
// casts), and timer statistics to whole microseconds.
type histogramTime struct {
	Max    int64 `json:"max"`
	Min    int64 `json:"min"`
	Mean   int64 `json:"mean"`
	P95    int64 `json:"95th_percentile"`
	P98    int64 `json:"98th_percentile"`
	P99    int64 `json:"99th_percentile"`
	StdDev int64 `json:"std_dev"`
}

func timeOf(s Snapshot) histogramTime {
	return histogramTime{
		Max: s.Max(), Min: s.Min(), Mean: int64(s.Mean()),
		P95: int64(s.Quantile(0.95)), P98: int64(s.Quantile(0.98)), P99: int64(s.Quantile(0.99)),
		StdDev: int64(s.StdDev()),
	}
}

type histogramSummary struct {
	Time  histogramTime `json:"time"`
	Count int64         `json:"count"`
}

func (h *Histogram) summary() any {
	return histogramSummary{Time: timeOf(h.Snapshot()), Count: h.Count()}
}

type timerSummary struct {
	Time         histogramTime `json:"time"`
	Rate         rateSummary   `json:"rate"`
	DurationUnit string        `json:"duration_unit"`
	RateUnit     string        `json:"rate_unit"`
}

func (t *Timer) summary() any {
	r := t.rates()
	tm := timeOf(t.Snapshot())
	for _, v := range []*int64{&tm.Max, &tm.Min, &tm.Mean, &tm.P95, &tm.P98, &tm.P99, &tm.StdDev} {
		*v /= int64(time.Microsecond / time.Nanosecond)
	}
	return timerSummary{Time: tm, Rate: r.summary(), DurationUnit: "microseconds", RateUnit: "events/second"}
}
