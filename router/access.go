package router

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/loggate/loggate/auth"
	"github.com/loggate/loggate/compat"
)

// AccessEntry is one line of the access log (JSON lines): who called what,
// as which API release, and which version changes it needed.
type AccessEntry struct {
	Time          time.Time `json:"time"`
	Method        string    `json:"method"`
	Path          string    `json:"path"`
	Status        int       `json:"status"`
	DurationMs    float64   `json:"duration_ms"`
	Release       string    `json:"release"`
	ReleaseSource string    `json:"release_source"`
	User          string    `json:"user,omitempty"`
	TokenID       string    `json:"token_id,omitempty"`
	UserAgent     string    `json:"user_agent,omitempty"`
	Remote        string    `json:"remote"`
	Changes       []string  `json:"changes,omitempty"`
	// Removed are the routes called that the newest release no longer has,
	// served by compatibility ("GET /legacy/dashboards").
	Removed []string `json:"removed,omitempty"`
}

var sourceNames = map[compat.Source]string{
	compat.FromDefault: "default", compat.FromHeader: "header", compat.FromToken: "token", compat.FromListener: "listener",
}

// accessLog writes AccessEntry lines to w, one at a time.
type accessLog struct {
	mu  sync.Mutex
	enc *json.Encoder
	now func() time.Time
}

func newAccessLog(w io.Writer) *accessLog {
	enc := json.NewEncoder(w)
	// <, > and & as they are: escaped, each took six bytes.
	enc.SetEscapeHTML(false)
	return &accessLog{enc: enc, now: time.Now}
}

// maxAccessField bounds the path and the user agent an entry keeps: both
// are the caller's, up to the 1 MiB of headers net/http reads, and a line
// of the log is read whole (loggate compat report).
const maxAccessField = 2048

// clip cuts s to maxAccessField bytes, on a character boundary, marking
// the cut.
func clip(s string) string {
	if len(s) <= maxAccessField {
		return s
	}
	i := maxAccessField
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// statusWriter remembers the status a handler wrote.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (s *statusWriter) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection.
func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

type accessKey struct{}

// logAccess wraps next (inside prepare, so the request id and logger are
// set) and writes one entry per request. Inner layers fill in the caller
// and the release through the entry the context carries.
func (rt *Router) logAccess(next http.Handler) http.Handler {
	if rt.access == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := rt.access.now()
		e := &AccessEntry{
			Time: start.UTC(), Method: clip(r.Method), Path: clip(redactPath(r.URL.Path)),
			UserAgent: clip(r.UserAgent()), Remote: r.RemoteAddr,
		}
		ctx := compat.WithTrace(r.Context(), func(change string) { e.Changes = append(e.Changes, change) })
		ctx = compat.WithRemovedTrace(ctx, func(route string) { e.Removed = append(e.Removed, route) })
		sw := &statusWriter{ResponseWriter: w}
		// Deferred, so that a request whose handler panicked has its
		// line too: prepare, outside, answers it 500.
		defer func() {
			e.Status = sw.status
			if v := recover(); v != nil {
				if e.Status == 0 {
					e.Status = http.StatusInternalServerError
				}
				defer panic(v)
			}
			e.DurationMs = float64(rt.access.now().Sub(start).Microseconds()) / 1000
			rt.access.mu.Lock()
			_ = rt.access.enc.Encode(e) // a full disk must not fail requests
			rt.access.mu.Unlock()
		}()
		next.ServeHTTP(sw, r.WithContext(context.WithValue(ctx, accessKey{}, e)))
	})
}

// noteCaller records the authenticated caller and the client's release in
// the request's access entry, if the access log is on.
func noteCaller(r *http.Request, c compat.Client) {
	e, ok := r.Context().Value(accessKey{}).(*AccessEntry)
	if !ok {
		return
	}
	e.Release, e.ReleaseSource = c.Release.String(), sourceNames[c.Source]
	if p := auth.FromContext(r.Context()); p != nil {
		e.User, e.TokenID = p.Username, p.TokenID
	}
}
