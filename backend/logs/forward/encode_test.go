package forward

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/loggate/loggate/backend/logs/gelf"
	"github.com/loggate/loggate/backend/logs/messages"
)

// fieldCases are message fields and what a GELF receiver decodes from
// them; a nil want means the field is not received.
var fieldCases = []struct {
	name    string
	key     string
	value   any
	wantKey string
	want    any
}{
	{"string", "user", "alice", "user", "alice"},
	{"escapes", "path", "a \"quoted\" \\ back\nslash\ttab\x01ctl", "path", "a \"quoted\" \\ back\nslash\ttab\x01ctl"},
	{"unicode", "greeting", "héllo ✓ 😀 \u2028", "greeting", "héllo ✓ 😀 \u2028"},
	{"invalid utf-8", "raw", "a\xffb", "raw", "a\ufffdb"},
	{"int", "status", int64(200), "status", int64(200)},
	{"negative int", "delta", int64(-7), "delta", int64(-7)},
	{"max int", "big", int64(math.MaxInt64), "big", int64(math.MaxInt64)},
	{"go int", "n", 12, "n", int64(12)},
	{"float", "duration", 12.5, "duration", 12.5},
	{"integral float stays float", "ratio", 3.0, "ratio", 3.0},
	{"tiny float", "eps", 1e-9, "eps", 1e-9},
	{"huge float", "huge", 1e300, "huge", 1e300},
	{"true as text", "ok", true, "ok", "true"},
	{"false as text", "ok", false, "ok", "false"},
	{"time as text", "seen", time.Date(2026, 1, 2, 3, 4, 5, 6e6, time.UTC), "seen", "2026-01-02T03:04:05.006Z"},
	{"NaN left out", "nan", math.NaN(), "nan", nil},
	{"infinity left out", "inf", math.Inf(1), "inf", nil},
	{"nil left out", "none", nil, "none", nil},
	{"leading underscore kept", "_under", "x", "_under", "x"},
	{"id left out", "id", "abc", "id", nil},
	{"dotted name", "http.method", "GET", "http.method", "GET"},
	{"message id", messages.FieldMessageID, "01HZX3", messages.FieldMessageID, "01HZX3"},
	{"full_message", messages.FieldFull, "line 1\nline 2", messages.FieldFull, "line 1\nline 2"},
	{"full_message not text keeps its type", messages.FieldFull, int64(5), messages.FieldFull, int64(5)},
	{"level", "level", int64(3), "level", int64(3)},
	{"level float truncated", "level", 6.9, "level", int64(6)},
	{"level numeric string", "level", "5", "level", int64(5)},
	{"level out of range", "level", int64(42), "level", int64(42)},
	{"level not numeric", "level", "debug", "level", "debug"},
	{"own forwarder", "forwarder", "relay-1", "forwarder", "relay-1"},
}

func TestEncodeRoundTrip(t *testing.T) {
	for _, tc := range fieldCases {
		t.Run(tc.name, func(t *testing.T) {
			m := msg("hello world", messages.Field{Key: tc.key, Value: tc.value})
			payload, err := Encode(*m)
			if err != nil {
				t.Fatal(err)
			}
			if !json.Valid(payload) {
				t.Fatalf("invalid JSON: %s", payload)
			}
			got, err := gelf.Decode(payload, gelf.Options{})
			if err != nil {
				t.Fatalf("decode %s: %v", payload, err)
			}
			if got.Source != "web-01" || got.Message != "hello world" || !got.Timestamp.Equal(m.Timestamp) {
				t.Errorf("got source %q message %q timestamp %v", got.Source, got.Message, got.Timestamp)
			}
			v, ok := got.Field(tc.wantKey)
			switch {
			case tc.want == nil && ok:
				t.Errorf("field %q received as %#v; want it left out (%s)", tc.wantKey, v, payload)
			case tc.want != nil && !reflect.DeepEqual(v, tc.want):
				t.Errorf("field %q = %#v (%T), want %#v (%T); payload %s", tc.wantKey, v, v, tc.want, tc.want, payload)
			}
			fwd, _ := got.Field("forwarder")
			if tc.key != "forwarder" && fwd != ForwarderName {
				t.Errorf("forwarder = %#v, want %q", fwd, ForwarderName)
			}
		})
	}
}

func TestEncodeShape(t *testing.T) {
	m := msg("hello", messages.Field{Key: "level", Value: int64(4)}, messages.Field{Key: "forwarder", Value: "mine"})
	m.Streams = []string{"a", "b"}
	payload, err := Encode(*m)
	if err != nil {
		t.Fatal(err)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(payload, &obj); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"version":       `"1.1"`,
		"host":          `"web-01"`,
		"short_message": `"hello"`,
		"timestamp":     `1772368245.123`,
		"level":         `4`,
		"_forwarder":    `"mine"`,
	}
	for k, v := range want {
		if string(obj[k]) != v {
			t.Errorf("%s = %s, want %s", k, obj[k], v)
		}
	}
	for _, k := range []string{"_id", "id", "streams", "_streams", "_source", "_message", "_level", "_timestamp"} {
		if _, ok := obj[k]; ok {
			t.Errorf("%s sent: %s", k, payload)
		}
	}
	if n := bytes.Count(payload, []byte(`"_forwarder"`)); n != 1 {
		t.Errorf("_forwarder written %d times: %s", n, payload)
	}
	if len(obj) != len(want) {
		t.Errorf("got keys %d, want %d: %s", len(obj), len(want), payload)
	}
}

func TestEncodeTimestamp(t *testing.T) {
	for _, tc := range []struct {
		ts   time.Time
		want string
	}{
		{time.UnixMilli(1), `"timestamp":0.001`},
		{time.UnixMilli(1_700_000_000_000), `"timestamp":1700000000.000`},
		{time.UnixMilli(1_700_000_000_999), `"timestamp":1700000000.999`},
		{time.UnixMilli(-1500), `"timestamp":-1.500`},
		{time.Time{}, ``},
	} {
		m := msg("x")
		m.Timestamp = tc.ts
		payload, err := Encode(*m)
		if err != nil {
			t.Fatal(err)
		}
		has := strings.Contains(string(payload), `"timestamp"`)
		if tc.want == "" && has || tc.want != "" && !strings.Contains(string(payload), tc.want+",") {
			t.Errorf("%v: payload %s, want %q", tc.ts, payload, tc.want)
		}
	}
}

func TestEncodeRefuses(t *testing.T) {
	for _, tc := range []struct {
		name   string
		fields []messages.Field
	}{
		{"no source", []messages.Field{{Key: "message", Value: "m"}}},
		{"blank source", []messages.Field{{Key: "source", Value: " \t\u00a0"}, {Key: "message", Value: "m"}}},
		{"no message", []messages.Field{{Key: "source", Value: "h"}}},
		{"blank message", []messages.Field{{Key: "source", Value: "h"}, {Key: "message", Value: "\n"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dst := []byte("keep")
			out, err := AppendEncode(dst, &messages.Message{Fields: tc.fields})
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("err = %v, want ErrInvalid", err)
			}
			if string(out) != "keep" {
				t.Errorf("dst changed to %q", out)
			}
		})
	}
}

func TestAppendEncodeAppends(t *testing.T) {
	m := msg("x")
	want, err := Encode(*m)
	if err != nil {
		t.Fatal(err)
	}
	got, err := AppendEncode([]byte("prefix"), m)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != "prefix"+string(want) {
		t.Errorf("got %s", got)
	}
}
