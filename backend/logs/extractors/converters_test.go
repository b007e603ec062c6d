package extractors

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/logs/lookup"
	"github.com/loggate/loggate/router/api"
)

var epoch = time.Date(2021, 3, 4, 5, 6, 7, 0, time.UTC)

func clock() time.Time { return epoch }

// cfg builds a configuration from JSON text.
func cfg(t testing.TB, s string) config {
	t.Helper()
	if s == "" {
		return config{}
	}
	var c config
	if err := json.Unmarshal([]byte(s), &c); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestConverters runs each of the 13 converter types as Graylog 4.0
// documents them (§2.7 of the reference).
func TestConverters(t *testing.T) {
	berlin, _ := time.LoadLocation("Europe/Berlin")
	cases := []struct {
		typ, config, in string
		want            any
		fields          []kv
		wantErr         bool
	}{
		{typ: "numeric", in: "42", want: int64(42)},
		{typ: "numeric", in: "-9000000000", want: int64(-9000000000)},
		{typ: "numeric", in: "3.25", want: 3.25},
		{typ: "numeric", in: "1e3", want: 1000.0},
		{typ: "numeric", in: "12abc", want: "12abc"},
		{typ: "numeric", in: "Inf", want: "Inf"},
		{typ: "date", config: `{"date_format":"yyyy-MM-dd HH:mm:ss"}`, in: "2020-12-01 10:00:00", want: time.Date(2020, 12, 1, 10, 0, 0, 0, time.UTC)},
		{typ: "date", config: `{"date_format":"yyyy-MM-dd HH:mm:ss","time_zone":"Europe/Berlin"}`, in: "2020-12-01 10:00:00", want: time.Date(2020, 12, 1, 10, 0, 0, 0, berlin)},
		{typ: "date", config: `{"date_format":"yyyy-MM-dd'T'HH:mm:ss.SSSZ","time_zone":"Europe/Berlin"}`, in: "2020-12-01T10:00:00.123+0200", want: time.Date(2020, 12, 1, 8, 0, 0, 123e6, time.UTC)},
		{typ: "date", config: `{"date_format":"MMM dd HH:mm:ss"}`, in: "Jul 04 12:30:00", want: time.Date(2021, 7, 4, 12, 30, 0, 0, time.UTC)},
		{typ: "date", config: `{"date_format":"dd/MMM/yyyy:HH:mm:ss Z"}`, in: "10/Oct/2000:13:55:36 -0700", want: time.Date(2000, 10, 10, 20, 55, 36, 0, time.UTC)},
		{typ: "date", config: `{"date_format":"yyyy-MM-dd"}`, in: "not a date", wantErr: true},
		{typ: "date", config: `{"date_format":"yyyy-MM-dd","time_zone":"No/Where"}`, in: "2020-12-01", want: time.Date(2020, 12, 1, 0, 0, 0, 0, time.UTC)},
		{typ: "flexdate", in: "2020-12-01 10:00:00", want: time.Date(2020, 12, 1, 10, 0, 0, 0, time.UTC)},
		{typ: "flexdate", in: "no date here", want: nil},
		{typ: "hash", in: "hello", want: "5d41402abc4b2a76b9719d911017c592"},
		{typ: "split_and_count", config: `{"split_by":","}`, in: "a,b,c", want: int64(3)},
		{typ: "split_and_count", config: `{"split_by":","}`, in: "a,b,,", want: int64(2)},
		{typ: "split_and_count", config: `{"split_by":"."}`, in: "a.b", want: int64(2)},
		{typ: "split_and_count", config: `{"split_by":","}`, in: "", want: int64(0)},
		{typ: "syslog_pri_level", in: "14", want: int64(6)},
		{typ: "syslog_pri_level", in: "x", wantErr: true},
		{typ: "syslog_pri_facility", in: "14", want: "user-level"},
		{typ: "syslog_pri_facility", in: "134", want: "local0"},
		{typ: "syslog_pri_facility", in: "0", want: "kernel"},
		{typ: "ip_anonymizer", in: "from 192.168.1.20 to 10.0.0.255", want: "from 192.168.1.xxx to 10.0.0.xxx"},
		{typ: "lowercase", in: "MiXeD", want: "mixed"},
		{typ: "uppercase", in: "MiXeD", want: "MIXED"},
		{typ: "tokenizer", in: `user=alice action="log in" id = 7 mode='x y'`, fields: []kv{{"user", "alice"}, {"action", "log in"}, {"id", "7"}, {"mode", "x y"}}},
		{typ: "tokenizer", in: "no pairs here"},
		{typ: "csv", config: `{"column_header":"a,b,c"}`, in: `1, "two, too",3`, fields: []kv{{"a", "1"}, {"b", "two, too"}, {"c", "3"}}},
		{typ: "csv", config: `{"column_header":"a;b","separator":";","quote_char":"'"}`, in: `x;'y;z'`, fields: []kv{{"a", "x"}, {"b", "y;z"}}},
		{typ: "csv", config: `{"column_header":"a,b"}`, in: "1,2,3"},
		{typ: "csv", config: `{"column_header":"\"a\",\"b\"","strict_quotes":true}`, in: `x"1",y"2"`, fields: []kv{{"a", "1"}, {"b", "2"}}},
	}
	for _, c := range cases {
		t.Run(c.typ+"/"+c.in, func(t *testing.T) {
			cv, err := newConverter(c.typ, cfg(t, c.config), deps{now: clock})
			if err != nil {
				t.Fatal(err)
			}
			if cv.multi != nil {
				got, err := cv.multi(c.in)
				if (err != nil) != c.wantErr || !reflect.DeepEqual(got, c.fields) {
					t.Errorf("got %v, %v; want %v", got, err, c.fields)
				}
				return
			}
			got, err := cv.single(c.in)
			if c.wantErr {
				if err == nil {
					t.Errorf("got %v, want an error", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if want, ok := c.want.(time.Time); ok {
				if gt, ok := got.(time.Time); !ok || !gt.Equal(want) {
					t.Errorf("got %v, want %v", got, want)
				}
				return
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got %#v, want %#v", got, c.want)
			}
		})
	}
}

// TestConverterConfigs: an unknown type is Graylog's 500; a bad
// configuration leaves the converter out.
func TestConverterConfigs(t *testing.T) {
	_, err := newConverter("nope", config{}, deps{now: clock})
	if api.ErrorCode(err) != api.Internal || err.Error() != "No enum constant org.graylog2.plugin.inputs.Converter.Type.NOPE" {
		t.Errorf("unknown type: %v", err)
	}
	for _, c := range []struct{ typ, config string }{
		{"date", ``}, {"date", `{"date_format":"yyyy-ww"}`}, {"split_and_count", `{}`}, {"csv", `{}`},
		{"csv", `{"column_header":"a","strict_quotes":"yes"}`}, {"lookup_table", `{"lookup_table_name":"t"}`},
	} {
		if _, err := newConverter(c.typ, cfg(t, c.config), deps{now: clock}); !errors.Is(err, errSkipConverter) {
			t.Errorf("%s %s: %v, want it skipped", c.typ, c.config, err)
		}
	}
	if len(converterTypes) != 13 {
		t.Errorf("%d converter types, want 13", len(converterTypes))
	}
	for _, typ := range converterTypes {
		if _, err := newConverter(typ, config{}, deps{now: clock}); err != nil && !errors.Is(err, errSkipConverter) {
			t.Errorf("%s: unknown", typ)
		}
	}
}

// fakeTables is one lookup table, "hosts".
type fakeTables map[string]string

func (f fakeTables) Exists(_ context.Context, name string) bool { return name == "hosts" }

func (f fakeTables) Lookup(_ context.Context, table string, key any) (lookup.Result, error) {
	if table != "hosts" {
		return lookup.Result{}, lookup.ErrNoTable
	}
	if v, ok := f[key.(string)]; ok {
		return lookup.Result{Single: v}, nil
	}
	return lookup.Result{}, nil
}

// TestLookupTable: the converter replaces a value its table has and keeps
// one it has not; the extractor writes the table's value only; both refuse
// a table that does not exist when a request names it.
func TestLookupTable(t *testing.T) {
	d := deps{now: clock, tables: fakeTables{"10.0.0.1": "web-one"}, strict: true}
	cv, err := newConverter("lookup_table", cfg(t, `{"lookup_table_name":"hosts"}`), d)
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]any{"10.0.0.1": "web-one", "10.9.9.9": "10.9.9.9"} {
		if got, err := cv.single(in); err != nil || got != want {
			t.Errorf("convert %s = %v, %v", in, got, err)
		}
	}
	if _, err := newConverter("lookup_table", cfg(t, `{"lookup_table_name":"nope"}`), d); !errors.Is(err, errSkipConverter) {
		t.Errorf("a missing table: %v", err)
	}
	run, err := newRunner(typeLookupTable, cfg(t, `{"lookup_table_name":"hosts"}`), d)
	if err != nil {
		t.Fatal(err)
	}
	if res, _ := run("10.0.0.1"); len(res) != 1 || res[0].value != "web-one" || res[0].begin != -1 {
		t.Errorf("extract: %+v", res)
	}
	if res, _ := run("10.9.9.9"); len(res) != 0 {
		t.Errorf("extract a miss: %+v", res)
	}
	if _, err := newRunner(typeLookupTable, cfg(t, `{"lookup_table_name":"nope"}`), d); err == nil || err.Error() != "Configured lookup table <nope> doesn't exist" {
		t.Errorf("a missing table: %v", err)
	}
	// A stored extractor is built whatever its table: it may come later.
	d.strict = false
	if _, err := newRunner(typeLookupTable, cfg(t, `{"lookup_table_name":"nope"}`), d); err != nil {
		t.Errorf("a stored extractor of a missing table: %v", err)
	}
}

// TestTokenizerGraylog40: TokenizerConverter's expression
// (?:^|\s)(?:([\w-]+)\s?=\s?("[^"]+"|'[^']+'|\S+)) keeps values with an
// '=' in them and takes any one whitespace character around the '='.
func TestTokenizerGraylog40(t *testing.T) {
	cases := []struct {
		in   string
		want []kv
	}{
		{"url=http://h/p?a=b user=x", []kv{{"url", "http://h/p?a=b"}, {"user", "x"}}},
		{"k1=v1=v2", []kv{{"k1", "v1=v2"}}},
		{`q="a=b c" n=1`, []kv{{"q", "a=b c"}, {"n", "1"}}},
		{"k1\t=\tv1 k2=v2", []kv{{"k1", "v1"}, {"k2", "v2"}}},
		{"k1 =\nv1", []kv{{"k1", "v1"}}},
		{"index.php?foo=bar", nil},
	}
	for _, c := range cases {
		got, _ := tokenize(c.in)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: got %q, want %q", c.in, got, c.want)
		}
	}
}

// TestNumericNonFinite: NumericConverter reads doubles with Guava's
// Doubles.tryParse, which takes "NaN" and "Infinity" only as Java spells
// them; and a message field can hold no NaN or infinity (a search answer
// with one cannot be encoded), so those stay text too.
func TestNumericNonFinite(t *testing.T) {
	for _, in := range []string{"nan", "NAN", "NaN", "infinity", "INFINITY", "Infinity", "-Infinity", "+infinity", "1e999"} {
		if got, _ := numeric(in); got != in {
			t.Errorf("%q: got %#v, want the text kept", in, got)
		}
	}
}

// TestDateConverterFraction: Joda's S reads up to nine digits whatever the
// number of letters, so "ss.SSS" reads microseconds and a single digit.
func TestDateConverterFraction(t *testing.T) {
	cv, err := newConverter("date", cfg(t, `{"date_format":"yyyy-MM-dd HH:mm:ss.SSS"}`), deps{now: clock})
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]time.Time{
		"2020-12-01 10:00:00.123":    time.Date(2020, 12, 1, 10, 0, 0, 123e6, time.UTC),
		"2020-12-01 10:00:00.123456": time.Date(2020, 12, 1, 10, 0, 0, 123456e3, time.UTC),
		"2020-12-01 10:00:00.5":      time.Date(2020, 12, 1, 10, 0, 0, 5e8, time.UTC),
		// one digit where the pattern has two, as Joda's parser reads
		"2020-12-1 9:05:3.25": time.Date(2020, 12, 1, 9, 5, 3, 25e7, time.UTC),
	} {
		got, err := cv.single(in)
		if gt, ok := got.(time.Time); err != nil || !ok || !gt.Equal(want) {
			t.Errorf("%q: %v, %v; want %v", in, got, err, want)
		}
	}
}

// TestCSVOpencsv23: CsvConverter parses with opencsv 2.3's CSVParser: an
// escape character that escapes nothing is dropped, a quote in the middle
// of a field is kept, blanks before an opening quote are dropped.
func TestCSVOpencsv23(t *testing.T) {
	cases := []struct {
		config, in string
		want       []kv
	}{
		{`{"column_header":"a,b"}`, `C:\temp\x,y`, []kv{{"a", "C:tempx"}, {"b", "y"}}},
		{`{"column_header":"a,b,c"}`, `a,bc"d"ef,g`, []kv{{"a", "a"}, {"b", `bc"d"ef`}, {"c", "g"}}},
		{`{"column_header":"a,b"}`, `"x\"y",z`, []kv{{"a", `x"y`}, {"b", "z"}}},
		{`{"column_header":"a,b"}`, `"x""y",z`, []kv{{"a", `x"y`}, {"b", "z"}}},
		{`{"column_header":"a,b"}`, `x,  "y"`, []kv{{"a", "x"}, {"b", "y"}}},
		{`{"column_header":"a,b","trim_leading_whitespace":false}`, `x,  "y"`, []kv{{"a", "x"}, {"b", `  "y`}}},
	}
	for _, c := range cases {
		cv, err := newConverter("csv", cfg(t, c.config), deps{now: clock})
		if err != nil {
			t.Fatal(err)
		}
		if got, err := cv.multi(c.in); err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s %q: got %q, %v; want %q", c.config, c.in, got, err, c.want)
		}
	}
}
