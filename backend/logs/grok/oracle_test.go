package grok

import (
	"fmt"
	"reflect"
	"testing"

	gogrok "github.com/elastic/go-grok"
)

// goGrokMatch is what Match returned when it called go-grok per message
// (ParseTypedString, the text of every capture when a conversion fails,
// java-grok's unquoting): the oracle the compiled matcher must agree with.
// ok is false when go-grok does not compile the pattern.
func goGrokMatch(defs map[string]string, pattern string, namedOnly bool, text string) (map[string]any, bool) {
	g := gogrok.NewWithoutDefaultPatterns()
	if err := g.AddPatterns(defs); err != nil {
		return nil, false
	}
	if err := g.Compile(pattern, namedOnly); err != nil {
		return nil, false
	}
	typed, err := g.ParseTypedString(text)
	if err != nil {
		raw, _ := g.ParseString(text)
		typed = make(map[string]any, len(raw))
		for k, v := range raw {
			typed[k] = v
		}
	}
	for k, v := range typed {
		if s, ok := v.(string); ok {
			typed[k] = unquote(s)
		}
	}
	return typed, true
}

// sameCaptures compares matches by type and text, so that NaN equals NaN.
func sameCaptures(a, b map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || fmt.Sprintf("%T %v", v, v) != fmt.Sprintf("%T %v", w, w) {
			return false
		}
	}
	return true
}

var oracleSamples = []string{
	apacheSample,
	`Oct 11 22:14:15 mymachine su[230]: 'su root' failed for lonvick on /dev/pts/8`,
	`<34>1 2003-10-11T22:14:15.003Z mymachine.example.com su - ID47 - BOM'su root' failed`,
	`10.0.0.1 GET /index.html status=503 "quoted" 'single' 12.5 -7 true`,
	`2001:db8::ff00:42:8329 user@example.com https://example.com:8443/a/b?c=d#e 00:1A:2B:3C:4D:5E`,
	`[2020-01-02 10:00:00,123] ERROR [main] c.e.App - "" '' "a"b" 0x1F UUID 123e4567-e89b-12d3-a456-426614174000`,
	`"GET /x HTTP/1.1" 200 - "-" "curl/7.64" 0.002 Tue Mar 03 10:00:00 2020`,
	``,
}

const apacheSample = `127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326 "http://www.example.com/start.html" "Mozilla/4.08 [en] (Win98; I ;Nav)"`

// The compiled matcher captures exactly what go-grok captured, for every
// default pattern, with and without named captures only.
func TestMatchAgreesWithGoGrokOnDefaults(t *testing.T) {
	defs := map[string]string{}
	for _, p := range defaultPatterns() {
		defs[p.Name] = p.Pattern
	}
	lib := libraryOf(defs)
	for _, p := range defaultPatterns() {
		for _, namedOnly := range []bool{false, true} {
			pattern := "%{" + p.Name + "}"
			m, err := compile(lib, pattern, namedOnly)
			if err != nil {
				t.Fatalf("%s: %v", p.Name, err)
			}
			for _, text := range oracleSamples {
				want, ok := goGrokMatch(defs, pattern, namedOnly, text)
				if !ok {
					t.Fatalf("%s: go-grok does not compile it", p.Name)
				}
				if got := m.Match(text); !sameCaptures(got, want) {
					t.Errorf("%s (named only %v) on %q:\n got %#v\nwant %#v", p.Name, namedOnly, text, got, want)
				}
			}
		}
	}
}

// The corners: types, a failing conversion, one name twice (the later
// non-empty capture wins), dotted names, the pattern's own named groups, a
// type given at two depths, quotes.
func TestMatchAgreesWithGoGrokOnCorners(t *testing.T) {
	defs := map[string]string{
		"INT": `[+-]?\d+`, "NUM": `[+-]?\d+(?:\.\d+)?`, "W": `\w+`, "Q": `"[^"]*"|'[^']*'`,
		"TYPED":  `%{INT:n:int}`,
		"NESTED": `%{TYPED} %{INT:n:string}`,
		"DOTTED": `%{W:a.b} %{W:a___b}`,
		"ANY":    `(?P<own>\S+)?\s*%{W:own}?`,
	}
	cases := []struct{ pattern, text string }{
		{`%{INT:i:int} %{INT:l:long} %{NUM:f:float} %{NUM:d:double} %{W:b:bool} %{W:bb:boolean} %{W:s:string}`, "1 -2 1.5 2 false T x"},
		{`%{INT:i:int} %{W:b:bool}`, "1 nope"},
		{`%{W:x} %{W:x}`, "a b"},
		{`%{W:x} ?(?P<x>\d*)`, "a "},
		{`%{W:x:int} %{W:x}`, "a 1"},
		{`%{W:x} %{W:x:int}`, "1 2"},
		{`%{NESTED}`, "1 2"},
		{`%{TYPED} %{INT:n}`, "1 2"},
		{`%{INT:n} %{TYPED}`, "1 2"},
		{`%{DOTTED}`, "x y"},
		{`%{ANY}`, "abc"},
		{`%{ANY} %{ANY:whole}`, "a b"},
		{`%{Q:q} %{Q} %{Q:r}`, `"a b" 'c' ""`},
		{`%{W}%{W}`, "ab"},
		{`(%{INT:a:int})?x`, "x"},
		{`%{INT:a:int}`, "99999999999999999999"},
		{`%{W:n:float}`, "NaN"},
		{`%{W:n:int}`, "no"},
	}
	lib := libraryOf(defs)
	for _, c := range cases {
		for _, namedOnly := range []bool{false, true} {
			m, err := compile(lib, c.pattern, namedOnly)
			if err != nil {
				t.Fatalf("%s: %v", c.pattern, err)
			}
			want, ok := goGrokMatch(defs, c.pattern, namedOnly, c.text)
			if !ok {
				t.Fatalf("%s: go-grok does not compile it", c.pattern)
			}
			if got := m.Match(c.text); !sameCaptures(got, want) {
				t.Errorf("%s (named only %v) on %q:\n got %#v\nwant %#v", c.pattern, namedOnly, c.text, got, want)
			}
		}
	}
}

// Captures is Match in key order.
func TestCapturesInKeyOrder(t *testing.T) {
	lib := libraryOf(map[string]string{"W": `\w+`})
	m, err := compile(lib, `%{W:c} %{W:a} %{W:b.x} %{W:a}`, false)
	if err != nil {
		t.Fatal(err)
	}
	got := m.Captures("1 2 3 4", nil)
	want := []Capture{{"a", "4"}, {"b.x", "3"}, {"c", "1"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if got := m.Captures("-", got[:0]); len(got) != 0 {
		t.Errorf("no match: %v", got)
	}
}

// TestCapturesBoxOnce: a field of several groups (NUMBER's BASE10NUM
// below twice) costs one boxed value, not one per group: Captures
// allocates the regexp's match and a value per field.
func TestCapturesBoxOnce(t *testing.T) {
	if raceEnabled || testing.CoverMode() != "" {
		t.Skip("the race detector and coverage allocate of their own")
	}
	m, err := compile(libraryOf(map[string]string{"N": `(?P<D>\d+)`}), `%{N:a} %{N:b}`, false)
	if err != nil {
		t.Fatal(err)
	}
	var buf [8]Capture
	got := m.Captures("12 345", buf[:0])
	if want := []Capture{{"D", "345"}, {"a", "12"}, {"b", "345"}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if n := testing.AllocsPerRun(100, func() { m.Captures("12 345", buf[:0]) }); n > 4 {
		t.Errorf("%v allocations, want 4", n)
	}
}

// FuzzMatchAgreesWithGoGrok compiles arbitrary patterns over the default
// patterns and matches arbitrary text: whatever compiles must capture what
// go-grok captured.
func FuzzMatchAgreesWithGoGrok(f *testing.F) {
	for _, s := range [][2]string{
		{"%{IPV4:client} %{WORD:verb} %{NOTSPACE:path}", "10.0.0.1 GET /index.html status=503"},
		{"%{NUMBER:n:int} %{NUMBER:n:float}", "1 2.5"},
		{"%{WORD:a.b} (?P<a___b>x)?", "y x"},
		{"%{QS:q}", `"quoted"`},
		{"%{COMMONAPACHELOG}", apacheSample},
		{"(?P<x>a)|(?P<x>b)", "b"},
	} {
		f.Add(s[0], s[1], false)
	}
	defs := map[string]string{}
	for _, p := range defaultPatterns() {
		defs[p.Name] = p.Pattern
	}
	lib := libraryOf(defs)
	f.Fuzz(func(t *testing.T, pattern, text string, namedOnly bool) {
		if len(pattern) > 200 || len(text) > 1000 {
			return
		}
		m, err := compile(lib, pattern, namedOnly)
		if err != nil {
			return
		}
		want, ok := goGrokMatch(defs, pattern, namedOnly, text)
		if !ok {
			t.Fatalf("compiles here, not with go-grok")
		}
		if got := m.Match(text); !sameCaptures(got, want) {
			t.Fatalf("got %#v\nwant %#v", got, want)
		}
		// Captures is Match's list: one capture per key, none twice.
		if got := m.Captures(text, nil); len(got) != len(want) {
			t.Fatalf("captures %v, want %d", got, len(want))
		}
	})
}
