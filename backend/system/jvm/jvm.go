// Package jvm answers what Graylog reports of its Java runtime — memory,
// process id, the runtime's description, the available locales and the
// jvm.memory.heap.* gauges — with the figures of loggate's Go runtime, in
// Graylog's shapes.
package jvm

import (
	"fmt"
	"math"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/backend/system/metrics"
	"github.com/loggate/loggate/router/api"
)

// Memory is what the runtime holds, read once.
type Memory struct {
	// Used is the heap in use by live and not yet collected objects.
	Used int64
	// Committed is the heap obtained from the operating system (Java's
	// totalMemory).
	Committed int64
	// Max is the most the runtime may use: the memory limit (GOMEMLIMIT)
	// when one is set, else everything obtained from the operating system,
	// as Go has no maximum heap.
	Max int64
}

// ReadMemory reads the runtime's memory figures.
func ReadMemory() Memory {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	m := Memory{Used: int64(ms.HeapAlloc), Committed: int64(ms.HeapSys), Max: int64(ms.Sys)}
	if limit := debug.SetMemoryLimit(-1); limit < math.MaxInt64 {
		m.Max = limit
	}
	return m
}

// RegisterGauges registers the heap gauges of Dropwizard's JVM memory set
// that Graylog's nodes page polls.
func RegisterGauges(reg *metrics.Registry) {
	reg.Gauge("jvm.memory.heap.used", func() any { return ReadMemory().Used })
	reg.Gauge("jvm.memory.heap.committed", func() any { return ReadMemory().Committed })
	reg.Gauge("jvm.memory.heap.max", func() any { return ReadMemory().Max })
	reg.Gauge("jvm.memory.heap.usage", func() any {
		m := ReadMemory()
		return float64(m.Used) / float64(max(m.Max, 1))
	})
}

// byteSize is Graylog's ByteSize: one amount in three units.
type byteSize struct {
	Bytes     int64 `json:"bytes"`
	Kilobytes int64 `json:"kilobytes"`
	Megabytes int64 `json:"megabytes"`
}

func sizeOf(b int64) byteSize {
	return byteSize{Bytes: b, Kilobytes: b / 1024, Megabytes: b / 1024 / 1024}
}

// Summary is Graylog's SystemJVMResponse.
type Summary struct {
	FreeMemory  byteSize `json:"free_memory"`
	MaxMemory   byteSize `json:"max_memory"`
	TotalMemory byteSize `json:"total_memory"`
	UsedMemory  byteSize `json:"used_memory"`
	NodeID      string   `json:"node_id"`
	PID         string   `json:"pid"`
	Info        string   `json:"info"`
}

// Info describes the runtime as Graylog's Tools.getSystemInformation does
// the JVM: vendor, version and operating system.
func Info() string {
	return fmt.Sprintf("The Go Authors %s on %s %s", runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// Summarize reads this node's runtime facts.
func Summarize(nodeID string) Summary {
	m := ReadMemory()
	return Summary{
		FreeMemory: sizeOf(m.Committed - m.Used), MaxMemory: sizeOf(m.Max),
		TotalMemory: sizeOf(m.Committed), UsedMemory: sizeOf(m.Used),
		NodeID: nodeID, PID: strconv.Itoa(os.Getpid()), Info: Info(),
	}
}

// Handler serves /system/jvm, /system/locales, /system/threaddump and
// /system/processbufferdump.
type Handler struct {
	nodeID        string
	processBuffer func() map[string]string
}

// NewHandler returns the resources of the node nodeID.
func NewHandler(nodeID string) *Handler { return &Handler{nodeID: nodeID} }

// Routes returns the routes.
func (h *Handler) Routes() []api.Route {
	return []api.Route{
		{Method: "GET", Path: "/system/jvm", Summary: "Get JVM information (loggate: its Go runtime's figures)",
			Permission: "jvmstats:read:{nodeId}", Handler: api.JSON(h.jvm)},
		{Method: "GET", Path: "/system/locales", Summary: "Get supported locales", Handler: api.JSON(h.locales)},
		{Method: "GET", Path: "/system/threaddump", Summary: "Get a thread dump (loggate: the stacks of its goroutines, cut at 1 MiB)",
			Permission: "threads:dump:{nodeId}", Handler: api.JSON(h.threadDump)},
		{Method: "GET", Path: "/system/processbufferdump", Summary: "Get a process buffer dump (loggate: what its message processor is doing)",
			Permission: "processbuffer:dump:{nodeId}", Handler: api.JSON(h.processBufferDump)},
	}
}

func (h *Handler) jvm(r *http.Request) (any, error) {
	if err := auth.Require(r.Context(), "jvmstats:read:"+h.nodeID); err != nil {
		return nil, err
	}
	return Summarize(h.nodeID), nil
}

func (h *Handler) locales(_ *http.Request) (any, error) {
	return map[string]any{"locales": locales}, nil
}
