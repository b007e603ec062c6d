package ingest

import (
	"bytes"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/loggate/loggate/router/api"
)

// The input answers its errors with the API's one writer; back-pressure
// (a 503 the input gives by design) leaves no log line per refused message,
// a failure the server did not expect does.
func TestHTTPFailWritesAndLogs(t *testing.T) {
	var logs bytes.Buffer
	h := &httpHandler{inst: &instance{log: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))}}
	busy := &api.Error{Code: api.Unavailable, Message: "The message journal is full; retry later.", Header: http.Header{"Retry-After": {"3"}}}
	rec := httptest.NewRecorder()
	h.fail(rec, httptest.NewRequest(http.MethodPost, "/gelf", nil), busy)
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") != "3" ||
		rec.Body.String() != `{"type":"ApiError","message":"The message journal is full; retry later."}` {
		t.Errorf("answer %d %v %s", rec.Code, rec.Header(), rec.Body)
	}
	if logs.Len() != 0 {
		t.Errorf("back-pressure logged:\n%s", logs.String())
	}
	rec = httptest.NewRecorder()
	h.fail(rec, httptest.NewRequest(http.MethodPost, "/gelf", nil), errors.New("unexpected"))
	if rec.Code != http.StatusInternalServerError || !strings.Contains(logs.String(), "level=ERROR") {
		t.Errorf("answer %d, log:\n%s", rec.Code, logs.String())
	}
}
