package auth

import (
	"net/netip"
	"testing"
)

func TestParseTrustedProxies(t *testing.T) {
	tests := []struct {
		in      string
		want    []string
		wantErr bool
	}{
		{"", nil, false},
		{"127.0.0.1/32, ::1", []string{"127.0.0.1/32", "::1/128"}, false},
		{"10.1.2.3/8", []string{"10.0.0.0/8"}, false},
		{"192.168.0.7", []string{"192.168.0.7/32"}, false},
		{"::ffff:10.0.0.1", []string{"10.0.0.1/32"}, false},
		{" , 10.0.0.0/8 ,", []string{"10.0.0.0/8"}, false},
		{"example.org", nil, true},
		{"10.0.0.0/33", nil, true},
	}
	for _, tt := range tests {
		got, err := ParseTrustedProxies(tt.in)
		if (err != nil) != tt.wantErr {
			t.Errorf("ParseTrustedProxies(%q) error = %v", tt.in, err)
			continue
		}
		var s []string
		for _, p := range got {
			s = append(s, p.String())
		}
		if len(s) != len(tt.want) {
			t.Errorf("ParseTrustedProxies(%q) = %v, want %v", tt.in, s, tt.want)
			continue
		}
		for i := range s {
			if s[i] != tt.want[i] {
				t.Errorf("ParseTrustedProxies(%q) = %v, want %v", tt.in, s, tt.want)
			}
		}
	}
}

func TestTrustedPeer(t *testing.T) {
	proxies, _ := ParseTrustedProxies("127.0.0.1/32, 10.0.0.0/8, ::1")
	h := &HeaderAuth{proxies: proxies}
	for addr, want := range map[string]bool{
		"127.0.0.1:5555":       true,
		"10.9.8.7:1":           true,
		"[::1]:80":             true,
		"[::ffff:10.0.0.1]:80": true,
		"192.168.1.1:80":       false,
		"[2001:db8::1]:80":     false,
		"not an address":       false,
		"127.0.0.1":            false, // no port: not a peer address
	} {
		if got := h.trusted(addr); got != want {
			t.Errorf("trusted(%q) = %v, want %v", addr, got, want)
		}
	}
}

func FuzzParseTrustedProxies(f *testing.F) {
	for _, s := range []string{"", "127.0.0.1/32, ::1", "10.0.0.0/8", "a,b", "::ffff:1.2.3.4/120", "1.2.3.4/-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ps, err := ParseTrustedProxies(s)
		if err != nil {
			return
		}
		for _, p := range ps {
			if !p.IsValid() || p != p.Masked() {
				t.Fatalf("%q gave %v, not a valid masked prefix", s, p)
			}
			if _, err := netip.ParsePrefix(p.String()); err != nil {
				t.Fatalf("%q gave %v, which does not read back: %v", s, p, err)
			}
		}
	})
}
