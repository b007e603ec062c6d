package permission_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/loggate/loggate/auth/permission"
)

func TestSetPermits(t *testing.T) {
	for _, tt := range impliesTests {
		t.Run(tt.held+"=>"+tt.required, func(t *testing.T) {
			s := mustSet(t, tt.held)
			if got := s.Permits(tt.required); got != tt.want {
				t.Errorf("Set{%q}.Permits(%q) = %v, want %v", tt.held, tt.required, got, tt.want)
			}
		})
	}
}

func TestSetPermitsAny(t *testing.T) {
	s := mustSet(t, "streams:read:abc", "users:edit:alice", "dashboards:*")
	tests := []struct {
		required string
		want     bool
	}{
		{"streams:read:abc", true},
		{"users:edit:alice", true},
		{"dashboards:edit:x", true},
		{"streams:read:def", false},
		{"users:edit", false},
		{"dashboards", true}, // the missing part of dashboards:* is a wildcard
		{"users", false},
	}
	for _, tt := range tests {
		if got := s.Permits(tt.required); got != tt.want {
			t.Errorf("Permits(%q) = %v, want %v", tt.required, got, tt.want)
		}
	}
}

// TestSetPermitsInvalid checks that a required string that does not parse is
// refused even by the all-permission, whose fast path skips matching.
func TestSetPermitsInvalid(t *testing.T) {
	sets := map[string]permission.Set{
		"*":     mustSet(t, "*"),
		"*:*":   mustSet(t, "*:*"),
		"a":     mustSet(t, "a"),
		"a:b,*": mustSet(t, "a:b,*"),
	}
	for name, s := range sets {
		if !s.Permits("a:b") {
			t.Fatalf("Set{%q} refuses a:b; the checks below would be vacuous", name)
		}
	}
	for _, req := range []string{"", " ", "a::b", "a:", ":a", "a:,", "a:b,", "a:b\x00"} {
		for name, s := range sets {
			if s.Permits(req) {
				t.Errorf("Set{%q}.Permits(%q) = true, want false", name, req)
			}
		}
	}
}

func TestSetZero(t *testing.T) {
	var s permission.Set
	if s.Permits("*") || s.Permits("streams:read") {
		t.Error("the zero Set permits something")
	}
	if s.Len() != 0 || len(s.Strings()) != 0 {
		t.Errorf("zero Set: Len() = %d, Strings() = %q", s.Len(), s.Strings())
	}
	empty := mustSet(t)
	if empty.Permits("streams:read") {
		t.Error("an empty Set permits something")
	}
}

func TestSetStrings(t *testing.T) {
	in := []string{" Streams:READ:abc ", "*", "users:edit:alice"}
	s, err := permission.NewSet(in)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Strings(); !slices.Equal(got, in) {
		t.Errorf("Strings() = %q, want %q", got, in)
	}
	if got := s.Len(); got != len(in) {
		t.Errorf("Len() = %d, want %d", got, len(in))
	}
	// Neither the caller's slice nor the returned one aliases the set.
	in[2] = "changed"
	s.Strings()[0] = "changed"
	if got := s.Strings(); got[0] != " Streams:READ:abc " || got[2] != "users:edit:alice" {
		t.Errorf("Strings() after mutation = %q", got)
	}
}

func TestNewSetError(t *testing.T) {
	_, err := permission.NewSet([]string{"streams:read", "a::b", ""})
	var se *permission.SyntaxError
	if !errors.As(err, &se) {
		t.Fatalf("NewSet error = %v, want a *SyntaxError", err)
	}
	if se.Permission != "a::b" {
		t.Errorf("error names %q, want the first invalid string %q", se.Permission, "a::b")
	}
	if !strings.Contains(err.Error(), `"a::b"`) {
		t.Errorf("error %q does not name the invalid string", err)
	}
}

func TestSetPermitsDoesNotAllocate(t *testing.T) {
	if testing.CoverMode() != "" || raceEnabled {
		t.Skip("instrumentation allocates")
	}
	for name, s := range map[string]permission.Set{"reader": readerSet(t), "admin": mustSet(t, "*")} {
		for _, req := range []string{"streams:read:5f1a2b3c4d5e6f7a8b9c0d1e", "Messages:Read", "a::b", "users:edit,read:x"} {
			if n := testing.AllocsPerRun(100, func() { s.Permits(req) }); n != 0 {
				t.Errorf("%s: Permits(%q) allocates %v times", name, req, n)
			}
		}
	}
}

func mustSet(t testing.TB, perms ...string) permission.Set {
	t.Helper()
	s, err := permission.NewSet(perms)
	if err != nil {
		t.Fatalf("NewSet(%q): %v", perms, err)
	}
	return s
}
