package inputs_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/loggate/loggate/backend/logs/inputs"
	"github.com/loggate/loggate/router/api"
)

func TestCodecTypes(t *testing.T) {
	e := newEnv(t)
	rec := e.Admin("GET", "/system/codecs/types/all", "")
	if rec.Code != 200 {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	got := gjson.ParseBytes(rec.Body.Bytes())
	if n := len(got.Map()); n != 1 {
		t.Errorf("%d codecs: %s", n, rec.Body)
	}
	g := got.Get("gelf")
	if g.Get("type").String() != "gelf" || g.Get("name").String() != "GELF" ||
		g.Get("requested_configuration.decompress_size_limit.default_value").Int() != 8388608 ||
		g.Get("requested_configuration.override_source.type").String() != "text" {
		t.Errorf("gelf codec: %s", g.Raw)
	}
}

func TestParseRaw(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write([]byte(`{"version":"1.1","host":"zipped","short_message":"z"}`))
	_ = zw.Close()
	// 9 MiB of text in a few kilobytes: past the default limit.
	var bomb bytes.Buffer
	zw = gzip.NewWriter(&bomb)
	_, _ = zw.Write([]byte(`{"version":"1.1","host":"h","short_message":"` + strings.Repeat("a", 9<<20) + `"}`))
	_ = zw.Close()
	now := func() time.Time { return time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC) }
	tests := []struct {
		name, codec, raw, remote string
		config                   map[string]any
		code                     api.Code // 0: decoded
		source, message          string
		fields                   map[string]any
	}{
		{name: "gelf", codec: "gelf", raw: `{"version":"1.1","host":"web-1","short_message":"GET / 200","_took_ms":12,"level":6}`,
			source: "web-1", message: "GET / 200", fields: map[string]any{"took_ms": int64(12), "level": int64(6)}},
		{name: "override source", codec: "gelf", raw: `{"version":"1.1","host":"web-1","short_message":"m"}`,
			config: map[string]any{"override_source": "forced"}, source: "forced", message: "m"},
		{name: "config of another type is ignored", codec: "gelf", raw: `{"version":"1.1","host":"web-1","short_message":"m"}`,
			config: map[string]any{"override_source": 5, "decompress_size_limit": "x"}, source: "web-1", message: "m"},
		{name: "gzip", codec: "gelf", raw: gz.String(), source: "zipped", message: "z"},
		{name: "decompressed size limit", codec: "gelf", raw: gz.String(), config: map[string]any{"decompress_size_limit": float64(10)}, code: api.Invalid},
		{name: "a limit above the default is the default", codec: "gelf", raw: bomb.String(),
			config: map[string]any{"decompress_size_limit": float64(1e12)}, code: api.Invalid},
		{name: "not json", codec: "gelf", raw: `hello`, code: api.Invalid},
		{name: "no short_message", codec: "gelf", raw: `{"version":"1.1","host":"h"}`, code: api.Invalid},
		{name: "unknown codec", codec: "syslog", raw: `<13>hello`, code: api.NotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := inputs.ParseRaw(tc.codec, tc.config, []byte(tc.raw), tc.remote, now)
			if tc.code != 0 {
				var ae *api.Error
				if !errors.As(err, &ae) || ae.Code != tc.code {
					t.Fatalf("err %v, want code %v", err, tc.code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(m.ID) != 36 || m.Timestamp.IsZero() {
				t.Errorf("id %q, timestamp %v", m.ID, m.Timestamp)
			}
			if s, _ := m.String("source"); s != tc.source {
				t.Errorf("source %q, want %q", s, tc.source)
			}
			if s, _ := m.String("message"); s != tc.message {
				t.Errorf("message %q, want %q", s, tc.message)
			}
			for k, v := range tc.fields {
				if got, _ := m.Get(k); got != v {
					t.Errorf("%s = %#v, want %#v", k, got, v)
				}
			}
		})
	}
}
