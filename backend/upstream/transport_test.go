package upstream_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/upstream"
	"github.com/loggate/loggate/internal/tcptest"
)

// countingUpstream is an httptest server that counts the connections
// opened to it.
func countingUpstream(t *testing.T, h http.HandlerFunc) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, &conns
}

func newTransport(t *testing.T, rawURL string, o upstream.TransportOptions) *upstream.Transport {
	t.Helper()
	base, err := upstream.ParseBaseURI(rawURL + "/api")
	if err != nil {
		t.Fatal(err)
	}
	tr := upstream.NewTransport(base, o)
	t.Cleanup(tr.CloseIdleConnections)
	return tr
}

// roundTrip sends one request and reads the whole answer.
func roundTrip(t *testing.T, tr http.RoundTripper, method, url string, body io.Reader) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, body)
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: body: %v", method, url, err)
	}
	resp.Body.Close()
	return resp, string(b)
}

func TestTransportKeepsConnections(t *testing.T) {
	srv, conns := countingUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/empty":
			w.WriteHeader(http.StatusNoContent)
		case "/api/unmodified":
			w.WriteHeader(http.StatusNotModified)
		case "/api/chunked":
			_, _ = io.WriteString(w, "one ")
			w.(http.Flusher).Flush()
			_, _ = io.WriteString(w, "two")
		default:
			_, _ = io.WriteString(w, `{"path":"`+r.URL.Path+`","method":"`+r.Method+`"}`)
		}
	})
	tr := newTransport(t, srv.URL, upstream.TransportOptions{})
	tests := []struct {
		method, path string
		status       int
		body         string
	}{
		{"GET", "/api/system", 200, `{"path":"/api/system","method":"GET"}`},
		{"HEAD", "/api/system", 200, ""},
		{"GET", "/api/empty", 204, ""},
		{"GET", "/api/unmodified", 304, ""},
		{"GET", "/api/chunked", 200, "one two"},
		{"POST", "/api/system", 200, `{"path":"/api/system","method":"POST"}`}, // net/http's side
		{"GET", "/api/again", 200, `{"path":"/api/again","method":"GET"}`},
	}
	for _, tt := range tests {
		resp, body := roundTrip(t, tr, tt.method, srv.URL+tt.path, nil)
		if resp.StatusCode != tt.status || body != tt.body {
			t.Errorf("%s %s = %d %q; want %d %q", tt.method, tt.path, resp.StatusCode, body, tt.status, tt.body)
		}
	}
	// One inline connection for all GETs and HEADs, one for the POST.
	if n := conns.Load(); n != 2 {
		t.Errorf("%d connections opened; want 2: one kept alive for the inline requests, net/http's for the POST", n)
	}
}

func TestTransportDropsConnectionsNotReadToTheEnd(t *testing.T) {
	big := strings.Repeat("x", 256<<10)
	srv, conns := countingUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/close" {
			w.Header().Set("Connection", "close")
		}
		_, _ = io.WriteString(w, big)
	})
	tr := newTransport(t, srv.URL, upstream.TransportOptions{})
	// Closed after 10 bytes: the rest is not read, the connection goes.
	req, _ := http.NewRequest("GET", srv.URL+"/api/big", nil)
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(resp.Body, make([]byte, 10)); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if _, err := resp.Body.Read(make([]byte, 10)); err == nil {
		t.Error("read after Close succeeded")
	}
	// Connection: close: read to the end, still not kept.
	roundTrip(t, tr, "GET", srv.URL+"/api/close", nil)
	if _, body := roundTrip(t, tr, "GET", srv.URL+"/api/big", nil); body != big {
		t.Errorf("body of %d bytes; want %d", len(body), len(big))
	}
	if n := conns.Load(); n != 3 {
		t.Errorf("%d connections opened; want 3", n)
	}
}

// rawUpstream is an upstream answering by hand: serve has each connection.
func rawUpstream(t *testing.T, serve func(net.Conn)) string {
	t.Helper()
	return "http://" + tcptest.Serve(t, serve).String()
}

// readRequest reads one request's head from c.
func readRequest(t *testing.T, br *bufio.Reader) *http.Request {
	req, err := http.ReadRequest(br)
	if err != nil {
		t.Errorf("upstream: %v", err)
		return nil
	}
	return req
}

func TestTransportRetriesAClosedKeptAliveConnection(t *testing.T) {
	var conns atomic.Int32
	closed := make(chan struct{}, 4)
	url := rawUpstream(t, func(c net.Conn) {
		conns.Add(1)
		// One answer, announced as kept alive, then the connection is
		// closed as an upstream's idle timeout would.
		if readRequest(t, bufio.NewReader(c)) == nil {
			return
		}
		_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
		c.Close()
		closed <- struct{}{}
	})
	tr := newTransport(t, url, upstream.TransportOptions{})
	for i := range 3 {
		if resp, body := roundTrip(t, tr, "GET", url+"/api/system", nil); resp.StatusCode != 200 || body != "ok" {
			t.Fatalf("request %d: %d %q", i, resp.StatusCode, body)
		}
		<-closed
	}
	if n := conns.Load(); n != 3 {
		t.Errorf("%d connections; want 3", n)
	}
}

func TestTransportFailures(t *testing.T) {
	silent := rawUpstream(t, func(c net.Conn) {
		if readRequest(t, bufio.NewReader(c)) != nil {
			_, _ = io.Copy(io.Discard, c) // never answers
		}
	})
	hangsUp := rawUpstream(t, func(c net.Conn) {
		readRequest(t, bufio.NewReader(c))
	})
	endlessHeaders := rawUpstream(t, func(c net.Conn) {
		if readRequest(t, bufio.NewReader(c)) == nil {
			return
		}
		_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\n")
		line := []byte("X-Padding: " + strings.Repeat("p", 1000) + "\r\n")
		for {
			if _, err := c.Write(line); err != nil {
				return
			}
		}
	})
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	down := "http://" + ln.Addr().String()
	ln.Close()
	// Only the silent upstream waits for the header timeout; the others
	// must fail on their own, however slow the machine (reading 1 MiB of
	// headers under -race can take longer than the silent case's wait).
	const short, long = 50 * time.Millisecond, time.Minute
	tests := []struct {
		name, url string
		wait      time.Duration
		timeout   bool
		want      string
	}{
		{"silent", silent, short, true, "timeout"},
		{"hangs up", hangsUp, long, false, "EOF"},
		{"endless headers", endlessHeaders, long, false, "exceed 1 MiB"},
		{"down", down, long, false, "refused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := newTransport(t, tt.url, upstream.TransportOptions{ResponseHeaderTimeout: tt.wait})
			req, _ := http.NewRequest("GET", tt.url+"/api/system", nil)
			resp, err := tr.RoundTrip(req)
			if err == nil {
				resp.Body.Close()
				t.Fatalf("answered %d", resp.StatusCode)
			}
			var ne net.Error
			if timeout := errors.As(err, &ne) && ne.Timeout(); timeout != tt.timeout || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v (timeout %v); want one containing %q, timeout %v", err, timeout, tt.want, tt.timeout)
			}
		})
	}
}

func TestTransportBodyOutlivesTheHeaderTimeout(t *testing.T) {
	const timeout = 50 * time.Millisecond
	url := rawUpstream(t, func(c net.Conn) {
		if readRequest(t, bufio.NewReader(c)) == nil {
			return
		}
		_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nslo")
		// The upstream's own pace, not the test's synchronisation: the
		// body ends well after the header timeout would have fired.
		time.Sleep(4 * timeout)
		_, _ = io.WriteString(c, "w")
	})
	tr := newTransport(t, url, upstream.TransportOptions{ResponseHeaderTimeout: timeout})
	start := time.Now()
	if _, body := roundTrip(t, tr, "GET", url+"/api/export", nil); body != "slow" {
		t.Errorf("body %q", body)
	}
	if d := time.Since(start); d < 4*timeout {
		t.Errorf("the body came in %v, before the upstream sent its end", d)
	}
}

func TestTransportCancel(t *testing.T) {
	for _, phase := range []string{"headers", "body"} {
		t.Run(phase, func(t *testing.T) {
			asked := make(chan struct{})
			gone := make(chan struct{})
			url := rawUpstream(t, func(c net.Conn) {
				if readRequest(t, bufio.NewReader(c)) == nil {
					return
				}
				if phase == "body" {
					_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npart")
				}
				close(asked)
				_, _ = io.Copy(io.Discard, c) // returns when the gateway closes
				close(gone)
			})
			tr := newTransport(t, url, upstream.TransportOptions{})
			ctx, cancel := context.WithCancel(t.Context())
			req, _ := http.NewRequestWithContext(ctx, "GET", url+"/api/search", nil)
			var err error
			if phase == "headers" {
				go func() {
					<-asked
					cancel()
				}()
				_, err = tr.RoundTrip(req)
			} else {
				resp, rerr := tr.RoundTrip(req)
				if rerr != nil {
					t.Fatal(rerr)
				}
				if _, rerr := io.ReadFull(resp.Body, make([]byte, 4)); rerr != nil {
					t.Fatal(rerr)
				}
				cancel()
				_, err = io.ReadAll(resp.Body)
				resp.Body.Close()
			}
			if !errors.Is(err, context.Canceled) {
				t.Errorf("error %v; want context.Canceled", err)
			}
			<-gone // the upstream's connection was closed
		})
	}
}

func TestTransportGzip(t *testing.T) {
	const text = `{"messages":["one","two","three"]}`
	srv, _ := countingUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Accept-Encoding") != "gzip" {
			_, _ = io.WriteString(w, text)
			return
		}
		w.Header().Set("Content-Encoding", "gzip")
		if r.URL.Path == "/api/empty" {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		zw := gzip.NewWriter(w)
		_, _ = io.WriteString(zw, text)
		_ = zw.Close()
	})
	tr := newTransport(t, srv.URL, upstream.TransportOptions{})
	for range 2 { // the second reuses the connection and a pooled reader
		resp, body := roundTrip(t, tr, "GET", srv.URL+"/api/search", nil)
		if body != text || resp.Header.Get("Content-Encoding") != "" || !resp.Uncompressed || resp.ContentLength != -1 {
			t.Errorf("body %q, Content-Encoding %q, Uncompressed %v, length %d; want the plain text", body, resp.Header.Get("Content-Encoding"), resp.Uncompressed, resp.ContentLength)
		}
	}
	// An answer without a body keeps what it says of its encoding.
	if resp, _ := roundTrip(t, tr, "GET", srv.URL+"/api/empty", nil); resp.Header.Get("Content-Encoding") != "gzip" || resp.Uncompressed {
		t.Errorf("204: Content-Encoding %q, Uncompressed %v; want them as sent", resp.Header.Get("Content-Encoding"), resp.Uncompressed)
	}
	// A caller that asks for gzip itself gets it as sent.
	req, _ := http.NewRequest("GET", srv.URL+"/api/search", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	zr, err := gzip.NewReader(resp.Body)
	if err != nil {
		t.Fatalf("not gzipped: %v", err)
	}
	if b, _ := io.ReadAll(zr); string(b) != text || resp.Uncompressed {
		t.Errorf("body %q, Uncompressed %v", b, resp.Uncompressed)
	}
	if req.Header.Get("Accept-Encoding") != "gzip" || len(req.Header) != 1 {
		t.Errorf("the caller's request was changed: %v", req.Header)
	}
}

func TestTransportPassesOverInformationalAnswers(t *testing.T) {
	url := rawUpstream(t, func(c net.Conn) {
		if readRequest(t, bufio.NewReader(c)) == nil {
			return
		}
		_, _ = io.WriteString(c, "HTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
		_, _ = io.Copy(io.Discard, c)
	})
	tr := newTransport(t, url, upstream.TransportOptions{})
	if resp, body := roundTrip(t, tr, "GET", url+"/api/system", nil); resp.StatusCode != 200 || body != "ok" || resp.Header.Get("Link") != "" {
		t.Errorf("%d %q %v; want the final answer", resp.StatusCode, body, resp.Header)
	}
}

// BenchmarkTransport is a GET of a small answer from a local upstream,
// inline and through net/http's Transport.
func BenchmarkTransport(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"facility":"graylog-server","codename":"Noir"}`)
	}))
	b.Cleanup(srv.Close)
	base, _ := upstream.ParseBaseURI(srv.URL + "/api")
	for _, tt := range []struct {
		name string
		tr   http.RoundTripper
	}{
		{"inline", upstream.NewTransport(base, upstream.TransportOptions{})},
		{"net-http", &http.Transport{ResponseHeaderTimeout: 2 * time.Minute}},
	} {
		b.Run(tt.name, func(b *testing.B) {
			b.ReportAllocs()
			buf := new(bytes.Buffer)
			for b.Loop() {
				req, _ := http.NewRequest("GET", srv.URL+"/api/system", nil)
				resp, err := tt.tr.RoundTrip(req)
				if err != nil {
					b.Fatal(err)
				}
				buf.Reset()
				_, _ = buf.ReadFrom(resp.Body)
				resp.Body.Close()
			}
		})
	}
}

func TestTransportHTTPS(t *testing.T) {
	var (
		mu     sync.Mutex
		protos []string
	)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		protos = append(protos, r.Method+" "+r.Proto)
		_, _ = io.WriteString(w, "ok")
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	tr := newTransport(t, srv.URL, upstream.TransportOptions{TLSClientConfig: srv.Client().Transport.(*http.Transport).TLSClientConfig})
	for _, method := range []string{"GET", "POST", "GET"} {
		if resp, body := roundTrip(t, tr, method, srv.URL+"/api/system", nil); resp.StatusCode != 200 || body != "ok" {
			t.Fatalf("%s: %d %q", method, resp.StatusCode, body)
		}
	}
	// GETs inline over HTTP/1.1; the POST through net/http, which
	// negotiates HTTP/2 where the upstream offers it.
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"GET HTTP/1.1", "POST HTTP/2.0", "GET HTTP/1.1"}; !slices.Equal(protos, want) {
		t.Errorf("served %q; want %q", protos, want)
	}
	// Without the upstream's CA, the inline side refuses the certificate.
	strict := newTransport(t, srv.URL, upstream.TransportOptions{})
	req, _ := http.NewRequest("GET", srv.URL+"/api/system", nil)
	if resp, err := strict.RoundTrip(req); err == nil || !strings.Contains(err.Error(), "certificate") {
		if resp != nil {
			resp.Body.Close()
		}
		t.Errorf("an unknown certificate was accepted: %v", err)
	}
}

// An upstream that writes past its answer, or a 408 on an idle
// connection, leaves bytes that are not the next request's answer: the
// connection is not used again.
func TestTransportLeftoverBytes(t *testing.T) {
	for _, tt := range []struct {
		name string
		// answer writes the first answer; after, once that answer was
		// read, writes on the now idle connection.
		answer, after string
	}{
		{"past the answer", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nstale", ""},
		{"body on a 304", "HTTP/1.1 304 Not Modified\r\nContent-Length: 5\r\n\r\nstale", ""},
		{"408 while idle", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", "HTTP/1.1 408 Request Timeout\r\nContent-Length: 0\r\n\r\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var conns atomic.Int32
			read := make(chan struct{})
			written := make(chan struct{})
			url := rawUpstream(t, func(c net.Conn) {
				br := bufio.NewReader(c)
				if conns.Add(1) > 1 { // the next connection answers properly
					for {
						if _, err := http.ReadRequest(br); err != nil {
							return // the transport closed it
						}
						_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfresh")
					}
				}
				if readRequest(t, br) == nil {
					return
				}
				_, _ = io.WriteString(c, tt.answer)
				<-read
				_, _ = io.WriteString(c, tt.after)
				close(written)
				_, _ = io.Copy(io.Discard, c)
			})
			tr := newTransport(t, url, upstream.TransportOptions{})
			roundTrip(t, tr, "GET", url+"/api/first", nil)
			close(read)
			<-written
			if resp, body := roundTrip(t, tr, "GET", url+"/api/second", nil); resp.StatusCode != 200 || body != "fresh" {
				t.Errorf("second answer %d %q; want 200 %q from a new connection", resp.StatusCode, body, "fresh")
			}
			if n := conns.Load(); n != 2 {
				t.Errorf("%d connections; want 2", n)
			}
		})
	}
}

// Close from another goroutine ends a Read of an answer, plain or gzipped,
// whichever comes first (TestCloseDuringRead makes the Read wait first),
// and a cancelled request does not start.
func TestTransportCloseDuringRead(t *testing.T) {
	var gzipped bytes.Buffer
	zw := gzip.NewWriter(&gzipped)
	_, _ = io.WriteString(zw, strings.Repeat("log line\n", 1000))
	_ = zw.Close()
	for _, tt := range []struct {
		name, head string
		part       []byte
	}{
		{"plain", "Content-Length: 100", []byte("part")},
		{"gzip", "Content-Encoding: gzip\r\nContent-Length: 100000", gzipped.Bytes()[:20]},
	} {
		t.Run(tt.name, func(t *testing.T) {
			url := rawUpstream(t, func(c net.Conn) {
				if readRequest(t, bufio.NewReader(c)) == nil {
					return
				}
				_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\n"+tt.head+"\r\n\r\n")
				_, _ = c.Write(tt.part)
				_, _ = io.Copy(io.Discard, c) // then nothing more
			})
			tr := newTransport(t, url, upstream.TransportOptions{})
			req, _ := http.NewRequest("GET", url+"/api/export", nil)
			resp, err := tr.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan error)
			go func() {
				_, err := io.ReadAll(resp.Body)
				done <- err
			}()
			resp.Body.Close()
			if err := <-done; err == nil {
				t.Error("a body closed mid-read read to its end")
			}
		})
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://127.0.0.1:1/api/system", nil)
	tr := newTransport(t, "http://127.0.0.1:1", upstream.TransportOptions{})
	if _, err := tr.RoundTrip(req); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled request: %v", err)
	}
}
