package functions_test

import (
	"math"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/logs/pipelines/lang"
)

// TestGraylog40Semantics pins results read off Graylog 4.0.17's function
// classes: null arguments (StringUtils' null in, null out; a
// NullPointerException where Graylog has one), Guava's parsers and
// encodings, Joda's time zones. The message is that of TestFunctions.
// A case whose err is set fails at parse or run time with that text.
// $NS is a null String: rules cannot hand a message field to a String
// parameter without a conversion, but functions return null strings.
func TestGraylog40Semantics(t *testing.T) {
	lib := library()
	cases := []funcCase{
		// LongConversion: Longs.tryParse takes '-' but not '+'.
		{`to_long("+5")`, int64(0), ""},
		{`to_long("+5", 7)`, int64(7), ""},
		{`to_long("-5")`, int64(-5), ""},
		// DoubleConversion: Doubles.tryParse, Java's syntax, no white space.
		{`to_double(" 1.5")`, 0.0, ""},
		{`to_double("1.5 ", 2.0)`, 2.0, ""},
		{`to_double("1.5d")`, 1.5, ""},
		{`to_double("2F")`, 2.0, ""},
		{`to_double("0x1p3")`, 8.0, ""},
		{`to_double("-Infinity")`, math.Inf(-1), ""},
		{`to_double("inf", 1.0)`, 1.0, ""},
		{`to_double("1e400")`, math.Inf(1), ""},
		// IpAddressConversion: Guava's forString (no white space), a
		// number's intValue(), a malformed default fails the statement.
		{`to_string(to_ip(" 10.0.0.1"))`, "0.0.0.0", ""},
		{`to_string(to_ip("10.0.0.1 ", "127.0.0.1"))`, "127.0.0.1", ""},
		{`to_string(to_ip(4294967297))`, "0.0.0.1", ""},
		{`to_string(to_ip(167772161.9))`, "10.0.0.1", ""},
		{`to_string(to_ip(1.0e12))`, "127.255.255.255", ""},
		{`to_string(to_ip(true))`, "0.0.0.0", ""},
		{`to_string(to_ip("::ffff:10.0.0.1"))`, "10.0.0.1", ""},
		{`to_ip("nope", "nope either")`, nil, "'nope either' is not an IP string literal."},
		// split is Java's Pattern.split, whose Matcher.find keeps an empty
		// match right after a match (results read off Java 17).
		{`split(",*", "a,b")`, []any{"a", "", "b"}, ""},
		{`split(",*", "a,b", 10)`, []any{"a", "", "b", ""}, ""},
		{`split(",*", "a,", 10)`, []any{"a", "", ""}, ""},
		{`split("", "ab", 5)`, []any{"a", "b", ""}, ""},
		{`split("", "ab")`, []any{"a", "b"}, ""},
		{`split("\\d*", "a1b22c")`, []any{"a", "", "b", "", "c"}, ""},
		{`split("\\d*", "a1b22c", 20)`, []any{"a", "", "b", "", "c", ""}, ""},
		{`split("\\b", "foo bar")`, []any{"foo", " ", "bar"}, ""},
		{`split("\\b", "foo bar", 20)`, []any{"foo", " ", "bar", ""}, ""},
		{`split("(?m)$", "x\ny\n", 20)`, []any{"x", "\ny", "\n", ""}, ""},
		{`split("a*?", "aaa", 20)`, []any{"a", "a", "a", ""}, ""},
		{`split("a|", "aaa", 20)`, []any{"", "", "", "", ""}, ""},
		{`split("ö?", "héllo wörld", 20)`, []any{"h", "é", "l", "l", "o", " ", "w", "", "r", "l", "d", ""}, ""},
		{`split(",", ",a")`, []any{"", "a"}, ""},
		{`split("^", "abc")`, []any{"abc"}, ""},
		{`split("-?", "a--b", 20)`, []any{"a", "", "", "b", ""}, ""},
		{`split("[;=]?", "k=v;x=y", 3)`, []any{"k", "", "v;x=y"}, ""},
		{`split("", "")`, []any{""}, ""},
		// DateConversion returns a DateTime as it is.
		{`to_string(to_date(now(), "Europe/Berlin"))`, "2020-12-01T10:00:00.000Z", ""},
		// TimezoneAwareFunction: a Joda zone id or UTC; an offset is none.
		{`to_string(now("+02:00"))`, "2020-12-01T10:00:00.000Z", ""},
		// FormatDate: DateTimeZone.forID, as spelled.
		{`format_date(now(), "HH:mm", "europe/berlin")`, nil, "not recognised"},
		{`format_date(now(), "HH:mm", "Europe/Berlin")`, "11:00", ""},
		{`format_date(to_date("x"), "HH:mm")`, nil, ""},
		{`parse_date($NS, "yyyy")`, nil, ""},
		// StringUtils: null in, null out.
		{`lowercase($NS)`, nil, ""},
		{`uppercase($NS)`, nil, ""},
		{`capitalize($NS)`, nil, ""},
		{`swapcase($NS)`, nil, ""},
		{`abbreviate($NS, 5)`, nil, ""},
		{`substring($NS, 1)`, nil, ""},
		{`replace($NS, "a")`, nil, ""},
		// String.toUpperCase/toLowerCase(Locale): full case mapping, and
		// Turkish rules for "tr".
		{`uppercase("straße")`, "STRASSE", ""},
		{`lowercase("TITLE", "tr")`, "tıtle", ""},
		{`uppercase("title", "tr")`, "TİTLE", ""},
		{`lowercase("TITLE", "en")`, "title", ""},
		{`lowercase("ΟΔΟΣ")`, "οδος", ""},
		// StringUtils.contains/startsWith/endsWith with nulls.
		{`contains($NS, "")`, false, ""},
		{`contains("abc", $NS)`, false, ""},
		{`starts_with("abc", $NS)`, false, ""},
		{`ends_with($NS, "")`, false, ""},
		{`starts_with($NS, $NS)`, true, ""},
		// Length: Objects.requireNonNull.
		{`length($NS)`, nil, "null"},
		// Join: a negative index is the default, List.subList's errors.
		{`join(["a", "b", "c"], "-", 0, -1)`, "a-b-c", ""},
		{`join(["a", "b", "c"], "-", 0, 5)`, nil, "greater than size"},
		{`join(["a", "b", "c"], "-", 2, 1)`, nil, "greater than end"},
		// Split: no negative limit, no null value.
		{`split(",", "a,b,,", -1)`, nil, "cannot be negative"},
		{`split(",", $NS)`, nil, "cannot be 'null'"},
		// KeyValue
		{`key_value("")`, nil, ""},
		{`key_value($NS)`, nil, ""},
		{`key_value(value: "a=1 b=", ignore_empty_values: false)`, nil, "Missing value for key b"},
		{`key_value(value: "a='' b=2", trim_value_chars: "'")`, map[string]any{"a": "", "b": "2"}, ""},
		{`key_value(value: "a=1 a=2", handle_dup_keys: "TAKE_LAST")`, map[string]any{"a": "2"}, ""},
		{`key_value(value: "a=1 a", handle_dup_keys: ",")`, map[string]any{"a": "1"}, ""},
		// RegexMatchResult: names by position, the index where there is
		// none; groups not taking part left out; a repeated name is
		// ImmutableMap's error.
		{`regex("(\\w+)", "GET", ["a", "b"])`, map[string]any{"a": "GET"}, ""},
		{`regex("(\\w+) (\\w+)", "GET x", ["a"])`, map[string]any{"a": "GET", "1": "x"}, ""},
		{`regex("(a)|(b)", "b")`, map[string]any{"1": "b"}, ""},
		{`regex("(a)|(b)", "b", ["x", "y"])`, map[string]any{"y": "b"}, ""},
		{`regex("(a)(b)", "ab", ["x", "x"])`, nil, "Multiple entries with same key"},
		{`regex_replace("a", $NS, "b")`, nil, "cannot be 'null'"},
		// GrokMatch: a null value gives null.
		{`grok("%{WORD:w}", $NS)`, nil, ""},
		// Hashes and encodings of null: a NullPointerException.
		{`md5($NS)`, nil, "null"},
		{`murmur3_32($NS)`, nil, "null"},
		{`base64_encode($NS)`, nil, "null"},
		{`base64_decode($NS)`, nil, "null"},
		// BaseEncoding.base16() is upper case (Graylog's encodings.txt).
		{`base16_encode("graylog")`, "677261796C6F67", ""},
		{`base16_encode(value: "graylog", omit_padding: true)`, "677261796C6F67", ""},
		{`base16_decode("677261796C6F67")`, "graylog", ""},
		{`base16_decode("677261796c6f67")`, nil, "Unrecognized character"},
	}
	runFuncCases(t, lib, cases)
}

// nullString is a String expression whose value is null: format_date of
// a date to_date could not convert.
const nullString = `format_date(to_date("x"), "yyyy")`

// TestNullLong: parse_unix_milliseconds of null is null, not 1970.
func TestNullLong(t *testing.T) {
	f, _ := library().Function("parse_unix_milliseconds")
	got, err := f.Call(lang.NewContext(nil, nil), lang.NewArgs([]any{nil, nil}, []bool{true, false}))
	if err != nil || got != nil {
		t.Fatalf("got %v, %v; want nil", got, err)
	}
}

// evalOn parses expr and evaluates it on TestFunctions' message.
func evalOn(lib lang.Functions, expr string) (any, error) {
	e, err := lang.ParseExpr(expr, lib)
	if err != nil {
		return nil, err
	}
	m := &lang.Message{Message: &messages.Message{ID: "m1", Timestamp: testNow, Fields: []messages.Field{
		{Key: "source", Value: "web-1"}, {Key: "message", Value: "GET /x 200"}, {Key: "took", Value: "12"},
		{Key: "n", Value: int64(5)}, {Key: "f", Value: 1.5}, {Key: "gl2_source_input", Value: "in1"},
	}}}
	return e.Eval(lang.NewContext(m, func() time.Time { return testNow }))
}

// TestSplitUnterminatedQuote: a pattern whose quoting runs to its end
// cannot be put in a group; split keeps Go's matches instead of failing.
func TestSplitUnterminatedQuote(t *testing.T) {
	runFuncCases(t, library(), []funcCase{
		{`split("x?\\Q", "axb")`, []any{"a", "b"}, ""},
	})
}
