package ingest_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/logs/ingest"
	"github.com/loggate/loggate/backend/logs/inputs"
	"github.com/loggate/loggate/backend/logs/journal"
)

// benchEnv is an env with the production clock and ids.
func benchEnv(b *testing.B) *env {
	b.Helper()
	return newEnv(b, func(_ *journal.Options, o *ingest.Options) {
		o.Now = nil
		o.NewID = nil
	})
}

// benchMessage is a typical application log message, about 350 bytes.
func benchMessage(i int) []byte {
	return fmt.Appendf(nil, `{"version":"1.1","host":"app-server-17.example.org","short_message":"GET /api/orders/%d 200 12ms","full_message":"request completed","timestamp":%d.123,"level":6,"facility":"http","_request_id":"9f8e7d6c-%08d","_user_id":%d,"_path":"/api/orders","_status":200,"_duration_ms":12.5,"_env":"production"}`,
		i, 1600000000+i%1000, i, i%5000)
}

// waitRate waits until the journal holds n records and reports the rate,
// and the CPU time per message since cpu (see cpuTime), senders included:
// it varies less than the rate when other work shares the machine.
func (e *env) waitRate(b *testing.B, start time.Time, cpu time.Duration, n int) {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := e.j.Wait(ctx, uint64(n-1)); err != nil {
		b.Fatalf("%d of %d records journaled: %v", e.j.End(), n, err)
	}
	b.ReportMetric(float64(n)/time.Since(start).Seconds(), "msgs/s")
	b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/float64(n), "cpu-µs/msg")
}

// cpuTime is the user and system CPU time the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkTCP sends b.N null-terminated messages over 4 connections.
func BenchmarkTCP(b *testing.B) {
	e := benchEnv(b)
	addr := e.start(input("t1", inputs.GELFTCPType, nil))
	const conns = 4
	var payloads [conns][]byte
	for i := range b.N {
		payloads[i%conns] = append(append(payloads[i%conns], benchMessage(i)...), 0)
	}
	b.ReportAllocs()
	b.ResetTimer()
	start, cpu := time.Now(), cpuTime()
	for i := range conns {
		c := dial(b, "tcp", addr)
		go c.Write(payloads[i])
	}
	e.waitRate(b, start, cpu, b.N)
}

// BenchmarkUDP sends b.N datagrams, keeping at most a window of them
// unjournaled so the kernel's receive buffer does not overflow: it measures
// the sustained rate.
func BenchmarkUDP(b *testing.B) {
	e := benchEnv(b)
	addr := e.start(input("u1", inputs.GELFUDPType, map[string]any{"recv_buffer_size": 4 << 20}))
	c := dial(b, "udp", addr)
	msgs := make([][]byte, 1024)
	for i := range msgs {
		msgs[i] = benchMessage(i)
	}
	const window = 1024
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	b.ReportAllocs()
	b.ResetTimer()
	start, cpu := time.Now(), cpuTime()
	for i := range b.N {
		if i >= window {
			if err := e.j.Wait(ctx, uint64(i-window)); err != nil {
				b.Fatalf("%d of %d records journaled: %v", e.j.End(), i-window+1, err)
			}
		}
		c.Write(msgs[i%len(msgs)])
	}
	e.waitRate(b, start, cpu, b.N)
}

// BenchmarkHTTP posts b.N messages from 128 concurrent clients; each
// request is acknowledged after its group commit.
func BenchmarkHTTP(b *testing.B) {
	e := benchEnv(b)
	url := "http://" + e.start(input("h1", inputs.GELFHTTPType, nil)) + "/gelf"
	tr := &http.Transport{MaxIdleConnsPerHost: 128}
	client := &http.Client{Transport: tr}
	defer tr.CloseIdleConnections()
	body := benchMessage(1)
	var failed atomic.Int64
	b.ReportAllocs()
	b.SetParallelism(64)
	b.ResetTimer()
	start, cpu := time.Now(), cpuTime()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			resp, err := client.Post(url, "application/json", bytes.NewReader(body))
			if err != nil || resp.StatusCode != http.StatusAccepted {
				failed.Add(1)
				continue
			}
			resp.Body.Close()
		}
	})
	if n := failed.Load(); n > 0 {
		b.Fatalf("%d requests failed", n)
	}
	e.waitRate(b, start, cpu, b.N)
}
