package forward

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestParseConfig(t *testing.T) {
	defaults := Config{Hostname: "gl.example.com", Port: 12201, Protocol: TCP, ConnectTimeout: time.Second,
		ReconnectDelay: 500 * time.Millisecond, QueueSize: 512}
	with := func(f func(*Config)) Config {
		c := defaults
		f(&c)
		return c
	}
	for _, tc := range []struct {
		name string
		in   map[string]any
		want Config
	}{
		{"defaults", map[string]any{"hostname": "gl.example.com"}, defaults},
		{"as stored by the outputs service", map[string]any{
			"hostname": " gl.example.com ", "port": 12202, "protocol": "TCP+TLS", "connect_timeout": 2500,
			"reconnect_delay": 0, "tcp_no_delay": true, "tcp_keep_alive": true, "tls_verification_enabled": true,
			"tls_trust_cert_chain": "/etc/ssl/chain.pem",
		}, with(func(c *Config) {
			c.Port, c.Protocol, c.ConnectTimeout, c.ReconnectDelay = 12202, TLS, 2500*time.Millisecond, 0
			c.TCPNoDelay, c.TCPKeepAlive, c.TLSVerify, c.TLSTrustCertChain = true, true, true, "/etc/ssl/chain.pem"
		})},
		{"numbers read back from JSON", map[string]any{"hostname": "gl.example.com", "port": 5555.0, "queue_size": json.Number("64")},
			with(func(c *Config) { c.Port, c.QueueSize = 5555, 64 })},
		{"numeric and boolean strings", map[string]any{"hostname": "gl.example.com", "port": "5556", "tcp_no_delay": "TRUE", "protocol": "udp"},
			with(func(c *Config) { c.Port, c.TCPNoDelay, c.Protocol = 5556, true, UDP })},
		{"nulls take defaults", map[string]any{"hostname": "gl.example.com", "port": nil, "protocol": nil, "tcp_keep_alive": nil}, defaults},
		{"unknown keys ignored", map[string]any{"hostname": "gl.example.com", "max_inflight_sends": 10}, defaults},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseConfig(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestParseConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   map[string]any
		want []string // substrings of the error
	}{
		{"empty", map[string]any{}, []string{"hostname: is required"}},
		{"blank hostname", map[string]any{"hostname": "  "}, []string{"hostname: is required"}},
		{"hostname not text", map[string]any{"hostname": 42}, []string{"hostname: must be a string, got 42"}},
		{"port range", map[string]any{"hostname": "h", "port": 70000}, []string{"port: must be between 1 and 65535, got 70000"}},
		{"port zero", map[string]any{"hostname": "h", "port": 0}, []string{"port: must be between 1 and 65535"}},
		{"port fraction", map[string]any{"hostname": "h", "port": 1.5}, []string{"port: must be a whole number, got 1.5"}},
		{"port text", map[string]any{"hostname": "h", "port": "http"}, []string{`port: must be a whole number, got "http"`}},
		{"protocol", map[string]any{"hostname": "h", "protocol": "HTTP"}, []string{`protocol: must be TCP, TCP+TLS or UDP, got "HTTP"`}},
		{"protocol not text", map[string]any{"hostname": "h", "protocol": true}, []string{"protocol: must be TCP, TCP+TLS or UDP, got true"}},
		{"negative delay", map[string]any{"hostname": "h", "reconnect_delay": -1}, []string{"reconnect_delay: must not be negative, got -1"}},
		{"negative timeout", map[string]any{"hostname": "h", "connect_timeout": -5}, []string{"connect_timeout: must not be negative"}},
		{"flag", map[string]any{"hostname": "h", "tcp_no_delay": "yes"}, []string{`tcp_no_delay: must be true or false, got "yes"`}},
		{"chain not text", map[string]any{"hostname": "h", "tls_trust_cert_chain": 1}, []string{"tls_trust_cert_chain: must be a string"}},
		{"queue size", map[string]any{"hostname": "h", "queue_size": 0}, []string{"queue_size: must be between 1 and 1048576, got 0"}},
		{"several at once", map[string]any{"port": -1, "protocol": "x"}, []string{"hostname: is required", "port:", "protocol:"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseConfig(tc.in)
			if !errors.Is(err, ErrConfig) {
				t.Fatalf("err = %v, want ErrConfig (config %+v)", err, got)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestNewRefuses(t *testing.T) {
	good := tcpConfig(1)
	for _, tc := range []struct {
		name string
		cfg  func(*Config)
		want string
	}{
		{"no hostname", func(c *Config) { c.Hostname = "" }, "hostname"},
		{"bad port", func(c *Config) { c.Port = 0 }, "port"},
		{"bad protocol", func(c *Config) { c.Protocol = "SCTP" }, "protocol"},
		{"bad queue", func(c *Config) { c.QueueSize = -1 }, "queue_size"},
		{"missing chain", func(c *Config) { c.Protocol, c.TLSVerify, c.TLSTrustCertChain = TLS, true, "/nonexistent/chain.pem" }, "tls_trust_cert_chain"},
		{"chain without certificate", func(c *Config) {
			c.Protocol, c.TLSVerify, c.TLSTrustCertChain = TLS, true, "config_test.go"
		}, "holds no PEM certificate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := good
			tc.cfg(&cfg)
			f, err := New(cfg, Options{})
			if err == nil {
				f.Close()
				t.Fatal("New succeeded")
			}
			if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want ErrConfig about %s", err, tc.want)
			}
		})
	}
}
