package lookup

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/loggate/loggate/router/api"
)

// FuzzParseRecords: any text splits into records without a panic, and
// text free of quotes, separators' look-alikes and line breaks is one
// record whose fields joined give the line back.
func FuzzParseRecords(f *testing.F) {
	for _, s := range []string{"a,b\nc,d", `"x""y",z`, "\"open\n", "\r\n\r\n", ",,,", "é;ü"} {
		f.Add(s, ",", `"`)
	}
	f.Fuzz(func(t *testing.T, text, sep, quote string) {
		s, ok1 := firstRune(sep)
		q, ok2 := firstRune(quote)
		if !ok1 || !ok2 || s == q {
			return
		}
		recs := parseRecords(text, s, q)
		if !utf8.ValidString(text) || strings.ContainsAny(text, "\r\n"+string(q)) || text == "" {
			return
		}
		if len(recs) != 1 || strings.Join(recs[0], string(s)) != text {
			t.Errorf("parseRecords(%q) = %q", text, recs)
		}
	})
}

// FuzzDSVTable: any downloaded text and settings give a table without a
// panic.
func FuzzDSVTable(f *testing.F) {
	f.Add("# c\n1|a\n2|\"b|c\"\n", "\n", "|", 0, 1, false)
	f.Add("k;v\r\nx;y", "\r\n", ";", 1, 0, true)
	f.Fuzz(func(t *testing.T, text, lineSep, sep string, key, value int, presence bool) {
		if lineSep == "" || key < 0 || value < 0 || key > 64 || value > 64 {
			return
		}
		c := newDSVConfig()
		c.LineSeparator, c.Separator, c.KeyColumn, c.ValueColumn, c.PresenceOnly = lineSep, sep, key, value, presence
		dsvTable(text, c)
	})
}

// FuzzAdapterConfig: any config JSON is a known type's settings, or a 400
// naming what is wrong; never a panic or another error.
func FuzzAdapterConfig(f *testing.F) {
	for _, s := range []string{`{"type":"csvfile","path":"/x","key_column":"k","value_column":"v"}`,
		`{"type":"dsvhttp","url":"http://h/x"}`, `{"type":"httpjsonpath","url":"http://h/${key}","single_value_jsonpath":"$.a[?@.b>1]"}`,
		`{"type":"dnslookup","lookup_type":"PTR","server_ips":"127.0.0.1:53,::1"}`, `{"type":"guava_cache","expire_after_write":1,"expire_after_write_unit":"DAYS"}`,
		`{"type":"maxmind_geoip"}`, `null`, `[]`, `{"type":7}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, config string) {
		for what, kinds := range map[string]map[string]kind{"data adapter": adapterKinds, "cache": cacheKinds} {
			k, cfg, err := decodeConfig(json.RawMessage(config), kinds, what)
			if err != nil {
				if api.ErrorCode(err) != api.Invalid {
					t.Fatalf("decodeConfig(%q): %v is not a 400", config, err)
				}
				continue
			}
			if _, err := json.Marshal(cfg); err != nil {
				t.Fatal(err)
			}
			if k.adapter != nil {
				k.adapter(cfg, env{})
			} else {
				k.cache(cfg, env{})
			}
		}
	})
}
