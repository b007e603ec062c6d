package processing

import "testing"

// TestJavaLength counts UTF-16 code units as Java's String.length does,
// on the ASCII fast path and past it.
func TestJavaLength(t *testing.T) {
	tests := []struct {
		s    string
		want int64
	}{
		{"", 0},
		{"GET /index.html 200", 19},
		{"grüße", 5},
		{"ok ✓", 4},
		{"😀", 2},
		{"a😀b", 4},
		{"abc\xffd", 5}, // an invalid byte is one replacement character
	}
	for _, tt := range tests {
		if got := javaLength(tt.s); got != tt.want {
			t.Errorf("javaLength(%q) = %d, want %d", tt.s, got, tt.want)
		}
	}
}
