package node_test

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
)

// The ingestion load harness: real GELF clients on loopback send ~400-byte
// messages to a node, and the clock stops when the node has processed them
// all into the embedded message store. Run with a fixed count, e.g.
//
//	go test -run '^$' -bench Ingest -benchtime 200000x ./cmd/loggate/node
//
// msgs/s is end to end: decode, journal (fsync'd group commits), routing
// and the store write, with the senders on the same two cores.

var (
	paths  = []string{"/", "/index.html", "/api/v1/orders", "/api/v1/users/42", "/static/app.js", "/login", "/search?q=shoes"}
	agents = []string{"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36",
		"curl/8.4.0", "Go-http-client/1.1", "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)"}
)

// loadMessage is a GELF message of about 400 bytes, like a web server's
// access log line with its parsed fields.
func loadMessage(r *rand.Rand, i int) string {
	path := paths[r.IntN(len(paths))]
	status := []int{200, 200, 200, 200, 304, 404, 500}[r.IntN(7)]
	ip := fmt.Sprintf("10.%d.%d.%d", r.IntN(4), r.IntN(256), r.IntN(256))
	took := r.Float64() * 0.5
	return fmt.Sprintf(`{"version":"1.1","host":"web-%d","short_message":"%s - - \"GET %s HTTP/1.1\" %d %d \"-\" \"%s\"",`+
		`"timestamp":%.3f,"level":6,"_http_method":"GET","_http_path":"%s","_http_status":%d,"_bytes":%d,"_took":%.4f,"_client_ip":"%s","_seq":%d}`,
		r.IntN(8), ip, path, status, 200+r.IntN(5000), agents[r.IntN(len(agents))],
		float64(time.Now().UnixMilli())/1000, path, status, 200+r.IntN(5000), took, ip, i)
}

func benchIngest(b *testing.B, typ string, settings map[string]any, send func(b *testing.B, addr net.Addr, msgs []string)) {
	benchIngestWith(b, nil, typ, settings, send)
}

// benchIngestWith is benchIngest on a node that setup prepared first.
func benchIngestWith(b *testing.B, setup func(b *testing.B, h *nodetest.Harness), typ string, settings map[string]any, send func(b *testing.B, addr net.Addr, msgs []string)) {
	r := rand.New(rand.NewPCG(1, 2))
	msgs := make([]string, b.N)
	for i := range msgs {
		msgs[i] = loadMessage(r, i)
	}
	ingest(b, setup, typ, settings, msgs, send)
}

// ingest starts a node (prepared by setup, when set) with an input of typ, sends msgs with send and
// waits until the node has processed them all, timing that; it reports
// the mean message size and msgs/s, and returns the node and the journal
// offset of the first message.
func ingest(b *testing.B, setup func(b *testing.B, h *nodetest.Harness), typ string, settings map[string]any, msgs []string, send func(b *testing.B, addr net.Addr, msgs []string)) (*nodetest.Harness, uint64) {
	h := nodetest.Start(b)
	if setup != nil {
		setup(b, h)
	}
	_, addr := h.CreateInput(typ, settings)
	size := 0
	for _, m := range msgs {
		size += len(m)
	}
	start := h.Node.Messages.Journal.End()
	b.ResetTimer()
	began, cpu := time.Now(), cpuTime()
	send(b, addr, msgs)
	waitProcessedB(b, h, start+uint64(b.N))
	elapsed, cpu := time.Since(began), cpuTime()-cpu
	b.StopTimer()
	b.ReportMetric(float64(size)/float64(b.N), "bytes/msg")
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "msgs/s")
	// CPU time per message, senders included, varies less than msgs/s
	// when other work shares the machine.
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/msg")
	if got := h.Node.Messages.Processor.State().Next - start; got != uint64(b.N) {
		b.Fatalf("processed %d of %d", got, b.N)
	}
	return h, start
}

// waitProcessedB waits while processing makes progress; UDP loss shows
// as progress stopping short of n.
func waitProcessedB(b *testing.B, h *nodetest.Harness, n uint64) {
	last, since := uint64(0), time.Now()
	for {
		got := h.Node.Messages.Processor.State().Next
		if got >= n {
			return
		}
		if got != last {
			last, since = got, time.Now()
		}
		// 15 s without progress: on a 2-core machine shared with other
		// work a flush can stall processing for several seconds.
		if time.Since(since) > 15*time.Second {
			b.Fatalf("processed %d of %d: lost %d", got, n, n-got)
		}
		time.Sleep(2 * time.Millisecond) // polling an observable condition
	}
}

// BenchmarkIngestTCP: two connections, null-framed.
func BenchmarkIngestTCP(b *testing.B) { benchIngest(b, tcpInput, nil, sendTCP) }

// sendTCP sends msgs null-framed on two connections, in turn.
func sendTCP(b *testing.B, addr net.Addr, msgs []string) {
	const conns = 2
	var wg sync.WaitGroup
	for c := range conns {
		wg.Go(func() {
			conn, err := net.Dial("tcp", addr.String())
			if err != nil {
				b.Error(err)
				return
			}
			defer conn.Close()
			w := bufio.NewWriterSize(conn, 64<<10)
			for i := c; i < len(msgs); i += conns {
				w.WriteString(msgs[i])
				w.WriteByte(0)
			}
			if err := w.Flush(); err != nil {
				b.Error(err)
			}
		})
	}
	wg.Wait()
}

// BenchmarkIngestUDP sends at a steady rate (
// 30,000 datagrams/s, above the 25,000 goal) and fails on any loss.
func BenchmarkIngestUDP(b *testing.B) {
	// An 8 MiB receive buffer (recv_buffer_size, as Graylog's docs advise
	// for busy UDP inputs) rides out the moments the reader is not
	// scheduled; with the 256 KiB default about 1% is lost at this rate on
	// a loaded 2-core machine.
	benchIngest(b, udpInput, map[string]any{"recv_buffer_size": 8 << 20}, func(b *testing.B, addr net.Addr, msgs []string) {
		conn, err := net.Dial("udp", addr.String())
		if err != nil {
			b.Fatal(err)
		}
		defer conn.Close()
		const rate = 30000
		tick := time.Now()
		for i, m := range msgs {
			if _, err := io.WriteString(conn, m); err != nil {
				b.Fatal(err)
			}
			// Pace in bursts of 100: a sender faster than the receiver
			// measures the socket buffer, not loggate.
			if i%100 == 99 {
				tick = tick.Add(100 * time.Second / rate)
				if d := time.Until(tick); d > 0 {
					time.Sleep(d)
				}
			}
		}
	})
}

// BenchmarkIngestHTTP: 64 keep-alive clients, one message per request (each
// 202 waits for its journal fsync, so throughput needs concurrency, as
// with many real senders).
func BenchmarkIngestHTTP(b *testing.B) {
	benchIngest(b, httpInput, nil, func(b *testing.B, addr net.Addr, msgs []string) {
		const clients = 64
		tr := &http.Transport{MaxIdleConnsPerHost: clients}
		defer tr.CloseIdleConnections()
		client := &http.Client{Transport: tr}
		url := "http://" + addr.String() + "/gelf"
		var wg sync.WaitGroup
		for c := range clients {
			wg.Go(func() {
				for i := c; i < len(msgs); i += clients {
					resp, err := client.Post(url, "application/json", strings.NewReader(msgs[i]))
					if err != nil {
						b.Error(err)
						return
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusAccepted {
						b.Errorf("status %d", resp.StatusCode)
						return
					}
				}
			})
		}
		wg.Wait()
	})
}

// cpuTime is the user and system CPU time the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
