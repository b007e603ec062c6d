package node_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loggate/loggate/auth/cache/redistest"
	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
)

// credentials returns an Authorization value for each credential form.
func credentials(b *testing.B, h *nodetest.Harness) map[string]nodetest.ReqOption {
	id := h.CreateUser("bench", "benchpass")
	tok, _ := h.CreateToken(id, "bench", nodetest.Basic("bench", "benchpass"))
	sid := h.Login("bench", "benchpass")
	return map[string]nodetest.ReqOption{
		"password": nodetest.Basic("bench", "benchpass"),
		"token":    nodetest.Token(tok),
		"session":  nodetest.Session(sid),
	}
}

func request(method, url string, opt nodetest.ReqOption) *http.Request {
	r := httptest.NewRequest(method, url, nil)
	opt(r)
	return r
}

// BenchmarkAuthenticate measures the authenticator alone: a cache hit, and
// a miss (the credential cache emptied before every call).
func BenchmarkAuthenticate(b *testing.B) {
	for _, backend := range []string{"memory", "redis"} {
		b.Run(backend, func(b *testing.B) {
			var opts []nodetest.Option
			if backend == "redis" {
				opts = append(opts, nodetest.WithRedis(redistest.Start(b).Addr))
			}
			h := nodetest.Start(b, opts...)
			creds := credentials(b, h)
			ctx := context.Background()
			for _, kind := range []string{"password", "token", "session"} {
				header := request("GET", "/", creds[kind]).Header.Get("Authorization")
				b.Run(kind+"/hit", func(b *testing.B) {
					if _, err := h.Node.Auth.Authenticate(ctx, header, true); err != nil {
						b.Fatal(err)
					}
					b.ReportAllocs()
					for b.Loop() {
						if _, err := h.Node.Auth.Authenticate(ctx, header, true); err != nil {
							b.Fatal(err)
						}
					}
				})
				b.Run(kind+"/miss", func(b *testing.B) {
					p, err := h.Node.Auth.Authenticate(ctx, header, true)
					if err != nil {
						b.Fatal(err)
					}
					b.ReportAllocs()
					for b.Loop() {
						h.Node.Creds.InvalidateUser(ctx, p.UserID)
						if _, err := h.Node.Auth.Authenticate(ctx, header, true); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}

// BenchmarkClusterGET measures an authenticated GET /api/cluster through the
// whole router, in process (no network).
func BenchmarkClusterGET(b *testing.B) {
	h := nodetest.Start(b)
	creds := credentials(b, h)
	for _, kind := range []string{"password", "token", "session"} {
		b.Run(kind, func(b *testing.B) {
			r := request("GET", "/api/cluster", creds[kind])
			b.ReportAllocs()
			for b.Loop() {
				w := httptest.NewRecorder()
				h.Node.Router.ServeHTTP(w, r)
				if w.Code != http.StatusOK {
					b.Fatalf("status %d", w.Code)
				}
			}
		})
	}
}

// BenchmarkCompatOnNode compares a 4.0 token listing with the same call of a
// 2.4 client (username path, trailing slash, ids removed).
func BenchmarkCompatOnNode(b *testing.B) {
	h := nodetest.Start(b)
	creds := credentials(b, h)
	id := h.Do("GET", "/users/bench", nil, nodetest.AsRoot()).Get("id").String()
	for _, c := range []struct{ name, path, release string }{
		{"4.0 by id", "/api/users/" + id + "/tokens", ""},
		{"2.4 by username", "/api/users/bench/tokens/", "2.4"},
	} {
		b.Run(c.name, func(b *testing.B) {
			r := request("GET", c.path, creds["token"])
			if c.release != "" {
				r.Header.Set("X-API-Version", c.release)
			}
			b.ReportAllocs()
			cpu := cpuTime()
			for b.Loop() {
				w := httptest.NewRecorder()
				h.Node.Router.ServeHTTP(w, r)
				if w.Code != http.StatusOK {
					b.Fatalf("status %d: %s", w.Code, w.Body)
				}
			}
			// CPU rather than wall time: the two paths compare even
			// when other work shares the machine.
			b.ReportMetric(float64((cpuTime()-cpu).Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}

// BenchmarkLoopback is the load harness: authenticated GET /api/cluster over
// real HTTP on loopback, keep-alive, from parallel clients; it reports
// requests per second. It runs for the benchmark time only. The bare case
// is the baseline of the same run: a net/http handler answering a small
// JSON, no authentication, through the same client.
func BenchmarkLoopback(b *testing.B) {
	b.Run("bare", func(b *testing.B) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"cluster_id":"3adaf799-1551-4239-84e5-6ed939b56f62","node_id":"5ca1ab1e-0000-4000-8000-000000000001","version":"4.0.0"}`)
		}))
		defer srv.Close()
		loadURLs(b, []string{srv.URL}, func(*http.Request) {})
	})
	for _, backend := range []string{"memory", "redis"} {
		b.Run(backend, func(b *testing.B) {
			var opts []nodetest.Option
			if backend == "redis" {
				opts = append(opts, nodetest.WithRedis(redistest.Start(b).Addr))
			}
			h := nodetest.Start(b, opts...)
			creds := credentials(b, h)
			for _, kind := range []string{"password", "token", "session"} {
				b.Run(kind, func(b *testing.B) { loadGET(b, []*nodetest.Harness{h}, creds[kind]) })
			}
		})
	}
}

// BenchmarkRoundRobin compares one node with two nodes of one cluster
// (shared document store and Redis) behind a client-side round robin:
// token-authenticated GET /api/cluster over loopback, keep-alive. On a
// two-core machine both nodes share the same cores, so this measures what
// a second node costs, not what a second machine adds.
func BenchmarkRoundRobin(b *testing.B) {
	for _, nodes := range []int{1, 2} {
		b.Run(fmt.Sprintf("nodes=%d", nodes), func(b *testing.B) {
			st := nodetest.SharedStore(b)
			redis := nodetest.WithRedis(redistest.Start(b).Addr)
			hs := []*nodetest.Harness{nodetest.StartOn(b, st, redis)}
			for len(hs) < nodes {
				hs = append(hs, nodetest.StartOn(b, st, redis))
			}
			loadGET(b, hs, credentials(b, hs[0])["token"])
		})
	}
}

// loadGET is the load harness: authenticated GET /api/cluster over real
// HTTP on loopback, keep-alive, from parallel clients taking the nodes in
// turn; it reports requests per second and runs for the benchmark time.
func loadGET(b *testing.B, hs []*nodetest.Harness, auth nodetest.ReqOption) {
	urls := make([]string, len(hs))
	for i, h := range hs {
		urls[i] = h.URL + "/cluster"
	}
	loadURLs(b, urls, auth)
}

// loadURLs GETs the urls in turn from parallel keep-alive clients for the
// benchmark time and reports requests per second.
func loadURLs(b *testing.B, urls []string, auth nodetest.ReqOption) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	defer client.CloseIdleConnections()
	var next atomic.Uint64
	b.SetParallelism(4)
	start, cpu := time.Now(), cpuTime()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req, _ := http.NewRequest("GET", urls[next.Add(1)%uint64(len(urls))], nil)
			auth(req)
			resp, err := client.Do(req)
			if err != nil {
				b.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				b.Errorf("status %d", resp.StatusCode)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "req/s")
	// Process CPU per request (server and client alike) compares the
	// cases even when other work shares the machine and req/s drifts.
	b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/float64(b.N), "cpu-µs/req")
}
