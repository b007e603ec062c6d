package upstream

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/klauspost/compress/gzip"
)

// TransportOptions configure a Transport.
type TransportOptions struct {
	// ResponseHeaderTimeout bounds the wait for an answer's headers once
	// the request is sent; its body may take as long as it takes (an
	// export streams for minutes). Default: 2 minutes.
	ResponseHeaderTimeout time.Duration
	// TLSClientConfig is for an https upstream; nil trusts the system's
	// roots. Inline connections speak HTTP/1.1 whatever its NextProtos.
	TLSClientConfig *tls.Config
}

// Transport carries the gateway's requests to the upstream.
//
// GET and HEAD requests without a body, nearly all of what clients send,
// are made on the calling goroutine over kept-alive HTTP/1.1 connections
// (inline); everything else goes through net/http's Transport. net/http's
// Transport hands each request from the caller to a goroutine that writes
// it and the answer back from one that reads it; on a 2-core host those
// hand-offs were about 15 µs of the 85 µs the gateway added to a request
// (BenchmarkGateway), which put it behind nginx. The protocol is net/http's
// own (Request.Write, ReadResponse); the inline side only keeps
// connections, deadlines and cancellation. fasthttp's client measured the
// same gain, but cannot be cancelled by a context nor bound the headers'
// wait alone.
type Transport struct {
	std    *http.Transport
	inline *inline
}

// Bounds of the inline connections, as net/http's Transport has them here.
const (
	maxIdleConns   = 256
	idleConnTTL    = 90 * time.Second
	dialTimeout    = 5 * time.Second
	maxHeaderBytes = 1 << 20
)

// NewTransport returns a transport to the upstream whose API root is base.
// Requests to other hosts are net/http's.
func NewTransport(base *url.URL, o TransportOptions) *Transport {
	if o.ResponseHeaderTimeout <= 0 {
		o.ResponseHeaderTimeout = 2 * time.Minute
	}
	dialer := &net.Dialer{Timeout: dialTimeout, KeepAlive: 30 * time.Second}
	std := &http.Transport{
		// The upstream is named explicitly; environment proxies do not apply.
		Proxy:                  nil,
		DialContext:            dialer.DialContext,
		ForceAttemptHTTP2:      true,
		MaxIdleConns:           2 * maxIdleConns,
		MaxIdleConnsPerHost:    maxIdleConns,
		IdleConnTimeout:        idleConnTTL,
		TLSHandshakeTimeout:    dialTimeout,
		ExpectContinueTimeout:  time.Second,
		ResponseHeaderTimeout:  o.ResponseHeaderTimeout,
		MaxResponseHeaderBytes: maxHeaderBytes,
		TLSClientConfig:        o.TLSClientConfig,
	}
	in := &inline{scheme: base.Scheme, host: base.Host, headerTimeout: o.ResponseHeaderTimeout}
	addr := base.Host
	if base.Port() == "" {
		addr = net.JoinHostPort(base.Hostname(), map[string]string{"http": "80", "https": "443"}[base.Scheme])
	}
	in.dial = func(ctx context.Context) (net.Conn, error) { return dialer.DialContext(ctx, "tcp", addr) }
	if base.Scheme == "https" {
		// HTTP/1.1 only: the answer is read on the caller's goroutine.
		cfg := &tls.Config{MinVersion: tls.VersionTLS12}
		if o.TLSClientConfig != nil {
			cfg = o.TLSClientConfig.Clone()
		}
		if cfg.ServerName == "" {
			cfg.ServerName = base.Hostname()
		}
		cfg.NextProtos = []string{"http/1.1"}
		td := &tls.Dialer{NetDialer: dialer, Config: cfg}
		in.dial = func(ctx context.Context) (net.Conn, error) { return td.DialContext(ctx, "tcp", addr) }
	}
	return &Transport{std: std, inline: in}
}

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.inline.takes(req) {
		return t.inline.roundTrip(req)
	}
	return t.std.RoundTrip(req)
}

// CloseIdleConnections closes the connections no request is using.
func (t *Transport) CloseIdleConnections() {
	t.std.CloseIdleConnections()
	t.inline.closeIdle()
}

// inline makes requests on the caller's goroutine.
type inline struct {
	scheme, host  string // the upstream's, as request URLs name it
	dial          func(context.Context) (net.Conn, error)
	headerTimeout time.Duration

	mu   sync.Mutex
	idle []*conn // least recently used first
}

// conn is one kept-alive connection. Its reader counts what the headers
// take, so that an upstream sending endless headers is cut off at
// maxHeaderBytes instead of filling memory (http.ReadResponse has no bound).
type conn struct {
	nc     net.Conn
	br     *bufio.Reader
	bw     *bufio.Writer
	budget int       // bytes the headers may still take; -1 while a body is read
	used   time.Time // when it went idle
}

var errHeaderTooLarge = errors.New("the upstream's response headers exceed 1 MiB")

func (c *conn) Read(p []byte) (int, error) {
	if c.budget < 0 {
		return c.nc.Read(p)
	}
	if c.budget == 0 {
		return 0, errHeaderTooLarge
	}
	if len(p) > c.budget {
		p = p[:c.budget]
	}
	n, err := c.nc.Read(p)
	c.budget -= n
	return n, err
}

// takes reports whether req is inline's: a GET or HEAD without a body or
// an upgrade, to the upstream. Such a request may be sent again when a
// kept-alive connection turns out closed, as net/http's Transport does.
func (in *inline) takes(req *http.Request) bool {
	return (req.Method == http.MethodGet || req.Method == http.MethodHead) &&
		(req.Body == nil || req.Body == http.NoBody) &&
		req.URL.Scheme == in.scheme && req.URL.Host == in.host &&
		len(req.Header["Upgrade"]) == 0
}

var acceptGzip = []string{"gzip"}

func (in *inline) roundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// As net/http's Transport: ask for gzip when the caller did not, and
	// undo it, so that the compat chain always reads plain JSON and a
	// remote upstream sends a tenth of the bytes.
	gz := req.Method != http.MethodHead && req.Header.Get("Accept-Encoding") == "" && req.Header.Get("Range") == ""
	out := req
	if gz {
		out = new(http.Request)
		*out = *req
		out.Header = maps.Clone(req.Header)
		if out.Header == nil {
			out.Header = http.Header{}
		}
		out.Header["Accept-Encoding"] = acceptGzip
	}
	c, reused, err := in.get(ctx, false)
	for {
		if err != nil {
			return nil, err
		}
		var resp *http.Response
		resp, err = in.exchange(ctx, c, out)
		if err == nil && reused && resp.StatusCode == http.StatusRequestTimeout {
			// A server that times out an idle connection may say so with
			// a 408 before closing it; read now, it is not this request's
			// answer (a GET sent whole cannot have timed out).
			_ = resp.Body.Close()
			err = fmt.Errorf("%w: the upstream timed it out (408)", errStale)
		}
		if err == nil {
			resp.Request = req
			if gz && resp.Body != http.NoBody && strings.EqualFold(resp.Header.Get("Content-Encoding"), "gzip") {
				resp.Header.Del("Content-Encoding")
				resp.Header.Del("Content-Length")
				resp.ContentLength = -1
				resp.Uncompressed = true
				resp.Body = &gunzip{body: resp.Body}
			}
			return resp, nil
		}
		_ = c.nc.Close()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if !reused || !errors.Is(err, errStale) {
			return nil, err
		}
		// The upstream closed a kept-alive connection before it answered:
		// the next one is dialled, not taken from those that may be just
		// as stale.
		c, reused, err = in.get(ctx, true)
	}
}

// errStale marks a kept-alive connection found closed: nothing of an
// answer to the request was read from it.
var errStale = errors.New("connection closed before an answer")

// aLongTimeAgo is a deadline that fails every pending read and write.
var aLongTimeAgo = time.Unix(1, 0)

// exchange sends req on c and reads the answer's headers. The deadline
// covers both; a cancelled context moves it to the past. Once the headers
// are read the body has no deadline but the context.
func (in *inline) exchange(ctx context.Context, c *conn, req *http.Request) (*http.Response, error) {
	// The header deadline first: the context's watch may fire at once,
	// and its deadline in the past must not be overwritten.
	_ = c.nc.SetDeadline(time.Now().Add(in.headerTimeout))
	stop := context.AfterFunc(ctx, func() { _ = c.nc.SetDeadline(aLongTimeAgo) })
	err := req.Write(c.bw)
	if err == nil {
		err = c.bw.Flush()
	}
	if err == nil {
		_, err = c.br.Peek(1)
	}
	if err != nil {
		stop()
		if closedConn(err) {
			return nil, fmt.Errorf("%w: %w", errStale, err)
		}
		return nil, err
	}
	c.budget = maxHeaderBytes
	resp, err := readResponse(c.br, req)
	c.budget = -1
	if err != nil {
		stop()
		return nil, err
	}
	_ = c.nc.SetDeadline(time.Time{})
	if ctx.Err() != nil {
		// Cancelled between the headers and clearing the deadline.
		stop()
		return nil, ctx.Err()
	}
	if tc, ok := c.nc.(*tls.Conn); ok {
		st := tc.ConnectionState()
		resp.TLS = &st
	}
	b := &body{in: in, c: c, src: resp.Body, stop: stop, ctx: ctx,
		keep: !resp.Close && !req.Close && resp.StatusCode != http.StatusSwitchingProtocols}
	if resp.Body == http.NoBody {
		b.release(io.EOF)
		return resp, nil
	}
	resp.Body = b
	return resp, nil
}

// closedConn reports whether err says the connection was closed or reset,
// not that it timed out or that the request could not be written at all.
func closedConn(err error) bool {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return false
	}
	var op *net.OpError
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, &op)
}

// readResponse reads the final answer, passing over informational ones
// (100 Continue, 103 Early Hints) as net/http's Transport does.
func readResponse(br *bufio.Reader, req *http.Request) (*http.Response, error) {
	for {
		resp, err := http.ReadResponse(br, req)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode < 100 || resp.StatusCode >= 200 || resp.StatusCode == http.StatusSwitchingProtocols {
			return resp, nil
		}
	}
}

// body is an inline answer's body. The connection goes back to the pool
// once the body is read to its end with nothing after it, and is closed if
// the body is closed before that, the read fails or the context is
// cancelled. Close may come from another goroutine during a Read: it
// closes the connection, which ends the Read.
type body struct {
	in   *inline
	c    *conn
	src  io.ReadCloser // http.ReadResponse's, over c.br
	stop func() bool   // ends the context's watch; false once it fired
	ctx  context.Context
	keep bool // the upstream and the caller keep the connection open

	mu  sync.Mutex
	err error // set once the connection is released
}

func (b *body) Read(p []byte) (int, error) {
	b.mu.Lock()
	err := b.err
	b.mu.Unlock()
	if err != nil {
		return 0, err
	}
	n, err := b.src.Read(p)
	if err == nil {
		return n, nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.err != nil {
		return n, b.err // closed during the read
	}
	if err != io.EOF && b.ctx.Err() != nil {
		err = b.ctx.Err()
	}
	b.release(err)
	return n, err
}

// Close releases the connection; one closed before its body was read to
// the end is not reused. src is not closed: it would read the rest.
func (b *body) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.err == nil {
		b.release(errBodyClosed)
	}
	return nil
}

var errBodyClosed = errors.New("read on a closed body")

// release gives the connection back, with the error later reads return.
// Bytes already past the answer (a body on a 304, more than its
// Content-Length) would be read as the next request's answer: such a
// connection is closed.
func (b *body) release(err error) {
	b.err = err
	if b.stop() && err == io.EOF && b.keep && b.c.br.Buffered() == 0 {
		b.in.put(b.c)
		return
	}
	_ = b.c.nc.Close()
}

// gunzip decompresses an answer the upstream gzipped because it was asked
// to. Its reader comes from a pool and goes back on Close, but never while
// a Read uses it.
type gunzip struct {
	body io.ReadCloser

	mu      sync.Mutex
	zr      *gzip.Reader // nil until the first Read, and during each Read
	reading bool
	err     error // sticky: the reader's, or errBodyClosed
}

var gzipReaders sync.Pool

func (g *gunzip) Read(p []byte) (int, error) {
	g.mu.Lock()
	if g.err != nil {
		g.mu.Unlock()
		return 0, g.err
	}
	zr := g.zr
	g.zr, g.reading = nil, true
	g.mu.Unlock()
	var err error
	if zr == nil {
		if zr, _ = gzipReaders.Get().(*gzip.Reader); zr == nil {
			zr, err = gzip.NewReader(g.body)
		} else {
			err = zr.Reset(g.body)
		}
	}
	n := 0
	if err == nil {
		n, err = zr.Read(p)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.reading = false
	if g.err == nil {
		g.err = err
	}
	if g.err == nil {
		g.zr = zr
	} else {
		putGzipReader(zr)
	}
	return n, err
}

func (g *gunzip) Close() error {
	g.mu.Lock()
	if g.err == nil {
		g.err = errBodyClosed
	}
	if g.zr != nil {
		putGzipReader(g.zr)
		g.zr = nil
	}
	g.mu.Unlock()
	// A Read in progress ends with the connection; it then pools its
	// reader itself.
	return g.body.Close()
}

// putGzipReader pools zr once it no longer holds the body it read.
func putGzipReader(zr *gzip.Reader) {
	if zr == nil {
		return
	}
	_ = zr.Reset(eofReader{})
	gzipReaders.Put(zr)
}

type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }

// get returns a kept-alive connection (reused true) or, with fresh or
// when there is none left from the last idleConnTTL, a new one.
func (in *inline) get(ctx context.Context, fresh bool) (*conn, bool, error) {
	if !fresh {
		in.mu.Lock()
		if n := len(in.idle); n > 0 {
			c := in.idle[n-1]
			in.idle[n-1] = nil
			in.idle = in.idle[:n-1]
			if time.Since(c.used) <= idleConnTTL {
				in.mu.Unlock()
				return c, true, nil
			}
			// The most recent is too old: so are all the others.
			old := append(in.idle, c)
			in.idle = nil
			in.mu.Unlock()
			for _, c := range old {
				_ = c.nc.Close()
			}
		} else {
			in.mu.Unlock()
		}
	}
	nc, err := in.dial(ctx)
	if err != nil {
		return nil, false, err
	}
	c := &conn{nc: nc, budget: -1}
	c.br = bufio.NewReader(c)
	c.bw = bufio.NewWriter(nc)
	return c, false, nil
}

// put keeps c for the next request, closing those idle for longer than
// idleConnTTL (the oldest come first) and the oldest when the pool is
// full.
func (in *inline) put(c *conn) {
	now := time.Now()
	c.used = now
	var drop []*conn
	in.mu.Lock()
	expired := 0
	for expired < len(in.idle) && now.Sub(in.idle[expired].used) > idleConnTTL {
		expired++
	}
	if expired == 0 && len(in.idle) >= maxIdleConns {
		expired = 1
	}
	if expired > 0 {
		drop = append(drop, in.idle[:expired]...)
		n := copy(in.idle, in.idle[expired:])
		clear(in.idle[n:])
		in.idle = in.idle[:n]
	}
	in.idle = append(in.idle, c)
	in.mu.Unlock()
	for _, c := range drop {
		_ = c.nc.Close()
	}
}

func (in *inline) closeIdle() {
	in.mu.Lock()
	idle := in.idle
	in.idle = nil
	in.mu.Unlock()
	for _, c := range idle {
		_ = c.nc.Close()
	}
}
