package streams

import (
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/logs/messages"
)

func TestParseJavaDouble(t *testing.T) {
	ok := func(in string, want float64) {
		t.Helper()
		got, valid := parseJavaDouble(in)
		if !valid || got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Errorf("parseJavaDouble(%q) = %v, %v; want %v", in, got, valid, want)
		}
	}
	ok("0", 0)
	ok("42", 42)
	ok("-1.5", -1.5)
	ok("+7", 7)
	ok("1.", 1)
	ok(".5", 0.5)
	ok("1e3", 1000)
	ok("1.e3", 1000)
	ok("2.5E-1", 0.25)
	ok("1e+2", 100)
	ok("5d", 5)
	ok("5.5F", 5.5)
	ok("1e2f", 100)
	ok("0x10p0", 16)
	ok("0X1.8P1", 3)
	ok("-0x.8p1", -1)
	ok("0x1p-2d", 0.25)
	ok("NaN", math.NaN())
	ok("Infinity", math.Inf(1))
	ok("-Infinity", math.Inf(-1))
	ok("1e400", math.Inf(1))
	ok("-1e400", math.Inf(-1))
	ok("1e-400", 0)
	ok("007", 7)

	for _, bad := range []string{"", " 1", "1 ", "+", "-", ".", "e5", "1e", "1e+", "1ee5", "0x10", "0x.p1", "0xp1", "1f5",
		"nan", "inf", "infinity", "+-1", "1_000", "١", "0x1p1.5", "1.5.5", "--1", "Infinityx", "1dd", "0b101", "12a"} {
		if v, valid := parseJavaDouble(bad); valid {
			t.Errorf("parseJavaDouble(%q) = %v, want no number", bad, v)
		}
	}
}

func TestAppendText(t *testing.T) {
	cases := []struct {
		in   any
		want string
	}{
		// A float64 is a Double, integral or not: messages keep
		// integers as int64.
		{200.0, "200.0"},
		{-3.0, "-3.0"},
		{2e7, "2.0E7"},
		{time.Date(2023, 11, 14, 22, 13, 20, 5e6, time.FixedZone("CET", 3600)), "2023-11-14T21:13:20.005Z"},
		{1.5, "1.5"},
		{0.001, "0.001"},
		{0.0001, "1.0E-4"},
		{1234567.25, "1234567.25"},
		{1e7 + 0.5, "1.00000005E7"},
		{1e20, "1.0E20"},
		{-2.5e-10, "-2.5E-10"},
		{math.NaN(), "NaN"},
		{math.Inf(-1), "-Infinity"},
		{float32(0.5), "0.5"},
		{int64(-9), "-9"},
		{uint64(1 << 63), "9223372036854775808"},
		{true, "true"},
		{json.Number("12"), "12"},
		{json.Number("-0"), "0"},
		{json.Number("123456789012345678901234567890"), "123456789012345678901234567890"},
		{json.Number("1.0"), "1.0"},
		{json.Number("100"), "100"},
		{json.Number("1e2"), "100.0"},
		{json.Number("1E7"), "1.0E7"},
		{json.Number("-0.0"), "-0.0"},
		{[]any{1, "a"}, "[1 a]"},
	}
	for _, c := range cases {
		if got := string(appendText(nil, c.in)); got != c.want {
			t.Errorf("appendText(%#v) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestJavaTrim(t *testing.T) {
	for in, want := range map[string]string{"": "", " a ": "a", "\x00\t a b\r\n": "a b", "\u00a0a": "\u00a0a", "   ": ""} {
		if got := messages.Trim(in); got != want {
			t.Errorf("messages.Trim(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzParseJavaDouble(f *testing.F) {
	for _, s := range []string{"1", "-1.5e3", "0x1.8p1", "NaN", "Infinity", "1.", ".5f", "1e", "0x", "+", "1e400"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, ok := parseJavaDouble(s)
		if !ok && v != 0 {
			t.Fatalf("%q: no number but value %v", s, v)
		}
		if ok && !javaDoubleSyntax(s) {
			t.Fatalf("%q parsed without valid syntax", s)
		}
		// A number's Java text parses back to the same number.
		if ok && !math.IsNaN(v) {
			back, ok2 := parseJavaDouble(string(messages.AppendJavaDouble(nil, v)))
			if !ok2 || back != v {
				t.Fatalf("%q = %v, printed %q, read back %v %v", s, v, messages.AppendJavaDouble(nil, v), back, ok2)
			}
		}
	})
}
