package javaregex_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/loggate/loggate/backend/logs/javaregex"
)

func TestReplacement(t *testing.T) {
	re := regexp.MustCompile(`(a)(?P<name>b)`)
	tests := []struct {
		repl, want, err string
	}{
		{"x", "x", ""},
		{"$1-$2", "a-b", ""},
		{"$10", "a0", ""}, // two groups: $1, then 0
		{"$21", "b1", ""}, // $2, then 1
		{"${name}!", "b!", ""},
		{`\$1 \\`, `$1 \`, ""},
		{"$3", "", "no group 3"},
		{"${nope}", "", "no group with name {nope}"},
		{"${name", "", "missing trailing '}'"},
		{"$", "", "group index is missing"},
		{"$x", "", "illegal group reference"},
		{`a\`, "", "character to be escaped is missing"},
	}
	for _, tt := range tests {
		tmpl, err := javaregex.Replacement(tt.repl, re)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("Replacement(%q) = %q, %v; want an error with %q", tt.repl, tmpl, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("Replacement(%q): %v", tt.repl, err)
			continue
		}
		if got := re.ReplaceAllString("ab", tmpl); got != tt.want {
			t.Errorf("Replacement(%q) replaces ab with %q, want %q", tt.repl, got, tt.want)
		}
	}
}

// FuzzReplacement: any replacement string translates or is refused, and a
// translation expands.
func FuzzReplacement(f *testing.F) {
	for _, s := range []string{"$1", "${name}", `\$`, "$10", "${", "$"} {
		f.Add(s)
	}
	re := regexp.MustCompile(`(a)(?P<name>b)`)
	f.Fuzz(func(t *testing.T, repl string) {
		tmpl, err := javaregex.Replacement(repl, re)
		if err == nil {
			_ = re.ReplaceAllString("xabx", tmpl)
		}
	})
}

// TestCheckSize: an expression whose counted repetitions expand to a huge
// program is refused before it is compiled; ordinary ones pass.
func TestCheckSize(t *testing.T) {
	for _, c := range []struct {
		expr string
		ok   bool
	}{
		{`took (\d+) ms`, true},
		{`(?:\d{1,3}\.){3}\d{1,3}`, true},
		{`[a-z]{1000}`, true},
		{`x{1000}`, true},
		{strings.Repeat(`[a-z]{1000}`, 3000), false},
		{strings.Repeat(`(?:ab|cd){0,1000}`, 100), false},
		{`(?:a{100}){10}`, true},
		{`((`, true}, // left to the compiler
	} {
		if err := javaregex.CheckSize(c.expr); (err == nil) != c.ok {
			t.Errorf("%.40q: %v, want ok %v", c.expr, err, c.ok)
		}
	}
}
