package messages

import (
	"math"
	"testing"
)

func TestTrim(t *testing.T) {
	for in, want := range map[string]string{
		"":                  "",
		"  a b  ":           "a b",
		"\x00\t\n x \r\x1f": "x",
		"\u00a0x\u00a0":     "\u00a0x\u00a0", // Java's trim stops at U+0020
		"   ":               "",
	} {
		if got := Trim(in); got != want {
			t.Errorf("Trim(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSetFieldNonFinite: NaN and ±Inf are kept as Java's text, which any
// JSON answer and Elasticsearch can hold; finite floats stay numbers.
func TestSetFieldNonFinite(t *testing.T) {
	for _, tc := range []struct {
		in   float64
		want any
	}{
		{math.NaN(), "NaN"}, {math.Inf(1), "Infinity"}, {math.Inf(-1), "-Infinity"}, {2.5, 2.5},
	} {
		var m Message
		if !m.SetField("x", tc.in) {
			t.Fatalf("SetField(x, %v) refused", tc.in)
		}
		if got, _ := m.Get("x"); got != tc.want {
			t.Errorf("SetField(x, %v) stored %#v, want %#v", tc.in, got, tc.want)
		}
	}
}
