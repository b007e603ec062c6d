package upstream_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/upstream"
	"github.com/loggate/loggate/compat"
)

// seen records what the fake upstream received.
type seen struct {
	mu   sync.Mutex
	reqs []*http.Request
	body []string
}

func (s *seen) last(t *testing.T) (*http.Request, string) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.reqs) == 0 {
		t.Fatal("the upstream got no request")
	}
	return s.reqs[len(s.reqs)-1], s.body[len(s.body)-1]
}

// fakeUpstream serves a Graylog-like API under /graylog/api, answering with
// the status the path asks for (/status/404) and echoing the request.
func fakeUpstream(t *testing.T) (*httptest.Server, *seen) {
	t.Helper()
	s := &seen{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.reqs, s.body = append(s.reqs, r.Clone(context.Background())), append(s.body, string(b))
		s.mu.Unlock()
		status := http.StatusOK
		if code, ok := strings.CutPrefix(r.URL.Path, "/graylog/api/status/"); ok {
			status = atoi(code)
		}
		w.Header().Set("X-API-Version", "4.0")
		w.Header().Set("X-Graylog-Node-Id", "upstream-node")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(map[string]string{"path": r.URL.EscapedPath(), "query": r.URL.RawQuery, "body": string(b)})
	}))
	t.Cleanup(srv.Close)
	return srv, s
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

type forgotten struct {
	mu    sync.Mutex
	users []string
}

func (f *forgotten) ForgetUser(_ context.Context, u string) {
	f.mu.Lock()
	f.users = append(f.users, u)
	f.mu.Unlock()
}

func newProxy(t *testing.T, base string, o upstream.ProxyOptions) *upstream.Proxy {
	t.Helper()
	u, err := upstream.ParseBaseURI(base)
	if err != nil {
		t.Fatal(err)
	}
	o.Upstream, o.Prefix = u, "/api"
	if o.NodeID == "" {
		o.NodeID = "gateway-node"
	}
	return upstream.NewProxy(o)
}

func TestProxyForwards(t *testing.T) {
	srv, got := fakeUpstream(t)
	users := &forgotten{}
	p := newProxy(t, srv.URL+"/graylog/api/", upstream.ProxyOptions{Users: users})
	tests := []struct {
		name, method, target, body string
		header                     map[string]string
		wantPath, wantQuery        string
		wantForgotten              []string
	}{
		{name: "path and query", method: "GET", target: "/api/streams/abc?page=2&q=a%20b", wantPath: "/graylog/api/streams/abc", wantQuery: "page=2&q=a%20b"},
		{name: "API root", method: "GET", target: "/api", wantPath: "/graylog/api/"},
		{name: "escaped segment", method: "GET", target: "/api/users/a%2Fb", wantPath: "/graylog/api/users/a%2Fb"},
		{name: "body", method: "POST", target: "/api/streams", body: `{"title":"x"}`, wantPath: "/graylog/api/streams"},
		{name: "rename forgets the user", method: "PUT", target: "/api/users/5f1", body: `{}`, wantPath: "/graylog/api/users/5f1", wantForgotten: []string{"5f1"}},
		{name: "deletion forgets the user", method: "DELETE", target: "/api/users/id/5f2", wantPath: "/graylog/api/users/id/5f2", wantForgotten: []string{"5f2"}},
		{name: "failed deletion forgets no one", method: "DELETE", target: "/api/status/404", wantPath: "/graylog/api/status/404"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			users.users = nil
			r := httptest.NewRequest(tt.method, tt.target, strings.NewReader(tt.body))
			r.Header.Set("Authorization", "Basic Ym9iOnB3")
			r.Header.Set("X-Requested-By", "cli")
			r.Header.Set("X-API-Version", "2.4")
			r.Header.Set("Accept-Encoding", "gzip")
			w := httptest.NewRecorder()
			w.Header().Set("X-Graylog-Node-Id", "gateway-node")
			w.Header().Set("X-Api-Version", "2.4")
			p.ServeHTTP(w, r)
			req, body := got.last(t)
			if req.URL.EscapedPath() != tt.wantPath || req.URL.RawQuery != tt.wantQuery || body != tt.body || req.Method != tt.method {
				t.Errorf("upstream got %s %s ? %s body %q", req.Method, req.URL.EscapedPath(), req.URL.RawQuery, body)
			}
			if req.Header.Get("Authorization") != "Basic Ym9iOnB3" || req.Header.Get("X-Requested-By") != "cli" {
				t.Errorf("credentials or X-Requested-By lost: %v", req.Header)
			}
			if req.Header.Get("X-API-Version") != "" {
				t.Errorf("X-API-Version %q reached the upstream", req.Header.Get("X-API-Version"))
			}
			if req.Header.Get("X-Forwarded-For") != "192.0.2.1" || req.Header.Get("X-Forwarded-Host") != "example.com" {
				t.Errorf("X-Forwarded-For %q, -Host %q", req.Header.Get("X-Forwarded-For"), req.Header.Get("X-Forwarded-Host"))
			}
			if v := w.Header().Values("X-Api-Version"); !slices.Equal(v, []string{"2.4"}) {
				t.Errorf("X-API-Version %q; want the gateway's alone", v)
			}
			if v := w.Header().Values("X-Graylog-Node-Id"); !slices.Equal(v, []string{"upstream-node"}) {
				t.Errorf("node id %q; want the upstream's alone", v)
			}
			if w.Header().Get("Content-Encoding") != "" {
				t.Errorf("Content-Encoding %q: the chain would rewrite compressed bytes", w.Header().Get("Content-Encoding"))
			}
			if !slices.Equal(users.users, tt.wantForgotten) {
				t.Errorf("forgot %q; want %q", users.users, tt.wantForgotten)
			}
		})
	}
}

func TestProxyCSRFExemptionForPinnedClients(t *testing.T) {
	srv, got := fakeUpstream(t)
	p := newProxy(t, srv.URL+"/api", upstream.ProxyOptions{})
	tests := []struct {
		name    string
		client  compat.Client
		cookie  bool
		method  string
		wantHdr string
	}{
		{"pinned 2.4 listener", compat.Client{Release: compat.MustRelease("2.4"), Source: compat.FromListener}, false, "POST", "loggate-gateway"},
		{"pinned 2.4, a browser", compat.Client{Release: compat.MustRelease("2.4"), Source: compat.FromListener}, true, "POST", ""},
		{"2.4 by header", compat.Client{Release: compat.MustRelease("2.4"), Source: compat.FromHeader}, false, "POST", ""},
		{"pinned 3.0", compat.Client{Release: compat.MustRelease("3.0"), Source: compat.FromListener}, false, "POST", ""},
		{"pinned 2.4, GET", compat.Client{Release: compat.MustRelease("2.4"), Source: compat.FromListener}, false, "GET", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(tt.method, "/api/system/sessions", nil)
			r = r.WithContext(compat.WithClient(r.Context(), tt.client))
			if tt.cookie {
				r.Header.Set("Cookie", "a=b")
			}
			p.ServeHTTP(httptest.NewRecorder(), r)
			req, _ := got.last(t)
			if h := req.Header.Get("X-Requested-By"); h != tt.wantHdr {
				t.Errorf("X-Requested-By %q; want %q", h, tt.wantHdr)
			}
		})
	}
}

func TestProxyUpstreamFailures(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + ln.Addr().String() + "/api"
	ln.Close()
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(slow.Close)
	t.Cleanup(func() { close(release) })
	slowBase, _ := upstream.ParseBaseURI(slow.URL + "/api")
	slowTransport := upstream.NewTransport(slowBase, upstream.TransportOptions{ResponseHeaderTimeout: 20 * time.Millisecond})
	tests := []struct {
		name, base string
		transport  http.RoundTripper
		status     int
		msg        string
	}{
		{"unreachable", down, nil, http.StatusBadGateway, "The upstream Graylog server at " + down + " cannot be reached"},
		{"silent", slow.URL + "/api", slowTransport, http.StatusGatewayTimeout, "did not answer in time"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProxy(t, tt.base, upstream.ProxyOptions{Transport: tt.transport})
			w := httptest.NewRecorder()
			p.ServeHTTP(w, httptest.NewRequest("GET", "/api/system", nil))
			var body struct{ Type, Message string }
			if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
				t.Fatalf("%v: %s", err, w.Body)
			}
			if w.Code != tt.status || body.Type != "ApiError" || !strings.Contains(body.Message, tt.msg) {
				t.Errorf("%d %+v; want %d ApiError %q", w.Code, body, tt.status, tt.msg)
			}
			if w.Header().Get("X-Graylog-Node-Id") != "gateway-node" {
				t.Errorf("node id %q on the gateway's own error", w.Header().Get("X-Graylog-Node-Id"))
			}
		})
	}
}

func TestProxyClientGone(t *testing.T) {
	p := newProxy(t, "http://127.0.0.1:1/api", upstream.ProxyOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	w := httptest.NewRecorder()
	p.ServeHTTP(w, httptest.NewRequest("GET", "/api/system", nil).WithContext(ctx))
	if w.Body.Len() != 0 {
		t.Errorf("answered a client that went away: %d %s", w.Code, w.Body)
	}
}

func TestForward(t *testing.T) {
	var got []string
	h := upstream.Forward(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, upstream.Credentials(r.Context()))
	}))
	r := httptest.NewRequest("GET", "/api/system", nil)
	h.ServeHTTP(httptest.NewRecorder(), r)
	r.Header.Set("Authorization", "Basic eDp5")
	h.ServeHTTP(httptest.NewRecorder(), r)
	if !slices.Equal(got, []string{"", "Basic eDp5"}) {
		t.Errorf("credentials %q", got)
	}
}

// BenchmarkProxy is the proxy alone in front of a trivial upstream.
func BenchmarkProxy(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"facility":"graylog-server"}`))
	}))
	b.Cleanup(srv.Close)
	base, _ := upstream.ParseBaseURI(srv.URL + "/api")
	p := upstream.NewProxy(upstream.ProxyOptions{Upstream: base, Prefix: "/api"})
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		r := httptest.NewRequest("GET", "/api/system", nil)
		r.Header.Set("Authorization", "Basic eDp5")
		p.ServeHTTP(w, r)
		if w.Code != http.StatusOK {
			b.Fatalf("status %d", w.Code)
		}
	}
}
