package config_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loggate/loggate/cmd/loggate/config"
)

// writeConf writes a configuration file named server.conf and returns its path.
func writeConf(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "server.conf")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// mustLoad loads or fails the test.
func mustLoad(t *testing.T, args, environ []string) (config.Config, []string) {
	t.Helper()
	cfg, warnings, err := config.Load(args, environ)
	if err != nil {
		t.Fatalf("Load(%q, %q): %v", args, environ, err)
	}
	return cfg, warnings
}

func TestDefault(t *testing.T) {
	want := config.Config{
		HTTPBindAddress:      "127.0.0.1:9000",
		HTTPPublishURI:       "http://127.0.0.1:9000/",
		HTTPEnableCORS:       false,
		HTTPEnableGzip:       true,
		HTTPMaxBodySize:      8 << 20,
		RootUsername:         "admin",
		RootTimezone:         "UTC",
		DataDir:              "./data",
		CompatDefaultRelease: "4.0",
		JournalMaxSize:       5 << 30,
		JournalMaxAge:        12 * time.Hour,
		DecodeBudget:         64 << 20,
		SearchMaxQueue:       10 * time.Second,
		Email:                config.Email{Port: 25, ConnectTimeout: 10 * time.Second, SocketTimeout: 10 * time.Second},
		AlertCheckInterval:   time.Minute,
	}
	if got := config.Default(); !reflect.DeepEqual(got, want) {
		t.Errorf("Default() = %+v\nwant %+v", got, want)
	}
	got, warnings := mustLoad(t, nil, nil)
	if !reflect.DeepEqual(got, want) || len(warnings) != 0 {
		t.Errorf("Load(nil, nil) = %+v, %q; want the defaults and no warnings", got, warnings)
	}
}

func TestLoadPrecedence(t *testing.T) {
	tests := []struct {
		name string
		file string // written to server.conf and passed as --config if not empty
		env  []string
		args []string
		want map[string]string // keys of Redacted
	}{
		{
			name: "default",
			want: map[string]string{"http_bind_address": "127.0.0.1:9000", "root_username": "admin", "http_enable_cors": "false"},
		},
		{
			name: "file over default",
			file: "http_bind_address = 10.0.0.1:9001\nroot_username: graylog\nhttp_enable_cors=true\n",
			want: map[string]string{"http_bind_address": "10.0.0.1:9001", "root_username": "graylog", "http_enable_cors": "true"},
		},
		{
			name: "env over file",
			file: "http_bind_address = 10.0.0.1:9001\nroot_username = graylog\nhttp_enable_cors = true\n",
			env:  []string{"LOGGATE_HTTP_BIND_ADDRESS=10.0.0.2:9002", "LOGGATE_HTTP_ENABLE_CORS=false"},
			want: map[string]string{"http_bind_address": "10.0.0.2:9002", "root_username": "graylog", "http_enable_cors": "false"},
		},
		{
			name: "flag over env over file",
			file: "http_bind_address = 10.0.0.1:9001\nroot_username = graylog\ndata_dir = /file\n",
			env:  []string{"LOGGATE_HTTP_BIND_ADDRESS=10.0.0.2:9002", "LOGGATE_DATA_DIR=/env"},
			args: []string{"--http_bind_address", "10.0.0.3:9003"},
			want: map[string]string{"http_bind_address": "10.0.0.3:9003", "root_username": "graylog", "data_dir": "/env"},
		},
		{
			name: "flag over env without file",
			env:  []string{"LOGGATE_ROOT_TIMEZONE=Europe/Berlin", "LOGGATE_DATA_DIR=/env"},
			args: []string{"--root_timezone=America/New_York"},
			want: map[string]string{"root_timezone": "America/New_York", "data_dir": "/env"},
		},
		{
			name: "bare boolean flag over env",
			env:  []string{"LOGGATE_HTTP_ENABLE_CORS=false"},
			args: []string{"--http_enable_cors"},
			want: map[string]string{"http_enable_cors": "true"},
		},
		{
			name: "later duplicates win in each source",
			file: "data_dir = /one\ndata_dir = /two\n",
			args: []string{"--root_username", "a", "--root_username=b"},
			want: map[string]string{"data_dir": "/two", "root_username": "b"},
		},
		{
			name: "publish uri follows the winning bind address",
			file: "http_bind_address = 10.0.0.1:9001\n",
			args: []string{"--http_bind_address", "[::1]:9100"},
			want: map[string]string{"http_publish_uri": "http://[::1]:9100/"},
		},
		{
			name: "explicit publish uri over derived, normalised",
			file: "http_publish_uri = https://logs.example.com/graylog\n",
			args: []string{"--http_bind_address", "10.0.0.3:9003"},
			want: map[string]string{"http_publish_uri": "https://logs.example.com/graylog/", "http_bind_address": "10.0.0.3:9003"},
		},
		{
			name: "empty publish uri from env means derived",
			file: "http_publish_uri = https://logs.example.com/\n",
			env:  []string{"LOGGATE_HTTP_PUBLISH_URI="},
			want: map[string]string{"http_publish_uri": "http://127.0.0.1:9000/"},
		},
		{
			name: "values normalised",
			args: []string{"--http_max_body_size", "512KB", "--root_password_sha2", strings.Repeat("AB", 32)},
			want: map[string]string{"http_max_body_size": "524288"},
		},
		{
			name: "bad file value overridden by env is not an error",
			file: "http_bind_address = 0.0.0.0\n",
			env:  []string{"LOGGATE_HTTP_BIND_ADDRESS=0.0.0.0:9000"},
			args: []string{"--http_publish_uri", "http://logs:9000/"},
			want: map[string]string{"http_bind_address": "0.0.0.0:9000"},
		},
		{
			name: "env and flag values trimmed",
			env:  []string{"LOGGATE_ROOT_USERNAME=  root \t"},
			args: []string{"--data_dir", " /x "},
			want: map[string]string{"root_username": "root", "data_dir": "/x"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := tt.args
			if tt.file != "" {
				args = append([]string{"--config", writeConf(t, tt.file)}, args...)
			}
			cfg, warnings := mustLoad(t, args, tt.env)
			if len(warnings) != 0 {
				t.Errorf("warnings %q; want none", warnings)
			}
			got := cfg.Redacted()
			for k, want := range tt.want {
				if got[k] != want {
					t.Errorf("%s = %q; want %q", k, got[k], want)
				}
			}
		})
	}
}

func TestLoadConfigFileSelection(t *testing.T) {
	fromEnv := writeConf(t, "data_dir = /from-env\n")
	fromFlag := writeConf(t, "data_dir = /from-flag\n")

	cfg, _ := mustLoad(t, nil, []string{"LOGGATE_CONFIG=" + fromEnv})
	if cfg.DataDir != "/from-env" || cfg.ConfigFile != fromEnv {
		t.Errorf("LOGGATE_CONFIG: data_dir %q, ConfigFile %q; want /from-env, %q", cfg.DataDir, cfg.ConfigFile, fromEnv)
	}
	cfg, _ = mustLoad(t, []string{"--config=" + fromFlag}, []string{"LOGGATE_CONFIG=" + fromEnv})
	if cfg.DataDir != "/from-flag" || cfg.ConfigFile != fromFlag {
		t.Errorf("--config over LOGGATE_CONFIG: data_dir %q, ConfigFile %q; want /from-flag, %q", cfg.DataDir, cfg.ConfigFile, fromFlag)
	}
}

func TestLoadFlagSyntax(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    string // data_dir or http_enable_cors as Redacted shows it
		key     string
		wantErr string
	}{
		{name: "separate value", args: []string{"--data_dir", "/d"}, key: "data_dir", want: "/d"},
		{name: "equals", args: []string{"--data_dir=/d"}, key: "data_dir", want: "/d"},
		{name: "equals in value", args: []string{"--data_dir=/a=b"}, key: "data_dir", want: "/a=b"},
		{name: "single dash", args: []string{"-data_dir", "/d"}, key: "data_dir", want: "/d"},
		{name: "value starting with a dash", args: []string{"--data_dir", "-d"}, key: "data_dir", want: "-d"},
		{name: "bare bool", args: []string{"--http_enable_cors"}, key: "http_enable_cors", want: "true"},
		{name: "bare bool before another flag", args: []string{"--http_enable_cors", "--data_dir", "/d"}, key: "http_enable_cors", want: "true"},
		{name: "bool with separate value", args: []string{"--http_enable_cors", "FALSE"}, key: "http_enable_cors", want: "false"},
		{name: "bool with equals", args: []string{"--http_enable_cors=true"}, key: "http_enable_cors", want: "true"},
		{name: "unknown flag takes its value", args: []string{"--is_master", "true", "--data_dir", "/d"}, key: "data_dir", want: "/d"},
		{name: "unknown flag before a flag", args: []string{"--verbose", "--data_dir", "/d"}, key: "data_dir", want: "/d"},
		{name: "terminator", args: []string{"--data_dir", "/d", "--"}, key: "data_dir", want: "/d"},
		{name: "missing value", args: []string{"--data_dir"}, wantErr: "flag --data_dir needs a value"},
		{name: "missing config value", args: []string{"--config"}, wantErr: "flag --config needs a value"},
		{name: "empty config value", args: []string{"--config="}, wantErr: "flag --config needs a value"},
		{name: "positional", args: []string{"--data_dir", "/d", "serve"}, wantErr: `unexpected argument "serve"`},
		{name: "after terminator", args: []string{"--", "x"}, wantErr: `unexpected argument "x"`},
		{name: "three dashes", args: []string{"---data_dir", "/d"}, wantErr: "bad flag syntax: ---data_dir"},
		{name: "lone dash", args: []string{"-"}, wantErr: `unexpected argument "-"`},
		{name: "bad bool", args: []string{"--http_enable_cors=maybe"}, wantErr: `invalid http_enable_cors "maybe" (flag --http_enable_cors): expected true or false`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, _, err := config.Load(tt.args, nil)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Load(%q) error %v; want %q", tt.args, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Load(%q): %v", tt.args, err)
			}
			if got := cfg.Redacted()[tt.key]; got != tt.want {
				t.Errorf("Load(%q): %s = %q; want %q", tt.args, tt.key, got, tt.want)
			}
		})
	}
}

func TestLoadHelp(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"--help"}, {"-help"}, {"--data_dir", "/d", "--help"}} {
		if _, _, err := config.Load(args, nil); !errors.Is(err, config.ErrHelp) {
			t.Errorf("Load(%q) error %v; want ErrHelp", args, err)
		}
	}
	usage := config.Usage()
	for _, k := range config.Table() {
		if !strings.Contains(usage, "--"+k.Name) {
			t.Errorf("Usage does not list --%s", k.Name)
		}
		if k.Default != "" && !strings.Contains(usage, `(default "`+k.Default+`")`) {
			t.Errorf("Usage does not show the default of %s, %q", k.Name, k.Default)
		}
	}
	if !strings.Contains(usage, "LOGGATE_") || !strings.Contains(usage, "--config FILE") {
		t.Errorf("Usage does not explain the sources:\n%s", usage)
	}
}

func TestLoadConfigFileErrors(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope.conf")
	_, _, err := config.Load([]string{"--config", missing}, nil)
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing --config file: error %v; want one naming %s that is fs.ErrNotExist", err, missing)
	}
	_, _, err = config.Load(nil, []string{"LOGGATE_CONFIG=" + missing})
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing LOGGATE_CONFIG file: error %v; want fs.ErrNotExist", err)
	}

	path := writeConf(t, "# Graylog\nhttp_bind_address = 127.0.0.1:9000\nis_master\n")
	_, _, err = config.Load([]string{"--config", path}, nil)
	if want := "config file " + path + " line 3: expected key = value"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("syntax error: %v; want %q", err, want)
	}
}

func TestKeys(t *testing.T) {
	keys := config.Keys()
	if !slices.IsSorted(keys) {
		t.Errorf("Keys() = %q; want sorted", keys)
	}
	var names []string
	for _, k := range config.Table() {
		names = append(names, k.Name)
	}
	slices.Sort(names)
	if !slices.Equal(keys, names) {
		t.Errorf("Keys() = %q; want the names in Table(), %q", keys, names)
	}
	for _, want := range []string{"http_bind_address", "http_publish_uri", "http_enable_cors", "http_max_body_size", "root_username",
		"root_password_sha2", "root_timezone", "password_secret", "data_dir", "redis_uri", "compat_default_release"} {
		if !slices.Contains(keys, want) {
			t.Errorf("Keys() lacks %s", want)
		}
	}
}

func FuzzLoad(f *testing.F) {
	f.Add("--http_bind_address\x00[::1]:0\x00--http_enable_cors\x00--is_master", "LOGGATE_REDIS_URI=redis://:pw@h/1")
	f.Add("-h", "")
	f.Add("--http_max_body_size=1GiB\x00--\x00x", "LOGGATE_HTTP_PUBLISH_URI=https://a/b\x00LOGGATE_=")
	f.Add("--root_username\x00a:b\x00---x", "LOGGATE_ROOT_TIMEZONE=Local")
	f.Fuzz(func(t *testing.T, args, environ string) {
		if strings.Contains(args, "config") || strings.Contains(environ, "CONFIG") {
			t.Skip("reads files")
		}
		cfg, _, err := config.Load(strings.Split(args, "\x00"), strings.Split(environ, "\x00"))
		if err != nil {
			return
		}
		if !strings.HasSuffix(cfg.HTTPPublishURI, "/") || cfg.HTTPMaxBodySize <= 0 || cfg.RootUsername == "" || strings.Contains(cfg.RootUsername, ":") {
			t.Fatalf("Load(%q, %q) = %+v; want a valid configuration", args, environ, cfg)
		}
	})
}

func TestCompatListeners(t *testing.T) {
	got, _ := mustLoad(t, []string{"--compat_listeners", "127.0.0.1:9001=2.4, 127.0.0.1:9002=3.3", "--compat_min_release", "2.0"}, nil)
	want := []config.Listener{{Address: "127.0.0.1:9001", Release: "2.4"}, {Address: "127.0.0.1:9002", Release: "3.3"}}
	if !reflect.DeepEqual(got.CompatListeners, want) || got.CompatMinRelease != "2.0" {
		t.Errorf("got %+v, min %q", got.CompatListeners, got.CompatMinRelease)
	}
	for _, bad := range []string{"127.0.0.1:9001", "127.0.0.1:9001=two", "nohost=2.4", "127.0.0.1:9001=2.4,127.0.0.1:9001=3.0"} {
		if _, _, err := config.Load([]string{"--compat_listeners", bad}, nil); err == nil || !strings.Contains(err.Error(), "compat_listeners") {
			t.Errorf("compat_listeners %q: err = %v, want one naming the key", bad, err)
		}
	}
}
