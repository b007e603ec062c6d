package node_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loggate/loggate/auth/cache/redistest"
	"github.com/loggate/loggate/cmd/loggate/config"
	"github.com/loggate/loggate/cmd/loggate/node"
	"github.com/loggate/loggate/cmd/loggate/node/nodetest"
)

// counting sits between a gateway and its upstream and records every
// request the gateway makes.
type counting struct {
	URL string // the API root, for upstream_uri
	mu  sync.Mutex
	got []*http.Request
}

func newCounting(t *testing.T, upstreamURL string) *counting {
	t.Helper()
	u, err := url.Parse(strings.TrimSuffix(upstreamURL, "/api"))
	if err != nil {
		t.Fatal(err)
	}
	c := &counting{}
	rp := httputil.NewSingleHostReverseProxy(u)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		c.got = append(c.got, r.Clone(r.Context()))
		c.mu.Unlock()
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	c.URL = srv.URL + "/api"
	return c
}

// count returns how many requests had this method and path.
func (c *counting) count(method, path string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, r := range c.got {
		if r.Method == method && r.URL.Path == path {
			n++
		}
	}
	return n
}

func (c *counting) last() *http.Request {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.got[len(c.got)-1]
}

// setup starts a native node, the counting hop and a gateway in front.
func setup(t *testing.T, opts ...nodetest.Option) (up, gw *nodetest.Harness, hop *counting) {
	t.Helper()
	up = nodetest.Start(t)
	hop = newCounting(t, up.URL)
	gw = nodetest.StartGateway(t, hop.URL, opts...)
	return up, gw, hop
}

// normalise replaces the values that differ between two runs (token
// values, times) so that bodies can be compared.
func normalise(t *testing.T, body []byte) string {
	t.Helper()
	if len(body) == 0 {
		return ""
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("not JSON: %s", body)
	}
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				switch k {
				case "token", "last_access", "id":
					x[k] = "<" + k + ">"
				default:
					walk(e)
				}
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	out, _ := json.Marshal(v)
	return string(out)
}

// step is one request of an exchange and what came back.
type step struct {
	status  int
	body    string
	release string
}

// oldTokenSession is the spec's pre-4.0 token session, as a 2.4 client sends
// it: create a token by username, list (no ids), delete by value.
func oldTokenSession(t *testing.T, h *nodetest.Harness, as nodetest.ReqOption) []step {
	t.Helper()
	v24 := nodetest.Header("X-API-Version", "2.4")
	var out []step
	add := func(r *nodetest.Response) *nodetest.Response {
		if got := r.Header.Values("X-Api-Version"); len(got) != 1 {
			t.Errorf("X-API-Version %q; want one value", got)
		}
		out = append(out, step{r.Status, normalise(t, r.Body), r.Header.Get("X-Api-Version")})
		return r
	}
	created := add(h.Do("POST", "/users/bob/tokens/cli", nil, as, v24).Want(t, http.StatusOK))
	if created.Get("id").Exists() {
		t.Errorf("2.4 client got a token id: %s", created.Body)
	}
	listed := add(h.Do("GET", "/users/bob/tokens/", nil, as, v24).Want(t, http.StatusOK))
	if !strings.Contains(string(listed.Body), created.Get("token").String()) || listed.Get("tokens.0.id").Exists() {
		t.Errorf("listing %s; want the new token, without id", listed.Body)
	}
	add(h.Do("DELETE", "/users/bob/tokens/"+created.Get("token").String(), nil, as, v24).Want(t, http.StatusNoContent))
	add(h.Do("GET", "/users/bob/tokens", nil, as, v24).Want(t, http.StatusOK))
	return out
}

func TestGatewayOldTokenSessionMatchesNative(t *testing.T) {
	up, gw, _ := setup(t)
	up.CreateUser("bob", "bobpass12")
	bob := nodetest.Basic("bob", "bobpass12")
	direct := oldTokenSession(t, up, bob)
	through := oldTokenSession(t, gw, bob)
	if !slices.Equal(direct, through) {
		t.Errorf("through the gateway:\n%v\ndirectly:\n%v", through, direct)
	}
	if through[0].release != "2.4" {
		t.Errorf("served as %q, want 2.4", through[0].release)
	}
}

func TestGatewayLatestPassesUnchanged(t *testing.T) {
	up, gw, hop := setup(t)
	id := up.CreateUser("bob", "bobpass12")
	bob := nodetest.Basic("bob", "bobpass12")
	_, tokID := up.CreateToken(id, "cli", bob)
	direct := up.Do("GET", "/users/"+id+"/tokens?x=1", nil, bob).Want(t, http.StatusOK)
	through := gw.Do("GET", "/users/"+id+"/tokens?x=1", nil, bob, nodetest.Header("X-API-Version", "4.0"),
		nodetest.Header("X-Forwarded-For", "198.51.100.7")).Want(t, http.StatusOK)
	if !bytes.Equal(direct.Body, through.Body) || through.Get("tokens.0.id").String() != tokID {
		t.Errorf("through the gateway %s; directly %s", through.Body, direct.Body)
	}
	if got, want := through.Header.Values("X-Graylog-Node-Id"), direct.Header.Values("X-Graylog-Node-Id"); !slices.Equal(got, want) {
		t.Errorf("node id %q; want the upstream's %q", got, want)
	}
	if got := through.Header.Values("X-Api-Version"); !slices.Equal(got, []string{"4.0"}) {
		t.Errorf("X-API-Version %q; want [4.0]", got)
	}
	r := hop.last()
	if r.URL.RawQuery != "x=1" || r.Header.Get("X-API-Version") != "" || r.Header.Get("Authorization") == "" {
		t.Errorf("upstream got query %q, X-API-Version %q, Authorization set %v", r.URL.RawQuery, r.Header.Get("X-API-Version"), r.Header.Get("Authorization") != "")
	}
	if xff := r.Header.Get("X-Forwarded-For"); !strings.HasPrefix(xff, "198.51.100.7, 127.0.0.1") {
		t.Errorf("X-Forwarded-For %q; want the client's chain and the caller", xff)
	}
	if r.Header.Get("X-Forwarded-Host") == "" || r.Header.Get("X-Forwarded-Proto") != "http" {
		t.Errorf("X-Forwarded-Host %q, X-Forwarded-Proto %q", r.Header.Get("X-Forwarded-Host"), r.Header.Get("X-Forwarded-Proto"))
	}
}

func TestGatewayRecognisesUsernamesOnDefaultRelease(t *testing.T) {
	up, gw, _ := setup(t)
	id := up.CreateUser("bob", "bobpass12")
	bob := nodetest.Basic("bob", "bobpass12")
	up.CreateToken(id, "cli", bob)
	for _, path := range []string{"/users/bob/tokens", "/users/" + id + "/tokens"} {
		direct := up.Do("GET", path, nil, bob).Want(t, http.StatusOK)
		through := gw.Do("GET", path, nil, bob).Want(t, http.StatusOK)
		if !bytes.Equal(direct.Body, through.Body) || !through.Get("tokens.0.id").Exists() {
			t.Errorf("GET %s through the gateway %s; directly %s", path, through.Body, direct.Body)
		}
	}
}

func TestGatewayErrorsAreTheUpstreams(t *testing.T) {
	up, gw, _ := setup(t)
	up.CreateUser("bob", "bobpass12")
	up.CreateUser("carol", "carolpass12")
	v24 := nodetest.Header("X-API-Version", "2.4")
	wrong := nodetest.Basic("bob", "wrong")
	// A username is resolved with the caller's credentials on the
	// upstream, so a refusal is the upstream's answer to that lookup (a
	// native node resolves first and refuses later, in other words).
	lookupAs := func(as nodetest.ReqOption) *nodetest.Response { return up.Do("GET", "/users/bob", nil, as) }
	tests := []struct {
		name   string
		method string
		path   string
		opts   []nodetest.ReqOption
		status int
		msg    string
		want   *nodetest.Response // default: the same request sent directly
	}{
		{"wrong credentials", "GET", "/users/bob", []nodetest.ReqOption{wrong}, 401, "", nil},
		{"wrong credentials resolving a username", "POST", "/users/bob/tokens/x", []nodetest.ReqOption{wrong, v24}, 401, "", lookupAs(wrong)},
		{"anonymous resolving a username", "GET", "/users/bob/tokens", []nodetest.ReqOption{v24}, 401, "", nil},
		{"not allowed to see the user", "GET", "/users/bob/tokens", []nodetest.ReqOption{nodetest.Basic("carol", "carolpass12"), v24}, 403, "Not allowed to view user bob", lookupAs(nodetest.Basic("carol", "carolpass12"))},
		{"unknown user", "GET", "/users/ghost/tokens", []nodetest.ReqOption{nodetest.AsRoot(), v24}, 404, "Couldn't find user ghost", nil},
		{"unknown path", "GET", "/no/such/thing", []nodetest.ReqOption{nodetest.AsRoot()}, 404, "HTTP 404 Not Found", nil},
		{"wrong method", "PATCH", "/cluster", []nodetest.ReqOption{nodetest.AsRoot()}, 405, "HTTP 405 Method Not Allowed", nil},
		{"CSRF header missing", "POST", "/system/sessions", []nodetest.ReqOption{nodetest.Header("X-Requested-By", "")}, 400, "CSRF protection header is missing", nil},
		{"unknown release", "GET", "/system", []nodetest.ReqOption{nodetest.AsRoot(), nodetest.Header("X-API-Version", "9.9")}, 400, "Unsupported API release", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := gw.Do(tt.method, tt.path, map[string]string{"username": "bob", "password": "bobpass12"}, tt.opts...)
			got.WantError(t, tt.status, tt.msg)
			if tt.msg == "Unsupported API release" {
				return // the gateway's own answer
			}
			want := tt.want
			if want == nil {
				want = up.Do(tt.method, tt.path, map[string]string{"username": "bob", "password": "bobpass12"}, tt.opts...)
			}
			if got.Status != want.Status || !bytes.Equal(got.Body, want.Body) {
				t.Errorf("through the gateway %d %s; directly %d %s", got.Status, got.Body, want.Status, want.Body)
			}
			if tt.status == 401 && got.Header.Get("WWW-Authenticate") != want.Header.Get("WWW-Authenticate") {
				t.Errorf("WWW-Authenticate %q; directly %q", got.Header.Get("WWW-Authenticate"), want.Header.Get("WWW-Authenticate"))
			}
		})
	}
}

func TestGatewayUpstreamDown(t *testing.T) {
	up := nodetest.Start(t)
	gw := nodetest.StartGateway(t, up.URL)
	up.Stop()
	for _, opts := range [][]nodetest.ReqOption{
		{nodetest.AsRoot()},
		{nodetest.AsRoot(), nodetest.Header("X-API-Version", "2.4")},
	} {
		r := gw.Do("GET", "/users/admin/tokens", nil, opts...)
		r.WantError(t, http.StatusBadGateway, "The upstream Graylog server at "+up.URL+" cannot be reached")
		if r.Header.Get("X-Graylog-Node-Id") == "" {
			t.Errorf("the gateway's own error has no node id")
		}
	}
}

func TestGatewayCachesUsernameLookups(t *testing.T) {
	up, gw, hop := setup(t)
	id := up.CreateUser("bob", "bobpass12")
	v24 := nodetest.Header("X-API-Version", "2.4")
	bob := nodetest.Basic("bob", "bobpass12")
	for range 3 {
		gw.Do("GET", "/users/bob/tokens", nil, bob, v24).Want(t, http.StatusOK)
	}
	if n := hop.count("GET", "/api/users/bob"); n != 1 {
		t.Fatalf("%d lookups of bob on the upstream for three requests; want 1", n)
	}
	if n := hop.count("GET", "/api/users/"+id+"/tokens"); n != 3 {
		t.Errorf("%d token listings by id on the upstream; want 3", n)
	}
	// Another credential does not share bob's entry (root may not list
	// bob's tokens, but resolves his name first).
	gw.Do("GET", "/users/bob/tokens", nil, nodetest.AsRoot(), v24).WantError(t, http.StatusForbidden, "Cannot access other people's tokens.")
	if n := hop.count("GET", "/api/users/bob"); n != 2 {
		t.Errorf("%d lookups after root asked; want 2", n)
	}
	// Deleting bob through the gateway drops what was cached about him.
	gw.Do("DELETE", "/users/id/"+id, nil, nodetest.AsRoot()).Want(t, http.StatusNoContent)
	gw.Do("GET", "/users/bob/tokens", nil, nodetest.AsRoot(), v24).WantError(t, http.StatusNotFound, "Couldn't find user bob")
	if n := hop.count("GET", "/api/users/bob"); n != 3 {
		t.Errorf("%d lookups after the deletion; want 3 (the entry dropped)", n)
	}
}

func TestGatewaysShareLookupsInRedis(t *testing.T) {
	redis := redistest.Start(t)
	up := nodetest.Start(t)
	hop := newCounting(t, up.URL)
	gw1 := nodetest.StartGateway(t, hop.URL, nodetest.WithRedis(redis.Addr))
	gw2 := nodetest.StartGateway(t, hop.URL, nodetest.WithRedis(redis.Addr))
	id := up.CreateUser("bob", "bobpass12")
	v24 := nodetest.Header("X-API-Version", "2.4")
	bob := nodetest.Basic("bob", "bobpass12")
	gw1.Do("GET", "/users/bob/tokens", nil, bob, v24).Want(t, http.StatusOK)
	gw2.Do("GET", "/users/bob/tokens", nil, bob, v24).Want(t, http.StatusOK)
	if n := hop.count("GET", "/api/users/bob"); n != 1 {
		t.Fatalf("%d lookups by two gateways sharing Redis; want 1", n)
	}
	keys, err := redis.Client().Keys(t.Context(), "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if strings.Contains(k, "bobpass12") || strings.Contains(k, "Basic ") {
			t.Errorf("Redis key %q holds the credential", k)
		}
	}
	// A deletion through one gateway is seen by the other.
	gw2.Do("DELETE", "/users/id/"+id, nil, nodetest.AsRoot()).Want(t, http.StatusNoContent)
	gw1.Do("GET", "/users/bob/tokens", nil, bob, v24).Want(t, http.StatusUnauthorized)
	if n := hop.count("GET", "/api/users/bob"); n != 2 {
		t.Errorf("%d lookups after the deletion; want 2", n)
	}
}

func TestGatewayPinnedListenerKeepsCSRFExemption(t *testing.T) {
	up := nodetest.Start(t)
	up.CreateUser("bob", "bobpass12")
	gw := nodetest.StartGateway(t, up.URL, nodetest.WithConfig(func(c *config.Config) {
		c.CompatListeners = []config.Listener{{Address: "127.0.0.1:0", Release: "2.4"}}
	}))
	addrs := gw.Node.CompatAddrs()
	if len(addrs) != 1 {
		t.Fatalf("compat listeners %v", addrs)
	}
	noHeader := nodetest.Header("X-Requested-By", "")
	bob := nodetest.Basic("bob", "bobpass12")
	r := gw.Do("POST", "/users/bob/tokens/cli", nil, bob, noHeader, nodetest.Via(addrs[0])).Want(t, http.StatusOK)
	if r.Get("id").Exists() || r.Header.Get("X-Api-Version") != "2.4" {
		t.Errorf("pinned 2.4 client got %s (release %q)", r.Body, r.Header.Get("X-Api-Version"))
	}
	// On the main listener the upstream's rule holds.
	gw.Do("POST", "/users/bob/tokens/cli", nil, bob, noHeader, nodetest.Header("X-API-Version", "2.4")).
		WantError(t, http.StatusBadRequest, "CSRF protection header is missing")
}

func TestGatewayRewritesCompressedResponses(t *testing.T) {
	up, gw, _ := setup(t)
	id := up.CreateUser("bob", "bobpass12")
	bob := nodetest.Basic("bob", "bobpass12")
	for _, name := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
		up.CreateToken(id, name, bob)
	}
	r := gw.Do("GET", "/users/bob/tokens", nil, bob, nodetest.Header("X-API-Version", "2.4"), nodetest.Header("Accept-Encoding", "gzip")).Want(t, http.StatusOK)
	if r.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("Content-Encoding %q; want gzip for %d bytes", r.Header.Get("Content-Encoding"), len(r.Body))
	}
	if v := r.Header.Values("Vary"); !slices.Equal(v, []string{"Accept-Encoding"}) {
		t.Errorf("Vary %q; want the gateway's alone", v)
	}
	zr, err := gzip.NewReader(bytes.NewReader(r.Body))
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Tokens []map[string]any `json:"tokens"`
	}
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	var names []string
	for _, tok := range got.Tokens {
		if _, ok := tok["id"]; ok {
			t.Errorf("token with id for a 2.4 client: %v", tok)
		}
		names = append(names, tok["name"].(string))
	}
	sort.Strings(names)
	if strings.Join(names, "") != "abcdefgh" {
		t.Errorf("tokens %q", names)
	}
}

// BenchmarkGateway measures what the gateway adds: each iteration sends one
// GET directly to the upstream and one through the gateway, and the medians
// of both are reported with their difference. The side-by-side case adds
// nginx as a plain reverse proxy of the same upstream, the yardstick (make
// bench-gateway): every iteration sends the three GETs in turn, so the
// machine's drift over the run falls on all three alike.
func BenchmarkGateway(b *testing.B) {
	b.Run("loggate", func(b *testing.B) {
		up := nodetest.Start(b)
		benchProxies(b, up.URL, map[string]string{"proxied": nodetest.StartGateway(b, up.URL).URL})
	})
	b.Run("side-by-side", func(b *testing.B) {
		up := nodetest.Start(b)
		benchProxies(b, up.URL, map[string]string{
			"loggate": nodetest.StartGateway(b, up.URL).URL,
			"nginx":   startNginx(b, up.URL),
		})
	})
}

// benchProxies compares GETs sent to the upstream directly and through
// each proxy (by name), in turn, and reports the medians: direct-p50-µs,
// <name>-p50-µs, and what each proxy adds, <name>-added-p50-µs.
func benchProxies(b *testing.B, upstream string, proxies map[string]string) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	get := func(base string) time.Duration {
		req, _ := http.NewRequest("GET", base+"/system", nil)
		req.SetBasicAuth(nodetest.RootUser, nodetest.RootPassword)
		start := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		d := time.Since(start)
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("status %d", resp.StatusCode)
		}
		return d
	}
	names := slices.Sorted(maps.Keys(proxies))
	get(upstream) // warm the credential caches and connections
	for _, name := range names {
		get(proxies[name])
	}
	b.ReportAllocs()
	direct := make([]time.Duration, 0, b.N)
	through := make(map[string][]time.Duration, len(names))
	for b.Loop() {
		direct = append(direct, get(upstream))
		for _, name := range names {
			through[name] = append(through[name], get(proxies[name]))
		}
	}
	p50 := func(ds []time.Duration) float64 {
		slices.Sort(ds)
		return float64(ds[len(ds)/2]) / float64(time.Microsecond)
	}
	d := p50(direct)
	b.ReportMetric(d, "direct-p50-µs")
	for _, name := range names {
		g := p50(through[name])
		b.ReportMetric(g, name+"-p50-µs")
		b.ReportMetric(g-d, name+"-added-p50-µs")
	}
}

func TestNewGatewayRefusesABadConfiguration(t *testing.T) {
	for _, tt := range []struct {
		name string
		edit func(*config.Config)
		want string
	}{
		{"no upstream", func(c *config.Config) { c.UpstreamURI = "" }, "upstream_uri"},
		{"bad release", func(c *config.Config) { c.CompatDefaultRelease = "9.9" }, "compat_default_release"},
		{"bad redis", func(c *config.Config) { c.RedisURI = "http://x" }, "redis_uri"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := config.Default()
			cfg.UpstreamURI = "http://127.0.0.1:1/api"
			tt.edit(&cfg)
			n, err := node.NewGateway(t.Context(), cfg, node.Options{})
			if err == nil || !strings.Contains(err.Error(), tt.want) || n != nil {
				t.Fatalf("NewGateway = %v, %v; want an error naming %s", n, err, tt.want)
			}
		})
	}
}

// TestGatewayServesSearchAggregations: the 3.x aggregations an old client
// asks a gateway for are converted and judged by the upstream Graylog. The
// gateway checked the caller's permissions itself, where no one is
// authenticated, so every aggregation was a 401.
func TestGatewayServesSearchAggregations(t *testing.T) {
	up, gw, _ := setup(t)
	v33 := nodetest.Header("X-API-Version", "3.3")
	for _, path := range []string{
		"/count/total",
		"/search/universal/relative/histogram?query=%2A&interval=day&range=0",
		"/search/universal/relative/terms?query=%2A&field=source&range=0",
	} {
		t.Run(path, func(t *testing.T) {
			want := up.Do("GET", path, nil, nodetest.AsRoot(), v33).Want(t, http.StatusOK)
			got := gw.Do("GET", path, nil, nodetest.AsRoot(), v33).Want(t, http.StatusOK)
			if want.Get("total").Int() != got.Get("total").Int() {
				t.Errorf("total %d through the gateway, %d upstream", got.Get("total").Int(), want.Get("total").Int())
			}
		})
	}
	// The upstream still refuses those it does not know.
	gw.Do("GET", "/search/universal/relative/terms?query=%2A&field=source&range=0", nil, nodetest.Basic("nobody", "wrong-password"), v33).
		Want(t, http.StatusUnauthorized)
}
