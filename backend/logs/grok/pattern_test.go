package grok

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParsePatternsFile(t *testing.T) {
	cases := []struct {
		name string
		file string
		want []Pattern
	}{
		{"empty", "", nil},
		{"comments and blank lines", "# c\n\n   \n\t# indented comment\n", nil},
		{"one", "WORD \\b\\w+\\b", []Pattern{{Name: "WORD", Pattern: `\b\w+\b`}}},
		{"tabs and trailing blanks", "A\t\t%{B}  x \t\n", []Pattern{{Name: "A", Pattern: "%{B}  x"}}},
		{"line ends", "A a\rB b\r\nC c\n\nD d\r", []Pattern{{Name: "A", Pattern: "a"}, {Name: "B", Pattern: "b"}, {Name: "C", Pattern: "c"}, {Name: "D", Pattern: "d"}}},
		{"leading blanks", "   A a", []Pattern{{Name: "A", Pattern: "a"}}},
		{"hash inside", "A a#b", []Pattern{{Name: "A", Pattern: "a#b"}}},
		// Lines Graylog cannot read are skipped, not refused.
		{"unreadable lines", "NO_PATTERN\nA-B x\n:x y\nÄ x\nOK y", []Pattern{{Name: "OK", Pattern: "y"}}},
		{"later definition kept too", "A a\nA b", []Pattern{{Name: "A", Pattern: "a"}, {Name: "A", Pattern: "b"}}},
		{"invalid UTF-8", "A \xff\xfe", []Pattern{{Name: "A", Pattern: "\uFFFD"}}},
		{"long line", "A " + strings.Repeat("x", 200_000), []Pattern{{Name: "A", Pattern: strings.Repeat("x", 200_000)}}},
	}
	for _, c := range cases {
		if got := ParsePatternsFile([]byte(c.file)); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %.300v, want %.300v", c.name, got, c.want)
		}
	}
}

func FuzzParsePatternsFile(f *testing.F) {
	for _, s := range []string{"", "A a", "# c\nA %{B}\r\nB b\rC", " \t A\t\tb \n", "A \xff", "A-B c\n\x0bA b", "A \u2028b", "0 \x0300"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, file []byte) {
		got := ParsePatternsFile(file)
		if lines := strings.Count(string(file), "\n") + strings.Count(string(file), "\r") + 1; len(got) > lines {
			t.Fatalf("%d patterns from %d lines", len(got), lines)
		}
		var again strings.Builder
		for _, p := range got {
			if checkName(p.Name) != nil || p.Pattern == "" || strings.ContainsAny(p.Pattern, "\r\n") ||
				!utf8.ValidString(p.Pattern) || strings.TrimRightFunc(p.Pattern, isJavaBlank) != p.Pattern {
				t.Fatalf("parsed %+v", p)
			}
			again.WriteString(p.Name + " " + p.Pattern + "\n")
		}
		// What was read reads back the same.
		if back := ParsePatternsFile([]byte(again.String())); !reflect.DeepEqual(back, got) {
			t.Fatalf("%+v read back as %+v", got, back)
		}
	})
}

func isJavaBlank(r rune) bool { return r <= ' ' }
