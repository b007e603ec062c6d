package router_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/system/metrics"
	"github.com/loggate/loggate/router"
	"github.com/loggate/loggate/router/api"
)

// A request whose client hung up is not a server error: it is logged at
// debug level only and counted apart from the 5xx.
func TestCancelledRequestIsNotAnError(t *testing.T) {
	reg := metrics.New(time.Now)
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	var cancel context.CancelFunc
	routes := []api.Route{
		{Method: "GET", Path: "/hangup", Public: true, Handler: func(w http.ResponseWriter, r *http.Request) error {
			cancel() // the client goes away while the handler works
			<-r.Context().Done()
			return fmt.Errorf("search: %w", r.Context().Err())
		}},
		{Method: "GET", Path: "/broken", Public: true, Handler: func(w http.ResponseWriter, r *http.Request) error {
			// The same error without a hang-up is the server's.
			return fmt.Errorf("search: %w", context.Canceled)
		}},
	}
	rt := router.New(router.Options{Routes: routes, Metrics: reg, Logger: logger})
	serve := func(path string, ctx context.Context) *httptest.ResponseRecorder {
		req := httptest.NewRequestWithContext(ctx, "GET", router.Prefix+path, nil)
		rec := httptest.NewRecorder()
		rt.ServeHTTP(rec, req)
		return rec
	}
	ctx, c := context.WithCancel(context.Background())
	cancel = c
	if rec := serve("/hangup", ctx); rec.Code != api.StatusClientClosed {
		t.Errorf("status %d, want %d", rec.Code, api.StatusClientClosed)
	}
	if got := reg.Counter("org.graylog2.rest.requests.cancelled").Count(); got != 1 {
		t.Errorf("cancelled counter %d, want 1", got)
	}
	if got := reg.Counter("loggate.http.responses.5xx").Count(); got != 0 {
		t.Errorf("5xx counter %d, want 0", got)
	}
	if strings.Contains(logs.String(), "level=ERROR") || !strings.Contains(logs.String(), "level=DEBUG") {
		t.Errorf("log of a cancelled request:\n%s", logs.String())
	}
	if rec := serve("/broken", context.Background()); rec.Code != http.StatusInternalServerError {
		t.Errorf("status %d of a cancellation without a hang-up, want 500", rec.Code)
	}
	if got := reg.Counter("loggate.http.responses.5xx").Count(); got != 1 {
		t.Errorf("5xx counter %d, want 1", got)
	}
}

// A streamed answer the client hangs up on keeps its status and gets no
// error body appended; it is counted as cancelled.
func TestCancelledAfterStart(t *testing.T) {
	reg := metrics.New(time.Now)
	ctx, cancel := context.WithCancel(context.Background())
	routes := []api.Route{{Method: "GET", Path: "/stream", Public: true, Handler: func(w http.ResponseWriter, r *http.Request) error {
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte("row 1\n"))
		cancel()
		return api.AfterStart(fmt.Errorf("export: %w", r.Context().Err()))
	}}}
	rt := router.New(router.Options{Routes: routes, Metrics: reg, Logger: slog.New(slog.DiscardHandler)})
	rec := httptest.NewRecorder()
	rt.ServeHTTP(rec, httptest.NewRequestWithContext(ctx, "GET", router.Prefix+"/stream", nil))
	if rec.Code != http.StatusOK || rec.Body.String() != "row 1\n" {
		t.Errorf("status %d, body %q; want the 200 and the rows written", rec.Code, rec.Body)
	}
	if got := reg.Counter("org.graylog2.rest.requests.cancelled").Count(); got != 1 {
		t.Errorf("cancelled counter %d, want 1", got)
	}
}
