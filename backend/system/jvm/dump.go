package jvm

import (
	"fmt"
	"net/http"
	"runtime/pprof"

	"github.com/loggate/loggate/auth"
)

// MaxThreadDump bounds the goroutine dump /system/threaddump answers: a node
// with many connections has many goroutines, and the answer is one JSON
// string.
const MaxThreadDump = 1 << 20

// threadDump is Graylog's SystemThreadDumpResponse.
type threadDump struct {
	ThreadDump string `json:"threaddump"`
}

// processBufferDump is Graylog's SystemProcessBufferDumpResponse.
type processBufferDump struct {
	Dump map[string]string `json:"processbuffer_dump"`
}

// capped keeps the first max bytes written to it and counts the rest.
type capped struct {
	buf     []byte
	max     int
	dropped int
}

func (c *capped) Write(p []byte) (int, error) {
	room := c.max - len(c.buf)
	if room >= len(p) {
		c.buf = append(c.buf, p...)
		return len(p), nil
	}
	c.buf = append(c.buf, p[:max(room, 0)]...)
	c.dropped += len(p) - max(room, 0)
	return len(p), nil
}

// GoroutineDump returns the stacks of every goroutine, as
// runtime/pprof's goroutine profile writes them with debug=2 (the
// format of an unrecovered panic), cut after limit bytes with a line
// saying how much was left out.
func GoroutineDump(limit int) string {
	c := &capped{max: limit}
	if err := pprof.Lookup("goroutine").WriteTo(c, 2); err != nil {
		return fmt.Sprintf("goroutine dump failed: %v", err)
	}
	if c.dropped > 0 {
		return fmt.Sprintf("%s\n… (%d more bytes left out: the dump is cut at %d bytes)\n", c.buf, c.dropped, limit)
	}
	return string(c.buf)
}

// SetProcessBuffer gives the handler what the processing stage is doing now,
// for /system/processbufferdump: one entry per processor, as Graylog's
// ProcessBuffer.getDump.
func (h *Handler) SetProcessBuffer(dump func() map[string]string) *Handler {
	h.processBuffer = dump
	return h
}

func (h *Handler) threadDump(r *http.Request) (any, error) {
	if err := auth.Require(r.Context(), "threads:dump:"+h.nodeID); err != nil {
		return nil, err
	}
	return threadDump{ThreadDump: GoroutineDump(MaxThreadDump)}, nil
}

func (h *Handler) processBufferDump(r *http.Request) (any, error) {
	if err := auth.Require(r.Context(), "processbuffer:dump:"+h.nodeID); err != nil {
		return nil, err
	}
	out := map[string]string{}
	if h.processBuffer != nil {
		out = h.processBuffer()
	}
	return processBufferDump{Dump: out}, nil
}
