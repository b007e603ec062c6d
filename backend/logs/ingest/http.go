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
		h.post(w, r)
	}
}

// empty writes a response without a body, as Graylog's writeResponse.
func empty(w http.ResponseWriter, status int) {
	w.Header().Set("Content-Length", "0")
	w.WriteHeader(status)
}

func apiError(w http.ResponseWriter, status int, msg string) {
	api.WriteJSON(w, status, api.ErrorBody{Type: "ApiError", Message: msg})
}

func (h *httpHandler) post(w http.ResponseWriter, r *http.Request) {
	inst := h.inst
	m := inst.metrics
	limit := int64(inst.cfg.maxChunkSize)
	if limit <= 0 {
		limit = 64 << 10
	}
	m.incoming.Mark(1)
	if r.ContentLength > limit {
		m.failures.Mark(1)
		tooLarge(w, limit)
		return
	}
	st := httpStates.Get().(*httpState)
	st.lease.b = inst.r.budget
	defer func() {
		st.lease.release()
		st.batch.reset()
		if cap(st.body) > maxPooledBody {
			st.body = nil
		}
		httpStates.Put(st)
	}()
	// Content-Length sizes the buffer only up to maxPooledBody: a claimed
	// size allocates nothing before the bytes arrive.
	if want := min(max(r.ContentLength+1, 4096), limit+1, maxPooledBody); int64(cap(st.body)) < want {
		st.body = make([]byte, 0, want)
	}
	body, err := readBody(st.body[:0], r.Body, limit, &st.lease)
	st.body = body
	switch {
	case errors.Is(err, errBodyTooLarge):
		m.failures.Mark(1)
		tooLarge(w, limit)
		return
	case h.overBudget(w, err):
		return
	case err != nil:
		// The client went away or sent a broken chunked body.
		m.failures.Mark(1)
		apiError(w, http.StatusBadRequest, "Could not read the request body: "+err.Error())
		return
	}
	if len(body) == 0 {
		m.empty.Inc(1)
		apiError(w, http.StatusBadRequest, "Invalid GELF message: empty request body")
		return
	}
	opts := inst.gelf
	opts.Budget = &st.lease
	gm, err := gelf.DecodeHTTP(body, r.Header.Get("Content-Encoding"), opts)
	if h.overBudget(w, err) {
		return
	}
	if err != nil {
		m.failures.Mark(1)
		status := http.StatusBadRequest
		if errors.Is(err, gelf.ErrTooLarge) {
			status = http.StatusRequestEntityTooLarge
		}
		apiError(w, status, "Invalid GELF message: "+strings.TrimPrefix(err.Error(), gelf.ErrInvalid.Error()+": "))
		return
	}
	st.enc.inst = inst
	rem := remote{ip: "", port: int64(0)}
	if ap, err := netip.ParseAddrPort(r.RemoteAddr); err == nil {
		rem = newRemote(ap)
	}
	if err := st.batch.add(&st.enc, &gm, rem); err != nil {
		m.failures.Mark(1)
		apiError(w, http.StatusBadRequest, "Invalid GELF message: "+err.Error())
		return
	}
	if err := h.append(r.Context(), st.batch.records()); err != nil {
		if r.Context().Err() != nil {
			return // the client is gone; nothing was acknowledged
		}
		if !errors.Is(err, journal.ErrTooLarge) { // counted as a failure
			m.rejected.Mark(1)
		}
		h.unavailable(w, err)
		return
	}
	empty(w, http.StatusAccepted)
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

// overBudget answers a request the decode budget refused: 503 while the
// node decodes as much as it may at once, so the client retries later;
// 413 when the message needs more than the whole budget.
func (h *httpHandler) overBudget(w http.ResponseWriter, err error) bool {
	switch {
	case errors.Is(err, errBudget):
		h.inst.r.budget.httpRefused.Inc(1)
		h.inst.metrics.rejected.Mark(1)
		w.Header().Set("Retry-After", strconv.Itoa(int(h.inst.r.opts.RetryAfter/time.Second)))
		apiError(w, http.StatusServiceUnavailable, "The node is decoding as many messages as its memory budget allows; retry later.")
		return true
	case errors.Is(err, errOverBudget):
		h.inst.metrics.failures.Mark(1)
		w.Header().Set("Connection", "close")
		apiError(w, http.StatusRequestEntityTooLarge, "Invalid GELF message: "+err.Error())
		return true
	}
	return false
}

// unavailable answers 503: nothing was acknowledged, the client may retry.
func (h *httpHandler) unavailable(w http.ResponseWriter, err error) {
	secs := int(h.inst.r.opts.RetryAfter / time.Second)
	msg := "The message journal is full; retry later."
	switch {
	case errors.Is(err, journal.ErrFull):
	case errors.Is(err, journal.ErrTooLarge):
		msg = "The message is larger than the journal accepts."
		apiError(w, http.StatusRequestEntityTooLarge, msg)
		return
	default:
		msg = "The message journal is unavailable; retry later."
		h.inst.log.Error("journal append failed", "err", err)
	}
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	apiError(w, http.StatusServiceUnavailable, msg)
}

// tooLarge answers 413 and closes the connection: the rest of the body is
// not read.
func tooLarge(w http.ResponseWriter, limit int64) {
	w.Header().Set("Connection", "close")
	apiError(w, http.StatusRequestEntityTooLarge,
		"The request body exceeds the input's max_chunk_size of "+strconv.FormatInt(limit, 10)+" bytes.")
}

var errBodyTooLarge = errors.New("request body too large")

// maxPooledBody keeps one large request from pinning its body buffer in
// the pool.
const maxPooledBody = 256 << 10

// readBody reads the whole body into dst, refusing more than limit bytes.
// Each growth of the buffer is first taken from budget.
func readBody(dst []byte, body io.Reader, limit int64, budget gelf.Budget) ([]byte, error) {
	if err := budget.Grow(cap(dst)); err != nil {
		return dst, err
	}
	for {
		if len(dst) == cap(dst) {
			grown := append(dst, 0)[:len(dst)]
			if err := budget.Grow(cap(grown) - cap(dst)); err != nil {
				return dst, err
			}
			dst = grown
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
