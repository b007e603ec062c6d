package permission_test

import (
	"errors"
	"testing"

	"github.com/loggate/loggate/auth/permission"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want string // String() of the result
	}{
		{"*", "*"},
		{"streams:read", "streams:read"},
		{"Streams:READ:ABC", "streams:read:abc"},
		{"  streams : read , edit : abc  ", "streams:read,edit:abc"},
		{"\tusers:edit\n", "users:edit"},
		{"a:b,c,d:e", "a:b,c,d:e"},
		{"*:*", "*:*"},
		{"dashboards:read:my dash", "dashboards:read:my dash"},
		{"streams:read:ÄBC", "streams:read:Äbc"}, // only ASCII is lowercased
		{"a:b:c:d:e:f:g:h:i:j", "a:b:c:d:e:f:g:h:i:j"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			p, err := permission.Parse(tt.in)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.in, err)
			}
			if got := p.String(); got != tt.want {
				t.Errorf("Parse(%q).String() = %q, want %q", tt.in, got, tt.want)
			}
			if err := permission.Valid(tt.in); err != nil {
				t.Errorf("Valid(%q) = %v, want nil", tt.in, err)
			}
		})
	}
}

func TestParseInvalid(t *testing.T) {
	tests := []struct {
		in, reason string
	}{
		{"", "empty permission"},
		{"   ", "empty permission"},
		{"\t\n", "empty permission"},
		{"a::b", "empty part"},
		{"a: :b", "empty part"},
		{":a", "empty part"},
		{"a:", "empty part"},
		{":", "empty part"},
		{"::", "empty part"},
		{"a:,:b", "empty sub-part"},
		{",", "empty sub-part"},
		{"a:,,", "empty sub-part"},
		{"a:b,", "empty sub-part"},
		{"a:,b", "empty sub-part"},
		{"a:b, ,c", "empty sub-part"},
		{"a\x00b", "control character"},
		{"streams:read:x\x1eusers", "control character"},
		{"a\x7f", "control character"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			_, err := permission.Parse(tt.in)
			var se *permission.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Parse(%q) error = %v, want *SyntaxError", tt.in, err)
			}
			if se.Permission != tt.in || se.Reason != tt.reason {
				t.Errorf("Parse(%q) = %+v, want reason %q", tt.in, se, tt.reason)
			}
			if err := permission.Valid(tt.in); err == nil || err.Error() != se.Error() {
				t.Errorf("Valid(%q) = %v, want %v", tt.in, err, se)
			}
		})
	}
}

func TestSyntaxErrorMessage(t *testing.T) {
	err := permission.Valid("a::b")
	want := `invalid permission "a::b": empty part`
	if err == nil || err.Error() != want {
		t.Errorf("Valid(%q) = %v, want %s", "a::b", err, want)
	}
}

// impliesTests are shared by the Permission and the Set tests, because the
// two code paths must agree.
var impliesTests = []struct {
	held, required string
	want           bool
}{
	// Exact matches and case-insensitivity.
	{"streams:read", "streams:read", true},
	{"STREAMS:Read", "streams:read", true},
	{"streams:read", "Streams:READ", true},
	{"streams:read:ABC", "streams:read:abc", true},
	{"streams:read", "streams:edit", false},
	{"streams:read", "stream:read", false},
	{"streams:read", "streams:reader", false},
	{"streams:reader", "streams:read", false},

	// Fewer held parts imply the missing trailing ones.
	{"streams:read", "streams:read:abc", true},
	{"streams", "streams:read:abc", true},
	{"streams", "streams", true},
	{"streams:read", "streams", false},

	// More held parts are only fine when they are all wildcards.
	{"users:edit:alice", "users:edit", false},
	{"users:edit:*", "users:edit", true},
	{"users:*:*", "users", true},
	{"users:*:alice", "users", false},
	{"users:edit,*", "users", true},
	{"users:edit:alice", "users:edit:alice", true},
	{"users:edit:alice", "users:edit:bob", false},

	// Wildcards.
	{"*", "streams:read:abc", true},
	{"*", "anything", true},
	{"*", "*", true},
	{"*:*", "a:b:c", true},
	{"*:*", "a", true},
	{"*:read", "streams:read", true},
	{"*:read", "streams:read:abc", true},
	{"*:read", "streams:edit", false},
	{"*:read", "streams", false},
	{"streams:*", "streams:read:abc", true},
	{"streams:*:abc", "streams:edit:abc", true},
	{"streams:*:abc", "streams:edit:def", false},
	{"streams:read", "streams:*", false},
	{"streams:*", "streams:*", true},
	{"streams:read", "*", false},
	{"streams:read,*", "streams:edit", true},

	// Sub-part lists on either side.
	{"users:edit,read", "users:read:alice", true},
	{"users:edit,read", "users:edit", true},
	{"users:edit,read", "users:delete", false},
	{"users:edit,read:alice,bob", "users:read:bob", true},
	{"users:edit,read:alice,bob", "users:read:carol", false},
	{"a:b,c", "a:b,c", true},
	{"a:b,c", "a:c,b", true},
	{"a:b,c,d", "a:b,c", true},
	{"a:b", "a:b,c", false},
	{"a:c", "a:b,c", false},
	{"a:B,C", "a:c , b", true},
	{"a:*", "a:b,c", true},
	{"a", "a:b,c", true},
	{"a:b,c", "a:b,b", true},
	{"a,b:c", "B:c", true},
	{"a,b:c", "b,a:c:d", true},
	{"a,b:c", "a,x:c", false},
	{"x,*:read", "y:read", true},
	{"x,*:read", "y:edit", false},

	// Whitespace around parts and sub-parts is ignored on both sides.
	{" streams : read ", "streams:read", true},
	{"streams:read", " streams\t:\tread:abc ", true},
	{"streams:read", "streams :read", true},
	{"streams:read", "streams , streams:read", true},

	// Unicode folding and malformed UTF-8.
	{"streams:read:äbc", "streams:read:ÄBC", true},
	{"streams:read:k", "streams:read:\u212a", true}, // Kelvin sign folds to k
	{"k:read", "\u212a:read", true},
	{"\u212a:read", "K:read", true},
	{"\u017ftreams:read", "streams:read", true}, // long s folds to s
	{"streams:read", "\u017fTREAMS:read", true},
	{"streams:read:\xff", "streams:read:\xfe", false},
	{"streams:read:\xff", "streams:read:\xff", true},
	{"streams:read:\xff", "streams:read:\ufffd", false},
}

func TestImplies(t *testing.T) {
	for _, tt := range impliesTests {
		t.Run(tt.held+"=>"+tt.required, func(t *testing.T) {
			p := mustParse(t, tt.held)
			q := mustParse(t, tt.required)
			if got := p.Implies(q); got != tt.want {
				t.Errorf("%q.Implies(%q) = %v, want %v", tt.held, tt.required, got, tt.want)
			}
		})
	}
}

func TestImpliesZero(t *testing.T) {
	var zero permission.Permission
	all := mustParse(t, "*")
	if zero.Implies(all) || all.Implies(zero) || zero.Implies(zero) {
		t.Error("the zero Permission must neither imply nor be implied")
	}
	if got := zero.String(); got != "" {
		t.Errorf("zero String() = %q, want empty", got)
	}
}

func mustParse(t *testing.T, s string) permission.Permission {
	t.Helper()
	p, err := permission.Parse(s)
	if err != nil {
		t.Fatalf("Parse(%q): %v", s, err)
	}
	return p
}
