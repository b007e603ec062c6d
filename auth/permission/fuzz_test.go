package permission_test

import (
	"strings"
	"testing"

	"github.com/loggate/loggate/auth/permission"
)

var fuzzSeeds = []string{
	"*", "*:*", "streams:read", "streams:read:abc", "STREAMS:READ:ABC",
	"users:edit,read", "users:read:alice", "a:b,c", "a:c , b", " a : b ",
	"a::b", "a:", ":a", "a:,:b", "a:b,", ",", "", " ", "a\x00b", "a\x1eb",
	"streams:read:\u212a", "streams:read:k", "\u017ftreams:read", "streams:read:\xff",
	"users:*:alice", "users:edit,*", "x:y:z:w:v", "a,b:c", "x,*:read", "K:read",
	"streams :read", "\u212a:read",
}

func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := permission.Parse(s)
		if (err == nil) != (permission.Valid(s) == nil) {
			t.Fatalf("Parse(%q) error %v, Valid %v", s, err, permission.Valid(s))
		}
		if err != nil {
			return
		}
		if !p.Implies(p) {
			t.Fatalf("%q does not imply itself", s)
		}
		q, err := permission.Parse(p.String())
		if err != nil {
			t.Fatalf("Parse(%q) (String of %q): %v", p.String(), s, err)
		}
		if !p.Implies(q) || !q.Implies(p) {
			t.Fatalf("%q and its String %q do not imply each other", s, p.String())
		}
		set, err := permission.NewSet([]string{s})
		if err != nil {
			t.Fatalf("NewSet(%q): %v", s, err)
		}
		if !set.Permits(s) || !set.Permits(p.String()) {
			t.Fatalf("Set{%q} does not permit itself", s)
		}
	})
}

// FuzzPermits checks that Set.Permits, which scans the required string in
// place, agrees with Parse and Implies. held is a NUL-separated list; NUL is
// never valid in a permission, and entries that do not parse are dropped.
func FuzzPermits(f *testing.F) {
	for _, held := range fuzzSeeds {
		for _, req := range fuzzSeeds {
			f.Add(held, req)
		}
	}
	f.Add("buffers:read\x00streams:read:abc\x00users:edit:alice", "users:edit")
	f.Add("streams:read\x00*", "a::b")
	f.Fuzz(func(t *testing.T, held, required string) {
		var perms []permission.Permission
		var valid []string
		for _, h := range strings.Split(held, "\x00") {
			if p, err := permission.Parse(h); err == nil {
				perms = append(perms, p)
				valid = append(valid, h)
			}
		}
		set, err := permission.NewSet(valid)
		if err != nil {
			t.Fatalf("NewSet(%q): %v", valid, err)
		}
		want := false
		if q, err := permission.Parse(required); err == nil {
			for _, p := range perms {
				want = want || p.Implies(q)
			}
		}
		if got := set.Permits(required); got != want {
			t.Fatalf("Set%q.Permits(%q) = %v, Parse+Implies says %v", valid, required, got, want)
		}
	})
}
