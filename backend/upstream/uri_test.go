package upstream_test

import (
	"strings"
	"testing"

	"github.com/loggate/loggate/backend/upstream"
)

func TestParseBaseURI(t *testing.T) {
	tests := []struct {
		in, want, err string
	}{
		{in: "http://graylog:9000/api", want: "http://graylog:9000/api"},
		{in: "http://graylog:9000/api/", want: "http://graylog:9000/api"},
		{in: "https://logs.example.com/graylog/api/", want: "https://logs.example.com/graylog/api"},
		{in: "http://[::1]:9000/api", want: "http://[::1]:9000/api"},
		{in: "graylog:9000/api", err: "absolute http or https"},
		{in: "ftp://graylog/api", err: "absolute http or https"},
		{in: "http:///api", err: "absolute http or https"},
		{in: "http://graylog:9000/", err: "ending in /api"},
		{in: "http://graylog:9000/apis", err: "ending in /api"},
		{in: "http://graylog:9000", err: "ending in /api"},
		{in: "http://u:p@graylog/api", err: "without user info"},
		{in: "http://graylog/api?x=1", err: "without user info, query"},
		{in: "http://graylog/api#f", err: "fragment"},
		{in: "http://graylog:0/api", err: "port from 1 to 65535"},
		{in: "http://graylog:70000/api", err: "port from 1 to 65535"},
		{in: "", err: "absolute http or https"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			u, err := upstream.ParseBaseURI(tt.in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("ParseBaseURI(%q) = %v, %v; want error containing %q", tt.in, u, err, tt.err)
				}
				return
			}
			if err != nil || u.String() != tt.want {
				t.Fatalf("ParseBaseURI(%q) = %v, %v; want %s", tt.in, u, err, tt.want)
			}
		})
	}
}

func FuzzParseBaseURI(f *testing.F) {
	for _, s := range []string{"http://graylog:9000/api", "https://h/x/api/", "http://h:65536/api", "http://%zz/api", "http://h/api?", "http://h/a%2Fapi/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := upstream.ParseBaseURI(s)
		if err != nil {
			return
		}
		if !strings.HasSuffix(u.Path, "/api") || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			t.Fatalf("ParseBaseURI(%q) accepted %v", s, u)
		}
		// Normalised: parsing the result gives it back.
		again, err := upstream.ParseBaseURI(u.String())
		if err != nil || again.String() != u.String() {
			t.Fatalf("ParseBaseURI(%q) = %v; reparsed %v, %v", s, u, again, err)
		}
	})
}
