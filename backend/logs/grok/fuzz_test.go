package grok

import (
	"maps"
	"testing"
)

// FuzzCheck validates arbitrary patterns the way a save does, over the
// default patterns plus a second new one, so that cycles through two
// patterns are reachable. Validation must not panic or hang, must refuse or
// yield a matcher that works, and must agree with a plain compile.
func FuzzCheck(f *testing.F) {
	seeds := [][4]string{
		{"A", "%{IPV4:ip} %{WORD}", "B", "x"},
		{"A", "%{B}", "B", "%{A}"},
		{"A", "%{A}", "B", ""},
		{"A", "(%{B}", "B", ")"},
		{"A", "%{B}%{B}%{B}", "B", "%{IPORHOST}%{IPORHOST}"},
		{"A", "%{NUMBER:n:int}", "B", "%{NOPE}"},
		{"A", "%{WORD:a-b}", "B", "%{2,3}"},
		{"WORD", `\d+`, "B", "%{WORD:x.y}"},
		{"", "", "", ""},
		{"A B", "x", "B", "(?P<x>a)(?P<x>b)"},
	}
	for _, s := range seeds {
		f.Add(s[0], s[1], s[2], s[3])
	}
	base := make(library, len(defaultPatterns()))
	for _, p := range defaultPatterns() {
		base[p.Name] = newDefinition(p.Pattern)
	}
	f.Fuzz(func(t *testing.T, name, pattern, otherName, other string) {
		top := library{otherName: newDefinition(other)}
		d := newDefinition(pattern)
		top[name] = d
		defs := overlay{top: top, base: base}
		m, err := check(Pattern{Name: name, Pattern: pattern}, d, defs)
		if err != nil {
			if m != nil {
				t.Fatalf("both a matcher and %v", err)
			}
			return
		}
		if got := m.Match(pattern + " " + other); got == nil {
			t.Fatal("nil match map")
		}
		// check only adds requirements to a plain compile.
		flat := maps.Clone(base)
		maps.Copy(flat, top)
		flat[name] = d
		if _, err := compile(flat, "%{"+name+"}", false); err != nil {
			t.Fatalf("checked, but does not compile: %v", err)
		}
	})
}
