package config_test

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/loggate/loggate/cmd/loggate/config"
)

func TestLoadWarnings(t *testing.T) {
	graylog := "is_master = true\nnode_id_file = /etc/graylog/server/node-id\n\nhttp_bind_adress = 127.0.0.1:9000\n"
	path := writeConf(t, graylog)
	tests := []struct {
		name    string
		args    []string
		environ []string
		want    []string
	}{
		{
			name: "graylog keys and a typo in the file",
			args: []string{"--config", path},
			want: []string{
				`ignoring unknown configuration key "is_master" (file ` + path + ` line 1)`,
				`ignoring unknown configuration key "node_id_file" (file ` + path + ` line 2)`,
				`ignoring unknown configuration key "http_bind_adress" (file ` + path + ` line 4); did you mean "http_bind_address"?`,
			},
		},
		{
			name:    "environment",
			environ: []string{"PATH=/bin", "LOGGATE_DATA_DIRR=/d", "loggate_data_dir=/lower", "LOGGATE_=x"},
			want: []string{
				`ignoring unknown configuration key "data_dirr" (env LOGGATE_DATA_DIRR); did you mean "data_dir"?`,
				`ignoring unknown configuration key "" (env LOGGATE_)`,
			},
		},
		{
			name: "flags",
			args: []string{"--is_master", "true", "--http-enable-cors", "--ROOT_USERNAME=x"},
			want: []string{
				`ignoring unknown configuration key "is_master" (flag --is_master)`,
				`ignoring unknown configuration key "http-enable-cors" (flag --http-enable-cors); did you mean "http_enable_cors"?`,
				`ignoring unknown configuration key "ROOT_USERNAME" (flag --ROOT_USERNAME); did you mean "root_username"?`,
			},
		},
		{
			name: "wildcard bind address without publish uri",
			args: []string{"--http_bind_address", "0.0.0.0:9000"},
			want: []string{`http_publish_uri is not set and http_bind_address "0.0.0.0:9000" listens on all interfaces: publishing http://127.0.0.1:9000/, which other hosts cannot reach; set http_publish_uri`},
		},
		{
			name: "known keys only",
			args: []string{"--http_bind_address", "10.0.0.1:9000", "--http_enable_cors"},
			want: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, warnings := mustLoad(t, tt.args, tt.environ)
			if !slices.Equal(warnings, tt.want) {
				t.Errorf("warnings\n %s\nwant\n %s", strings.Join(warnings, "\n "), strings.Join(tt.want, "\n "))
			}
		})
	}
}

func TestLoadWildcardPublishURI(t *testing.T) {
	tests := []struct{ bind, want string }{
		{"0.0.0.0:9000", "http://127.0.0.1:9000/"},
		{":9000", "http://127.0.0.1:9000/"},
		{"[::]:9000", "http://[::1]:9000/"},
		{"logs.example.com:9000", "http://logs.example.com:9000/"},
	}
	for _, tt := range tests {
		cfg, _ := mustLoad(t, []string{"--http_bind_address", tt.bind}, nil)
		if cfg.HTTPPublishURI != tt.want {
			t.Errorf("bind %s: http_publish_uri %q; want %q", tt.bind, cfg.HTTPPublishURI, tt.want)
		}
	}
}

func TestRedacted(t *testing.T) {
	const (
		secret   = "s3cr3t-s3cr3t-s3cr3t"
		redisPW  = "r3d1s-pa55"
		sha      = "8c6976e5b5410415bde908bd4dee15dfb167a9c873fc4bb8a81f6f2ab448a918"
		redisURI = "redis://cache:" + redisPW + "@redis.example:6379/2"
	)
	cfg, _ := mustLoad(t, []string{"--password_secret", secret, "--root_password_sha2", sha, "--redis_uri", redisURI}, nil)
	if cfg.PasswordSecret != secret || cfg.RootPasswordSHA2 != sha || cfg.RedisURI != redisURI {
		t.Fatalf("Load kept %+v; want the secrets themselves in Config", cfg)
	}
	got := cfg.Redacted()
	if !slices.Equal(slices.Sorted(maps.Keys(got)), config.Keys()) {
		t.Errorf("Redacted has keys %q; want every key, %q", slices.Sorted(maps.Keys(got)), config.Keys())
	}
	for k, v := range got {
		for _, s := range []string{secret, sha, redisPW} {
			if strings.Contains(v, s) {
				t.Errorf("Redacted()[%s] = %q shows a secret", k, v)
			}
		}
	}
	want := map[string]string{
		"password_secret":    "********",
		"root_password_sha2": "********",
		"redis_uri":          "redis://cache:********@redis.example:6379/2",
		"root_username":      "admin",
		"http_max_body_size": "8388608",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("Redacted()[%s] = %q; want %q", k, got[k], v)
		}
	}
	// Unset secrets show as unset.
	d := config.Default().Redacted()
	if d["password_secret"] != "" || d["root_password_sha2"] != "" || d["redis_uri"] != "" {
		t.Errorf("Default().Redacted() = %q; want empty secrets", d)
	}
}
