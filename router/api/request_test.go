package api_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http/httptest"
	"testing"

	"github.com/gorilla/mux"

	"github.com/loggate/loggate/router/api"
)

// WithRequest carries the request id, logger and base URI in one value;
// each set again on top of it wins, as separate values would.
func TestWithRequest(t *testing.T) {
	var first, second bytes.Buffer
	l1, l2 := slog.New(slog.NewTextHandler(&first, nil)), slog.New(slog.NewTextHandler(&second, nil))
	type other struct{}
	parent := context.WithValue(context.Background(), other{}, "kept")
	ctx := api.WithRequest(parent, 45, l1, "http://node:9000/api/")
	location := func(ctx context.Context) string {
		return api.Location(httptest.NewRequest("GET", "/", nil).WithContext(ctx), "/users/x")
	}
	if got := api.RequestID(ctx); got != "19" {
		t.Errorf("request id %q", got)
	}
	if api.Logger(ctx) != l1 {
		t.Error("not the request's logger")
	}
	if got := location(ctx); got != "http://node:9000/api/users/x" {
		t.Errorf("location %q", got)
	}
	if ctx.Value(other{}) != "kept" {
		t.Error("the parent's values are lost")
	}
	inner := api.WithBaseURI(api.WithLogger(api.WithRequestID(ctx, "r2"), l2), "http://other/api")
	if api.RequestID(inner) != "r2" || api.Logger(inner) != l2 || location(inner) != "http://other/api/users/x" {
		t.Errorf("values set later do not win: %q %v %q", api.RequestID(inner), api.Logger(inner) == l2, location(inner))
	}
	if api.Logger(api.WithRequest(context.Background(), 0, nil, "")) != slog.Default() {
		t.Error("no logger is not slog's default")
	}
}

// SetValue sets a value in place on the router's request context (the
// request is not copied) and answers it to contexts derived from it; on any
// other context it copies the request, as WithContext would.
func TestSetValue(t *testing.T) {
	type key struct{}
	type other struct{}
	r := httptest.NewRequest("GET", "/", nil)
	r = r.WithContext(api.WithRequest(r.Context(), 1, nil, ""))
	if got := api.SetValue(r, key{}, "v1"); got != r {
		t.Error("the router's request was copied")
	}
	derived := context.WithValue(r.Context(), other{}, "x")
	if r.Context().Value(key{}) != "v1" || derived.Value(key{}) != "v1" {
		t.Errorf("value %v, derived %v", r.Context().Value(key{}), derived.Value(key{}))
	}
	api.SetValue(r, key{}, "v2")
	api.SetValue(r, other{}, "o")
	if r.Context().Value(key{}) != "v2" || r.Context().Value(other{}) != "o" || api.RequestID(r.Context()) != "1" {
		t.Errorf("after setting again: %v %v %q", r.Context().Value(key{}), r.Context().Value(other{}), api.RequestID(r.Context()))
	}
	// Past the request context's slots, and on a request without it, the
	// value goes on a copy.
	type k3 struct{}
	type k4 struct{}
	api.SetValue(r, k3{}, 3)
	if got := api.SetValue(r, k4{}, 4); got == r || got.Context().Value(k4{}) != 4 || r.Context().Value(k4{}) != nil {
		t.Error("a value past the slots is not on a copy")
	}
	plain := httptest.NewRequest("GET", "/", nil)
	if got := api.SetValue(plain, key{}, "v"); got == plain || got.Context().Value(key{}) != "v" || plain.Context().Value(key{}) != nil {
		t.Error("a request without the router's context is not copied")
	}
}

// SetVars puts path variables in place on the router's request context,
// found under derived contexts too; Vars falls back to gorilla/mux's own,
// and SetVars(r, nil) forgets those set in place.
func TestSetVars(t *testing.T) {
	r := httptest.NewRequest("GET", "/", nil)
	r = r.WithContext(api.WithRequest(r.Context(), 1, nil, ""))
	if got := api.SetVars(r, map[string]string{"id": "a"}); got != r {
		t.Error("the router's request was copied")
	}
	type other struct{}
	derived := r.WithContext(context.WithValue(r.Context(), other{}, "x"))
	if api.Var(r, "id") != "a" || api.Var(derived, "id") != "a" {
		t.Errorf("var %q, derived %q", api.Var(r, "id"), api.Var(derived, "id"))
	}
	byMux := mux.SetURLVars(api.SetVars(r, nil), map[string]string{"id": "m"})
	if got := api.Var(byMux, "id"); got != "m" {
		t.Errorf("gorilla/mux's variable: %q", got)
	}
	plain := httptest.NewRequest("GET", "/", nil)
	if got := api.Var(api.SetVars(plain, map[string]string{"id": "p"}), "id"); got != "p" || api.Var(plain, "id") != "" {
		t.Errorf("without the router's context: %q", got)
	}
}
