// Package upstream turns loggate into a compatibility gateway in front of a
// real Graylog 4.x server (upstream_uri): a reverse proxy that replaces the
// native backend behind the compat chain, and a username resolver that asks
// the upstream's API with the caller's own credentials, its answers cached
// briefly under keyed hashes.
package upstream

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"

	"github.com/loggate/loggate/compat"
	"github.com/loggate/loggate/router/api"
)

// Forgetter drops what is cached about a user (by id or username) once a
// request through the gateway renamed or deleted them.
type Forgetter interface {
	ForgetUser(ctx context.Context, idOrUsername string)
}

// ProxyOptions configure a Proxy.
type ProxyOptions struct {
	// Upstream is the upstream's API root, as ParseBaseURI returns it.
	Upstream *url.URL
	// Prefix is where the gateway serves the API ("/api").
	Prefix string
	// Transport defaults to NewTransport().
	Transport http.RoundTripper
	// Users, when set, is told about renamed and deleted users.
	Users Forgetter
	// NodeID is put on the gateway's own error responses; proxied ones
	// carry the upstream's X-Graylog-Node-Id.
	NodeID string
	Logger *slog.Logger
}

// Proxy forwards API requests, already converted to 4.0 by the compat chain,
// to the upstream.
type Proxy struct {
	o      ProxyOptions
	rp     *httputil.ReverseProxy
	base   string // the upstream's API root path, without a trailing slash
	nodeID []string
}

// NewProxy returns a proxy to o.Upstream.
func NewProxy(o ProxyOptions) *Proxy {
	if o.Transport == nil {
		o.Transport = NewTransport(o.Upstream, TransportOptions{})
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	p := &Proxy{o: o, base: strings.TrimSuffix(o.Upstream.Path, "/"), nodeID: []string{o.NodeID}}
	p.rp = &httputil.ReverseProxy{
		Rewrite:        p.rewrite,
		Transport:      o.Transport,
		ModifyResponse: p.modifyResponse,
		ErrorHandler:   p.fail,
		BufferPool:     buffers,
		ErrorLog:       slog.NewLogLogger(o.Logger.Handler(), slog.LevelDebug),
	}
	return p
}

// ServeHTTP implements http.Handler.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// The upstream's node id is the one that means something to a client
	// (it names the node in /cluster); the gateway's would be a second value.
	delete(w.Header(), "X-Graylog-Node-Id")
	p.rp.ServeHTTP(w, r)
}

func (p *Proxy) rewrite(pr *httputil.ProxyRequest) {
	in, out := pr.In, pr.Out
	out.URL.Path = strings.TrimPrefix(in.URL.Path, p.o.Prefix)
	out.URL.RawPath = strings.TrimPrefix(in.URL.RawPath, p.o.Prefix)
	pr.SetURL(p.o.Upstream)
	// As a Director-based proxy does: the upstream's trusted_proxies
	// decide how far to believe the chain.
	if xff := in.Header["X-Forwarded-For"]; len(xff) > 0 {
		out.Header["X-Forwarded-For"] = xff
	}
	pr.SetXForwarded()
	// The release was resolved here and the request converted to 4.0;
	// the upstream speaks only that.
	out.Header.Del("X-API-Version")
	// Without Accept-Encoding the transport asks for gzip itself and
	// decompresses, so the compat chain always rewrites plain JSON and the
	// router compresses for the client.
	out.Header.Del("Accept-Encoding")
	// The compat change of 2.5 lets clients pinned below it by the operator
	// omit X-Requested-By; a 4.x upstream knows nothing of pins.
	if out.Header.Get("X-Requested-By") == "" && compat.CSRFExempt(in) && needsCSRFHeader(in.Method) {
		out.Header.Set("X-Requested-By", "loggate-gateway")
	}
}

// buffers lends the proxy its copy buffers, which it would otherwise
// allocate, 32 KiB each, per request.
var buffers = &bufferPool{}

type bufferPool struct{ p sync.Pool }

func (b *bufferPool) Get() []byte {
	if buf, ok := b.p.Get().(*[]byte); ok {
		return *buf
	}
	return make([]byte, 32<<10)
}

func (b *bufferPool) Put(buf []byte) { b.p.Put(&buf) }

func needsCSRFHeader(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return false
	}
	return true
}

func (p *Proxy) modifyResponse(resp *http.Response) error {
	// The release served is the gateway's to say (the router set it).
	resp.Header.Del("X-Api-Version")
	// The encoding of the hop is the transport's business; the router
	// says its own Vary when it compresses for the client.
	dropVaryAcceptEncoding(resp.Header)
	if p.o.Users != nil && resp.StatusCode >= 200 && resp.StatusCode < 300 {
		if user, ok := changedUser(resp.Request.Method, strings.TrimPrefix(resp.Request.URL.EscapedPath(), p.base)); ok {
			p.o.Users.ForgetUser(resp.Request.Context(), user)
		}
	}
	return nil
}

func dropVaryAcceptEncoding(h http.Header) {
	vs := h["Vary"]
	if len(vs) == 0 {
		return
	}
	kept := vs[:0:0]
	for _, v := range vs {
		var parts []string
		for _, f := range strings.Split(v, ",") {
			if f = strings.TrimSpace(f); f != "" && !strings.EqualFold(f, "Accept-Encoding") {
				parts = append(parts, f)
			}
		}
		if len(parts) > 0 {
			kept = append(kept, strings.Join(parts, ", "))
		}
	}
	if len(kept) == 0 {
		delete(h, "Vary")
		return
	}
	h["Vary"] = kept
}

// changedUser returns the user (id or username) a successful request may
// have renamed or deleted: PUT /users/{userId} (a rename), DELETE
// /users/{username} and DELETE /users/id/{userId}.
func changedUser(method, path string) (string, bool) {
	rest, ok := strings.CutPrefix(path, "/users/")
	if !ok {
		return "", false
	}
	switch method {
	case http.MethodPut:
	case http.MethodDelete:
		if id, ok := strings.CutPrefix(rest, "id/"); ok {
			rest = id
		}
	default:
		return "", false
	}
	if rest == "" || strings.Contains(rest, "/") {
		return "", false
	}
	s, err := url.PathUnescape(rest)
	if err != nil {
		return "", false
	}
	return s, true
}

// fail answers a request the upstream did not: 502 when it cannot be
// reached, 504 when it did not answer in time, in Graylog's error shape.
func (p *Proxy) fail(w http.ResponseWriter, r *http.Request, err error) {
	if r.Context().Err() != nil {
		return // the client went away; no one reads an answer
	}
	status, msg := http.StatusBadGateway, "The upstream Graylog server at "+p.o.Upstream.Redacted()+" cannot be reached"
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		status, msg = http.StatusGatewayTimeout, "The upstream Graylog server at "+p.o.Upstream.Redacted()+" did not answer in time"
	}
	p.o.Logger.WarnContext(r.Context(), "upstream request failed", "err", err, "method", r.Method, "request_id", api.RequestID(r.Context()))
	w.Header()["X-Graylog-Node-Id"] = p.nodeID
	writeError(w, status, msg)
}

// writeError writes Graylog's ApiError body with any status, including the
// gateway statuses api.Code does not have.
func writeError(w http.ResponseWriter, status int, msg string) {
	buf, _ := jsonError(msg)
	api.WriteRawJSON(w, status, buf)
}

func jsonError(msg string) ([]byte, error) {
	return api.Marshal(api.ErrorBody{Type: "ApiError", Message: msg})
}
