package config

import (
	"net/url"
	"strconv"
	"strings"
	"testing"
)

func TestParseSize(t *testing.T) {
	tests := []struct {
		in   string
		want int64
	}{
		{"1", 1},
		{"8388608", 8 << 20},
		{"512KB", 512 << 10},
		{"512kb", 512 << 10},
		{"512 KiB", 512 << 10},
		{"512k", 512 << 10},
		{"8MB", 8 << 20},
		{"8mib", 8 << 20},
		{"8 megabytes", 8 << 20},
		{"1GiB", 1 << 30},
		{"1gb", 1 << 30},
		{"2T", 2 << 40},
		{"100b", 100},
		{"100 bytes", 100},
		{"8388607TB", 8388607 << 40},
	}
	for _, tt := range tests {
		got, err := parseSize(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "0", "0MB", "-1", "+1", "1.5MB", "MB", "8XB", "8 M B", "8388608TB", "99999999999999999999"} {
		if got, err := parseSize(bad); err == nil {
			t.Errorf("parseSize(%q) = %d; want an error", bad, got)
		}
	}
}

func TestRedactURI(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"redis://localhost:6379/0", "redis://localhost:6379/0"},
		{"redis://user@localhost:6379", "redis://user@localhost:6379"},
		{"redis://:hunter2@localhost:6379/1", "redis://:********@localhost:6379/1"},
		{"redis://bob:hunter2@localhost/1?dial_timeout=3", "redis://bob:********@localhost/1?dial_timeout=3"},
		{"rediss://bob:p%40ss@redis.example:6380", "rediss://bob:********@redis.example:6380"},
		{"unix://bob:hunter2@/run/redis.sock", "unix://bob:********@/run/redis.sock"},
		{"redis://:hunter2/tail@localhost", "********"}, // does not parse
		{"redis://:1234/tail@localhost", "********"},    // parses with "tail@localhost" in the path
		{"redis:bob:hunter2@localhost", "********"},     // opaque
		{"redis://[::1", "redis://[::1"},                // does not parse, but has no password
	}
	for _, tt := range tests {
		if got := redactURI(tt.in); got != tt.want {
			t.Errorf("redactURI(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

func TestDefaultsRoundTrip(t *testing.T) {
	c := Default()
	for i := range table {
		k := &table[i]
		var d Config
		if err := k.Set(&d, k.Get(&c)); err != nil {
			t.Errorf("%s: Set(Get(Default())) = %v", k.Name, err)
		}
		if got, want := k.Get(&d), k.Get(&c); got != want {
			t.Errorf("%s: Get(Set(%q)) = %q", k.Name, want, got)
		}
	}
}

func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"8388608", "512KB", "1 GiB", "0", "-1", "9223372036854775807", "8388608TB", "1.5MB"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := parseSize(s)
		if err != nil {
			return
		}
		if n <= 0 {
			t.Fatalf("parseSize(%q) = %d; want > 0", s, n)
		}
		if plain, perr := strconv.ParseInt(s, 10, 64); perr == nil && plain != n {
			t.Fatalf("parseSize(%q) = %d; want %d", s, n, plain)
		}
	})
}

func FuzzRedactURI(f *testing.F) {
	for _, s := range []string{"redis://:pw@h:6379/0", "redis://u:pw@h", "redis://:a/b@h", "unix://u:p@/s", "redis:u:p@h", "redis://h", "%0X", "%0X@"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := redactURI(s)
		orig, err := url.Parse(s)
		switch {
		case got == mask:
		case got == s:
			if err != nil && strings.Contains(s, "@") {
				t.Fatalf("redactURI(%q) kept an unparsable URI with an '@'", s)
			}
			if err == nil {
				if _, ok := orig.User.Password(); ok {
					t.Fatalf("redactURI(%q) kept the password", s)
				}
			}
		default:
			u, err := url.Parse(got)
			if err != nil {
				t.Fatalf("redactURI(%q) = %q, which does not parse: %v", s, got, err)
			}
			if p, _ := u.User.Password(); p != mask {
				t.Fatalf("redactURI(%q) = %q; want the password masked", s, got)
			}
		}
	})
}

func TestParseHostsAndDuration(t *testing.T) {
	hosts, err := parseHosts(" http://es1:9200/, https://u:p@es2:9200 ,")
	if err != nil || len(hosts) != 2 || hosts[0] != "http://es1:9200" || hosts[1] != "https://u:p@es2:9200" {
		t.Fatalf("parseHosts = %q, %v", hosts, err)
	}
	if got := redactHosts(formatHosts(hosts)); strings.Contains(got, ":p@") {
		t.Fatalf("redactHosts left the password: %q", got)
	}
	for _, bad := range []string{"es1:9200", "ftp://es1", "http://", "http://u:secret@[::1"} {
		_, err := parseHosts(bad)
		if err == nil {
			t.Errorf("parseHosts(%q) accepted", bad)
		} else if strings.Contains(err.Error(), "secret") {
			t.Errorf("parseHosts error shows the password: %v", err)
		}
	}
	durations := map[string]string{"12h": "12h0m0s", "90m": "1h30m0s", "7d": "7d", "1d": "1d"}
	for in, want := range durations {
		d, err := parseDuration(in)
		if err != nil || formatDuration(d) != want {
			t.Errorf("parseDuration(%q) = %v (%s), %v; want %s", in, d, formatDuration(d), err, want)
		}
	}
	for _, bad := range []string{"", "0", "-1h", "0d", "xd", "12", "999999d"} {
		if _, err := parseDuration(bad); err == nil {
			t.Errorf("parseDuration(%q) accepted", bad)
		}
	}
}
