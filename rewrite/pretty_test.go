package rewrite_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loggate/loggate/internal/golden"
	"github.com/loggate/loggate/rewrite"
)

func TestPretty(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"graylog session sample",
			`{"valid_until":"2016-10-24T16:08:57.854+0000","session_id":"cf1df45c-53ea-446c-8ed7-e1df64861de7"}`,
			"{\n  \"valid_until\" : \"2016-10-24T16:08:57.854+0000\",\n  \"session_id\" : \"cf1df45c-53ea-446c-8ed7-e1df64861de7\"\n}"},
		{"array on one line", `[1,2,3]`, `[ 1, 2, 3 ]`},
		{"objects in top-level array", `[{"a":1},{"b":2}]`, "[ {\n  \"a\" : 1\n}, {\n  \"b\" : 2\n} ]"},
		{"object in array in object", `{"x":[{"a":1}]}`, "{\n  \"x\" : [ {\n    \"a\" : 1\n  } ]\n}"},
		{"arrays add no level", `{"x":[[{"a":{"b":1}}]]}`, "{\n  \"x\" : [ [ {\n    \"a\" : {\n      \"b\" : 1\n    }\n  } ] ]\n}"},
		{"empty object", `{}`, `{ }`},
		{"empty array", `[]`, `[ ]`},
		{"empty containers nested", `{"a":{},"b":[],"c":[{},[]]}`, "{\n  \"a\" : { },\n  \"b\" : [ ],\n  \"c\" : [ { }, [ ] ]\n}"},
		{"whitespace dropped", " \t{ \"a\" :\r\n[ 1 , 2 ] }\n", "{\n  \"a\" : [ 1, 2 ]\n}"},
		{"scalars verbatim", `[1.50,-0,1E+2,"\u00e9\/",true,null]`, `[ 1.50, -0, 1E+2, "\u00e9\/", true, null ]`},
		{"top-level scalar", ` 42 `, `42`},
		{"deep indentation", strings.Repeat(`{"a":`, 40) + `1` + strings.Repeat(`}`, 40), deepObject(40)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := rewrite.Pretty(nil, []byte(tt.in)); string(got) != tt.want {
				t.Errorf("Pretty(%s) =\n%s\nwant\n%s", tt.in, got, tt.want)
			}
		})
	}
}

// deepObject builds the expected indentation of n nested objects by hand,
// line by line, rather than with the code under test.
func deepObject(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString("{\n" + strings.Repeat("  ", i+1) + `"a" : `)
	}
	b.WriteString("1")
	for i := n - 1; i >= 0; i-- {
		b.WriteString("\n" + strings.Repeat("  ", i) + "}")
	}
	return b.String()
}

func TestPrettyInvalid(t *testing.T) {
	tests := []string{
		``,
		` `,
		`{`,
		`{"a":1,}`,
		`[1,]`,
		`[1 2]`,
		`{"a" 1}`,
		`{a:1}`,
		`{"a":1}}`,
		`{"a":1} {}`,
		`"unterminated`,
		"\"ctrl\x01\"",
		`"bad \x escape"`,
		`"\u12"`,
		`01`,
		`1.`,
		`1e`,
		`-`,
		`+1`,
		`tru`,
		`nul`,
		`NaN`,
		strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	}
	for _, in := range tests {
		name := in
		if len(name) > 20 {
			name = name[:20]
		}
		t.Run(name, func(t *testing.T) {
			dst := []byte("prefix:")
			got := rewrite.Pretty(dst, []byte(in))
			if string(got) != "prefix:"+in {
				t.Errorf("Pretty(%q) = %q, want the input appended unchanged", in, got)
			}
		})
	}
}

func TestPrettyNestingLimit(t *testing.T) {
	in := strings.Repeat("[", 10000) + strings.Repeat("]", 10000)
	got := rewrite.Pretty(nil, []byte(in))
	if want := strings.Repeat("[ ", 9999) + "[ ]" + strings.Repeat(" ]", 9999); string(got) != want {
		t.Errorf("Pretty of 10000 nested arrays = %.40q…, want it indented", got)
	}
}

func TestPrettyAppends(t *testing.T) {
	dst := make([]byte, 0, 64)
	dst = append(dst, "x="...)
	got := rewrite.Pretty(dst, []byte(`[1]`))
	if string(got) != "x=[ 1 ]" {
		t.Errorf("Pretty = %q, want %q", got, "x=[ 1 ]")
	}
}

func TestPrettyGolden(t *testing.T) {
	inputs, err := filepath.Glob(filepath.Join("testdata", "pretty", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(inputs) == 0 {
		t.Fatal("no golden inputs in testdata/pretty")
	}
	for _, in := range inputs {
		t.Run(filepath.Base(in), func(t *testing.T) {
			src, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			got := rewrite.Pretty(nil, src)
			golden.Check(t, strings.TrimSuffix(in, ".json")+".golden", got)
			assertSameJSON(t, src, got)
		})
	}
}

// assertSameJSON fails unless a and b are both valid JSON with equal
// compact forms: whitespace aside, the bytes must be identical.
func assertSameJSON(t *testing.T, a, b []byte) {
	t.Helper()
	var ca, cb bytes.Buffer
	if err := json.Compact(&ca, a); err != nil {
		t.Fatalf("input %q: %v", a, err)
	}
	if err := json.Compact(&cb, b); err != nil {
		t.Fatalf("output %q: %v", b, err)
	}
	if !bytes.Equal(ca.Bytes(), cb.Bytes()) {
		t.Errorf("content changed:\n in  %s\n out %s", ca.Bytes(), cb.Bytes())
	}
}
