package routertest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/loggate/loggate/router/api"
)

// Decode decodes a response body as T, failing the test when it is not.
func Decode[T any](t testing.TB, rec *httptest.ResponseRecorder) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(rec.Body.Bytes(), &v); err != nil {
		t.Fatalf("decoding %q: %v", rec.Body.String(), err)
	}
	return v
}

// WantStatus fails the test unless the response has the status.
func WantStatus(t testing.TB, rec *httptest.ResponseRecorder, status int) {
	t.Helper()
	if rec.Code != status {
		t.Fatalf("status %d, want %d; body %s", rec.Code, status, rec.Body)
	}
}

// WantError checks a Graylog ApiError: the status, and a message containing
// msg.
func WantError(t testing.TB, rec *httptest.ResponseRecorder, status int, msg string) {
	t.Helper()
	WantStatus(t, rec, status)
	body := Decode[api.ErrorBody](t, rec)
	if body.Type != "ApiError" || !strings.Contains(body.Message, msg) {
		t.Errorf("body %s, want an ApiError containing %q", rec.Body, msg)
	}
}

// WantInvalid checks a ValidationApiError that names exactly the fields
// given, each with a message containing its text.
func WantInvalid(t testing.TB, rec *httptest.ResponseRecorder, fields map[string]string) {
	t.Helper()
	WantStatus(t, rec, http.StatusBadRequest)
	body := Decode[struct {
		Type   string                         `json:"type"`
		Errors map[string][]map[string]string `json:"validation_errors"`
	}](t, rec)
	if body.Type != "ValidationApiError" || len(body.Errors) != len(fields) {
		t.Fatalf("body %s, want a ValidationApiError on %v", rec.Body, fields)
	}
	for f, part := range fields {
		found := false
		for _, e := range body.Errors[f] {
			found = found || strings.Contains(e["error"], part)
		}
		if !found {
			t.Errorf("%s: %v, want a message containing %q", f, body.Errors[f], part)
		}
	}
}

// SameJSON reports whether two JSON documents are equal as values, failing
// the test when either is not JSON.
func SameJSON(t testing.TB, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("decode %s: %v", a, err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	return reflect.DeepEqual(x, y)
}
