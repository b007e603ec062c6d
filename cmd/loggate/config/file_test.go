package config

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseFile(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  []entry
	}{
		{"equals", "a = b", []entry{{"a", "b", 1}}},
		{"equals without spaces", "a=b", []entry{{"a", "b", 1}}},
		{"colon", "a: b", []entry{{"a", "b", 1}}},
		{"whitespace separator as in Java", "a \t b", []entry{{"a", "b", 1}}},
		{"surrounding whitespace trimmed", "  a  =  b c  \t", []entry{{"a", "b c", 1}}},
		{"only the first separator separates", "a = b = c:d", []entry{{"a", "b = c:d", 1}}},
		{"uri value keeps its colons", "mongodb_uri = mongodb://h:27017/graylog", []entry{{"mongodb_uri", "mongodb://h:27017/graylog", 1}}},
		{"empty value", "a =\nb:", []entry{{"a", "", 1}, {"b", "", 2}}},
		{"comments and blank lines", "# c\n! c\n\n   # indented\n\t\na = 1", []entry{{"a", "1", 6}}},
		{"hash inside a value is not a comment", "a = b # c", []entry{{"a", "b # c", 1}}},
		{"CRLF", "a = 1\r\nb = 2\r\n", []entry{{"a", "1", 1}, {"b", "2", 2}}},
		{"byte order mark", "\uFEFFa = 1", []entry{{"a", "1", 1}}},
		{"continuation", "a = b\\\n   c\\\n\td\ne = f", []entry{{"a", "bcd", 1}, {"e", "f", 4}}},
		{"continuation with trailing spaces after the backslash", "a = b\\  \nc", []entry{{"a", "bc", 1}}},
		{"continuation line starting with # is value", "a = b\\\n#c", []entry{{"a", "b#c", 1}}},
		{"continuation onto a blank line ends there", "a = b\\\n\nc = d", []entry{{"a", "b", 1}, {"c", "d", 3}}},
		{"continuation at end of file", "a = b\\", []entry{{"a", "b", 1}}},
		{"continuation of an empty value", "a = \\\n  b", []entry{{"a", "b", 1}}},
		{"comment ending in a backslash is not continued", "# c\\\na = 1", []entry{{"a", "1", 2}}},
		{"escaped backslash at end does not continue", "a = b\\\\\nc = d", []entry{{"a", `b\`, 1}, {"c", "d", 2}}},
		{"three backslashes continue", "a = b\\\\\\\nc", []entry{{"a", `b\c`, 1}}},
		{"escapes", `a = x\ty\nz\=\:\#\\q\w`, []entry{{"a", "x\ty\nz=:#\\qw", 1}}},
		{"unicode escape", `a = caf\u00e9 \u00E9`, []entry{{"a", "café é", 1}}},
		{"surrogate pair", `a = \uD83D\uDE00`, []entry{{"a", "😀", 1}}},
		{"lone surrogate", `a = \uD83Dx`, []entry{{"a", "\uFFFDx", 1}}},
		{"later duplicates are kept in order", "a = 1\na = 2", []entry{{"a", "1", 1}, {"a", "2", 2}}},
		{"key is not unescaped", `a\b = 1`, []entry{{`a\b`, "1", 1}}},
		{"empty file", "", nil},
		{"graylog excerpt", "is_master = true\nnode_id_file = /etc/graylog/server/node-id\npassword_secret = \nroot_password_sha2 =\nhttp_bind_address = 127.0.0.1:9000\n",
			[]entry{{"is_master", "true", 1}, {"node_id_file", "/etc/graylog/server/node-id", 2}, {"password_secret", "", 3}, {"root_password_sha2", "", 4}, {"http_bind_address", "127.0.0.1:9000", 5}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseFile([]byte(tt.input))
			if err != nil {
				t.Fatalf("parseFile(%q): %v", tt.input, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("parseFile(%q)\n got %+v\nwant %+v", tt.input, got, tt.want)
			}
		})
	}
}

func TestParseFileErrors(t *testing.T) {
	tests := []struct {
		name     string
		input    string
		wantLine int
		wantMsg  string
	}{
		{"no separator", "a = 1\nhttp_bind_address\n", 2, "expected key = value"},
		{"key and spaces only", "\n\nkey   \n", 3, "expected key = value"},
		{"key then continuation", "key \\\n= value", 1, "expected key = value"},
		{"key glued to continuation", "key\\\n= value", 1, "expected key = value"},
		{"missing key", "# c\n= value", 2, "missing key before '='"},
		{"missing key before colon", ": value", 1, "missing key before ':'"},
		{"malformed unicode escape", "a = 1\nb = \\u12G4", 2, `key b: malformed \uXXXX escape`},
		{"short unicode escape", "b = \\u12", 1, `malformed \uXXXX escape`},
		{"line number after a continuation", "a = 1\\\n2\\\n3\nbad", 4, "expected key = value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseFile([]byte(tt.input))
			var se *syntaxError
			if !errors.As(err, &se) {
				t.Fatalf("parseFile(%q) = %+v, %v; want a syntax error", tt.input, got, err)
			}
			if se.line != tt.wantLine || !strings.Contains(se.msg, tt.wantMsg) {
				t.Errorf("parseFile(%q) error %q; want line %d with %q", tt.input, err, tt.wantLine, tt.wantMsg)
			}
		})
	}
}

func TestParseFileDoesNotQuoteBadLine(t *testing.T) {
	_, err := parseFile([]byte("s3cr3tpassword"))
	if err == nil || strings.Contains(err.Error(), "s3cr3t") {
		t.Errorf("error %v; want an error that does not quote the line", err)
	}
}

func FuzzParseFile(f *testing.F) {
	for _, seed := range []string{
		"a = b\nc: d\ne f\n# x\n! y\n",
		"a = b\\\n  c\\\\\nd = \\u00e9\\uD83D\\uDE00\\t",
		"\uFEFFhttp_bind_address = 127.0.0.1:9000\r\nbad\r\n",
		"= x", "key \\", "a = \\uZZZZ", "a\\b:\\", "\\\n\\\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := parseFile(data)
		lines := strings.Count(string(data), "\n") + 1
		if err != nil {
			var se *syntaxError
			if !errors.As(err, &se) || se.line < 1 || se.line > lines {
				t.Fatalf("error %v is not a syntax error with a line in 1..%d", err, lines)
			}
			return
		}
		prev := 0
		for _, e := range entries {
			if e.key == "" || !strings.Contains(string(data), e.key) {
				t.Fatalf("key %q does not appear in the input", e.key)
			}
			if strings.ContainsAny(e.key, "=:"+blank+"\n") {
				t.Fatalf("key %q contains a separator", e.key)
			}
			if e.line <= prev || e.line > lines {
				t.Fatalf("entry %+v: line not in %d..%d", e, prev+1, lines)
			}
			prev = e.line
		}
	})
}
