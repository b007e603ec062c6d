package grok

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestParseReferences(t *testing.T) {
	cases := []struct {
		pattern string
		want    []reference
		err     string
	}{
		{`\d+ plain`, nil, ""},
		{`%{WORD} %{INT:n} %{NUMBER:http.bytes:long}`, []reference{
			{"%{WORD}", "WORD", "", ""}, {"%{INT:n}", "INT", "n", ""}, {"%{NUMBER:http.bytes:long}", "NUMBER", "http.bytes", "long"},
		}, ""},
		{`%{A}%{A}`, []reference{{"%{A}", "A", "", ""}, {"%{A}", "A", "", ""}}, ""},
		// Regular expression syntax that is no reference.
		{`%{2,3} %{ WORD} %{}`, nil, ""},
		// A reference without its closing brace would be literal text too.
		{`%{WORD`, nil, "%{WORD is not a valid reference (no closing brace)"},
		{`%{INT:n} %{WORD:w`, nil, "%{WORD:w is not a valid reference"},
		// What go-grok would leave in the expression as literal text.
		{`%{WORD:a-b}`, nil, "%{WORD:a-b} is not a valid reference"},
		{`%{WORD:a:b:c}`, nil, "is not a valid reference"},
		{`%{DATA:ts;date;dd/MM/yyyy}`, nil, "is not a valid reference"},
		{`%{WORD:}`, nil, "is not a valid reference"},
		{`%{INT:n:integer}`, nil, `unsupported type "integer"`},
	}
	for _, c := range cases {
		got, err := parseReferences(c.pattern)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: %v, want an error containing %q", c.pattern, err, c.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: %+v, %v; want %+v", c.pattern, got, err, c.want)
		}
	}
}

func TestCheckName(t *testing.T) {
	for name, ok := range map[string]bool{"WORD": true, "my_pattern2": true, "": false, "A B": false, "A-B": false, "A:B": false, "Ä": false, "A\n": false} {
		if err := checkName(name); (err == nil) != ok {
			t.Errorf("%q: %v", name, err)
		}
	}
}

// chain returns n patterns P0 … P(n-1), each using the next through body,
// and the last one last.
func chain(n int, body func(next string) string, last string) library {
	defs := map[string]string{}
	for i := range n - 1 {
		defs[fmt.Sprintf("P%d", i)] = body(fmt.Sprintf("P%d", i+1))
	}
	defs[fmt.Sprintf("P%d", n-1)] = last
	return libraryOf(defs)
}

func TestCompileLimits(t *testing.T) {
	cases := []struct {
		name string
		lib  library
		err  string // empty: compiles
	}{
		{"cycle", libraryOf(map[string]string{"P0": "%{A}", "A": "x%{B}", "B": "%{C}|y", "C": "%{A}"}), "circular reference A -> B -> C -> A"},
		{"self", libraryOf(map[string]string{"P0": "a|%{P0}"}), "circular reference P0 -> P0"},
		{"cycle not reached", libraryOf(map[string]string{"P0": "%{A}", "A": "a", "B": "%{C}", "C": "%{B}"}), ""},
		{"unknown", libraryOf(map[string]string{"P0": "%{A}", "A": "%{MISSING}"}), "no definition for key 'MISSING' found"},
		{"unreadable dependency", libraryOf(map[string]string{"P0": "%{A}", "A": "%{B:c-d}"}), "pattern A: %{B:c-d} is not a valid reference"},
		{"deep enough", chain(maxDepth-1, func(n string) string { return "(%{" + n + "})" }, "x"), ""},
		{"too deep", chain(maxDepth+1, func(n string) string { return "(%{" + n + "})" }, "x"), "nested more than 64 deep"},
		// Each level doubles: 2^30 copies of x.
		{"too large", chain(31, func(n string) string { return "%{" + n + "}%{" + n + "}" }, "x"), "expands to more than"},
		{"too many references", libraryOf(map[string]string{"P0": strings.Repeat("%{A}", maxReferences+1), "A": "a"}), "more than 4096 references"},
		{"bad expression", libraryOf(map[string]string{"P0": "%{A}", "A": "a{2,1}"}), "invalid regular expression"},
		// 33 KB of text whose repetitions RE2 expands to 3 million
		// instructions: seconds of CPU and over 100 MiB per matcher.
		{"program too large", libraryOf(map[string]string{"P0": strings.Repeat("%{L}", 3000), "L": "[a-z]{1000}"}), "too large"},
		{"program large enough", libraryOf(map[string]string{"P0": strings.Repeat("%{L}", 30), "L": "[a-z]{1000}"}), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := compile(c.lib, "%{P0}", false)
			switch {
			case c.err == "" && err != nil:
				t.Errorf("%v", err)
			case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
				t.Errorf("%v, want an error containing %q", err, c.err)
			}
		})
	}
}

// expandText expands references as go-grok does with every reference
// captured, independently of the resolver.
func expandText(lib library, pattern string) string {
	return refToken.ReplaceAllStringFunc(pattern, func(token string) string {
		m := refSyntax.FindStringSubmatch(token)
		target := m[1]
		if m[2] != "" {
			target = strings.ReplaceAll(m[2], ".", "___")
		}
		return "(?P<" + target + ">" + expandText(lib, lib[m[1]].pattern) + ")"
	})
}

// The resolver's size is what go-grok builds, and that compiles.
func TestExpandedSize(t *testing.T) {
	lib := chain(9, func(n string) string { return "%{" + n + ":f.g}-%{" + n + "}" }, "x")
	lib["Q"] = newDefinition(`%{P0:a} %{P3:b.c.d} %{P8}`)
	for _, name := range []string{"P0", "P5", "P8", "Q"} {
		size, _, err := newResolver(lib).visit(name)
		if err != nil {
			t.Fatal(err)
		}
		if want := len(expandText(lib, lib[name].pattern)); size != want {
			t.Errorf("%s: size %d, want %d", name, size, want)
		}
	}
	m, err := compile(lib, "%{P0}", false)
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.TrimSuffix(strings.Repeat("x-", 1<<8), "-"); !m.MatchString(want) {
		t.Error("P0 does not match")
	}
}

func TestUnquote(t *testing.T) {
	for in, want := range map[string]string{
		`"a b"`: "a b", `'a'`: "a", `""`: "", `"`: "", `'`: "", `"a"b"`: `"a"b"`, `"a'`: `"a'`,
		`a"`: `a"`, `abc`: "abc", ``: "", `'a"b'`: `a"b`,
	} {
		if got := unquote(in); got != want {
			t.Errorf("unquote(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMatchTypes(t *testing.T) {
	lib := libraryOf(map[string]string{"INT": `[+-]?\d+`, "NUM": `[+-]?\d+(?:\.\d+)?`, "W": `\w+`})
	m, err := compile(lib, `%{INT:i:int} %{INT:l:long} %{NUM:f:float} %{NUM:d:double} %{W:b:bool} %{W:s:string}`, false)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"i": 1, "l": -2, "f": 1.5, "d": 2.0, "b": false, "s": "x"}
	if got := m.Match("1 -2 1.5 2 false x"); !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v, want %#v", got, want)
	}
	// A value its type cannot read leaves every value as text.
	want = map[string]any{"i": "1", "l": "-2", "f": "1.5", "d": "2", "b": "nope", "s": "x"}
	if got := m.Match("1 -2 1.5 2 nope x"); !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v, want %#v", got, want)
	}
	if got := m.Match("no match"); got == nil || len(got) != 0 {
		t.Errorf("no match: %#v", got)
	}
}

func TestCompilable(t *testing.T) {
	got := compilable(map[string]string{
		"LOOKBEHIND": `(?<!x)y`, // Perl, not RE2
		"USES_IT":    `a%{LOOKBEHIND}`,
		"USES_THAT":  `%{USES_IT}|b`,
		"BROKEN_REF": `%{MISSING}`,
		"FINE":       `\d+`,
		"USES_FINE":  `%{FINE:n:int}`,
	})
	want := map[string]string{"FINE": `\d+`, "USES_FINE": `%{FINE:n:int}`}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}
