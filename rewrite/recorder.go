package rewrite

import (
	"errors"
	"net/http"
	"strconv"
	"sync"
)

// ErrFlushed is returned by a Recorder's Write and Flush once it has been
// flushed.
var ErrFlushed = errors.New("rewrite: response already flushed")

// maxPooledBody caps the body buffer a released Recorder keeps, so that one
// large response does not pin its memory in the pool for good.
const maxPooledBody = 64 << 10

var recorderPool = sync.Pool{
	New: func() any { return &Recorder{header: make(http.Header)} },
}

// Recorder is an http.ResponseWriter that holds the status, headers and body
// a handler writes, so that a converter can edit the body before Flush sends
// it. It deliberately implements neither http.Flusher nor Unwrap: a handler
// flushing early through http.ResponseController would send the response
// before it is converted. It is not safe for concurrent use, like the
// ResponseWriter it stands in for.
type Recorder struct {
	w       http.ResponseWriter
	header  http.Header
	status  int
	body    []byte
	flushed bool
}

// NewRecorder returns a Recorder, taken from a pool, that will send to w.
// Its header map starts empty; headers already set on w stay there and the
// recorded ones are added on Flush. Call Release when done with it.
func NewRecorder(w http.ResponseWriter) *Recorder {
	r := recorderPool.Get().(*Recorder)
	r.w = w
	return r
}

// Release resets r and returns it to the pool. Neither r nor a slice
// returned by Body may be used afterwards.
func (r *Recorder) Release() {
	clear(r.header)
	if cap(r.body) > maxPooledBody {
		r.body = nil
	}
	r.w, r.status, r.body, r.flushed = nil, 0, r.body[:0], false
	recorderPool.Put(r)
}

// Header returns the recorded header map.
func (r *Recorder) Header() http.Header { return r.header }

// WriteHeader records the status code. As with net/http, only the first
// final status counts; informational (1xx) ones are dropped, since a
// converted response cannot be preceded by them.
func (r *Recorder) WriteHeader(code int) {
	if r.status == 0 && code >= 200 {
		r.status = code
	}
}

// Write appends p to the recorded body.
func (r *Recorder) Write(p []byte) (int, error) {
	if r.flushed {
		return 0, ErrFlushed
	}
	if r.status == 0 {
		r.status = http.StatusOK
	}
	r.body = append(r.body, p...)
	return len(p), nil
}

// Status returns the recorded status code, or 200 if none was written.
func (r *Recorder) Status() int {
	if r.status == 0 {
		return http.StatusOK
	}
	return r.status
}

// Body returns the recorded body. The slice is owned by r.
func (r *Recorder) Body() []byte { return r.body }

// SetBody replaces the recorded body with b. r takes ownership of b: later
// writes may append to it and, after Release, its memory may be reused.
func (r *Recorder) SetBody(b []byte) { r.body = b }

// Flush sends the recorded response to the underlying writer: it copies the
// recorded headers over, sets Content-Length to the length of the current
// body (removing it for 204 and leaving it alone for 304), and writes the status
// and body. It returns the error of that write, or ErrFlushed if called
// twice. Responses to HEAD requests have no body to measure and should not
// go through a Recorder.
func (r *Recorder) Flush() error {
	if r.flushed {
		return ErrFlushed
	}
	r.flushed = true
	dst := r.w.Header()
	for k, v := range r.header {
		dst[k] = v
	}
	switch status := r.Status(); status {
	case http.StatusNoContent:
		dst.Del("Content-Length")
	case http.StatusNotModified:
		// Its Content-Length, if any, describes the representation, not a body.
	default:
		dst.Set("Content-Length", strconv.Itoa(len(r.body)))
	}
	r.w.WriteHeader(r.Status())
	if len(r.body) == 0 {
		return nil
	}
	_, err := r.w.Write(r.body)
	return err
}
