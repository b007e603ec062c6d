package router_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/loggate/loggate/router"
	"github.com/loggate/loggate/router/api"
)

// A request whose handler panics is answered 500 and, like every request,
// has its line in the access log.
func TestAccessLogRecordsPanics(t *testing.T) {
	var log bytes.Buffer
	routes := []api.Route{{Method: "GET", Path: "/boom", Public: true,
		Handler: func(http.ResponseWriter, *http.Request) error { panic("boom") }}}
	rt := router.New(router.Options{Routes: routes, AccessLog: &log})
	rec := httptest.NewRecorder()
	rt.ServeHTTP(rec, httptest.NewRequest("GET", router.Prefix+"/boom", nil))
	if rec.Code != http.StatusInternalServerError {
		t.Fatalf("status %d, want 500", rec.Code)
	}
	var e router.AccessEntry
	if err := json.Unmarshal(log.Bytes(), &e); err != nil || e.Status != http.StatusInternalServerError || e.Path != "/api/boom" {
		t.Errorf("access log %q (%v), want one entry for /api/boom with status 500", log.String(), err)
	}
}
