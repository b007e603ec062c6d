// Package permission implements Graylog's permission strings, which follow
// Apache Shiro's WildcardPermission rules: parts separated by ':', sub-parts
// by ',', '*' matching anything at its level, compared case-insensitively.
package permission

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

const (
	partSep    = ':'
	subpartSep = ','
	wildcard   = "*"
)

// SyntaxError reports a permission string that does not parse. Its message is
// meant to be shown to API clients as is.
type SyntaxError struct {
	// Permission is the offending string as given.
	Permission string
	// Reason says what is wrong, such as "empty part".
	Reason string
}

// Error implements error.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid permission %q: %s", e.Permission, e.Reason)
}

// Permission is one parsed permission. The zero Permission implies nothing
// and is implied by nothing.
type Permission struct {
	parts []part
	// wildFrom is the index from which all parts are wildcards, so that a
	// shorter required permission is implied without looking at them again.
	wildFrom int
	// first is the only sub-part of the first part if that is not a
	// wildcard, else "", for the fast path of Set.Permits.
	first string
	// key is first's first byte, lowercased, when that is ASCII, else 0.
	key byte
}

// part is one ':'-separated level of a permission.
type part struct {
	subs []string // trimmed, in the order given
	wild bool     // one of subs is "*"
}

// Valid returns nil if s is a well-formed permission string and a
// *SyntaxError otherwise.
func Valid(s string) error {
	if reason := check(s); reason != "" {
		return &SyntaxError{Permission: s, Reason: reason}
	}
	return nil
}

// Parse parses a permission string. Surrounding whitespace of the string, of
// each part and of each sub-part is ignored, as Shiro does. It returns a
// *SyntaxError for an empty string, an empty part or sub-part (such as
// "a::b", "a:" or "a:b,"), or a control character.
func Parse(s string) (Permission, error) {
	if err := Valid(s); err != nil {
		return Permission{}, err
	}
	body := trim(s)
	p := Permission{parts: make([]part, 0, strings.Count(body, ":")+1)}
	for rest, more := body, true; more; {
		var seg string
		seg, rest, more = strings.Cut(rest, ":")
		p.parts = append(p.parts, newPart(seg))
	}
	if p0 := p.parts[0]; !p0.wild && len(p0.subs) == 1 {
		p.first = p0.subs[0]
		if c := p.first[0]; c < utf8.RuneSelf {
			p.key = lowerASCII(c)
		}
	}
	p.wildFrom = len(p.parts)
	for p.wildFrom > 0 && p.parts[p.wildFrom-1].wild {
		p.wildFrom--
	}
	return p, nil
}

func newPart(seg string) part {
	var pt part
	pt.subs = make([]string, 0, strings.Count(seg, ",")+1)
	for rest, more := seg, true; more; {
		var sub string
		sub, rest, more = strings.Cut(rest, ",")
		sub = trim(sub)
		pt.subs = append(pt.subs, sub)
		pt.wild = pt.wild || sub == wildcard
	}
	return pt
}

// Byte classes for check.
const (
	classContent = iota
	classSpace
	classPart
	classSub
	classControl
)

// byteClass maps every byte to its class, so that check, which runs on every
// permission check, does one lookup per byte.
var byteClass = func() (t [256]uint8) {
	for c := range 256 {
		switch {
		case c == partSep:
			t[c] = classPart
		case c == subpartSep:
			t[c] = classSub
		case isSpace(byte(c)):
			t[c] = classSpace
		case c < ' ' || c == 0x7f:
			// Control characters never occur in Graylog permissions;
			// refusing them keeps permission lists safe to embed in
			// delimited records.
			t[c] = classControl
		}
	}
	return t
}()

// check validates s in one pass without allocating and returns why it is
// invalid, or "". Parse and Set.Permits both rely on it, so the two agree on
// what parses.
func check(s string) string {
	s = trim(s)
	if s == "" {
		return "empty permission"
	}
	var (
		blankPart = true // the part so far has only whitespace
		blankSub  = true // the sub-part so far has only whitespace
		emptySub  = false
	)
	for i := 0; i < len(s); i++ {
		switch byteClass[s[i]] {
		case classContent:
			blankPart, blankSub = false, false
		case classPart:
			if reason := endPart(blankPart, blankSub || emptySub); reason != "" {
				return reason
			}
			blankPart, blankSub = true, true
		case classSub:
			emptySub = emptySub || blankSub
			blankPart, blankSub = false, true
		case classControl:
			return "control character"
		}
	}
	return endPart(blankPart, blankSub || emptySub)
}

func endPart(blankPart, emptySub bool) string {
	switch {
	case blankPart:
		return "empty part"
	case emptySub:
		return "empty sub-part"
	}
	return ""
}

// Implies reports whether holding p grants q, per Shiro: part by part, each
// part of p must be a wildcard or contain every sub-part of q's part; parts
// p lacks are implied, and parts q lacks must be wildcards in p.
func (p Permission) Implies(q Permission) bool {
	if len(p.parts) == 0 || len(q.parts) == 0 {
		return false
	}
	for i, qp := range q.parts {
		if i == len(p.parts) {
			return true
		}
		if pp := p.parts[i]; !pp.wild && !pp.hasAll(qp.subs) {
			return false
		}
	}
	return len(q.parts) >= p.wildFrom
}

// impliesString is Implies for a required permission given as a trimmed
// string that check accepted. It scans req in place so that it does not
// allocate.
func (p Permission) impliesString(req string) bool {
	if len(p.parts) == 0 {
		return false
	}
	return p.impliesFrom(0, req)
}

// impliesFrom matches the parts of req, which begin at p.parts[i].
func (p Permission) impliesFrom(i int, req string) bool {
	for rest, more := req, true; more; i++ {
		if i == len(p.parts) {
			return true
		}
		var seg string
		seg, rest, more = strings.Cut(rest, ":")
		if !p.parts[i].covers(seg) {
			return false
		}
	}
	return i >= p.wildFrom
}

// hasAll reports whether the part lists every one of subs.
func (pt part) hasAll(subs []string) bool {
	for _, s := range subs {
		if !pt.has(s) {
			return false
		}
	}
	return true
}

// covers is hasAll for an unsplit, untrimmed ','-separated segment.
func (pt part) covers(seg string) bool {
	if pt.wild {
		return true
	}
	for more := true; more; {
		var sub string
		sub, seg, more = strings.Cut(seg, ",")
		if !pt.has(trim(sub)) {
			return false
		}
	}
	return true
}

func (pt part) has(sub string) bool {
	for _, s := range pt.subs {
		if equalFold(s, sub) {
			return true
		}
	}
	return false
}

// String returns p in canonical form: whitespace around parts and sub-parts
// removed and ASCII letters lowercased as Shiro does. Other runes are kept
// as they are, because lowercasing some of them (such as U+0130) would change
// what the permission matches.
func (p Permission) String() string {
	var b strings.Builder
	for i, pt := range p.parts {
		if i > 0 {
			b.WriteByte(partSep)
		}
		for j, s := range pt.subs {
			if j > 0 {
				b.WriteByte(subpartSep)
			}
			for k := 0; k < len(s); k++ {
				b.WriteByte(lowerASCII(s[k]))
			}
		}
	}
	return b.String()
}

// ValidName checks a name that becomes one part of permission strings: a
// username (users:edit:<username>) or a role name (roles:edit:<name>). The
// characters that carry meaning in a permission are refused: a user named
// "*" would otherwise hold users:edit:* over everyone. kind names the thing
// in the error ("username").
func ValidName(kind, name string) error {
	switch {
	case name == "":
		return fmt.Errorf("%s must not be empty", kind)
	case strings.TrimSpace(name) != name:
		return fmt.Errorf("invalid %s %q: it must not start or end with spaces", kind, name)
	case strings.ContainsAny(name, ":,*/\\") || strings.ContainsFunc(name, unicode.IsControl):
		return fmt.Errorf("invalid %s %q: it must not contain ':', ',', '*', '/', '\\' or control characters", kind, name)
	}
	return nil
}
