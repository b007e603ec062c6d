package ingest

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/loggate/loggate/backend/logs/buffers"
	"github.com/loggate/loggate/backend/logs/gelf"
	"github.com/loggate/loggate/backend/logs/journal"
	"github.com/loggate/loggate/router/api"
)

// readHeaderTimeout bounds how long a client may take to send its request
// headers, whatever idle_writer_timeout says.
const readHeaderTimeout = 30 * time.Second

// httpServer is a running GELF HTTP input.
type httpServer struct {
	inst *instance
	ln   net.Listener
	srv  *http.Server
	done chan struct{}
}

func startHTTP(ctx context.Context, inst *instance) (server, error) {
	ln, err := listenTCP(ctx, inst)
	if err != nil {
		return nil, err
	}
	m := inst.metrics
	m.connectionGauges(inst.r.opts.Metrics, inst.prefix)
	h := &httpHandler{inst: inst}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: readHeaderTimeout,
		// idle_writer_timeout: Graylog closes a connection that has been
		// idle that long; it also bounds a slow request or response.
		ReadTimeout:  inst.cfg.idleTimeout,
		WriteTimeout: inst.cfg.idleTimeout,
		IdleTimeout:  inst.cfg.idleTimeout,
		ConnState: func(_ net.Conn, st http.ConnState) {
			switch st {
			case http.StateNew:
				m.open.Add(1)
				m.total.Add(1)
			case http.StateClosed, http.StateHijacked:
				m.open.Add(-1)
			}
		},
		// TLS handshake failures and the like; not worth an error.
		ErrorLog: slog.NewLogLogger(inst.log.Handler(), slog.LevelDebug),
	}
	s := &httpServer{inst: inst, ln: ln, srv: srv, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		if err := srv.Serve(countingListener{Listener: ln, m: m}); err != nil && !errors.Is(err, http.ErrServerClosed) {
			inst.log.Error("GELF HTTP input stopped serving", "err", err)
		}
	}()
	return s, nil
}

func (s *httpServer) addr() net.Addr { return s.ln.Addr() }

// stop lets the requests in flight finish, within the shutdown timeout, so
// a message being journaled is still acknowledged.
func (s *httpServer) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), s.inst.r.opts.ShutdownTimeout)
	defer cancel()
	if err := s.srv.Shutdown(ctx); err != nil {
		s.srv.Close()
	}
	<-s.done
}

// countingListener counts the bytes read from accepted connections.
type countingListener struct {
	net.Listener
	m *inputMetrics
}

func (l countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return countingConn{Conn: c, m: l.m}, nil
}

// httpHandler answers as Graylog's HttpHandler does, but acknowledges a
// message only once it is durable.
type httpHandler struct {
	inst *instance
}

// httpState is the pooled per-request state.
type httpState struct {
	body  []byte
	dec   gelf.Decoder
	enc   encoder
	batch batch
	lease lease
}

var httpStates = sync.Pool{New: func() any { return new(httpState) }}

func (h *httpHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hdr := w.Header()
	if origin := r.Header.Get("Origin"); origin != "" && h.inst.cfg.enableCORS {
		hdr.Set("Access-Control-Allow-Origin", origin)
		hdr.Set("Access-Control-Allow-Credentials", "true")
		hdr.Set("Access-Control-Allow-Headers", "Authorization, Content-Type")
	}
	// Graylog checks the method before the path: OPTIONS is answered on
	// every path, another method than POST is 405 on every path.
	switch {
	case r.Method == http.MethodOptions:
		empty(w, http.StatusOK)
	case r.Method != http.MethodPost:
		hdr.Set("Allow", "POST, OPTIONS")
		empty(w, http.StatusMethodNotAllowed)
	case r.RequestURI != "/gelf":
		empty(w, http.StatusNotFound)
	default:
		if err := h.post(w, r); err != nil {
			h.fail(w, r, err)
		}
	}
}

// empty writes a response without a body, as Graylog's writeResponse.
func empty(w http.ResponseWriter, status int) {
	w.Header().Set("Content-Length", "0")
	w.WriteHeader(status)
}

// fail answers err with the API's one error writer. The input answers
// back-pressure (a full journal, the decode budget) with 503 by design:
// the writer's warning for each refused message would flood the log, so
// only its errors reach the input's logger.
func (h *httpHandler) fail(w http.ResponseWriter, r *http.Request, err error) {
	quiet := slog.New(errorsOnly{h.inst.log.Handler()})
	api.WriteError(w, r.WithContext(api.WithLogger(r.Context(), quiet)), err)
}

// errorsOnly passes on the records of level Error and above.
type errorsOnly struct{ slog.Handler }

func (h errorsOnly) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelError && h.Handler.Enabled(ctx, l)
}

// invalid is a 400 with Graylog's ApiError body.
func invalid(msg string) error { return &api.Error{Code: api.Invalid, Message: msg} }

// post journals the message of a request, or returns the error to answer
// with; nil when the answer is written, or when no one is left to read it.
func (h *httpHandler) post(w http.ResponseWriter, r *http.Request) error {
	inst := h.inst
	m := inst.metrics
	limit := int64(inst.cfg.maxChunkSize)
	if limit <= 0 {
		limit = 64 << 10
	}
	m.incoming.Mark(1)
	if r.ContentLength > limit {
		m.failures.Mark(1)
		return tooLarge(limit)
	}
	st := httpStates.Get().(*httpState)
	st.lease.b = inst.r.budget
	defer func() {
		st.lease.release()
		st.dec.Release()
		st.batch.reset()
		bodies.Put(st.body)
		st.body = nil
		httpStates.Put(st)
	}()
	// The buffer starts at a page and doubles as the bytes arrive, up to
	// Content-Length: a claimed size takes no more of the decode budget
	// than a page before the bytes are there, so requests that announce a
	// large body and never send it hold little of what others need.
	most := limit + 1 // one byte more tells a body over the limit
	if r.ContentLength >= 0 {
		most = min(most, r.ContentLength+1)
	}
	body, err := readBody(&st.body, int(min(most, firstBodyBuffer)), int(most), r.Body, limit, &st.lease)
	switch {
	case errors.Is(err, errBodyTooLarge):
		m.failures.Mark(1)
		return tooLarge(limit)
	case err != nil:
		if budgetErr := h.overBudget(err); budgetErr != nil {
			return budgetErr
		}
		// The client went away or sent a broken chunked body.
		m.failures.Mark(1)
		return invalid("Could not read the request body: " + err.Error())
	}
	if len(body) == 0 {
		m.empty.Inc(1)
		return invalid("Invalid GELF message: empty request body")
	}
	opts := inst.gelf
	opts.Budget = &st.lease
	gm, err := st.dec.DecodeHTTP(body, r.Header.Get("Content-Encoding"), opts)
	if err != nil {
		if budgetErr := h.overBudget(err); budgetErr != nil {
			return budgetErr
		}
		m.failures.Mark(1)
		code := api.Invalid
		if errors.Is(err, gelf.ErrTooLarge) {
			code = api.TooLarge
		}
		return &api.Error{Code: code, Message: "Invalid GELF message: " + strings.TrimPrefix(err.Error(), gelf.ErrInvalid.Error()+": ")}
	}
	st.enc.inst = inst
	var rem remote
	if ap, err := netip.ParseAddrPort(r.RemoteAddr); err == nil {
		rem = newRemote(ap)
	}
	st.batch.add(&st.enc, gm, rem)
	if err := h.append(r.Context(), st.batch.records()); err != nil {
		if r.Context().Err() != nil {
			return nil // the client is gone; nothing was acknowledged
		}
		if !errors.Is(err, journal.ErrTooLarge) { // counted as a failure
			m.rejected.Mark(1)
		}
		return h.unavailable(err)
	}
	empty(w, http.StatusAccepted)
	return nil
}

// append journals the record. When the journal is full it waits up to
// FullWait for room, so that a brief peak is absorbed rather than answered
// 503.
func (h *httpHandler) append(ctx context.Context, recs [][]byte) error {
	inst := h.inst
	res := inst.appendAll(ctx, recs, false)
	if res.err == nil && res.tooLarge == 0 {
		return nil
	}
	if res.tooLarge > 0 {
		return journal.ErrTooLarge
	}
	if !errors.Is(res.err, journal.ErrFull) {
		return res.err
	}
	wctx, cancel := context.WithTimeout(ctx, inst.r.opts.FullWait)
	err := inst.r.j.WaitNotFull(wctx, size(recs))
	cancel()
	if err != nil {
		return res.err
	}
	res = inst.appendAll(ctx, recs, false)
	return res.err
}

// overBudget is the answer to a request the decode budget refused: 503
// while the node decodes as much as it may at once, so the client retries
// later; 413 when the message needs more than the whole budget. Nil for
// other errors.
func (h *httpHandler) overBudget(err error) error {
	switch {
	case errors.Is(err, errBudget):
		h.inst.r.budget.httpRefused.Inc(1)
		h.inst.metrics.rejected.Mark(1)
		return &api.Error{Code: api.Unavailable, Header: h.retryAfter(),
			Message: "The node is decoding as many messages as its memory budget allows; retry later."}
	case errors.Is(err, errOverBudget):
		h.inst.metrics.failures.Mark(1)
		return &api.Error{Code: api.TooLarge, Header: closeConn(), Message: "Invalid GELF message: " + err.Error()}
	}
	return nil
}

// unavailable is the answer to a message the journal did not take:
// nothing was acknowledged, the client may retry.
func (h *httpHandler) unavailable(err error) error {
	msg := "The message journal is full; retry later."
	switch {
	case errors.Is(err, journal.ErrFull):
	case errors.Is(err, journal.ErrTooLarge):
		return &api.Error{Code: api.TooLarge, Message: "The message is larger than the journal accepts."}
	default:
		msg = "The message journal is unavailable; retry later."
		h.inst.log.Error("journal append failed", "err", err)
	}
	return &api.Error{Code: api.Unavailable, Header: h.retryAfter(), Message: msg}
}

func (h *httpHandler) retryAfter() http.Header {
	return http.Header{"Retry-After": {strconv.Itoa(int(h.inst.r.opts.RetryAfter / time.Second))}}
}

// closeConn closes the connection after the answer: the rest of the body
// is not read.
func closeConn() http.Header { return http.Header{"Connection": {"close"}} }

// tooLarge is the 413 of a body over max_chunk_size.
func tooLarge(limit int64) error {
	return &api.Error{Code: api.TooLarge, Header: closeConn(),
		Message: "The request body exceeds the input's max_chunk_size of " + strconv.FormatInt(limit, 10) + " bytes."}
}

var errBodyTooLarge = errors.New("request body too large")

// maxPooledBody keeps one large request from pinning its body buffer in
// the pool.
const maxPooledBody = 256 << 10

// bodies keeps request body buffers: a request takes buffers of the sizes
// its body needs, and is charged for those, whatever the requests before
// it left behind.
var bodies = buffers.New(maxPooledBody)

// firstBodyBuffer is the size of a request body's first buffer.
const firstBodyBuffer = 4096

// readBody reads the whole body, refusing more than limit bytes, into a
// buffer of size bytes, then of twice the size as it fills, up to most
// bytes (the claimed length and one). Each buffer is charged to budget
// before it is taken; *held is the one taken last, for the caller to give
// back once the body is no longer read.
func readBody(held *[]byte, size, most int, body io.Reader, limit int64, budget gelf.Budget) ([]byte, error) {
	var dst []byte
	for {
		if len(dst) == cap(dst) {
			n := max(size, min(2*cap(dst), most))
			if n == len(dst) { // more than the claimed length
				return dst, errBodyTooLarge
			}
			if err := budget.Grow(n - cap(dst)); err != nil {
				return dst, err
			}
			grown := bodies.Get(n)
			dst = append(grown, dst...)
			bodies.Put(*held)
			*held = grown
		}
		n, err := body.Read(dst[len(dst):cap(dst)])
		dst = dst[:len(dst)+n]
		if int64(len(dst)) > limit {
			return dst, errBodyTooLarge
		}
		if err == io.EOF {
			return dst, nil
		}
		if err != nil {
			return dst, err
		}
	}
}
