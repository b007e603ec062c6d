package messages

import (
	"math"
	"testing"
)

func TestJavaDouble(t *testing.T) {
	for _, tc := range []struct {
		f    float64
		want string
	}{
		{1, "1.0"}, {12, "12.0"}, {1.5, "1.5"}, {0.5, "0.5"}, {-2.25, "-2.25"}, {0.001, "0.001"},
		{9999999, "9999999.0"}, {1e7, "1.0E7"}, {-3.5e10, "-3.5E10"}, {1.5e-4, "1.5E-4"}, {1.25e-5, "1.25E-5"},
		{0, "0.0"}, {math.Copysign(0, -1), "-0.0"}, {math.NaN(), "NaN"}, {math.Inf(1), "Infinity"}, {math.Inf(-1), "-Infinity"},
		{math.MaxFloat64, "1.7976931348623157E308"}, {5e-324, "5.0E-324"},
	} {
		if got := JavaDouble(tc.f); got != tc.want {
			t.Errorf("JavaDouble(%v) = %q, want %q", tc.f, got, tc.want)
		}
	}
}
