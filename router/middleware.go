package router

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/klauspost/compress/gzhttp"

	"github.com/loggate/loggate/rewrite"
	"github.com/loggate/loggate/router/api"
)

// prepare is the outermost layer: it recovers panics, stamps every response
// with the node id, bounds the request body and pretty-prints on request.
func (rt *Router) prepare(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rt.requests.Mark(1)
		h := w.Header()
		h["X-Graylog-Node-Id"] = rt.nodeID
		if xhr(r) {
			h["Cache-Control"] = noCache
		}
		r = r.WithContext(api.WithRequest(r.Context(), rt.reqSeq.Add(1), rt.o.Logger, rt.BaseURI()))
		trimSlash(r)
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				rt.o.Logger.Error("handler panicked", "panic", v, "method", r.Method, "path", redactPath(r.URL.Path))
				rt.fail(w, r, api.Errorf(api.Internal, "Internal error, see the server log"))
			}
		}()
		if rt.o.MaxBodySize > 0 {
			if r.ContentLength > rt.o.MaxBodySize {
				rt.fail(w, r, api.Errorf(api.TooLarge, "Request body of %d bytes is larger than the limit of %d bytes (http_max_body_size)", r.ContentLength, rt.o.MaxBodySize))
				return
			}
			// A request without a body (net/http gives it NoBody) has
			// nothing to bound.
			if r.Body != nil && r.Body != http.NoBody {
				r.Body = http.MaxBytesReader(w, r.Body, rt.o.MaxBodySize)
			}
		}
		if pretty(r) {
			pw := &prettyWriter{w: w, header: make(http.Header)}
			defer pw.release()
			next.ServeHTTP(pw, r)
			pw.finish()
			return
		}
		next.ServeHTTP(w, r)
	})
}

// prettyWriter holds a JSON answer to indent it (pretty=true) and passes
// any other through as it is written: a streamed answer (a CSV export of
// any size) is neither held in memory whole nor kept from flushing. It
// decides when the status is written, by the Content-Type set then.
type prettyWriter struct {
	w       http.ResponseWriter
	header  http.Header // until decided; w's afterwards when passing through
	rec     *rewrite.Recorder
	decided bool
}

func (p *prettyWriter) Header() http.Header {
	if p.rec != nil {
		return p.rec.Header()
	}
	return p.header
}

// decide starts the answer with status: recorded if it is JSON, else
// sent on at once with the headers set so far.
func (p *prettyWriter) decide(status int) {
	if p.decided {
		return
	}
	p.decided = true
	if strings.HasPrefix(p.header.Get("Content-Type"), "application/json") {
		p.rec = rewrite.NewRecorder(p.w)
		h := p.rec.Header()
		for k, v := range p.header {
			h[k] = v
		}
		p.rec.WriteHeader(status)
		return
	}
	dst := p.w.Header()
	for k, v := range p.header {
		dst[k] = v
	}
	p.header = dst
	p.w.WriteHeader(status)
}

func (p *prettyWriter) WriteHeader(code int) {
	if code < 200 {
		return // informational: dropped, as the Recorder drops them
	}
	p.decide(code)
}

func (p *prettyWriter) Write(b []byte) (int, error) {
	p.decide(http.StatusOK)
	if p.rec != nil {
		return p.rec.Write(b)
	}
	return p.w.Write(b)
}

// FlushError flushes an answer passed through; a held one is sent whole
// at the end.
func (p *prettyWriter) FlushError() error {
	p.decide(http.StatusOK)
	if p.rec != nil {
		return nil
	}
	return http.NewResponseController(p.w).Flush()
}

// finish sends a held answer, indented, or a status nothing wrote.
func (p *prettyWriter) finish() {
	if !p.decided {
		p.decide(http.StatusOK)
	}
	if p.rec == nil {
		return
	}
	p.rec.SetBody(rewrite.Pretty(nil, p.rec.Body()))
	_ = p.rec.Flush()
}

func (p *prettyWriter) release() {
	if p.rec != nil {
		p.rec.Release()
	}
}

var noCache = []string{"no-cache"}

func pretty(r *http.Request) bool {
	if !strings.Contains(r.URL.RawQuery, "pretty") {
		return false
	}
	v, err := strconv.ParseBool(r.URL.Query().Get("pretty"))
	return err == nil && v
}

// trimSlash drops one trailing slash (but not the API root's), as Jersey
// matches resource paths with or without it: old scripts call
// /api/users/GM/tokens/.
func trimSlash(r *http.Request) {
	p := r.URL.Path
	if len(p) > len(Prefix)+1 && strings.HasSuffix(p, "/") {
		r.URL.Path = p[:len(p)-1]
		if r.URL.RawPath != "" {
			r.URL.RawPath = strings.TrimSuffix(r.URL.RawPath, "/")
		}
	}
}

// cors adds Graylog 4.0's CORS headers to requests that carry an Origin and
// answers preflights at once (only registered with http_enable_cors = true).
func cors(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Origin") == "" {
			next.ServeHTTP(w, r)
			return
		}
		h := w.Header()
		// A literal "*", as Graylog 4.0's CORSFilter sends: scripts of any
		// origin may call the API with the credentials they hold (an
		// Authorization header they set), while browsers send none of
		// their own, since they refuse "*" beside Allow-Credentials. 3.x
		// echoed the request's origin, so that any web page could use
		// the Basic credentials or session a browser keeps for loggate,
		// and read the answers.
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Access-Control-Allow-Credentials", "true")
		h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, X-Graylog-No-Session-Extension, X-Requested-With, X-Requested-By")
		h.Set("Access-Control-Allow-Methods", "GET, POST, PUT, DELETE, OPTIONS")
		h.Set("Access-Control-Max-Age", "600")
		if r.Method == http.MethodOptions {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// secretSegments are the path segments after which a secret may stand: a
// token value (/users/{u}/tokens/{token}) or a live session id
// (DELETE /system/sessions/{id}, every logout).
var secretSegments = []string{"/tokens/", "/sessions/"}

// redactPath keeps secrets that may stand in a path out of logs.
func redactPath(p string) string {
	for _, seg := range secretSegments {
		if i := strings.Index(p, seg); i >= 0 {
			return p[:i] + seg + "<redacted>"
		}
	}
	return p
}

// gzipped compresses responses of at least 512 bytes (Graylog's threshold)
// for clients that accept gzip.
func gzipped(next http.Handler) http.Handler {
	wrap, err := gzhttp.NewWrapper(gzhttp.MinSize(512))
	if err != nil {
		panic(err) // only for invalid constant options
	}
	return wrap(next)
}
