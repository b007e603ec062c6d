package forward

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/loggate/loggate/backend/logs/gelf"
	"github.com/loggate/loggate/backend/logs/messages"
)

// FuzzParseConfig feeds output configurations, as JSON objects, to
// ParseConfig: it must not panic, must fail only with ErrConfig, and what
// it accepts must be a configuration New accepts.
func FuzzParseConfig(f *testing.F) {
	for _, seed := range []string{
		`{"hostname":"gl.example.com"}`,
		`{"hostname":"h","port":12201,"protocol":"TCP+TLS","connect_timeout":1000,"reconnect_delay":500,"tcp_no_delay":true,"tcp_keep_alive":false,"tls_verification_enabled":false,"tls_trust_cert_chain":""}`,
		`{"hostname":"h","port":"80","protocol":"udp","queue_size":1}`,
		`{"hostname":1,"port":-1,"protocol":null}`,
		`{"hostname":"h","port":1e3,"queue_size":99999999999}`,
		`{}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		var m map[string]any
		if json.Unmarshal([]byte(doc), &m) != nil {
			return
		}
		cfg, err := ParseConfig(m)
		if err != nil {
			if !errors.Is(err, ErrConfig) {
				t.Fatalf("error %v does not wrap ErrConfig", err)
			}
			return
		}
		switch {
		case cfg.Hostname == "" || strings.TrimSpace(cfg.Hostname) != cfg.Hostname:
			t.Fatalf("hostname %q", cfg.Hostname)
		case cfg.Port < 1 || cfg.Port > 65535:
			t.Fatalf("port %d", cfg.Port)
		case cfg.Protocol != TCP && cfg.Protocol != TLS && cfg.Protocol != UDP:
			t.Fatalf("protocol %q", cfg.Protocol)
		case cfg.QueueSize < 1 || cfg.QueueSize > MaxQueueSize:
			t.Fatalf("queue size %d", cfg.QueueSize)
		case cfg.ConnectTimeout < 0 || cfg.ReconnectDelay < 0:
			t.Fatalf("durations %v %v", cfg.ConnectTimeout, cfg.ReconnectDelay)
		}
	})
}

// FuzzEncodeRoundTrip encodes messages with arbitrary text and checks that
// the payload is JSON a GELF receiver decodes back to the same values.
func FuzzEncodeRoundTrip(f *testing.F) {
	f.Add("web-01", "hello", "bar", int64(1), 2.5, "3")
	f.Add(" h\t", "msg \"q\" \\", "\x00\x1f\u2028", int64(-1), math.Copysign(0, -1), "debug")
	f.Add("ü", "😀", "a\xffb", int64(9223372036854775807), 1e300, "")
	f.Fuzz(func(t *testing.T, source, text, value string, n int64, x float64, level string) {
		m := &messages.Message{Fields: []messages.Field{
			{Key: "source", Value: source}, {Key: "message", Value: text},
			{Key: "s", Value: value}, {Key: "n", Value: n}, {Key: "x", Value: x}, {Key: "level", Value: level},
		}}
		payload, err := AppendEncode(nil, m)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v does not wrap ErrInvalid", err)
			}
			return
		}
		if !json.Valid(payload) {
			t.Fatalf("invalid JSON %q", payload)
		}
		got, err := gelf.Decode(payload, gelf.Options{})
		if err != nil {
			t.Fatalf("decode %q: %v", payload, err)
		}
		if got.Source == "" || got.Message == "" {
			t.Fatalf("decoded %+v", got)
		}
		if v, _ := got.Field("n"); v != n {
			t.Errorf("n = %#v, want %d", v, n)
		}
		if v, ok := got.Field("x"); ok && v != x {
			t.Errorf("x = %#v, want %v", v, x)
		}
		// Each on its own: two invalid halves can make a valid whole.
		if !utf8.ValidString(source) || !utf8.ValidString(text) || !utf8.ValidString(value) {
			return
		}
		if got.Source != messages.Trim(source) || got.Message != messages.Trim(text) {
			t.Errorf("source %q message %q, want %q %q", got.Source, got.Message, messages.Trim(source), messages.Trim(text))
		}
		v, ok := got.Field("s")
		if want := messages.Trim(value); want != "" && v != want || want == "" && ok {
			t.Errorf("s = %#v, want %q", v, want)
		}
	})
}
