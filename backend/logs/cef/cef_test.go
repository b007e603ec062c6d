package cef_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/logs/cef"
)

func TestParse(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want cef.Event
		err  bool
	}{
		{"graylog example", "CEF:0|vendor|product|1.0|id|name|low|dvc=example.com msg=Foobar",
			cef.Event{0, "vendor", "product", "1.0", "id", "name", "low", []cef.Pair{{"dvc", "example.com"}, {"msg", "Foobar"}}}, false},
		{"no extension", "CEF:1|v|p|2|100|n|10|",
			cef.Event{1, "v", "p", "2", "100", "n", "10", nil}, false},
		{"no extension, no trailing pipe", "CEF:0|v|p|2|100|n|10",
			cef.Event{0, "v", "p", "2", "100", "n", "10", nil}, false},
		{"surrounding blanks", "  CEF:0|v|p|2|100|n|10|a=b  \n",
			cef.Event{0, "v", "p", "2", "100", "n", "10", []cef.Pair{{"a", "b"}}}, false},
		{"header escapes", `CEF:0|se\|curity|thr\\eat|1.0|100|a \| pipe|10|src=10.0.0.1`,
			cef.Event{0, "se|curity", `thr\eat`, "1.0", "100", "a | pipe", "10", []cef.Pair{{"src", "10.0.0.1"}}}, false},
		{"value with spaces and escapes", `CEF:0|v|p|1|1|n|5|act=blocked a \= sign msg=line1\nline2\r path=C:\\dir\\x a\=b\=c`,
			cef.Event{0, "v", "p", "1", "1", "n", "5", []cef.Pair{{"act", "blocked a = sign"}, {"msg", "line1\nline2\r"}, {"path", `C:\dir\x a=b=c`}}}, false},
		{"pipe in extension", "CEF:0|v|p|1|1|n|5|msg=a|b c=d",
			cef.Event{0, "v", "p", "1", "1", "n", "5", []cef.Pair{{"msg", "a|b"}, {"c", "d"}}}, false},
		{"text before the first key", "CEF:0|v|p|1|1|n|5|junk a=1",
			cef.Event{0, "v", "p", "1", "1", "n", "5", []cef.Pair{{"a", "1"}}}, false},
		{"empty value", "CEF:0|v|p|1|1|n|5|a= b=2",
			cef.Event{0, "v", "p", "1", "1", "n", "5", []cef.Pair{{"a", ""}, {"b", "2"}}}, false},
		{"duplicate keys", "CEF:0|v|p|1|1|n|5|a=1 a=2 b=3 b=4",
			cef.Event{0, "v", "p", "1", "1", "n", "5", []cef.Pair{{"a", "2"}, {"b", "3"}}}, false},
		{"syslog envelope", "Sep 19 08:26:10 host CEF:0|v|p|1|1|n|5|a=1",
			cef.Event{0, "v", "p", "1", "1", "n", "5", []cef.Pair{{"a", "1"}}}, false},
		{"syslog envelope with a year", "Sep 19 2017 08:26:10.123 host.example.org CEF:0|v|p|1|1|n|5|",
			cef.Event{0, "v", "p", "1", "1", "n", "5", nil}, false},
		{"epoch envelope", "1505809570000 host CEF:0|v|p|1|1|n|5|",
			cef.Event{0, "v", "p", "1", "1", "n", "5", nil}, false},
		{"CEF in a value", "CEF:0|v|p|1|1|n|5|msg=seen on host CEF:1",
			cef.Event{0, "v", "p", "1", "1", "n", "5", []cef.Pair{{"msg", "seen on host CEF:1"}}}, false},
		{"envelope with an unreadable timestamp", "<134>Sep 19 08:26:10 host CEF:0|v|p|1|1|n|5|a=1", cef.Event{}, true},
		{"too few header fields", "CEF:0|Foobar", cef.Event{}, true},
		{"missing severity", "CEF:0|v|p|1|1|n||", cef.Event{}, true},
		{"bad version", "CEF:0x|v|p|1|1|n|5|", cef.Event{}, true},
		{"not CEF", "LEEF:1.0|v|p|1|1|", cef.Event{}, true},
		{"empty", "", cef.Event{}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := cef.Parse(tc.in)
			if tc.err {
				if !errors.Is(err, cef.ErrInvalid) {
					t.Fatalf("err = %v, want ErrInvalid", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %#v\nwant %#v", got, tc.want)
			}
		})
	}
}

func TestFields(t *testing.T) {
	const in = `CEF:0|v|p|1|1|n|5|src=10.0.0.1 spt=1234 cs1Label=User Name cs1=alice cn1=99999999999999999999 ` +
		`cfp1=1.5 dlat=52.5 rt=1505809570000 end=Sep 19 2017 08:26:10 UTC start=sometime dpt=notaport custom=x y`
	ev, err := cef.Parse(in)
	if err != nil {
		t.Fatal(err)
	}
	short := map[string]any{
		"src": "10.0.0.1", "spt": int64(1234), "User Name": "alice", "cn1": 1e20, "cfp1": 1.5, "dlat": 52.5,
		"rt": time.UnixMilli(1505809570000).UTC(), "end": time.Date(2017, 9, 19, 8, 26, 10, 0, time.UTC),
		"start": "sometime", "custom": "x y",
	}
	if got := ev.Fields(false); !equal(got, short) {
		t.Errorf("short names:\ngot  %v\nwant %v", got, short)
	}
	full := map[string]any{
		"sourceAddress": "10.0.0.1", "sourcePort": int64(1234), "User Name": "alice", "deviceCustomNumber1": 1e20,
		"deviceCustomFloatingPoint1": 1.5, "destinationGeoLatitude": 52.5,
		"deviceReceiptTime": time.UnixMilli(1505809570000).UTC(), "endTime": time.Date(2017, 9, 19, 8, 26, 10, 0, time.UTC),
		"startTime": "sometime", "custom": "x y",
	}
	if got := ev.Fields(true); !equal(got, full) {
		t.Errorf("full names:\ngot  %v\nwant %v", got, full)
	}
}

func TestDates(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skip("no zone data")
	}
	for in, want := range map[string]time.Time{
		"2017-09-19T08:26:10.123Z":               time.Date(2017, 9, 19, 8, 26, 10, 123e6, time.UTC),
		"2017-09-19T08:26:10+02:00":              time.Date(2017, 9, 19, 6, 26, 10, 0, time.UTC),
		"20170919T082610.000Z":                   time.Date(2017, 9, 19, 8, 26, 10, 0, time.UTC),
		"Sep 19 08:26:10":                        time.Date(2000, 9, 19, 8, 26, 10, 0, time.UTC),
		"Sep  9 2017   08:26:10.5 Europe/Berlin": time.Date(2017, 9, 9, 8, 26, 10, 5e8, berlin),
	} {
		ev, err := cef.Parse("CEF:0|v|p|1|1|n|5|rt=" + in)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := ev.Fields(false)["rt"].(time.Time)
		if !ok || !got.Equal(want) {
			t.Errorf("rt=%s: got %v, want %v", in, ev.Fields(false)["rt"], want)
		}
	}
}

func equal(got, want map[string]any) bool {
	if len(got) != len(want) {
		return false
	}
	for k, w := range want {
		g, ok := got[k]
		if !ok {
			return false
		}
		if wt, ok := w.(time.Time); ok {
			if gt, ok := g.(time.Time); !ok || !gt.Equal(wt) {
				return false
			}
			continue
		}
		if g != w {
			return false
		}
	}
	return true
}

// FuzzParse checks that any input parses or is refused without panicking,
// and that a parsed event's header fields hold no unescaped pipe.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"CEF:0|vendor|product|1.0|id|name|low|dvc=example.com msg=Foobar",
		`CEF:0|se\|c|p|1|1|n|5|a=b\=c d=\\ e=\n rt=Sep 19 08:26:10 cs1Label=x cs1=y`,
		"Sep 19 08:26:10 host CEF:0|v|p|1|1|n|5|",
		"CEF:0|Foobar",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ev, err := cef.Parse(s)
		if err != nil {
			return
		}
		for _, h := range []string{ev.DeviceVendor, ev.DeviceProduct, ev.DeviceVersion, ev.DeviceEventClassID, ev.Name} {
			if strings.Contains(h, "|") && !strings.Contains(s, `\|`) {
				t.Fatalf("header field %q holds a pipe", h)
			}
		}
		ev.Fields(true)
		ev.Fields(false)
	})
}

// TestNonFiniteNumbers: NaN, infinities and integers beyond a double's
// range do not convert (a message field cannot hold them), and a huge
// integer is refused in linear time.
func TestNonFiniteNumbers(t *testing.T) {
	huge := "1" + strings.Repeat("7", 1_000_000)
	ev, err := cef.Parse(`CEF:0|v|p|1|1|n|5|cfp1=NaN cfp2=Infinity dlat=-Infinity slat=nan cn1=` + strings.Repeat("9", 400) + ` cn2=12 cn3=-99999999999999999999 cn4=` + huge)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	got := ev.Fields(false)
	if d := time.Since(start); d > 500*time.Millisecond {
		t.Errorf("took %v", d)
	}
	want := map[string]any{"cn2": int64(12), "cn3": -1e20}
	if !equal(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
}
