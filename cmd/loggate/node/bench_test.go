package node_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/klauspost/compress/gzhttp"

	"github.com/loggate/loggate/auth/cache/redistest"
	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
)

// credentials returns an Authorization value for each credential form.
func credentials(tb testing.TB, h *nodetest.Harness) map[string]nodetest.ReqOption {
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
			path := r.URL.Path // trimmed by the router: reset for every request
			for b.Loop() {
				r.URL.Path = path
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

// BenchmarkCompatRatio is BenchmarkCompatOnNode's ratio measured in one
// run: slices of 2,000 requests of each path alternate for 30 rounds, so
// that whatever else the machine does weighs on both; a round's ratio is
// the 4.0 path's time per request over the 2.4 client's (wall time and
// CPU time), and the reported figures are the medians over the rounds.
func BenchmarkCompatRatio(b *testing.B) {
	h := nodetest.Start(b)
	creds := credentials(b, h)
	id := h.Do("GET", "/users/bench", nil, nodetest.AsRoot()).Get("id").String()
	current := request("GET", "/api/users/"+id+"/tokens", creds["token"])
	old := request("GET", "/api/users/bench/tokens/", creds["token"])
	old.Header.Set("X-API-Version", "2.4")
	slice := func(r *http.Request) (wall, cpu time.Duration) {
		// The router trims a trailing slash off the URL it is given: each
		// request starts from the path as the client sent it.
		path := r.URL.Path
		start, c := time.Now(), cpuTime()
		for range 2000 {
			r.URL.Path = path
			w := httptest.NewRecorder()
			h.Node.Router.ServeHTTP(w, r)
			if w.Code != http.StatusOK {
				b.Fatalf("%s: status %d: %s", r.URL, w.Code, w.Body)
			}
		}
		return time.Since(start), cpuTime() - c
	}
	slice(current)
	slice(old)
	var ratio, cpuRatio []float64
	for range 30 {
		w4, c4 := slice(current)
		w2, c2 := slice(old)
		ratio = append(ratio, w4.Seconds()/w2.Seconds())
		cpuRatio = append(cpuRatio, c4.Seconds()/c2.Seconds())
	}
	b.ReportMetric(median(ratio), "ratio")
	b.ReportMetric(median(cpuRatio), "cpu-ratio")
	b.ReportMetric(0, "ns/op") // one run of fixed length: ns/op says nothing
}

// BenchmarkLoopback is the load harness: authenticated GET /api/cluster over
// real HTTP on loopback, keep-alive, from parallel clients; it reports
// requests per second. It runs for the benchmark time only. The bare case
// is the baseline of the same run: a net/http handler answering a small
// JSON, no authentication, through the same client.
func BenchmarkLoopback(b *testing.B) {
	b.Run("bare", func(b *testing.B) {
		loadURLs(b, []string{bareServer(b)}, func(*http.Request) {})
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

// BenchmarkLoopbackRatio is BenchmarkLoopback's ratio measured in one run:
// short slices of the bare server and of each credential kind (memory
// credential cache) alternate, so that whatever else the machine does
// weighs on both sides. A kind's ratio in a round is its req/s over the
// mean of the bare slices before and after it, its cpu-ratio the bare CPU µs
// per request over its own; the reported figures are the medians over the
// rounds. It runs ~13 s once, whatever the benchmark time.
func BenchmarkLoopbackRatio(b *testing.B) {
	kinds := []string{"password", "token", "session"}
	h := nodetest.Start(b)
	creds := credentials(b, h)
	client := loadClient(b)
	bare := &loader{client: client, urls: []string{bareServer(b)}, auth: func(*http.Request) {}}
	var loaders []*loader
	for _, kind := range kinds {
		loaders = append(loaders, &loader{client: client, urls: []string{h.URL + "/cluster"}, auth: creds[kind]})
	}
	for i, r := range interleave(b, 10, 300*time.Millisecond, bare, loaders) {
		b.ReportMetric(median(r.ratio), kinds[i]+"-ratio")
		b.ReportMetric(median(r.cpuRatio), kinds[i]+"-cpu-ratio")
	}
	b.ReportMetric(0, "ns/op") // one run of fixed length: ns/op says nothing
}

// BenchmarkLoopbackLayers splits what a token-authenticated GET /api/cluster
// costs the running server into layers, in one run of interleaved slices
// like BenchmarkLoopbackRatio's. The layers, each reported as its median
// CPU µs per request and its req/s ratio to bare:
//   - answer: a plain handler sending the node's own answer (body and
//     headers) to a client sending the same Authorization header;
//   - gzip: that handler behind gzhttp as the router uses it;
//   - router: the node's router, served by httptest;
//   - node: the node's own server.
//
// The steps between neighbours are what each layer adds on loopback, where
// caches are cold between round trips, unlike in BenchmarkClusterGET. It
// runs ~35 s once, whatever the benchmark time.
func BenchmarkLoopbackLayers(b *testing.B) {
	h := nodetest.Start(b)
	token := credentials(b, h)["token"]
	answer := h.Do("GET", "/cluster", nil, token)
	if answer.Status != http.StatusOK {
		b.Fatalf("GET /cluster: %d", answer.Status)
	}
	// The answer's headers but those net/http writes, and Vary, which
	// gzhttp adds.
	plain := func(vary bool) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			for k, v := range answer.Header {
				if k != "Date" && k != "Content-Length" && (vary || k != "Vary") {
					w.Header()[k] = v
				}
			}
			_, _ = w.Write(answer.Body)
		})
	}
	// The router's gzip stage: gzhttp with Graylog's threshold.
	wrap, err := gzhttp.NewWrapper(gzhttp.MinSize(512))
	if err != nil {
		b.Fatal(err)
	}
	client := loadClient(b)
	layer := func(h http.Handler, path string) *loader {
		srv := httptest.NewServer(h)
		b.Cleanup(srv.Close)
		return &loader{client: client, urls: []string{srv.URL + path}, auth: token}
	}
	names := []string{"answer", "gzip", "router", "node"}
	loaders := []*loader{
		layer(plain(true), "/"),
		layer(wrap(plain(false)), "/"),
		layer(h.Node.Router, "/api/cluster"),
		{client: client, urls: []string{h.URL + "/cluster"}, auth: token},
	}
	bare := &loader{client: client, urls: []string{bareServer(b)}, auth: func(*http.Request) {}}
	got := interleave(b, 30, 200*time.Millisecond, bare, loaders)
	b.ReportMetric(median(got[0].baseCPU), "bare-cpu-µs")
	for i, r := range got {
		b.ReportMetric(median(r.cpu), names[i]+"-cpu-µs")
		b.ReportMetric(median(r.ratio), names[i]+"-ratio")
	}
	b.ReportMetric(0, "ns/op") // one run of fixed length: ns/op says nothing
}

// slicesOf are one loader's slices of an interleave run: per round, its
// req/s over the mean of the baseline slices before and after it (ratio),
// that mean CPU µs per request over its own (cpuRatio), its own CPU µs per
// request (cpu) and that of the mean baseline (baseCPU).
type slicesOf struct{ ratio, cpuRatio, cpu, baseCPU []float64 }

// interleave runs one slice of base and of each loader to open connections
// and fill caches, then rounds of a base slice followed by one slice of each
// loader, then a last base slice, so that every loader's slice has a base
// slice on each side; whatever else the machine does weighs on both.
func interleave(b *testing.B, rounds int, slice time.Duration, base *loader, loaders []*loader) []slicesOf {
	for _, l := range append([]*loader{base}, loaders...) {
		loadSlice(b, l, slice)
	}
	bases := make([]sliceRate, 0, rounds+1)
	got := make([][]sliceRate, len(loaders))
	for range rounds {
		bases = append(bases, loadSlice(b, base, slice))
		for i, l := range loaders {
			got[i] = append(got[i], loadSlice(b, l, slice))
		}
	}
	bases = append(bases, loadSlice(b, base, slice))
	out := make([]slicesOf, len(loaders))
	for i := range loaders {
		for r, k := range got[i] {
			perSecond := (bases[r].perSecond + bases[r+1].perSecond) / 2
			cpu := (bases[r].cpuPerReq + bases[r+1].cpuPerReq) / 2
			out[i].ratio = append(out[i].ratio, k.perSecond/perSecond)
			out[i].cpuRatio = append(out[i].cpuRatio, cpu/k.cpuPerReq)
			out[i].cpu = append(out[i].cpu, k.cpuPerReq)
			out[i].baseCPU = append(out[i].baseCPU, cpu)
		}
	}
	return out
}

// sliceRate is what one slice of BenchmarkLoopbackRatio measured.
type sliceRate struct{ perSecond, cpuPerReq float64 }

// loadSlice runs l from parallel keep-alive clients (as many as loadURLs
// runs) for d.
func loadSlice(b *testing.B, l *loader, d time.Duration) sliceRate {
	var n atomic.Int64
	var stop atomic.Bool
	var wg sync.WaitGroup
	start, cpu := time.Now(), cpuTime()
	timer := time.AfterFunc(d, func() { stop.Store(true) })
	defer timer.Stop()
	for range loadParallelism * runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for !stop.Load() {
				if err := l.get(); err != nil {
					b.Error(err)
					return
				}
				n.Add(1)
			}
		})
	}
	wg.Wait()
	elapsed, used := time.Since(start), cpuTime()-cpu
	if n.Load() == 0 {
		b.Fatal("no request completed in a slice")
	}
	return sliceRate{
		perSecond: float64(n.Load()) / elapsed.Seconds(),
		cpuPerReq: float64(used.Microseconds()) / float64(n.Load()),
	}
}

// median returns the median of xs (which it sorts).
func median(xs []float64) float64 {
	slices.Sort(xs)
	if n := len(xs); n%2 == 0 {
		return (xs[n/2-1] + xs[n/2]) / 2
	}
	return xs[len(xs)/2]
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

// bareServer starts the baseline of the loopback harnesses, a net/http
// handler answering a small JSON without authentication, and returns its URL.
func bareServer(b *testing.B) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"cluster_id":"3adaf799-1551-4239-84e5-6ed939b56f62","node_id":"5ca1ab1e-0000-4000-8000-000000000001","version":"4.0.0"}`)
	}))
	b.Cleanup(srv.Close)
	return srv.URL
}

// loadClient is the client of the loopback harnesses: keep-alive, with room
// for every parallel client's connection.
func loadClient(b *testing.B) *http.Client {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	b.Cleanup(client.CloseIdleConnections)
	return client
}

// loadParallelism is b.SetParallelism's factor: 4 clients per GOMAXPROCS,
// 8 keep-alive connections on two cores.
const loadParallelism = 4

// loader GETs its urls in turn with one credential.
type loader struct {
	client *http.Client
	urls   []string
	auth   nodetest.ReqOption
	next   atomic.Uint64
}

// get makes one request and reads the answer, which must be a 200.
func (l *loader) get() error {
	req, _ := http.NewRequest("GET", l.urls[l.next.Add(1)%uint64(len(l.urls))], nil)
	l.auth(req)
	resp, err := l.client.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	return nil
}

// loadURLs GETs the urls in turn from parallel keep-alive clients for the
// benchmark time and reports requests per second.
func loadURLs(b *testing.B, urls []string, auth nodetest.ReqOption) {
	l := &loader{client: loadClient(b), urls: urls, auth: auth}
	b.SetParallelism(loadParallelism)
	start, cpu := time.Now(), cpuTime()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := l.get(); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "req/s")
	// Process CPU per request (server and client alike) compares the
	// cases even when other work shares the machine and req/s drifts.
	b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/float64(b.N), "cpu-µs/req")
}
