package config_test

import (
	"strings"
	"testing"

	"github.com/loggate/loggate/cmd/loggate/config"
)

func TestLoadInvalid(t *testing.T) {
	const secret = "hunter2hunter2"
	tests := []struct {
		name    string
		key     string
		value   string
		want    string   // the whole message, for a value given as a flag
		wantAll []string // or parts of it
		notWant string   // a secret that must not appear
	}{
		{name: "bind address without port", key: "http_bind_address", value: "foo",
			want: `invalid http_bind_address "foo" (flag --http_bind_address): expected host:port, e.g. 127.0.0.1:9000`},
		{name: "bind address port too large", key: "http_bind_address", value: "127.0.0.1:70000",
			want: `invalid http_bind_address "127.0.0.1:70000" (flag --http_bind_address): expected host:port with a numeric port from 0 to 65535, e.g. 127.0.0.1:9000`},
		{name: "bind address service name", key: "http_bind_address", value: "127.0.0.1:http",
			wantAll: []string{`"127.0.0.1:http"`, "numeric port"}},
		{name: "bind address bad host", key: "http_bind_address", value: "local host:9000",
			wantAll: []string{`"local host:9000"`, "IP address or host name"}},
		{name: "bind address empty", key: "http_bind_address", value: "",
			wantAll: []string{`invalid http_bind_address ""`, "expected host:port"}},
		{name: "publish uri relative", key: "http_publish_uri", value: "/graylog/",
			want: `invalid http_publish_uri "/graylog/" (flag --http_publish_uri): expected an absolute http or https URI, e.g. http://127.0.0.1:9000/`},
		{name: "publish uri scheme", key: "http_publish_uri", value: "ftp://logs/",
			wantAll: []string{`"ftp://logs/"`, "absolute http or https URI"}},
		{name: "publish uri query", key: "http_publish_uri", value: "http://logs/?a=b",
			wantAll: []string{"without user info, query or fragment"}},
		{name: "publish uri port", key: "http_publish_uri", value: "http://logs:99999/",
			wantAll: []string{"port from 0 to 65535"}},
		{name: "publish uri wildcard", key: "http_publish_uri", value: "http://0.0.0.0:9000/",
			wantAll: []string{`"http://0.0.0.0:9000/"`, "not a wildcard address"}},
		{name: "cors", key: "http_enable_cors", value: "yes please",
			want: `invalid http_enable_cors "yes please" (flag --http_enable_cors): expected true or false`},
		{name: "body size zero", key: "http_max_body_size", value: "0",
			want: `invalid http_max_body_size "0" (flag --http_max_body_size): expected a positive number of bytes, optionally with a unit, e.g. 8388608, 512KB, 8MB or 1GiB`},
		{name: "body size negative", key: "http_max_body_size", value: "-5MB", wantAll: []string{`"-5MB"`, "positive number of bytes"}},
		{name: "body size unit", key: "http_max_body_size", value: "8XB", wantAll: []string{`"8XB"`, "positive number of bytes"}},
		{name: "body size overflow", key: "http_max_body_size", value: "9000000TB", wantAll: []string{`"9000000TB"`, "below 8EiB"}},
		{name: "username empty", key: "root_username", value: "", wantAll: []string{`invalid root_username ""`, "must not be empty"}},
		{name: "username star", key: "root_username", value: "*", wantAll: []string{`invalid root_username "*"`, "'*'"}},
		{name: "username colon", key: "root_username", value: "ad:min", wantAll: []string{`"ad:min"`, "without ':'"}},
		{name: "sha2 short", key: "root_password_sha2", value: secret,
			want:    `invalid root_password_sha2 (flag --root_password_sha2): expected 64 hexadecimal characters, the SHA-256 of the password (echo -n password | sha256sum)`,
			notWant: secret},
		{name: "sha2 not hex", key: "root_password_sha2", value: strings.Repeat("g", 64),
			wantAll: []string{"64 hexadecimal characters"}, notWant: strings.Repeat("g", 64)},
		{name: "timezone unknown", key: "root_timezone", value: "Mars/Olympus",
			wantAll: []string{`invalid root_timezone "Mars/Olympus" (flag --root_timezone): expected a time zone name such as UTC or Europe/Berlin`, "unknown time zone"}},
		{name: "timezone Local", key: "root_timezone", value: "Local", wantAll: []string{`"Local"`, "time zone name"}},
		{name: "password secret short", key: "password_secret", value: "hunter2",
			want: `invalid password_secret (flag --password_secret): expected at least 16 characters`, notWant: "hunter2"},
		{name: "data dir empty", key: "data_dir", value: "",
			want: `invalid data_dir "" (flag --data_dir): expected a directory path`},
		{name: "redis scheme", key: "redis_uri", value: "http://localhost:6379",
			wantAll: []string{`invalid redis_uri "http://localhost:6379" (flag --redis_uri): expected redis://`, "invalid URL scheme: http"}},
		{name: "redis bad db, password hidden", key: "redis_uri", value: "redis://:" + secret + "@localhost/abc",
			wantAll: []string{`invalid redis_uri "redis://:********@localhost/abc"`, `invalid database number: "abc"`}, notWant: secret},
		{name: "redis password with slash", key: "redis_uri", value: "redis://:abc/" + secret + "@localhost",
			wantAll: []string{`invalid redis_uri "********"`, "expected redis://"}, notWant: secret},
		{name: "redis password looking like a port", key: "redis_uri", value: "redis://:1234/" + secret + "@localhost",
			wantAll: []string{`invalid redis_uri "********"`}, notWant: secret},
		{name: "publish uri user info, password hidden", key: "http_publish_uri", value: "http://admin:" + secret + "@logs:9000/",
			wantAll: []string{`invalid http_publish_uri "http://admin:********@logs:9000/"`, "without user info"}, notWant: secret},
		{name: "elasticsearch password with a comma", key: "elasticsearch_hosts", value: "http://es0:9200,http://elastic:" + secret[:7] + "," + secret[7:] + "@es1:9200",
			wantAll: []string{`invalid elasticsearch_hosts "********"`, "%2C"}, notWant: secret[:7]},
		{name: "elasticsearch password with a comma looking like a port", key: "elasticsearch_hosts", value: "http://elastic:1234," + secret + "@es1:9200",
			wantAll: []string{`invalid elasticsearch_hosts "********"`}, notWant: "1234"},
		{name: "redis unparsable", key: "redis_uri", value: "redis://[::1",
			wantAll: []string{`invalid redis_uri "redis://[::1"`, "missing ']'"}},
		{name: "release major only", key: "compat_default_release", value: "4",
			want: `invalid compat_default_release "4" (flag --compat_default_release): expected a Graylog release as <major>.<minor>, e.g. 4.0`},
		{name: "release patch", key: "compat_default_release", value: "4.0.1", wantAll: []string{`"4.0.1"`, "<major>.<minor>"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := config.Load([]string{"--" + tt.key + "=" + tt.value}, nil)
			if err == nil {
				t.Fatalf("--%s=%q: no error", tt.key, tt.value)
			}
			msg := err.Error()
			if tt.want != "" && msg != tt.want {
				t.Errorf("error\n %s\nwant\n %s", msg, tt.want)
			}
			for _, part := range tt.wantAll {
				if !strings.Contains(msg, part) {
					t.Errorf("error %q lacks %q", msg, part)
				}
			}
			if tt.notWant != "" && strings.Contains(msg, tt.notWant) {
				t.Errorf("error %q shows the secret", msg)
			}
		})
	}
}

func TestLoadInvalidNamesSource(t *testing.T) {
	path := writeConf(t, "# Graylog\n\nhttp_bind_address = foo\n")
	tests := []struct {
		name    string
		args    []string
		environ []string
		want    string
	}{
		{"file", []string{"--config", path}, nil, `invalid http_bind_address "foo" (file ` + path + ` line 3): expected host:port`},
		{"env", nil, []string{"LOGGATE_HTTP_BIND_ADDRESS=foo"}, `invalid http_bind_address "foo" (env LOGGATE_HTTP_BIND_ADDRESS): expected host:port`},
		{"flag", []string{"--http_bind_address", "foo"}, nil, `invalid http_bind_address "foo" (flag --http_bind_address): expected host:port`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := config.Load(tt.args, tt.environ)
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("error %v; want %q", err, tt.want)
			}
		})
	}
}

func TestLoadReportsEveryInvalidValue(t *testing.T) {
	path := writeConf(t, "root_timezone = Nowhere\npassword_secret = short\n")
	_, warnings, err := config.Load([]string{"--config", path, "--http_max_body_size", "0", "--is_master"}, nil)
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"invalid root_timezone", "invalid password_secret", "invalid http_max_body_size"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], `"is_master"`) {
		t.Errorf("warnings %q; want the one for is_master even though Load failed", warnings)
	}
}
