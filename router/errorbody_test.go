package router_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/system/metrics"
	"github.com/loggate/loggate/router"
	"github.com/loggate/loggate/router/api"
)

// Every error a handler returns passes the one writer: one that carries its
// own body is answered with that body, its code's status and its headers,
// and counted as the router counts every error; an error no service
// translated is a 500 that shows nothing of itself.
func TestErrorsPassTheOneWriter(t *testing.T) {
	type parseBody struct {
		Type string `json:"type"`
		Line int    `json:"line"`
	}
	tests := []struct {
		name       string
		err        error
		wantStatus int
		wantBody   string
		wantHeader string // Retry-After
		want4xx    int64
		want5xx    int64
	}{
		{"own body", fmt.Errorf("search: %w", &api.Error{Code: api.Invalid, Message: "Cannot parse 'a:'",
			Body: parseBody{Type: "AutoValue_QueryParseError", Line: 1}}),
			400, `{"type":"AutoValue_QueryParseError","line":1}`, "", 1, 0},
		{"own body and header", &api.Error{Code: api.Unavailable, Message: "busy", Header: http.Header{"Retry-After": {"3"}},
			Body: map[string]string{"type": "Busy"}},
			503, `{"type":"Busy"}`, "3", 0, 1},
		{"ApiError", api.Errorf(api.NotFound, "Stream <x> not found!"),
			404, `{"type":"ApiError","message":"Stream <x> not found!"}`, "", 1, 0},
		{"validation", api.Invalidf("title", "must not be empty"),
			400, `{"type":"ValidationApiError","message":"Validation failed!","validation_errors":{"title":[{"error":"must not be empty"}]}}`, "", 1, 0},
		{"untranslated", fmt.Errorf("streams \"x\": %w", errors.New("document not found")),
			500, `{"type":"ApiError","message":"Internal error, see the server log"}`, "", 0, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			reg := metrics.New(time.Now)
			routes := []api.Route{{Method: "GET", Path: "/fail", Public: true,
				Handler: func(http.ResponseWriter, *http.Request) error { return tc.err }}}
			rt := router.New(router.Options{Routes: routes, Metrics: reg})
			rec := httptest.NewRecorder()
			rt.ServeHTTP(rec, httptest.NewRequest("GET", router.Prefix+"/fail", nil))
			if rec.Code != tc.wantStatus || rec.Body.String() != tc.wantBody {
				t.Errorf("answer %d %s\nwant %d %s", rec.Code, rec.Body, tc.wantStatus, tc.wantBody)
			}
			if got := rec.Header().Get("Retry-After"); got != tc.wantHeader {
				t.Errorf("Retry-After %q, want %q", got, tc.wantHeader)
			}
			if got := reg.Counter("loggate.http.responses.4xx").Count(); got != tc.want4xx {
				t.Errorf("4xx counter %d, want %d", got, tc.want4xx)
			}
			if got := reg.Counter("loggate.http.responses.5xx").Count(); got != tc.want5xx {
				t.Errorf("5xx counter %d, want %d", got, tc.want5xx)
			}
		})
	}
}
