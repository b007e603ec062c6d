package rewrite_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/loggate/loggate/rewrite"
)

func TestRecorderFlush(t *testing.T) {
	tests := []struct {
		name       string
		handler    func(w http.ResponseWriter)
		setBody    string // replaces the body before Flush when non-empty
		wantStatus int
		wantBody   string
		wantLength string // "" means no Content-Length header
	}{
		{
			name:       "implicit 200",
			handler:    func(w http.ResponseWriter) { _, _ = w.Write([]byte(`{"id":1}`)) },
			wantStatus: 200, wantBody: `{"id":1}`, wantLength: "8",
		},
		{
			name: "body replaced, stale length fixed",
			handler: func(w http.ResponseWriter) {
				w.Header().Set("Content-Length", "8")
				w.WriteHeader(http.StatusCreated)
				_, _ = w.Write([]byte(`{"id":1}`))
			},
			setBody:    `{"_id":1}`,
			wantStatus: 201, wantBody: `{"_id":1}`, wantLength: "9",
		},
		{
			name: "first status wins, informational dropped",
			handler: func(w http.ResponseWriter) {
				w.WriteHeader(http.StatusEarlyHints)
				w.WriteHeader(http.StatusNotFound)
				w.WriteHeader(http.StatusOK)
				_, _ = w.Write([]byte("x"))
			},
			wantStatus: 404, wantBody: "x", wantLength: "1",
		},
		{
			name: "no content",
			handler: func(w http.ResponseWriter) {
				w.Header().Set("Content-Length", "0")
				w.WriteHeader(http.StatusNoContent)
			},
			wantStatus: 204,
		},
		{
			name: "not modified keeps its length",
			handler: func(w http.ResponseWriter) {
				w.Header().Set("Content-Length", "42")
				w.WriteHeader(http.StatusNotModified)
			},
			wantStatus: 304, wantLength: "42",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := httptest.NewRecorder()
			rec := rewrite.NewRecorder(out)
			defer rec.Release()
			tt.handler(rec)
			if out.Code != 200 || out.Body.Len() != 0 || len(out.Header()) != 0 {
				t.Fatal("the underlying writer was written to before Flush")
			}
			if rec.Status() != tt.wantStatus {
				t.Errorf("Status() = %d, want %d", rec.Status(), tt.wantStatus)
			}
			if tt.setBody != "" {
				rec.SetBody([]byte(tt.setBody))
			}
			if err := rec.Flush(); err != nil {
				t.Fatalf("Flush: %v", err)
			}
			if out.Code != tt.wantStatus || out.Body.String() != tt.wantBody {
				t.Errorf("sent %d %q, want %d %q", out.Code, out.Body, tt.wantStatus, tt.wantBody)
			}
			if got := out.Header().Get("Content-Length"); got != tt.wantLength {
				t.Errorf("Content-Length = %q, want %q", got, tt.wantLength)
			}
		})
	}
}

func TestRecorderHeaders(t *testing.T) {
	out := httptest.NewRecorder()
	out.Header().Set("X-Graylog-Node-ID", "node-1")
	out.Header().Set("Content-Type", "text/plain")
	rec := rewrite.NewRecorder(out)
	defer rec.Release()
	if len(rec.Header()) != 0 {
		t.Fatalf("new Recorder has headers %v, want none", rec.Header())
	}
	rec.Header().Set("Content-Type", "application/json")
	rec.Header().Add("Link", "<a>")
	rec.Header().Add("Link", "<b>")
	if err := rec.Flush(); err != nil {
		t.Fatal(err)
	}
	h := out.Header()
	if got := h.Get("X-Graylog-Node-ID"); got != "node-1" {
		t.Errorf("X-Graylog-Node-ID = %q, want the header set before recording kept", got)
	}
	if got := h.Get("Content-Type"); got != "application/json" {
		t.Errorf("Content-Type = %q, want the recorded value", got)
	}
	if got := h.Values("Link"); len(got) != 2 || got[0] != "<a>" || got[1] != "<b>" {
		t.Errorf("Link = %q, want both values in order", got)
	}
}

func TestRecorderAfterFlush(t *testing.T) {
	rec := rewrite.NewRecorder(httptest.NewRecorder())
	defer rec.Release()
	if err := rec.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := rec.Flush(); !errors.Is(err, rewrite.ErrFlushed) {
		t.Errorf("second Flush error = %v, want ErrFlushed", err)
	}
	if _, err := rec.Write([]byte("x")); !errors.Is(err, rewrite.ErrFlushed) {
		t.Errorf("Write after Flush error = %v, want ErrFlushed", err)
	}
}

// failingWriter is a ResponseWriter whose body writes fail, like a
// connection the client closed.
type failingWriter struct{ h http.Header }

var errGone = errors.New("client gone")

func (f failingWriter) Header() http.Header       { return f.h }
func (failingWriter) WriteHeader(int)             {}
func (failingWriter) Write(p []byte) (int, error) { return 0, errGone }

func TestRecorderFlushWriteError(t *testing.T) {
	rec := rewrite.NewRecorder(failingWriter{make(http.Header)})
	defer rec.Release()
	_, _ = rec.Write([]byte("body"))
	if err := rec.Flush(); !errors.Is(err, errGone) {
		t.Errorf("Flush error = %v, want the underlying write error", err)
	}
}

func TestRecorderReleaseResets(t *testing.T) {
	for i := range 3 {
		rec := rewrite.NewRecorder(httptest.NewRecorder())
		if rec.Status() != 200 || len(rec.Body()) != 0 || len(rec.Header()) != 0 {
			t.Fatalf("round %d: reused Recorder not reset: status %d, body %q, header %v", i, rec.Status(), rec.Body(), rec.Header())
		}
		rec.Header().Set("X-Round", "1")
		rec.WriteHeader(http.StatusTeapot)
		_, _ = rec.Write([]byte("stale"))
		if err := rec.Flush(); err != nil {
			t.Fatal(err)
		}
		rec.Release()
	}
}
