package ingest

import (
	"sync/atomic"

	"github.com/loggate/loggate/backend/logs/gelf"
	"github.com/loggate/loggate/backend/system/metrics"
)

// inputMetrics are an input's metrics, registered under Graylog's prefix
// "<input class>.<input id>" (MetricRegistry.name(getClass(), getId())).
type inputMetrics struct {
	// incoming counts every message received, valid or not: a TCP frame, a
	// UDP datagram or reassembled chunked message, an HTTP POST to /gelf.
	incoming *metrics.Meter
	// failures counts messages refused: undecodable or invalid GELF, bad
	// chunks, oversized frames and bodies.
	failures *metrics.Meter
	// rejected counts valid messages not journaled: journal full or closed.
	rejected *metrics.Meter
	// empty counts empty payloads (Graylog's emptyMessages).
	empty *metrics.Counter

	readBytes atomic.Int64
	open      atomic.Int64
	total     atomic.Int64
}

// newInputMetrics registers the metrics every transport has.
func newInputMetrics(reg *metrics.Registry, prefix string) *inputMetrics {
	m := &inputMetrics{
		incoming: reg.Meter(prefix + ".incomingMessages"),
		failures: reg.Meter(prefix + ".failures"),
		rejected: reg.Meter(prefix + ".rejectedMessages"),
		empty:    reg.Counter(prefix + ".emptyMessages"),
	}
	reg.Gauge(prefix+".read_bytes_total", func() any { return m.readBytes.Load() })
	// Graylog's read_bytes_1sec: bytes per second.
	reg.RateGauge(prefix+".read_bytes_1sec", m.readBytes.Load)
	return m
}

// connectionGauges registers the TCP and HTTP connection gauges.
func (m *inputMetrics) connectionGauges(reg *metrics.Registry, prefix string) {
	reg.Gauge(prefix+".open_connections", func() any { return m.open.Load() })
	reg.Gauge(prefix+".total_connections", func() any { return m.total.Load() })
}

// chunkGauges registers the counters of an input's chunk reassembly under
// the names of Graylog's GelfChunkAggregator metrics.
func chunkGauges(reg *metrics.Registry, prefix string, c *gelf.Chunker) {
	stat := func(f func(gelf.ChunkerStats) any) func() any {
		return func() any { return f(c.Stats()) }
	}
	reg.Gauge(prefix+".total-chunks", stat(func(s gelf.ChunkerStats) any { return s.TotalChunks }))
	reg.Gauge(prefix+".complete-messages", stat(func(s gelf.ChunkerStats) any { return s.CompleteMessages }))
	reg.Gauge(prefix+".duplicate-chunks", stat(func(s gelf.ChunkerStats) any { return s.DuplicateChunks }))
	reg.Gauge(prefix+".expired-messages", stat(func(s gelf.ChunkerStats) any { return s.ExpiredMessages }))
	reg.Gauge(prefix+".expired-chunks", stat(func(s gelf.ChunkerStats) any { return s.ExpiredChunks }))
	reg.Gauge(prefix+".waiting-messages", stat(func(s gelf.ChunkerStats) any { return s.WaitingMessages }))
}
