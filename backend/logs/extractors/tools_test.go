package extractors_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/loggate/loggate/backend/logs/extractors"
	"github.com/loggate/loggate/backend/logs/lookup"
	"github.com/loggate/loggate/router/routertest"
)

// fakeTables holds one lookup table, "hosts".
type fakeTables struct{}

func (fakeTables) Exists(_ context.Context, name string) bool { return name == "hosts" }

func (fakeTables) Lookup(_ context.Context, table string, key any) (lookup.Result, error) {
	if table != "hosts" {
		return lookup.Result{}, lookup.ErrNoTable
	}
	switch key {
	case "10.0.0.1":
		return lookup.Result{Single: "web-1", Multi: map[string]any{"value": "web-1"}}, nil
	case "multi":
		return lookup.Result{Multi: map[string]any{"a": 1}}, nil
	}
	return lookup.Result{}, nil
}

// newToolsClient serves the extractor routes (the testers among them) with
// the stored grok patterns and the fake lookup tables.
func newToolsClient(t *testing.T) routertest.Client {
	t.Helper()
	e := newEnv(t)
	svc, err := extractors.NewService(context.Background(), e.st, grokStore.svc, extractors.Options{Now: clock, Lookup: fakeTables{}})
	if err != nil {
		t.Fatal(err)
	}
	return routertest.Client{H: routertest.Handler(extractors.NewHandler(svc).Routes())}
}

// toolCase is one request and Graylog 4.0.17's answer to it, worked out
// from the Java resources (a status and the whole body, or for errors a
// part of the message; invalid names the fields of a ValidationApiError).
type toolCase struct {
	name, method, path, body string
	status                   int
	want                     string            // the 200's body
	msg                      string            // part of an ApiError's message
	invalid                  map[string]string // a ValidationApiError's fields
}

func runToolCases(t *testing.T, c routertest.Client, cases []toolCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := c.Admin(tc.method, tc.path, tc.body)
			switch {
			case tc.invalid != nil:
				routertest.WantInvalid(t, rec, tc.invalid)
			case tc.status != 0 && tc.status != http.StatusOK:
				routertest.WantError(t, rec, tc.status, tc.msg)
			default:
				routertest.WantStatus(t, rec, http.StatusOK)
				if !routertest.SameJSON(t, rec.Body.Bytes(), []byte(tc.want)) {
					t.Errorf("got  %s\nwant %s", rec.Body, tc.want)
				}
			}
		})
	}
}

func q(path string, kv ...string) string {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Set(kv[i], kv[i+1])
	}
	return path + "?" + v.Encode()
}

func TestRegexValidate(t *testing.T) {
	c := newToolsClient(t)
	const path = "/tools/regex_tester/validate"
	runToolCases(t, c, []toolCase{
		{name: "valid", method: "GET", path: q(path, "regex", `took (\d+) ms`), want: `{"regex":"took (\\d+) ms","is_valid":true}`},
		{name: "missing", method: "GET", path: path, invalid: map[string]string{"regex": "must not be empty"}},
		{name: "empty", method: "GET", path: q(path, "regex", ""), invalid: map[string]string{"regex": "must not be empty"}},
	})
	for _, re := range []string{"(", "a{2,1}", `(?<=a)b`} {
		// Java's message differs (PatternSyntaxException's); the last is
		// valid Java that RE2 cannot run, which extractors refuse.
		rec := c.Admin("GET", q(path, "regex", re), "")
		routertest.WantStatus(t, rec, http.StatusOK)
		b := gjson.Parse(rec.Body.String())
		if b.Get("regex").String() != re || b.Get("is_valid").Raw != "false" || b.Get("validation_message").String() == "" {
			t.Errorf("%s: %s", re, rec.Body)
		}
	}
}

func TestRegexReplaceTester(t *testing.T) {
	const path = "/tools/regex_replace_tester"
	runToolCases(t, newToolsClient(t), []toolCase{
		{name: "first group's range, replaced first", method: "POST", path: path,
			body: `{"regex":"took (\\d+) ms","replacement":"$1","replace_all":false,"string":"GET / took 12 ms"}`,
			want: `{"matched":true,"match":{"match":"GET / 12","start":11,"end":13},"regex":"took (\\d+) ms","replacement":"$1","replace_all":false,"string":"GET / took 12 ms"}`},
		{name: "replace all", method: "POST", path: path,
			body: `{"regex":"(\\d)","replacement":"<$1>","replace_all":true,"string":"a1b2"}`,
			want: `{"matched":true,"match":{"match":"a<1>b<2>","start":1,"end":2},"regex":"(\\d)","replacement":"<$1>","replace_all":true,"string":"a1b2"}`},
		{name: "replace first", method: "POST", path: path,
			body: `{"regex":"(\\d)","replacement":"<$1>","replace_all":false,"string":"a1b2"}`,
			want: `{"matched":true,"match":{"match":"a<1>b2","start":1,"end":2},"regex":"(\\d)","replacement":"<$1>","replace_all":false,"string":"a1b2"}`},
		{name: "no group: -1", method: "POST", path: path,
			body: `{"regex":"\\d","replacement":"#","replace_all":true,"string":"a1b2"}`,
			want: `{"matched":true,"match":{"match":"a#b#","start":-1,"end":-1},"regex":"\\d","replacement":"#","replace_all":true,"string":"a1b2"}`},
		{name: "no match: match left out", method: "POST", path: path,
			body: `{"regex":"x","replacement":"#","string":"abc"}`,
			want: `{"matched":false,"regex":"x","replacement":"#","replace_all":false,"string":"abc"}`},
		{name: "empty replacement is $1", method: "POST", path: path,
			body: `{"regex":"took (\\d+) ms","replacement":"","string":"GET / took 12 ms"}`,
			want: `{"matched":true,"match":{"match":"GET / 12","start":11,"end":13},"regex":"took (\\d+) ms","replacement":"","replace_all":false,"string":"GET / took 12 ms"}`},
		{name: "offsets in UTF-16 units", method: "POST", path: path,
			body: `{"regex":"é(\\d)","replacement":"$1","string":"😀é1"}`,
			want: `{"matched":true,"match":{"match":"😀1","start":3,"end":4},"regex":"é(\\d)","replacement":"$1","replace_all":false,"string":"😀é1"}`},
		{name: "GET", method: "GET", path: q(path, "regex", `took (\d+) ms`, "replacement", "[$1]", "replace_all", "TRUE", "string", "took 1 ms, took 2 ms"),
			want: `{"matched":true,"match":{"match":"[1], [2]","start":5,"end":6},"regex":"took (\\d+) ms","replacement":"[$1]","replace_all":true,"string":"took 1 ms, took 2 ms"}`},
		// Bad input. Graylog answers 500 for the first two (an uncaught
		// PatternSyntaxException, a RuntimeException from the replacement).
		{name: "bad regex", method: "POST", path: path, body: `{"regex":"(","replacement":"","string":"x"}`, status: 400, msg: "Invalid regular expression"},
		{name: "replacement names a missing group", method: "POST", path: path, body: `{"regex":"(a)","replacement":"$2","string":"a"}`, status: 400, msg: "Error while trying to replace string"},
		{name: "null replacement", method: "POST", path: path, body: `{"regex":"a","string":"a"}`, status: 400, msg: "Null replacement"},
		{name: "null string", method: "POST", path: path, body: `{"regex":"a","replacement":""}`, status: 400, msg: "Null string"},
		{name: "empty regex", method: "POST", path: path, body: `{"regex":"","replacement":"","string":"a"}`, invalid: map[string]string{"regex": "must not be empty"}},
		{name: "unknown property", method: "POST", path: path, body: `{"regex":"a","replacement":"","string":"a","x":1}`, status: 400, msg: "Unable to map property x"},
		{name: "no body", method: "POST", path: path, status: 400, msg: "Request body is mandatory"},
		{name: "GET without replacement", method: "GET", path: q(path, "regex", "a", "string", "a"), invalid: map[string]string{"replacement": "must not be null"}},
		{name: "GET without regex", method: "GET", path: q(path, "replacement", "", "string", "a"), invalid: map[string]string{"regex": "must not be empty"}},
	})
}

func TestSubstringTester(t *testing.T) {
	const path = "/tools/substring_tester"
	runToolCases(t, newToolsClient(t), []toolCase{
		{name: "cut", method: "POST", path: path, body: `{"start":0,"end":3,"string":"GET / took"}`,
			want: `{"successful":true,"cut":"GET","begin_index":0,"end_index":3}`},
		{name: "to the end", method: "POST", path: path, body: `{"start":6,"end":10,"string":"GET / took"}`,
			want: `{"successful":true,"cut":"took","begin_index":6,"end_index":10}`},
		{name: "end not after begin", method: "POST", path: path, body: `{"start":3,"end":3,"string":"GET / took"}`,
			want: `{"successful":false,"cut":null,"begin_index":3,"end_index":3}`},
		{name: "past the end", method: "POST", path: path, body: `{"start":0,"end":100,"string":"abc"}`,
			want: `{"successful":false,"cut":null,"begin_index":0,"end_index":100}`},
		{name: "negative begin", method: "POST", path: path, body: `{"start":-1,"end":2,"string":"abc"}`,
			want: `{"successful":false,"cut":null,"begin_index":-1,"end_index":2}`},
		{name: "indexes missing are 0", method: "POST", path: path, body: `{"string":"abc"}`,
			want: `{"successful":false,"cut":null,"begin_index":0,"end_index":0}`},
		{name: "characters, not bytes", method: "POST", path: path, body: `{"start":1,"end":2,"string":"aéb"}`,
			want: `{"successful":true,"cut":"é","begin_index":1,"end_index":2}`},
		{name: "GET", method: "GET", path: q(path, "begin_index", "1", "end_index", "3", "string", "abcd"),
			want: `{"successful":true,"cut":"bc","begin_index":1,"end_index":3}`},
		{name: "GET begin_index missing is 0", method: "GET", path: q(path, "end_index", "2", "string", "abcd"),
			want: `{"successful":true,"cut":"ab","begin_index":0,"end_index":2}`},
		{name: "null string", method: "POST", path: path, body: `{"start":0,"end":1}`, status: 400, msg: "Null string"},
		{name: "index beyond int", method: "POST", path: path, body: `{"start":0,"end":3000000000,"string":"a"}`, status: 400, msg: "property end"},
		{name: "GET end_index missing (@Min(1))", method: "GET", path: q(path, "string", "abc"), invalid: map[string]string{"end_index": "greater than or equal to 1"}},
		{name: "GET negative begin_index (@Min(0))", method: "GET", path: q(path, "begin_index", "-1", "end_index", "2", "string", "abc"), invalid: map[string]string{"begin_index": "greater than or equal to 0"}},
		{name: "GET begin_index not a number", method: "GET", path: q(path, "begin_index", "x", "end_index", "2", "string", "abc"), status: 400, msg: "begin_index"},
		{name: "GET string missing", method: "GET", path: q(path, "end_index", "2"), invalid: map[string]string{"string": "must not be null"}},
	})
}

func TestSplitAndIndexTester(t *testing.T) {
	const path = "/tools/split_and_index_tester"
	const s = `"string":"GET / took 12 ms"`
	runToolCases(t, newToolsClient(t), []toolCase{
		{name: "first", method: "POST", path: path, body: `{"split_by":" ","index":1,` + s + `}`,
			want: `{"successful":true,"cut":"GET","begin_index":0,"end_index":3}`},
		{name: "second", method: "POST", path: path, body: `{"split_by":" ","index":2,` + s + `}`,
			want: `{"successful":true,"cut":"/","begin_index":4,"end_index":5}`},
		{name: "last", method: "POST", path: path, body: `{"split_by":" ","index":5,` + s + `}`,
			want: `{"successful":true,"cut":"ms","begin_index":14,"end_index":16}`},
		{name: "beyond the parts", method: "POST", path: path, body: `{"split_by":" ","index":6,` + s + `}`,
			want: `{"successful":false,"cut":null,"begin_index":0,"end_index":0}`},
		{name: "index 0", method: "POST", path: path, body: `{"split_by":" ","index":0,` + s + `}`,
			want: `{"successful":false,"cut":null,"begin_index":0,"end_index":0}`},
		{name: "negative index", method: "POST", path: path, body: `{"split_by":" ","index":-3,` + s + `}`,
			want: `{"successful":false,"cut":null,"begin_index":0,"end_index":0}`},
		{name: "an empty part is no cut, its range is answered", method: "POST", path: path, body: `{"split_by":",","index":2,"string":"a,,b"}`,
			want: `{"successful":false,"cut":null,"begin_index":2,"end_index":2}`},
		{name: "leading separator", method: "POST", path: path, body: `{"split_by":",","index":1,"string":",a"}`,
			want: `{"successful":false,"cut":null,"begin_index":0,"end_index":0}`},
		{name: "range by the separator's first character", method: "POST", path: path, body: `{"split_by":"--","index":2,"string":"a--b"}`,
			want: `{"successful":true,"cut":"b","begin_index":2,"end_index":2}`},
		{name: "UTF-16 offsets", method: "POST", path: path, body: `{"split_by":" ","index":2,"string":"😀 a b"}`,
			want: `{"successful":true,"cut":"a","begin_index":3,"end_index":4}`},
		{name: "GET", method: "GET", path: q(path, "split_by", ",", "index", "2", "string", "a,b,c"),
			want: `{"successful":true,"cut":"b","begin_index":2,"end_index":3}`},
		// Graylog answers 500 for an empty separator (charAt(0)).
		{name: "empty separator", method: "POST", path: path, body: `{"split_by":"","index":1,"string":"a"}`, invalid: map[string]string{"split_by": "must not be empty"}},
		{name: "null split_by", method: "POST", path: path, body: `{"index":1,"string":"a"}`, status: 400, msg: "Null splitBy"},
		{name: "null string", method: "POST", path: path, body: `{"split_by":" ","index":1}`, status: 400, msg: "Null string"},
		{name: "GET negative index (@Min(0))", method: "GET", path: q(path, "split_by", ",", "index", "-1", "string", "a"), invalid: map[string]string{"index": "greater than or equal to 0"}},
		{name: "GET split_by missing", method: "GET", path: q(path, "index", "1", "string", "a"), invalid: map[string]string{"split_by": "must not be null"}},
	})
}

func TestContainsStringTester(t *testing.T) {
	const path = "/tools/contains_string_tester"
	runToolCases(t, newToolsClient(t), []toolCase{
		{name: "found", method: "POST", path: path, body: `{"search_string":"took","string":"GET / took 12 ms"}`,
			want: `{"matched":true,"match":{"start":6,"end":10},"search_string":"took","string":"GET / took 12 ms"}`},
		{name: "not found: match left out", method: "POST", path: path, body: `{"search_string":"x","string":"abc"}`,
			want: `{"matched":false,"search_string":"x","string":"abc"}`},
		{name: "empty search string is found at 0", method: "POST", path: path, body: `{"search_string":"","string":"abc"}`,
			want: `{"matched":true,"match":{"start":0,"end":0},"search_string":"","string":"abc"}`},
		{name: "UTF-16 offsets", method: "POST", path: path, body: `{"search_string":"😀é","string":"a😀é"}`,
			want: `{"matched":true,"match":{"start":1,"end":4},"search_string":"😀é","string":"a😀é"}`},
		{name: "GET", method: "GET", path: q(path, "string", "abc", "search_string", "bc"),
			want: `{"matched":true,"match":{"start":1,"end":3},"search_string":"bc","string":"abc"}`},
		{name: "null search string", method: "POST", path: path, body: `{"string":"abc"}`, status: 400, msg: "Null searchString"},
		{name: "GET empty search string", method: "GET", path: q(path, "string", "abc", "search_string", ""), invalid: map[string]string{"search_string": "must not be empty"}},
		{name: "GET string missing", method: "GET", path: q(path, "search_string", "a"), invalid: map[string]string{"string": "must not be empty"}},
	})
}

func TestJSONTester(t *testing.T) {
	const path = "/tools/json_tester"
	body := func(flatten bool, list, key, kv string, replace bool, repl, prefix, s string) string {
		return sprintf(`{"flatten":%t,"list_separator":%q,"key_separator":%q,"kv_separator":%q,"replace_key_whitespace":%t,"key_whitespace_replacement":%q,"key_prefix":%q,"string":%q}`,
			flatten, list, key, kv, replace, repl, prefix, s)
	}
	const doc = `{"took":12,"ok":true,"http":{"method":"GET","status":{"code":200}},"tags":["a",null,"b"],"none":null,"ratio":0.5}`
	runToolCases(t, newToolsClient(t), []toolCase{
		{name: "nested keys", method: "POST", path: path, body: body(false, ", ", "_", "=", false, "_", "", doc),
			want: sprintf(`{"matches":{"took":12,"ok":true,"http_method":"GET","http_status_code":200,"tags":"a, b","ratio":0.5},"flatten":false,"line_separator":", ","key_separator":"_","kv_separator":"=","string":%q}`, doc)},
		{name: "flattened", method: "POST", path: path, body: body(true, " | ", ".", ":", false, "_", "p_", doc),
			want: sprintf(`{"matches":{"p_took":12,"p_ok":true,"p_http":"method:GET | status:{code=200}","p_tags":"a | b","p_ratio":0.5},"flatten":true,"line_separator":" | ","key_separator":".","kv_separator":":","string":%q}`, doc)},
		{name: "whitespace in keys replaced, by nothing too", method: "POST", path: path, body: body(false, ", ", "_", "=", true, "", "", `{"a b":{"c d":1}}`),
			want: `{"matches":{"ab_cd":1},"flatten":false,"line_separator":", ","key_separator":"_","kv_separator":"=","string":"{\"a b\":{\"c d\":1}}"}`},
		{name: "not JSON: nothing", method: "POST", path: path, body: body(false, ", ", "_", "=", false, "_", "", "nope"),
			want: `{"matches":{},"flatten":false,"line_separator":", ","key_separator":"_","kv_separator":"=","string":"nope"}`},
		{name: "not an object: nothing", method: "POST", path: path, body: body(false, ", ", "_", "=", false, "_", "", "[1]"),
			want: `{"matches":{},"flatten":false,"line_separator":", ","key_separator":"_","kv_separator":"=","string":"[1]"}`},
		{name: "GET", method: "GET", path: q(path, "string", `{"a":{"b":1}}`, "list_separator", ",", "key_separator", ".", "kv_separator", "=", "key_whitespace_replacement", "_", "key_prefix", ""),
			want: `{"matches":{"a.b":1},"flatten":false,"line_separator":",","key_separator":".","kv_separator":"=","string":"{\"a\":{\"b\":1}}"}`},
		{name: "null key_prefix", method: "POST", path: path, body: `{"list_separator":",","key_separator":"_","kv_separator":"=","key_whitespace_replacement":"_","string":"{}"}`, status: 400, msg: "Null keyPrefix"},
		{name: "null list_separator", method: "POST", path: path, body: `{"key_separator":"_","kv_separator":"=","key_whitespace_replacement":"_","key_prefix":"","string":"{}"}`, status: 400, msg: "Null listSeparator"},
		{name: "empty kv_separator", method: "POST", path: path, body: body(false, ", ", "_", "", false, "_", "", doc), invalid: map[string]string{"kv_separator": "must not be empty"}},
		{name: "empty string", method: "POST", path: path, body: body(false, ", ", "_", "=", false, "_", "", ""), invalid: map[string]string{"string": "must not be empty"}},
		{name: "flatten not a boolean", method: "POST", path: path, body: `{"flatten":"yes"}`, status: 400, msg: "flatten"},
		// Graylog answers 500 (a null in an ImmutableMap).
		{name: "GET key_prefix missing", method: "GET", path: q(path, "string", "{}", "list_separator", ",", "key_separator", ".", "kv_separator", "=", "key_whitespace_replacement", "_"),
			invalid: map[string]string{"key_prefix": "must not be null"}},
		{name: "GET list_separator missing", method: "GET", path: q(path, "string", "{}", "key_separator", ".", "kv_separator", "=", "key_whitespace_replacement", "_", "key_prefix", ""),
			invalid: map[string]string{"list_separator": "must not be empty"}},
	})
}

func TestGrokTester(t *testing.T) {
	const path = "/tools/grok_tester"
	const pattern = `%{WORD:method} %{NOTSPACE:path} took %{NUMBER:took:int} ms`
	runToolCases(t, newToolsClient(t), []toolCase{
		{name: "named captures", method: "POST", path: path, body: sprintf(`{"pattern":%q,"string":"GET / took 12 ms","named_captures_only":true}`, pattern),
			want: sprintf(`{"matched":true,"matches":[{"name":"method","match":"GET"},{"name":"path","match":"/"},{"name":"took","match":"12"}],"pattern":%q,"string":"GET / took 12 ms"}`, pattern)},
		{name: "every capture", method: "POST", path: path, body: `{"pattern":"%{NUMBER:n:float}","string":"1.5","named_captures_only":false}`,
			want: `{"matched":true,"matches":[{"name":"BASE10NUM","match":"1.5"},{"name":"n","match":"1.5"}],"pattern":"%{NUMBER:n:float}","string":"1.5"}`},
		{name: "no match", method: "POST", path: path, body: sprintf(`{"pattern":%q,"string":"nothing","named_captures_only":true}`, pattern),
			want: sprintf(`{"matched":false,"matches":[],"pattern":%q,"string":"nothing"}`, pattern)},
		{name: "GET", method: "GET", path: q(path, "pattern", "%{INT:n}", "string", "a 42", "named_captures_only", "true"),
			want: `{"matched":true,"matches":[{"name":"n","match":"42"}],"pattern":"%{INT:n}","string":"a 42"}`},
		{name: "null pattern", method: "POST", path: path, body: `{"string":"a"}`, status: 400, msg: "Null pattern"},
		{name: "null string", method: "POST", path: path, body: `{"pattern":"a"}`, status: 400, msg: "Null string"},
		{name: "GET pattern missing", method: "GET", path: q(path, "string", "a"), invalid: map[string]string{"pattern": "must not be empty"}},
		{name: "GET string missing", method: "GET", path: q(path, "pattern", "a"), invalid: map[string]string{"string": "must not be null"}},
	})
	// A pattern that does not compile is a 200 with error_message.
	c := newToolsClient(t)
	for _, p := range []string{"%{NOPE:x}", "(", ""} {
		rec := c.Admin("POST", path, sprintf(`{"pattern":%q,"string":"a","named_captures_only":false}`, p))
		routertest.WantStatus(t, rec, http.StatusOK)
		b := gjson.Parse(rec.Body.String())
		if b.Get("matched").Raw != "false" || b.Get("matches").Raw != "[]" || b.Get("pattern").String() != p || b.Get("error_message").String() == "" {
			t.Errorf("%q: %s", p, rec.Body)
		}
	}
}

func TestLookupTableTester(t *testing.T) {
	const path = "/tools/lookup_table_tester"
	runToolCases(t, newToolsClient(t), []toolCase{
		{name: "found, key trimmed for the lookup only", method: "POST", path: path, body: `{"lookup_table_name":"hosts","string":" 10.0.0.1\t"}`,
			want: `{"empty":false,"error":false,"error_message":"","key":" 10.0.0.1\t","value":"web-1"}`},
		{name: "a multi value only", method: "POST", path: path, body: `{"lookup_table_name":"hosts","string":"multi"}`,
			want: `{"empty":false,"error":false,"error_message":"","key":"multi","value":null}`},
		{name: "not found", method: "POST", path: path, body: `{"lookup_table_name":"hosts","string":"x"}`,
			want: `{"empty":true,"error":false,"error_message":"","key":"x","value":null}`},
		{name: "no such table", method: "POST", path: path, body: `{"lookup_table_name":"nope","string":"x"}`,
			want: `{"empty":true,"error":true,"error_message":"Lookup table <nope> doesn't exist","key":null,"value":null}`},
		{name: "GET", method: "GET", path: q(path, "lookup_table_name", "hosts", "string", "10.0.0.1"),
			want: `{"empty":false,"error":false,"error_message":"","key":"10.0.0.1","value":"web-1"}`},
		{name: "null name", method: "POST", path: path, body: `{"string":"x"}`, status: 400, msg: "Null lookupTableName"},
		{name: "empty string", method: "POST", path: path, body: `{"lookup_table_name":"hosts","string":""}`, invalid: map[string]string{"string": "must not be empty"}},
		{name: "GET name missing", method: "GET", path: q(path, "string", "x"), invalid: map[string]string{"lookup_table_name": "must not be empty"}},
	})
}

// TestToolPermissions: every tester needs an authenticated user only,
// except /tools/lookup_table_tester, which needs lookuptables:read.
func TestToolPermissions(t *testing.T) {
	c := newToolsClient(t)
	nobody := routertest.Principal(t)
	reader := routertest.Principal(t, "lookuptables:read")
	for _, r := range extractors.NewHandler(nil).Routes() {
		if len(r.Path) < 7 || r.Path[:7] != "/tools/" {
			continue
		}
		path := r.Path
		if r.Method == "GET" {
			path += "?x=1"
		}
		if rec := c.Do(nil, r.Method, path, r.Body); rec.Code != http.StatusUnauthorized {
			t.Errorf("%s %s anonymous: %d", r.Method, r.Path, rec.Code)
		}
		want := http.StatusOK
		if r.Path == "/tools/lookup_table_tester" {
			want = http.StatusForbidden
			if rec := c.Do(reader, r.Method, path, r.Body); rec.Code != http.StatusOK && !(r.Method == "GET" && rec.Code == http.StatusBadRequest) {
				t.Errorf("%s %s with lookuptables:read: %d %s", r.Method, r.Path, rec.Code, rec.Body)
			}
		}
		rec := c.Do(nobody, r.Method, path, r.Body)
		if r.Method == "GET" && rec.Code == http.StatusBadRequest && want == http.StatusOK {
			continue // allowed, and the parameters are missing
		}
		if rec.Code != want {
			t.Errorf("%s %s without permissions: %d, want %d: %s", r.Method, r.Path, rec.Code, want, rec.Body)
		}
	}
}

// TestLookupTableTesterGETNeedsPermission: the GET form of the lookup
// table tester looks a caller's key up in any table (an HTTP adapter's
// request included), so it needs lookuptables:read as the POST form does;
// Graylog 4.0's GET lacks the check, an oversight loggate does not copy.
func TestLookupTableTesterGETNeedsPermission(t *testing.T) {
	c := newToolsClient(t)
	path := q("/tools/lookup_table_tester", "lookup_table_name", "hosts", "string", "10.0.0.1")
	if rec := c.Do(routertest.Principal(t), "GET", path, ""); rec.Code != http.StatusForbidden {
		t.Fatalf("without lookuptables:read: %d %s, want 403", rec.Code, rec.Body)
	}
	if rec := c.Do(routertest.Principal(t, "lookuptables:read"), "GET", path, ""); rec.Code != http.StatusOK {
		t.Fatalf("with lookuptables:read: %d %s, want 200", rec.Code, rec.Body)
	}
}
