package query_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/loggate/loggate/backend/analysis/search/query"
)

func mustParse(t *testing.T, q string, opts query.Options) query.Node {
	t.Helper()
	n, err := query.Parse(q, opts)
	if err != nil {
		t.Fatalf("Parse(%q): %v", q, err)
	}
	return n
}

// TestParseCanonical pins how queries parse, through their canonical form.
func TestParseCanonical(t *testing.T) {
	for _, tc := range []struct {
		q, want string
	}{
		// Graylog-typical queries.
		{`source:web-01 AND level:<4`, `+source:web-01 +level:[* TO 4}`},
		{`message:"connection refused" -source:db*`, `message:"connection refused" -source:db*`},
		{`_exists_:user_id`, `_exists_:user_id`},
		{`NOT _exists_:user_id`, `-_exists_:user_id`},
		{`http_status:[500 TO 599]`, `http_status:[500 TO 599]`},
		{`took_ms:>=100`, `took_ms:[100 TO *]`},
		{`took_ms:>100`, `took_ms:{100 TO *]`},
		{`took_ms:<=100`, `took_ms:[* TO 100]`},
		{`took_ms:<100`, `took_ms:[* TO 100}`},
		{`NOT (a OR b)`, `-(a OR b)`},
		{`path:\/var\/log`, `path:\/var\/log`},
		{`message:ünïcödé 日本語`, `message:ünïcödé 日本語`},
		{`"ssh login" AND source:example.org`, `+"ssh login" +source:example.org`},
		{`("ssh login" AND (source:example.org OR source:another.example.org)) OR _exists_:always_find_me`,
			`(+"ssh login" +(source:example.org source:another.example.org)) _exists_:always_find_me`},
		// Words side by side are one text for the field's analyzer, as in
		// Elasticsearch 6 and later: a keyword field keeps it whole.
		{`type:(ssh login)`, `type:ssh\ login`},
		{`type:(ssh OR login)`, `type:ssh type:login`},
		{`user:Bob Smith`, `user:Bob Smith`},
		{`connection refused from db`, `connection\ refused\ from\ db`},
		{`a b c:d e`, `a\ b c:d e`},
		{`a b c AND d`, `+c +d a\ b`},
		{`a b~ c`, `a b~ c`},
		{`a b^2 c`, `a OR b OR c`},
		{`a b* c`, `a b* c`},
		{`a b "c d" e f`, `a\ b "c d" e\ f`},
		{`a b -c d e`, `a\ b OR d\ e -c`},
		{`a b NOT c`, `a\ b -c`},
		{`+a b c`, `+a b\ c`},
		{`f:(>5 6)`, `f:{5 TO *] f:6`},
		{`f:(6 >5)`, `f:6\ >5`},
		{`>5 6`, `>5\ 6`},
		{`type:/ethernet[0-9]+/`, `type:/ethernet[0-9]+/`},
		{`source:(web-01 OR web-02) AND NOT level:[5 TO 7]`, `+(source:web-01 source:web-02) -level:[5 TO 7]`},
		{`timestamp:["2020-01-01 00:00:00.000" TO "2020-01-02 00:00:00.000"]`, `timestamp:["2020-01-01 00:00:00.000" TO "2020-01-02 00:00:00.000"]`},

		// Match-all forms.
		{``, `*`},
		{"  \t\n", `*`},
		{`*`, `*`},
		{` * `, `*`},
		{`*:*`, `*`},
		{`a OR *`, `a *`},
		{`field:*`, `_exists_:field`},

		// Lucene's addClause: operators change the previous clause.
		{`a b`, `a\ b`},
		{`a OR b`, `a OR b`},
		{`a AND b OR c`, `+a +b c`},
		{`a OR b AND c`, `+b +c a`},
		{`a && b || !c`, `+a +b -c`},
		{`a AND NOT b`, `+a -b`},
		{`a NOT b`, `a -b`},
		{`-a +b c`, `+b c -a`},
		{`!a`, `-a`},
		{`+a`, `+a`},
		{`a OR -b`, `a -b`},

		// Grouping.
		{`(a)`, `a`},
		{`((a))`, `a`},
		{`(a)^2`, `a`},
		{`+(a b) c`, `+a\ b c`},
		{`+(a OR b) c`, `+(a OR b) c`},
		{`+(+a)`, `+(+a)`},
		{`title:(foo OR bar)`, `title:foo title:bar`},
		{`title:(foo other:bar)`, `title:foo other:bar`},
		{`f:(>5 AND <=7)`, `+f:{5 TO *] +f:[* TO 7]`},
		{`_exists_:(a b)`, `_exists_:a\ b`},
		{`_exists_:(a OR b)`, `_exists_:a _exists_:b`},

		// Terms, escapes, keywords.
		{`ANDROID`, `ANDROID`},
		{`"AND" \AND and`, `"AND" AND\ and`},
		{`\(1+1\)\:2`, `\(1+1\)\:2`},
		{`a\:b:c`, `a\:b:c`},
		{`foo\u0041`, `fooA`},
		{`\uD83D\uDE00`, "\U0001F600"},
		{`\ud800x`, "\uFFFDx"},
		{`a\ b`, `a\ b`},
		{`a - b`, `a OR \- OR b`},
		{`a + b`, `a OR \+ OR b`},
		{`a ! b`, `a OR \! OR b`},
		{`web-01+x`, `web-01+x`},
		{`a&&b a||b`, `a&&b\ a||b`},
		{`\&& \||`, `&&\ ||`},
		{`>5`, `>5`},
		{`field : value`, `field:value`},
		{"a\nb\u3000c", `a\ b\ c`},
		{"a\u00a0b", "a\u00a0b"},
		{"\x1a^0", "\\\x1a"},
		{`f:"quote \" inside \\"`, `f:"quote \" inside \\"`},
		{`age:">10"`, `age:">10"`},
		{`f:""`, `f:""`},
		{`\*:foo`, `\*:foo`},
		{`*:foo`, `\*:foo`},
		{`http_\*:foo`, `http_\*:foo`},
		{`_exists_:"foo bar"`, `_exists_:foo\ bar`},
		{`_exists_:>a`, `_exists_:>a`},
		{`_missing_:x`, `-_exists_:x`},
		{`a _missing_:x`, `a (-_exists_:x)`},

		// Fuzziness, slop and boosts.
		{`foo~`, `foo~`},
		{`foo ~2`, `foo~2`},
		{`foo~0.5 foo~AUTO`, `foo~0.5 foo~AUTO`},
		{`foo^2~1 foo~1^2`, `foo~1 foo~1`},
		{`"a b"~3`, `"a b"~3`},
		{`"a b"~2.7^3`, `"a b"~2`},
		{`"a b"~`, `"a b"`},
		{`"a b"~x`, `"a b"`},
		{`foo^2.5 [1 TO 2]^3`, `foo [1 TO 2]`},
		{`foo*~2`, `foo*`},
		{`age:>10~`, `age:>10~`},

		// Wildcards and regular expressions.
		{`a:b*c?`, `a:b*c?`},
		{`foo*`, `foo*`},
		{`a\*b*`, `a\*b*`},
		{`a\-b*`, `a-b*`},
		{`\-b*`, `\-b*`},
		{`x:a\ b*`, `x:a\ b*`},
		{`f?o`, `f?o`},
		{`f:/ab+c/ /a\/b/`, `f:/ab+c/ /a\/b/`},
		{`/a\\/`, `/a\\/`},
		{`/"a b"/`, `/"a b"/`},

		// Ranges.
		{`{1 TO 5]`, `{1 TO 5]`},
		{`[* TO 5]`, `[* TO 5]`},
		{`{* TO *}`, `[* TO *]`},
		{`["*" TO \*]`, `[* TO *]`},
		{`[a TO "b c"]`, `[a TO "b c"]`},
		{`[TO TO TO]`, `["TO" TO "TO"]`},
		{`["TO" TO "a\"b"]`, `["TO" TO a"b]`},
		{`["ab"c TO d]`, `["\"ab\"c" TO d]`},
		{`[""x TO d]`, `["\"\"x" TO d]`},
		{`[[1 TO 2}`, `[[1 TO 2}`},
		{`date:[2020-01-01T00:00:00.000Z TO now-1d]`, `date:[2020-01-01T00:00:00.000Z TO now-1d]`},
	} {
		t.Run(tc.q, func(t *testing.T) {
			n := mustParse(t, tc.q, query.Options{})
			if got := query.ToString(n); got != tc.want {
				t.Errorf("ToString(Parse(%q)) = %q, want %q", tc.q, got, tc.want)
			}
		})
	}
}

// TestParseTree checks the node types and fields that ToString does not
// distinguish on its own.
func TestParseTree(t *testing.T) {
	for _, tc := range []struct {
		q    string
		opts query.Options
		want query.Node
	}{
		{`*`, query.Options{}, &query.MatchAll{}},
		{`message:foo`, query.Options{}, &query.Term{Field: "message", Value: "foo"}},
		{`user:(Bob  Smith)`, query.Options{}, &query.Term{Field: "user", Value: "Bob Smith"}},
		{"a\\ b\tc", query.Options{}, &query.Term{Value: "a b c"}},
		{`"foo"`, query.Options{}, &query.Term{Value: "foo", Phrase: true}},
		{`"a b"~3`, query.Options{}, &query.Term{Value: "a b", Phrase: true, Fuzzy: "~3"}},
		{`source:db*`, query.Options{}, &query.Wildcard{Field: "source", Pattern: "db*"}},
		{`a\*b*`, query.Options{}, &query.Wildcard{Pattern: `a\*b*`}},
		{`a\\b*`, query.Options{}, &query.Wildcard{Pattern: `a\\b*`}},
		{`w\i\*l?`, query.Options{}, &query.Wildcard{Pattern: `wi\*l?`}},
		{`*foo`, query.Options{AllowLeadingWildcard: true}, &query.Wildcard{Pattern: "*foo"}},
		{`\*foo*`, query.Options{AllowLeadingWildcard: true}, &query.Wildcard{Pattern: `\*foo*`}},
		{`/a\/b/`, query.Options{}, &query.Regexp{Pattern: `a\/b`}},
		{`level:<4`, query.Options{}, &query.Range{Field: "level", Upper: "4", IncludeLower: true}},
		{`{a TO b}`, query.Options{}, &query.Range{Lower: "a", Upper: "b"}},
		{`_exists_:x`, query.Options{}, &query.Exists{Field: "x"}},
		{`_missing_:x`, query.Options{}, &query.Bool{MustNot: []query.Node{&query.Exists{Field: "x"}}}},
		{`f:*`, query.Options{}, &query.Exists{Field: "f"}},
		{`a b`, query.Options{DefaultOperator: query.AND},
			&query.Bool{Must: []query.Node{&query.Term{Value: "a"}, &query.Term{Value: "b"}}}},
		{`a OR b`, query.Options{DefaultOperator: query.AND},
			&query.Bool{Should: []query.Node{&query.Term{Value: "a"}, &query.Term{Value: "b"}}}},
		{`a b OR c`, query.Options{DefaultOperator: query.AND},
			&query.Bool{Must: []query.Node{&query.Term{Value: "a"}}, Should: []query.Node{&query.Term{Value: "b"}, &query.Term{Value: "c"}}}},
		{`a -b OR c`, query.Options{DefaultOperator: query.AND},
			&query.Bool{Must: []query.Node{&query.Term{Value: "a"}}, Should: []query.Node{&query.Term{Value: "c"}}, MustNot: []query.Node{&query.Term{Value: "b"}}}},
		{`a`, query.Options{DefaultOperator: query.AND}, &query.Term{Value: "a"}},
	} {
		t.Run(tc.q, func(t *testing.T) {
			if got := mustParse(t, tc.q, tc.opts); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Parse(%q) = %#v, want %#v", tc.q, got, tc.want)
			}
		})
	}
}

func TestToStringConstructed(t *testing.T) {
	for _, tc := range []struct {
		n    query.Node
		want string
	}{
		{&query.Bool{}, `-*`},
		{&query.Bool{Should: []query.Node{&query.Bool{}}}, `(-*)`},
		{&query.Term{Field: "age", Value: ">10"}, `age:">10"`},
		{&query.Term{Value: ""}, `""`},
		{&query.Exists{}, `_exists_:""`},
		{&query.Range{Field: "f", Lower: "1", Upper: "2", IncludeLower: true}, `f:[1 TO 2}`},
		{&query.Regexp{Pattern: "a/b"}, `/a\/b/`},
		{&query.Wildcard{Pattern: "a b*"}, `a\ b*`},
		{&query.Term{Field: "OR", Value: "NOT"}, `\OR:\NOT`},
	} {
		if got := query.ToString(tc.n); got != tc.want {
			t.Errorf("ToString(%#v) = %q, want %q", tc.n, got, tc.want)
		}
		if got := tc.n.String(); got != tc.want {
			t.Errorf("String() = %q, want %q", got, tc.want)
		}
	}
}

func TestWalk(t *testing.T) {
	n := mustParse(t, `+a:1 b:2 -(c:3 d:4) _exists_:e`, query.Options{})
	var fields []string
	query.Walk(n, func(n query.Node) bool {
		switch n := n.(type) {
		case *query.Term:
			fields = append(fields, n.Field)
		case *query.Exists:
			fields = append(fields, "exists:"+n.Field)
		}
		return true
	})
	if got, want := strings.Join(fields, ","), "a,b,exists:e,c,d"; got != want {
		t.Errorf("Walk visited %s, want %s", got, want)
	}

	var visited int
	query.Walk(n, func(n query.Node) bool {
		visited++
		_, isBool := n.(*query.Bool)
		return !isBool || visited == 1 // do not enter the nested Bool
	})
	if visited != 5 {
		t.Errorf("Walk with pruning visited %d nodes, want 5", visited)
	}
	query.Walk(nil, func(query.Node) bool { t.Error("Walk(nil) called fn"); return true })
}
