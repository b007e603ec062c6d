package query_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/loggate/loggate/backend/analysis/search/query"
)

// TestLuceneRegexp checks patterns in Lucene's RegExp syntax against what
// Lucene (Elasticsearch 7) matches: whole values, ^ $ and \d as plain
// characters, . across lines, @ any string, # nothing, "…" literal,
// <n-m> numbers.
func TestLuceneRegexp(t *testing.T) {
	for _, tc := range []struct {
		pattern string
		match   []string
		miss    []string
	}{
		{`b.b`, []string{"bob", "b\nb"}, []string{"bo", "bobs"}},
		{`b@`, []string{"b", "bob", "b\nx"}, []string{"ab"}},
		{`@`, []string{"", "anything"}, nil},
		{`#`, nil, []string{"", "#"}},
		{`a#|b`, []string{"b"}, []string{"a", "a#"}},
		{`"a.b*"`, []string{"a.b*"}, []string{"axb", "a.bb"}},
		{`^bob$`, []string{"^bob$"}, []string{"bob"}},
		{`\d+`, []string{"d", "ddd"}, []string{"1", "123"}},
		{`\.\*`, []string{".*"}, []string{"ab"}},
		{`[^a-c]x`, []string{"dx", "\nx"}, []string{"ax", "cx"}},
		{`[]a]`, []string{"]", "a"}, []string{"b"}},
		{`[a\-z]`, []string{"a", "-", "z"}, []string{"b"}},
		{`a{2,3}`, []string{"aa", "aaa"}, []string{"a", "aaaa"}},
		{`a{2,}`, []string{"aa", "aaaaa"}, []string{"a"}},
		{`a{2}`, []string{"aa"}, []string{"aaa"}},
		{`()`, []string{""}, []string{"a"}},
		{`x()y`, []string{"xy"}, nil},
		{`ab|cd`, []string{"ab", "cd"}, []string{"abcd"}},
		{`(ab)+`, []string{"ab", "abab"}, []string{"", "aba"}},
		{`a+?`, []string{"", "a", "aaa"}, []string{"b"}},
		{`*a`, []string{"*a"}, []string{"a"}},
		{`{a}`, []string{"{a}"}, nil},
		{`a]`, []string{"a]"}, nil},
		{`<1-300>`, []string{"1", "42", "300", "0300", "007"}, []string{"0", "301", "1000", "", "a"}},
		{`<001-300>`, []string{"001", "042", "300"}, []string{"1", "42", "0042", "301"}},
		{`<10-5>`, []string{"5", "7", "10"}, []string{"4", "11"}},
		{`<0-9>`, []string{"0", "5", "9"}, []string{"10", ""}},
		{`web-<1-2>`, []string{"web-1", "web-2"}, []string{"web-3", "web-"}},
		{``, []string{""}, []string{"a"}},
		{`日本.`, []string{"日本語"}, []string{"日本"}},
	} {
		re, err := query.CompileRegexp(tc.pattern)
		if err != nil {
			t.Errorf("CompileRegexp(%q): %v", tc.pattern, err)
			continue
		}
		for _, s := range tc.match {
			if !re.MatchString(s) {
				t.Errorf("/%s/ does not match %q (as %s)", tc.pattern, s, re)
			}
		}
		for _, s := range tc.miss {
			if re.MatchString(s) {
				t.Errorf("/%s/ matches %q (as %s)", tc.pattern, s, re)
			}
		}
	}
}

// TestLuceneInterval checks <lo-hi> against every number up to 1,200,
// written plain and with leading zeros.
func TestLuceneInterval(t *testing.T) {
	for _, b := range [][2]string{{"0", "0"}, {"7", "93"}, {"10", "99"}, {"1", "300"}, {"99", "1001"}, {"007", "123"}, {"250", "999"}, {"0", "1000"}, {"19", "20"}} {
		re, err := query.CompileRegexp("<" + b[0] + "-" + b[1] + ">")
		if err != nil {
			t.Fatal(err)
		}
		lo, _ := strconv.Atoi(b[0])
		hi, _ := strconv.Atoi(b[1])
		fixed := len(b[0]) == len(b[1])
		for n := range 1200 {
			in := n >= lo && n <= hi
			for _, s := range []string{strconv.Itoa(n), fmt.Sprintf("%06d", n), fmt.Sprintf("%0*d", len(b[0]), n)} {
				want := in
				if fixed {
					want = in && len(s) == len(b[0])
				}
				if got := re.MatchString(s); got != want {
					t.Fatalf("<%s-%s> on %q = %v, want %v (as %s)", b[0], b[1], s, got, want, re)
				}
			}
		}
	}
}

// FuzzLuceneRegexp checks that any pattern compiles or fails with an
// error, never a panic, and that a quoted string matches itself only.
func FuzzLuceneRegexp(f *testing.F) {
	for _, s := range []string{`b.b`, `"a.b"`, `<1-300>`, `[^a-c]x`, `(ab)+|c{2,3}`, `a&b`, `~a`, `\d`, `^$`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = query.CompileRegexp(s)
		if strings.Contains(s, `"`) {
			return
		}
		re, err := query.CompileRegexp(`"` + s + `"`)
		if err != nil {
			if strings.Contains(err.Error(), "too large") {
				return
			}
			t.Fatalf("quoted %q: %v", s, err)
		}
		if !re.MatchString(s) {
			t.Fatalf("quoted %q does not match itself (as %s)", s, re)
		}
		if re.MatchString(s+"x") || s != "" && re.MatchString(s[1:]) {
			t.Fatalf("quoted %q matches more than itself (as %s)", s, re)
		}
	})
}
