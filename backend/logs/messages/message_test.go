package messages

import "testing"

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
