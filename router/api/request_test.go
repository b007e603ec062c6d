package api_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http/httptest"
	"testing"

	"github.com/loggate/loggate/router/api"
)

// WithRequest carries the request id, logger and base URI in one value;
// each set again on top of it wins, as separate values would.
func TestWithRequest(t *testing.T) {
	var first, second bytes.Buffer
	l1, l2 := slog.New(slog.NewTextHandler(&first, nil)), slog.New(slog.NewTextHandler(&second, nil))
	type other struct{}
	parent := context.WithValue(context.Background(), other{}, "kept")
	ctx := api.WithRequest(parent, "r1", l1, "http://node:9000/api/")
	location := func(ctx context.Context) string {
		return api.Location(httptest.NewRequest("GET", "/", nil).WithContext(ctx), "/users/x")
	}
	if got := api.RequestID(ctx); got != "r1" {
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
	if api.Logger(api.WithRequest(context.Background(), "", nil, "")) != slog.Default() {
		t.Error("no logger is not slog's default")
	}
}
