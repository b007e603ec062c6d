package query_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/loggate/loggate/backend/analysis/search/query"
)

func TestParseErrors(t *testing.T) {
	deep := strings.Repeat("(", query.MaxDepth+1) + "a" + strings.Repeat(")", query.MaxDepth+1)
	for _, tc := range []struct {
		q    string
		opts query.Options
		pos  int
		msg  string // the error's Detail
	}{
		{`foo AND`, query.Options{}, 7, `Encountered end of input at position 7; expected a term`},
		{`AND foo`, query.Options{}, 0, `Encountered "AND" at position 0; expected a term`},
		{`a OR OR b`, query.Options{}, 5, `Encountered "OR" at position 5; expected a term`},
		{`NOT NOT a`, query.Options{}, 4, `Encountered "NOT" at position 4; expected a term`},
		{`+-a`, query.Options{}, 1, `Encountered "-" at position 1; expected a term`},
		{`a +`, query.Options{}, 3, `Encountered end of input at position 3; expected a term`},
		{`(a OR b`, query.Options{}, 7, `Encountered end of input at position 7; expected ")"`},
		{`(a OR b]`, query.Options{}, 7, `Encountered "]" at position 7; expected ")"`},
		{`a OR b)`, query.Options{}, 6, `Encountered ")" at position 6; expected end of input`},
		{`()`, query.Options{}, 1, `Encountered ")" at position 1; expected a term`},
		{`"unterminated`, query.Options{}, 0, `Unterminated phrase at position 0; expected a closing '"'`},
		{`a "b\"`, query.Options{}, 2, `Unterminated phrase at position 2; expected a closing '"'`},
		{`foo:`, query.Options{}, 4, `Encountered end of input at position 4; expected a term`},
		{`foo:-bar`, query.Options{}, 4, `Encountered "-" at position 4; expected a term`},
		{`a:b:c`, query.Options{}, 3, `Encountered ":" at position 3; expected end of input`},
		{`foo]`, query.Options{}, 3, `Encountered "]" at position 3; expected end of input`},
		{`}`, query.Options{}, 0, `Encountered "}" at position 0; expected a term`},
		{`~foo`, query.Options{}, 0, `Encountered "~foo" at position 0; expected a term`},
		{`^2`, query.Options{}, 0, `Encountered "^" at position 0; expected a term`},
		{`[1 TO 5`, query.Options{}, 7, `Encountered end of input at position 7; expected "]" or "}"`},
		{`[1 5]`, query.Options{}, 3, `Encountered "5" at position 3; expected "TO"`},
		{`[1 TO ]`, query.Options{}, 6, `Encountered "]" at position 6; expected a range bound`},
		{`[`, query.Options{}, 1, `Encountered end of input at position 1; expected a range bound`},
		{`[[1 TO 2}]`, query.Options{}, 9, `Encountered "]" at position 9; expected end of input`},
		{`[a\ TO b]`, query.Options{}, 2, `Term can not end with escape character at position 2`},
		{`foo^`, query.Options{}, 4, `Encountered end of input at position 4; expected a number`},
		{`foo^x`, query.Options{}, 4, `Encountered "x" at position 4; expected a number`},
		{`(a)^`, query.Options{}, 4, `Encountered end of input at position 4; expected a number`},
		{`foo~bar`, query.Options{}, 3, `Invalid fuzziness "~bar" at position 3; expected ~, ~AUTO or ~ and a number`},
		{`foo ~1.`, query.Options{}, 4, `Invalid fuzziness "~1." at position 4; expected ~, ~AUTO or ~ and a number`},
		{`*foo`, query.Options{}, 0, `'*' or '?' not allowed as first character in WildcardQuery at position 0`},
		{`a f:?oo`, query.Options{}, 4, `'*' or '?' not allowed as first character in WildcardQuery at position 4`},
		{`\*foo*`, query.Options{}, 0, `'*' not allowed as first character in PrefixQuery at position 0`},
		{`foo\`, query.Options{}, 3, `Escape character at end of input at position 3; expected an escaped character`},
		{`/abc`, query.Options{}, 0, `Unterminated regular expression at position 0; expected a closing '/'`},
		{`/a\/`, query.Options{}, 0, `Unterminated regular expression at position 0; expected a closing '/'`},
		{`message:/[/`, query.Options{}, 10, `Invalid regular expression (unexpected end of pattern) at position 10`},
		{`message:/a&b/`, query.Options{}, 10, `Invalid regular expression (intersection (&) is not supported) at position 10`},
		{`message:/x~a/`, query.Options{}, 10, `Invalid regular expression (complement (~) is not supported) at position 10`},
		{`message:/a|/`, query.Options{}, 11, `Invalid regular expression (unexpected end of pattern) at position 11`},
		{`message:/a)/`, query.Options{}, 10, `Invalid regular expression (end of pattern expected) at position 10`},
		{`message:/<ab>/`, query.Options{}, 10, `Invalid regular expression (named automata (<name>) are not supported) at position 10`},
		{`message:/a{1000}{1000}/`, query.Options{}, 9, `Invalid regular expression (invalid repeat count) at position 9`},
		{"message:/" + strings.Repeat("[a-z]{1000}", 66) + "/", query.Options{}, 9,
			`Invalid regular expression (the expression is too large: its counted repetitions expand to more than 65536 instructions) at position 9`},
		{`\u00zz`, query.Options{}, 4, `Non-hex character in Unicode escape sequence: z at position 4`},
		{`ab\u00`, query.Options{}, 2, `Truncated unicode escape sequence at position 2`},
		{`ü AND`, query.Options{}, 6, `Encountered end of input at position 6; expected a term`},
		{deep, query.Options{}, query.MaxDepth, `Parentheses nest deeper than 64 levels at position 64`},
		{strings.Repeat("(", query.MaxDepth) + "_missing_:x" + strings.Repeat(")", query.MaxDepth), query.Options{}, 74,
			`Parentheses nest deeper than 64 levels at position 74`},
		{strings.Repeat("a", query.MaxQueryLength+1), query.Options{}, query.MaxQueryLength,
			`Query is longer than 65536 bytes at position 65536`},
	} {
		name := tc.q
		if len(name) > 40 {
			name = name[:40]
		}
		t.Run(name, func(t *testing.T) {
			n, err := query.Parse(tc.q, tc.opts)
			var se *query.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Parse(%q) = %v, %v; want a *SyntaxError", tc.q, n, err)
			}
			if se.Pos != tc.pos || se.Detail() != tc.msg || se.Query != tc.q {
				t.Errorf("Parse(%q) error: pos %d, %q; want pos %d, %q", tc.q, se.Pos, se.Detail(), tc.pos, tc.msg)
			}
		})
	}
}

func TestSyntaxErrorMessage(t *testing.T) {
	_, err := query.Parse(`foo AND`, query.Options{})
	if got, want := err.Error(), `Cannot parse 'foo AND': Encountered end of input at position 7; expected a term`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}

	long := "(" + strings.Repeat("ä", 300)
	_, err = query.Parse(long, query.Options{})
	msg := err.Error()
	if !strings.HasPrefix(msg, "Cannot parse '(ää") || !strings.Contains(msg, "…': Encountered end of input at position 601") {
		t.Errorf("long query message = %q", msg)
	}
}

func TestSyntaxErrorBody(t *testing.T) {
	for _, tc := range []struct {
		q    string
		want string
	}{
		{`foo AND`, `{"type":"AutoValue_QueryParseError","message":"Cannot parse 'foo AND': Encountered end of input at position 7; expected a term",` +
			`"details":["Encountered end of input at position 7; expected a term"],"line":1,"column":8}`},
		{`ü AND`, `{"type":"AutoValue_QueryParseError","message":"Cannot parse 'ü AND': Encountered end of input at position 6; expected a term",` +
			`"details":["Encountered end of input at position 6; expected a term"],"line":1,"column":6}`},
		{"a\nbé )", `{"type":"AutoValue_QueryParseError","message":"Cannot parse 'a\nbé )': Encountered \")\" at position 6; expected end of input",` +
			`"details":["Encountered \")\" at position 6; expected end of input"],"line":2,"column":4}`},
	} {
		_, err := query.Parse(tc.q, query.Options{})
		body, ok := query.BodyOf(fmt.Errorf("search: %w", err))
		if !ok {
			t.Fatalf("BodyOf(%v) found no SyntaxError", err)
		}
		got, _ := json.Marshal(body)
		if string(got) != tc.want {
			t.Errorf("body of %q:\n got %s\nwant %s", tc.q, got, tc.want)
		}
	}
	if _, ok := query.BodyOf(errors.New("other")); ok {
		t.Error("BodyOf found a SyntaxError in an unrelated error")
	}
}
