package functions_test

import (
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/logs/pipelines/lang"
)

// TestFunctions evaluates each function as Graylog 4.0 documents it. The
// message has source "web-1", message "GET /x 200", took "12", n 5 (a
// long), f 1.5, and is on no stream.
func TestFunctions(t *testing.T) {
	lib := library()
	cases := []funcCase{
		// conversions
		{`to_bool("TRUE")`, true, ""},
		{`to_bool("yes")`, false, ""},
		{`to_bool($message.missing, true)`, true, ""},
		{`to_double("1.5")`, 1.5, ""},
		{`to_double("x", 2.5)`, 2.5, ""},
		{`to_double($message.n)`, 5.0, ""},
		{`to_long("42")`, int64(42), ""},
		{`to_long("1.5")`, int64(0), ""},
		{`to_long("1.5", 7)`, int64(7), ""},
		{`to_long($message.f)`, int64(1), ""},
		{`to_long($message.took)`, int64(12), ""},
		{`to_string($message.n)`, "5", ""},
		{`to_string($message.f)`, "1.5", ""},
		{`to_string(1.0)`, "1.0", ""},
		{`to_string($message.missing, "d")`, "d", ""},
		{`to_string(true)`, "true", ""},
		{`to_map(parse_json("{\"a\":1}"))`, map[string]any{"a": int64(1)}, ""},
		{`to_map("x")`, map[string]any{}, ""},
		{`to_string(to_ip("10.0.0.1"))`, "10.0.0.1", ""},
		{`to_string(to_ip(167772161))`, "10.0.0.1", ""},
		{`to_string(to_ip("nope"))`, "0.0.0.0", ""},
		{`to_string(to_ip("nope", "127.0.0.1"))`, "127.0.0.1", ""},
		{`to_string(to_url("https://example.org/a?b=c"))`, "https://example.org/a?b=c", ""},
		{`is_null(to_url("::"))`, true, ""},
		{`is_null(to_date("2020-01-01"))`, true, ""},
		{`to_date($message.timestamp)`, testNow, ""},
		// type tests
		{`is_bool(true)`, true, ""},
		{`is_number($message.n) && is_number($message.f)`, true, ""},
		{`is_double($message.n)`, false, ""},
		{`is_long($message.n)`, true, ""},
		{`is_string($message.source)`, true, ""},
		{`is_collection([1])`, true, ""},
		{`is_list([1]) && is_list(parse_json("[1]"))`, true, ""},
		{`is_map({a: 1}) && is_map(parse_json("{}"))`, true, ""},
		{`is_date(now())`, true, ""},
		{`is_period(days(1))`, true, ""},
		{`is_ip(to_ip("::1"))`, true, ""},
		{`is_json(parse_json("{}"))`, true, ""},
		{`is_url(to_url("http://a"))`, true, ""},
		{`is_null($message.missing)`, true, ""},
		{`is_not_null($message.source)`, true, ""},
		// message
		{`has_field("source")`, true, ""},
		{`has_field("missing")`, false, ""},
		{`from_input(id: "in1")`, true, ""},
		{`from_input(id: "in2")`, false, ""},
		// strings
		{`abbreviate("abcdefghij", 6)`, "abc...", ""},
		{`abbreviate("abcdefghij", 2)`, "a...", ""},
		{`abbreviate("abc", 10)`, "abc", ""},
		{`capitalize("hello world")`, "Hello world", ""},
		{`uncapitalize("Hello")`, "hello", ""},
		{`swapcase("Hello World")`, "hELLO wORLD", ""},
		{`lowercase("ÄBC")`, "äbc", ""},
		{`uppercase("abc", "de")`, "ABC", ""},
		{`concat("a", "b")`, "ab", ""},
		{`contains("Hello", "ell")`, true, ""},
		{`contains("Hello", "ELL")`, false, ""},
		{`contains("Hello", "ELL", true)`, true, ""},
		{`starts_with("Hello", "He")`, true, ""},
		{`ends_with("Hello", "LO", true)`, true, ""},
		{`substring("hello", 1, 3)`, "el", ""},
		{`substring("hello", -3)`, "llo", ""},
		{`substring("hello", 2, 100)`, "llo", ""},
		{`substring("hello", 4, 2)`, "", ""},
		{`split(",", "a,b,,c,,")`, []any{"a", "b", "", "c"}, ""},
		{`split(",", "a,b,c", 2)`, []any{"a", "b,c"}, ""},
		{`join(["a", "b", "c"], "-")`, "a-b-c", ""},
		{`join(["a", "b", "c"], "-", 1)`, "b-c", ""},
		{`join($message.missing)`, "", ""},
		{`join("x")`, nil, "must be a list"},
		{`replace("a-b-c", "-")`, "abc", ""},
		{`replace("a-b-c", "-", "+", 1)`, "a+b-c", ""},
		{`length("héllo")`, int64(5), ""},
		{`length("héllo", true)`, int64(6), ""},
		{`first_non_null([$message.missing, "x", "y"])`, "x", ""},
		{`key_value("a=1 b=2 c=")`, map[string]any{"a": "1", "b": "2"}, ""},
		{`key_value(value: "a=1 a=2", handle_dup_keys: "take_last")`, map[string]any{"a": "2"}, ""},
		{`key_value(value: "a=1 a=2", handle_dup_keys: ",")`, map[string]any{"a": "1,2"}, ""},
		{`key_value(value: "a=1 a=2", allow_dup_keys: false)`, nil, "Duplicate key a"},
		{`key_value(value: "a:1;b:'2'", delimiters: ";", kv_delimiters: ":", trim_value_chars: "'")`, map[string]any{"a": "1", "b": "2"}, ""},
		// Pairs, keys and values are trimmed of white space, as Guava's
		// trimResults() does, and blank pieces are skipped.
		{`key_value(value: "a=1, b=2", delimiters: ",")`, map[string]any{"a": "1", "b": "2"}, ""},
		{`key_value(value: "a = 1; b = 2 ;; ", delimiters: ";")`, map[string]any{"a": "1", "b": "2"}, ""},
		{`key_value(value: "a=1, b=2", delimiters: ",")["b"]`, "2", ""},
		{`key_value(value: "a=1, a=2", delimiters: ",", allow_dup_keys: false)`, nil, "Duplicate key a"},
		{`key_value("a==b=c =x k= y\u00a0z=1")`, map[string]any{"a": "b=c", "z": "1"}, ""},
		// regex, grok (grok needs the service: see the pipelines tests)
		{`regex("(\\w+) (\\S+)", "GET /x")["1"]`, "/x", ""},
		{`regex("(\\w+) (\\S+)", "GET /x").matches`, true, ""},
		{`regex("^z", "GET").matches`, false, ""},
		{`regex("(\\w+)", "GET", ["verb"])["verb"]`, "GET", ""},
		{`regex("^z", "GET")`, map[string]any{}, ""},
		// A value without the text every match has is not searched: it
		// does not match either way.
		{`regex("(\\d+) ms", "took 12 ms")["0"]`, "12", ""},
		{`regex("(\\d+) ms", "took 12 s").matches`, false, ""},
		{`regex("(\\d+) ms", "took 12 s", ["a", "b"]).matches`, false, ""},
		{`to_string(regex("(\\w+) (\\S+)", "GET /x"))`, "{0=GET, 1=/x}", ""},
		{`regex("(a)", "a") == regex("(a)", "a")`, true, ""},
		{`regex("(a)", "a") == regex("(a)", "b")`, false, ""},
		{`regex("(\\w)(\\w)(\\w)(\\w)(\\w)(\\w)(\\w)(\\w)(\\w)(\\w)", "abcdefghij")["9"]`, "j", ""},
		{`regex_replace("(\\d+)", "a1b22", "<$1>")`, "a<1>b<22>", ""},
		{`regex_replace("\\d", "a1b2", "#", false)`, "a#b2", ""},
		{`regex_replace("\\d", "a1", "\\$")`, "a$", ""},
		// As Java's Matcher: group numbers stop at the groups there are,
		// a missing group is an error when a match is replaced, and only
		// then.
		{`regex_replace("port (\\d)", "port 8", "port $10")`, "port 80", ""},
		{`regex_replace("(a)", "xax", "$2")`, nil, "no group 2"},
		{`regex_replace("(a)", "xyz", "$2")`, "xyz", ""},
		{`regex_replace("(?<w>a)", "xax", "<${w}>")`, "x<a>x", ""},
		// JSON
		{`to_string(parse_json("{\"a\":[1,2]}"))`, `{"a":[1,2]}`, ""},
		{`select_jsonpath(parse_json("{\"a\":{\"b\":\"x\"},\"l\":[1,2]}"), {v: "$.a.b", w: "$.l[1]", every: "$.l[*]", m: "$.none"})`,
			map[string]any{"v": "x", "w": int64(2), "every": []any{int64(1), int64(2)}, "m": nil}, ""},
		// dates
		{`now()`, testNow, ""},
		{`to_string(now("Europe/Berlin"))`, "2020-12-01T11:00:00.000+01:00", ""},
		{`to_string(now("europe/berlin"))`, "2020-12-01T11:00:00.000+01:00", ""},
		{`to_string(now("Nowhere/Else"))`, "2020-12-01T10:00:00.000Z", ""},
		{`parse_date("2020-12-01 10:00:05", "yyyy-MM-dd HH:mm:ss")`, testNow.Add(5 * time.Second), ""},
		{`parse_date("01/Dec/2020:11:00:00 +0100", "dd/MMM/yyyy:HH:mm:ss Z")`, testNow, ""},
		{`parse_date("x", "yyyy")`, nil, "Invalid format"},
		// Joda's parser: one or two digits for MM, dd, HH, mm, ss, any
		// fraction, "Z" for UTC.
		{`parse_date("2020-12-1 10:0:5", "yyyy-MM-dd HH:mm:ss")`, testNow.Add(5 * time.Second), ""},
		{`parse_date("20201201100005", "yyyyMMddHHmmss")`, testNow.Add(5 * time.Second), ""},
		{`parse_date("2020-12-01T10:00:05.5Z", "yyyy-MM-dd'T'HH:mm:ss.SSSZ")`, testNow.Add(5500 * time.Millisecond), ""},
		{`format_date(parse_date("2020-12-1 10:0:5", "yyyy-MM-dd HH:mm:ss"), "yyyy-MM-dd HH:mm:ss")`, "2020-12-01 10:00:05", ""},
		{`parse_unix_milliseconds(1606816800000)`, testNow, ""},
		{`format_date(now(), "yyyy-MM-dd'T'HH:mm")`, "2020-12-01T10:00", ""},
		{`format_date(now(), "HH:mm", "+02:00")`, "12:00", ""},
		{`now() + days(1) > now()`, true, ""},
		{`to_string(now() - hours(2))`, "2020-12-01T08:00:00.000Z", ""},
		{`to_string(years(1) + months(2))`, "P1Y2M", ""},
		{`to_string(weeks(1))`, "P1W", ""},
		{`to_string(minutes(5))`, "PT5M", ""},
		{`to_string(seconds(1) + millis(500))`, "PT1.500S", ""},
		{`to_string(period("P1DT5M"))`, "P1DT5M", ""},
		{`period("xyz")`, nil, "Invalid format"},
		// flex_parse_date, as Natty reads English dates; now is Tuesday
		// 2020-12-01 10:00 UTC, the time of dates without one
		{`flex_parse_date("yesterday")`, testNow.AddDate(0, 0, -1), ""},
		{`flex_parse_date("today")`, testNow, ""},
		{`flex_parse_date("now")`, testNow, ""},
		{`flex_parse_date("tomorrow")`, testNow.AddDate(0, 0, 1), ""},
		{`flex_parse_date("3 days ago")`, testNow.AddDate(0, 0, -3), ""},
		{`flex_parse_date("three weeks ago")`, testNow.AddDate(0, 0, -21), ""},
		{`flex_parse_date("10 seconds ago")`, testNow.Add(-10 * time.Second), ""},
		{`flex_parse_date("in 5 minutes")`, testNow.Add(5 * time.Minute), ""},
		{`flex_parse_date("3 days from now")`, testNow.AddDate(0, 0, 3), ""},
		{`flex_parse_date("next tuesday 3pm")`, time.Date(2020, 12, 8, 15, 0, 0, 0, time.UTC), ""},
		{`flex_parse_date("last wednesday")`, time.Date(2020, 11, 25, 10, 0, 0, 0, time.UTC), ""},
		{`flex_parse_date("next thursday")`, time.Date(2020, 12, 3, 10, 0, 0, 0, time.UTC), ""},
		{`flex_parse_date("tomorrow at noon")`, time.Date(2020, 12, 2, 12, 0, 0, 0, time.UTC), ""},
		{`flex_parse_date("6pm")`, time.Date(2020, 12, 1, 18, 0, 0, 0, time.UTC), ""},
		{`flex_parse_date("5:30 a.m.")`, time.Date(2020, 12, 1, 5, 30, 0, 0, time.UTC), ""},
		{`flex_parse_date("midnight")`, time.Date(2020, 12, 1, 0, 0, 0, 0, time.UTC), ""},
		{`flex_parse_date("next month")`, time.Date(2021, 1, 1, 10, 0, 0, 0, time.UTC), ""},
		{`flex_parse_date("last year")`, time.Date(2019, 12, 1, 10, 0, 0, 0, time.UTC), ""},
		{`flex_parse_date("the backup ran yesterday")`, testNow.AddDate(0, 0, -1), ""},
		{`flex_parse_date("2020-01-02 10:00")`, time.Date(2020, 1, 2, 10, 0, 0, 0, time.UTC), ""},
		{`flex_parse_date("2020-01-02T10:00:05.250+01:00")`, time.Date(2020, 1, 2, 9, 0, 5, 250e6, time.UTC), ""},
		{`flex_parse_date("Jan 5 2020")`, time.Date(2020, 1, 5, 10, 0, 0, 0, time.UTC), ""},
		{`flex_parse_date("1978-01-28")`, time.Date(1978, 1, 28, 10, 0, 0, 0, time.UTC), ""},
		{`flex_parse_date("1/02/1980")`, time.Date(1980, 1, 2, 10, 0, 0, 0, time.UTC), ""},
		{`flex_parse_date("2/28/79")`, time.Date(1979, 2, 28, 10, 0, 0, 0, time.UTC), ""},
		{`flex_parse_date("Fri, 21 Nov 1997")`, time.Date(1997, 11, 21, 10, 0, 0, 0, time.UTC), ""},
		{`flex_parse_date("Tue, 01 Dec 2020 11:00:00 +0100")`, testNow, ""},
		{`flex_parse_date("10/Oct/2000:13:55:36 -0700")`, time.Date(2000, 10, 10, 20, 55, 36, 0, time.UTC), ""},
		{`to_string(flex_parse_date(value: "2020-01-02 10:00", timezone: "Europe/Berlin"))`, "2020-01-02T10:00:00.000+01:00", ""},
		{`to_string(flex_parse_date(value: "tomorrow 8pm", timezone: "Europe/Berlin"))`, "2020-12-02T20:00:00.000+01:00", ""},
		{`to_string(flex_parse_date(value: "yesterday", timezone: "Asia/Tokyo"))`, "2020-11-30T19:00:00.000+09:00", ""},
		{`flex_parse_date("no date in here")`, nil, ""},
		{`flex_parse_date("")`, nil, ""},
		{`flex_parse_date("no date in here", now() - days(2))`, testNow.AddDate(0, 0, -2), ""},
		{`flex_parse_date(value: "tomorrow", default: now())`, testNow.AddDate(0, 0, 1), ""},
		// hashes
		{`md5("graylog")`, "6f9efb466e043b9f3635827ce446e13c", ""},
		{`sha1("graylog")`, "6d88bccf40bf65b911fe79d78c7af98e382f0c1a", ""},
		{`sha256("graylog")`, "4bbdd5a829dba09d7a7ff4c1367be7d36a017b4267d728d31bd264f63debeaa6", ""},
		{`length(sha512("graylog"))`, int64(128), ""},
		{`crc32("graylog")`, "e3018c57", ""},
		{`crc32c("graylog")`, "82390e89", ""},
		// The reference vectors of MurmurHash3 for "foo" (x86_32: -156908512;
		// x64_128: 6145f501…), printed as Guava's HashCode prints them.
		{`murmur3_32("foo")`, "20c4a5f6", ""},
		{`murmur3_128("foo")`, "6145f501578671e2877dba2be487af7e", ""},
		// encodings
		{`base16_encode("hi")`, "6869", ""},
		{`base16_decode("6869")`, "hi", ""},
		{`base32_encode("hi")`, "D1KG====", ""},
		{`base32_encode("hi", true)`, "D1KG", ""},
		{`base32_decode("D1KG====")`, "hi", ""},
		{`base32human_encode("hi")`, "NBUQ====", ""},
		{`base32human_decode("NBUQ")`, "hi", ""},
		{`base64_encode("hi?")`, "aGk/", ""},
		{`base64_encode("h", true)`, "aA", ""},
		{`base64_decode("aGk=")`, "hi", ""},
		{`base64url_encode("hi?")`, "aGk_", ""},
		{`base64url_decode("aGk_")`, "hi?", ""},
		{`base64_decode("!!")`, nil, "illegal base64"},
		// network
		{`cidr_match("10.0.0.0/8", to_ip("10.1.2.3"))`, true, ""},
		{`cidr_match("10.0.0.0/8", to_ip("11.1.2.3"))`, false, ""},
		{`urlencode("a b&c~*")`, "a+b%26c%7E*", ""},
		{`urldecode("a+b%26c")`, "a b&c", ""},
		{`urldecode("%zz")`, nil, "Illegal hex"},
		// syslog
		{`syslog_level(3)`, "Error", ""},
		{`syslog_level("9")`, "Unknown", ""},
		{`syslog_facility(13)`, "log audit", ""},
		{`expand_syslog_priority(165)`, map[string]any{"level": int64(5), "facility": int64(20)}, ""},
		{`expand_syslog_priority_as_string(165)`, map[string]any{"level": "Notice", "facility": "local4"}, ""},
		// operators
		{`1 + 2 * 3`, int64(7), ""},
		{`7 / 2`, int64(3), ""},
		{`7.0 / 2.0`, 3.5, ""},
		{`1 / 0`, nil, "/ by zero"},
		{`"a" + "b"`, "ab", ""},
		{`1 == 1.0`, false, ""},
		{`$message.missing == "x" || $message.missing != "x"`, false, ""},
		{`not false == true`, true, ""},
		{`{a: [1, 2]}.a[1]`, int64(2), ""},
		{`$message.source == "web-1" and to_long($message.took) > 10`, true, ""},
	}
	runFuncCases(t, lib, cases)
}

// TestRegexTooLarge: a pattern whose counted repetitions expand to millions
// of instructions is a parse error, before RE2 spends seconds and over
// 100 MiB compiling it.
func TestRegexTooLarge(t *testing.T) {
	big := strings.Repeat("[a-z]{1000}", 66)
	for _, expr := range []string{`regex("` + big + `", "x")`, `regex_replace("` + big + `", "x", "y")`} {
		if _, err := lang.ParseExpr(expr, library()); err == nil || !strings.Contains(err.Error(), "too large") {
			t.Errorf("%.30s…: error %v, want one saying the expression is too large", expr, err)
		}
	}
}

// funcCase is an expression evaluated on TestFunctions' message, with its
// value or the error (at parse or run time) it fails with.
type funcCase struct {
	expr string
	want any
	err  string // an error containing this
}

// runFuncCases runs cases; $NS in an expression stands for a null String.
func runFuncCases(t *testing.T, lib lang.Functions, cases []funcCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.expr, func(t *testing.T) {
			got, err := evalOn(lib, strings.ReplaceAll(tc.expr, "$NS", nullString))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got %#v, error %v, want an error containing %q", got, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("%v", err)
			}
			if r, ok := got.(*lang.MatchResult); ok {
				got = r.Map()
			}
			if ts, ok := got.(time.Time); ok {
				if want, ok := tc.want.(time.Time); ok && ts.Equal(want) {
					return
				}
			}
			if _, ok := got.(netip.Addr); ok {
				t.Fatalf("got an address %v", got)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %#v, want %#v", got, tc.want)
			}
		})
	}
}
