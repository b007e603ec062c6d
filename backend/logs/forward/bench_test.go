package forward

import (
	"io"
	"net"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/logs/outputs"
	"github.com/loggate/loggate/internal/tcptest"
)

// benchMessage is a realistic message of about 500 bytes as GELF.
func benchMessage() *messages.Message {
	return &messages.Message{
		ID:        "2b0f3d3e-6e2c-11ef-9c8e-0242ac120002",
		Timestamp: time.Date(2026, 3, 1, 12, 30, 45, 123e6, time.UTC),
		Streams:   []string{streamA},
		Fields: []messages.Field{
			{Key: "source", Value: "web-07.prod.example.com"},
			{Key: "message", Value: "GET /api/orders/98123 returned 200 in 12ms"},
			{Key: "full_message", Value: "GET /api/orders/98123 HTTP/1.1 200 OK"},
			{Key: "level", Value: int64(6)},
			{Key: "facility", Value: "nginx"},
			{Key: "user_id", Value: "9001"},
			{Key: "request_id", Value: "3f2b9c1e-2a44-4c1e-9d55-0b7e1f6a2c11"},
			{Key: "http_status", Value: int64(200)},
			{Key: "duration_ms", Value: 12.5},
			{Key: "env", Value: "production"},
			{Key: "cached", Value: false},
			{Key: "gl2_source_input", Value: "5f0000000000000000000abc"},
			{Key: "gl2_source_node", Value: "3c4f1b8e-0d8a-4c53-8d5b-2b6f6c3a9e10"},
			{Key: "gl2_message_id", Value: "01J5Z8Q3YJ8W0P1V6M7K2X4N9T"},
		},
	}
}

func BenchmarkEncode(b *testing.B) {
	m := benchMessage()
	buf, _ := AppendEncode(nil, m)
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		buf, _ = AppendEncode(buf[:0], m)
	}
}

// discardListener accepts GELF TCP connections and discards what they carry.
func discardListener(b *testing.B) int {
	b.Helper()
	return tcptest.Serve(b, func(c net.Conn) { _, _ = io.Copy(io.Discard, c) }).(*net.TCPAddr).Port
}

// BenchmarkSend measures Send (encode and queue) with a live loopback TCP
// connection draining the queue; messages the writer could not keep up
// with are reported as drops.
func BenchmarkSend(b *testing.B) {
	cfg := tcpConfig(discardListener(b))
	cfg.QueueSize = 1 << 16
	f, err := New(cfg, Options{FlushTimeout: 5 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	m := benchMessage()
	b.ReportAllocs()
	for b.Loop() {
		f.Send(m)
	}
	b.StopTimer()
	f.Close()
	s := f.Stats()
	b.ReportMetric(float64(s.Dropped)/float64(b.N)*100, "%dropped")
}

// BenchmarkSendFull is the cost of Send while the destination is down and
// the queue is full: a drop.
func BenchmarkSendFull(b *testing.B) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	f, err := New(tcpConfig(port), Options{FlushTimeout: time.Millisecond})
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	m := benchMessage()
	for range DefaultQueueSize {
		f.Send(m)
	}
	b.ReportAllocs()
	for b.Loop() {
		f.Send(m)
	}
}

// BenchmarkForward is the pipeline's per-message call: a message of two
// streams, with and without an output to send to.
func BenchmarkForward(b *testing.B) {
	for _, tc := range []struct {
		name   string
		routes map[string][]string
	}{
		{"no output", map[string][]string{streamC: {outX}}},
		{"one output", map[string][]string{streamA: {outX}, streamB: {outX}}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			r := NewRouter(RouterOptions{FlushTimeout: 5 * time.Second})
			out := gelfOutput(outX, discardListener(b), "queue_size", 1<<16)
			if err := r.Apply(tc.routes, []outputs.Summary{out}); err != nil {
				b.Fatal(err)
			}
			m := benchMessage()
			m.Streams = []string{streamA, streamB}
			b.ReportAllocs()
			for b.Loop() {
				r.Forward(m)
			}
			b.StopTimer()
			r.Close()
		})
	}
}
