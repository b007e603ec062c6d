package api_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/loggate/loggate/router/api"
)

// As gives a sentinel its code where a service returns it, showing the
// error's own text, and leaves errors that already carry a code alone.
func TestAs(t *testing.T) {
	errNotFound := errors.New("document not found")
	tests := []struct {
		name     string
		err      error
		wantCode api.Code
		wantMsg  string
	}{
		{"nil", nil, api.Internal, ""},
		{"sentinel", fmt.Errorf("users %q: %w", "x", errNotFound), api.NotFound, `users "x": document not found`},
		{"other", errors.New("disk full"), api.Internal, ""},
		{"already an Error", &api.Error{Code: api.NotFound, Message: "Stream <x> not found!", Err: errNotFound}, api.NotFound, "Stream <x> not found!"},
		{"validation", fmt.Errorf("%w: %w", api.Invalidf("title", "empty"), errNotFound), api.Invalid, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := api.As(tc.err, errNotFound, api.NotFound)
			if tc.err == nil {
				if got != nil {
					t.Fatalf("As(nil) = %v", got)
				}
				return
			}
			if c := api.ErrorCode(got); c != tc.wantCode {
				t.Errorf("code %v, want %v", c, tc.wantCode)
			}
			if !errors.Is(got, tc.err) {
				t.Error("the result does not wrap the error")
			}
			var e *api.Error
			if tc.wantMsg != "" && (!errors.As(got, &e) || e.Message != tc.wantMsg) {
				t.Errorf("message %v, want %q", got, tc.wantMsg)
			}
		})
	}
}
