package config_test

import (
	"strings"
	"testing"

	"github.com/loggate/loggate/cmd/loggate/config"
)

func TestUpstreamURI(t *testing.T) {
	tests := []struct {
		value, want, err string
	}{
		{value: "", want: ""},
		{value: "http://graylog:9000/api", want: "http://graylog:9000/api"},
		{value: "https://logs.example.com/graylog/api/", want: "https://logs.example.com/graylog/api"},
		{value: "http://graylog:9000/", err: `invalid upstream_uri "http://graylog:9000/" (flag --upstream_uri): expected the URI of the API root, its path ending in /api`},
		{value: "graylog:9000/api", err: "expected an absolute http or https URI"},
		{value: "http://admin:secret@graylog/api", err: "without user info"},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			cfg, _, err := config.Load([]string{"--upstream_uri", tt.value}, nil)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("Load: %v; want an error containing %q", err, tt.err)
				}
				if strings.Contains(err.Error(), "secret") {
					t.Errorf("the error shows the password: %v", err)
				}
				return
			}
			if err != nil || cfg.UpstreamURI != tt.want {
				t.Fatalf("Load: upstream_uri %q, %v; want %q", cfg.UpstreamURI, err, tt.want)
			}
		})
	}
	if d := config.Default().UpstreamURI; d != "" {
		t.Errorf("default upstream_uri %q; want empty (native)", d)
	}
}
