package query_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/loggate/loggate/backend/analysis/search/query"
)

// FuzzParse checks that Parse never panics, fails only with a *SyntaxError
// whose position lies within the query, and that the canonical form of every
// tree it returns parses back to an equal tree.
func FuzzParse(f *testing.F) {
	for _, q := range []string{
		``, `*`, `source:web-01 AND level:<4`, `message:"connection refused" -source:db*`,
		`_exists_:user_id`, `_missing_:user_id`, `http_status:[500 TO 599]`, `took_ms:>=100`,
		`NOT (a OR b)`, `path:\/var\/log`, `message:ünïcödé 日本語`, `a && b || !c`,
		`title:(foo OR bar)^2`, `foo~ bar~1 "a b"~3`, `{1 TO 5] [* TO 5]`, `f:/ab+c/`,
		`a - b`, `\(1+1\)\:2 \u0041`, `*foo ?oo`, `a\*b* w?ld*`, `"unterminated`, `foo AND`,
		`[a TO "b c"] ["ab"c TO d]`, `(((a)))`, `*:foo \*:*`, "a\u3000b\tc",
	} {
		f.Add(q, false, false)
		f.Add(q, true, true)
	}
	f.Fuzz(func(t *testing.T, q string, and, leading bool) {
		opts := query.Options{AllowLeadingWildcard: leading}
		if and {
			opts.DefaultOperator = query.AND
		}
		n, err := query.Parse(q, opts)
		if err != nil {
			var se *query.SyntaxError
			if !errors.As(err, &se) || se.Pos < 0 || se.Pos > len(q) || se.Query != q {
				t.Fatalf("Parse(%q) error %#v is not a *SyntaxError within the query", q, err)
			}
			_ = se.Error()
			se.LineColumn()
			return
		}
		if n == nil {
			t.Fatalf("Parse(%q) returned neither a node nor an error", q)
		}
		s := query.ToString(n)
		if len(s) > query.MaxQueryLength {
			return
		}
		// The canonical form spells every operator out, so it is read with
		// the default operator OR whatever the original used.
		back, err := query.Parse(s, query.Options{AllowLeadingWildcard: leading})
		if err != nil {
			t.Fatalf("Parse(%q) = %s, which does not parse: %v", q, s, err)
		}
		if !reflect.DeepEqual(back, n) {
			t.Fatalf("round trip of %q through %q:\n got %#v\nwant %#v", q, s, back, n)
		}
	})
}
