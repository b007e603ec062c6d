package permission

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Set is a parsed list of held permissions, such as a user's effective
// permissions. The zero Set permits nothing. A Set is immutable and safe for
// concurrent use.
type Set struct {
	raw   []string
	perms []Permission
	// all is set when some held permission has only wildcard parts ("*"),
	// which implies every valid permission.
	all bool
}

// NewSet parses held permissions. It fails on the first string that does
// not parse, with an error wrapping a *SyntaxError that names it.
func NewSet(perms []string) (Set, error) {
	if len(perms) == 0 {
		return Set{}, nil
	}
	s := Set{
		raw:   append([]string(nil), perms...),
		perms: make([]Permission, 0, len(perms)),
	}
	for _, str := range perms {
		p, err := Parse(str)
		if err != nil {
			return Set{}, fmt.Errorf("parse held permissions: %w", err)
		}
		s.all = s.all || p.wildFrom == 0
		s.perms = append(s.perms, p)
	}
	return s, nil
}

// Permits reports whether any permission of the set implies required. A
// required string that does not parse is never permitted. Permits does not
// allocate: it is called on every request.
func (s Set) Permits(required string) bool {
	if len(s.perms) == 0 || check(required) != "" {
		return false
	}
	if s.all {
		return true
	}
	required = trim(required)
	first, rest, more := strings.Cut(required, ":")
	if strings.IndexByte(first, subpartSep) >= 0 || trim(first) != first {
		return s.permitsSlow(required)
	}
	// Most held permissions differ from the required one in the first part,
	// often in its first byte, so that is compared before anything else.
	// key stays 0 for a non-ASCII byte, whose rune might fold to ASCII.
	var key byte
	if c := first[0]; c < utf8.RuneSelf {
		key = lowerASCII(c)
	}
	for _, p := range s.perms {
		switch {
		case p.first != "":
			if key != 0 && p.key != 0 && key != p.key || !equalFold(p.first, first) {
				continue
			}
		case !p.parts[0].wild && !p.parts[0].has(first):
			continue
		}
		if more && p.impliesFrom(1, rest) || !more && p.wildFrom <= 1 {
			return true
		}
	}
	return false
}

// permitsSlow is Permits for a required permission whose first part lists
// sub-parts or ends in whitespace, which the fast path leaves out.
func (s Set) permitsSlow(required string) bool {
	for _, p := range s.perms {
		if p.impliesString(required) {
			return true
		}
	}
	return false
}

// Strings returns the held permissions as given to NewSet, in order. The
// slice is a copy.
func (s Set) Strings() []string {
	return append([]string(nil), s.raw...)
}

// Len returns the number of held permissions.
func (s Set) Len() int {
	return len(s.raw)
}
