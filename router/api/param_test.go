package api_test

import (
	"net/url"
	"testing"

	"github.com/loggate/loggate/router/api"
)

func TestIntParam(t *testing.T) {
	for _, tc := range []struct {
		v    string
		want int
		ok   bool
	}{
		{"", 7, true}, {" 5 ", 5, true}, {"0", 0, true}, {"100", 100, true},
		{"101", 0, false}, {"-1", 0, false}, {"x", 0, false}, {"1.5", 0, false},
		{"9223372036854775807", 0, false}, {"99999999999999999999", 0, false}, {"-9223372036854775808", 0, false},
	} {
		got, err := api.IntParam(url.Values{"n": {tc.v}}, "n", 7, 0, 100)
		if tc.ok != (err == nil) || got != tc.want {
			t.Errorf("%q: %d, %v; want %d, ok %v", tc.v, got, err, tc.want, tc.ok)
		}
		if err != nil && api.ErrorCode(err) != api.Invalid {
			t.Errorf("%q: %v is not a 400", tc.v, err)
		}
	}
}

// FuzzIntParam checks that a value IntParam accepts is within its limits,
// whatever the client sends.
func FuzzIntParam(f *testing.F) {
	for _, s := range []string{"", "1", "-1", "2147483648", "9223372036854775807", " 3", "0x10", "+5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := api.IntParam(url.Values{"n": {s}}, "n", 1, -5, api.MaxInt32)
		if err == nil && (n < -5 || n > api.MaxInt32) {
			t.Fatalf("%q accepted as %d, outside the limits", s, n)
		}
		if err != nil && api.ErrorCode(err) != api.Invalid {
			t.Fatalf("%q: %v is not a 400", s, err)
		}
	})
}
