package grok_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/loggate/loggate/backend/logs/grok"
)

func TestRequiredLiteral(t *testing.T) {
	for _, tc := range []struct{ expr, want string }{
		{`\d+ HTTP/\d`, " HTTP/"},
		{`(?P<verb>\w+) (?P<path>\S+) HTTP/(?P<v>[\d.]+)`, " HTTP/"},
		{`\d(?:ab\.){3}`, "ab."},
		{`(?:a|b)cd+`, "c"},
		{`\d(?:ab)+`, "ab"},
		{`(?:ab){0,2}c`, "c"},
		{`a\bcd`, "cd"},
		// The regexp package looks for a literal prefix itself.
		{`status=(\d+)`, ""},
		{`(?:ab\.){3}x`, ""},
		{`status=(\d+) in (\w+) seconds`, " seconds"},
		// None: alternatives, optional parts, case folding, U+FFFD.
		{`GET|POST`, ""},
		{`\d+(?: ms)?`, ""},
		{`\d+(?i) error`, ""},
		{`\d+ ` + "\ufffd", ""},
		{`\w*`, ""},
	} {
		if got := grok.RequiredLiteral(regexp.MustCompile(tc.expr)); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.expr, got, tc.want)
		}
	}
}

// FuzzRequiredLiteral: whatever an expression matches contains its
// required literal.
func FuzzRequiredLiteral(f *testing.F) {
	for _, s := range [][2]string{
		{`(?P<verb>\w+) (?P<path>\S+) HTTP/(?P<v>[\d.]+)`, "GET /x HTTP/1.1"},
		{`(?:ab\.){3}x`, "ab.ab.ab.x"},
		{`a\bcd`, "a cd"},
		{"x\ufffdy", "x\xffy"},
		{`(?i)abc`, "ABC"},
		{`(?:a|b)cd+`, "bcdd"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, expr, text string) {
		re, err := regexp.Compile(expr)
		if err != nil || len(expr) > 200 {
			return
		}
		lit := grok.RequiredLiteral(re)
		if re.MatchString(text) && !strings.Contains(text, lit) {
			t.Fatalf("%q matches %q, which does not contain %q", expr, text, lit)
		}
	})
}
