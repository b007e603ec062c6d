package streams

import (
	"bytes"
	"regexp"
	"strings"

	"github.com/loggate/loggate/backend/logs/javaregex"
)

// GL2SourceInput is the message field naming the input a message came in
// through, which MATCH_INPUT rules test.
const GL2SourceInput = "gl2_source_input"

// Matcher is a stream's rules compiled for matching messages, with Graylog's
// StreamRouterEngine semantics: under AND every rule must match, under OR
// one; a stream without rules matches nothing. A Matcher is immutable and
// safe for concurrent use; Match does not allocate for string fields.
type Matcher struct {
	or bool
	// rules are in Graylog's evaluation order, cheap tests first, so that
	// AND fails and OR succeeds as early as possible.
	rules []compiledRule
}

type compiledRule struct {
	id       string
	typ      RuleType
	field    string
	value    string
	valueB   []byte // value, for tests on the text of non-string fields
	inverted bool
	// re is the compiled REGEX; nil when the stored expression does not
	// compile, and the rule then never matches, as in Graylog.
	re *regexp.Regexp
	// num is the value of a GREATER or SMALLER rule; numOK is false when the
	// value is no number, and the rule then never matches.
	num   float64
	numOK bool
}

// evalOrder is Graylog's: always, presence, exact, input, greater, smaller,
// contains, regex.
var evalOrder = [...]RuleType{RuleAlways, RulePresence, RuleExact, RuleMatchInput, RuleGreater, RuleSmaller, RuleContains, RuleRegex}

// Compile compiles the rules of s. Rules of an unknown type are left out, as
// Graylog skips them.
func Compile(s *Stream) *Matcher {
	m := &Matcher{or: s.MatchingType == MatchOr, rules: make([]compiledRule, 0, len(s.Rules))}
	for _, typ := range evalOrder {
		for _, r := range s.Rules {
			if r.Type == typ {
				m.rules = append(m.rules, compileRule(r))
			}
		}
	}
	return m
}

func compileRule(r Rule) compiledRule {
	c := compiledRule{id: r.ID, typ: r.Type, field: r.Field, value: r.Value, valueB: []byte(r.Value), inverted: r.Inverted}
	switch r.Type {
	case RuleRegex:
		c.re, _ = compileRegex(r.Value)
	case RuleGreater, RuleSmaller:
		c.num, c.numOK = parseJavaDouble(r.Value)
	case RuleMatchInput:
		c.field = GL2SourceInput
	}
	return c
}

// compileRegex compiles a REGEX rule's value as Graylog does, with DOTALL,
// for an unanchored find. The syntax is RE2's, which lacks Java's
// backreferences and lookaround.
func compileRegex(expr string) (*regexp.Regexp, error) {
	if err := javaregex.CheckSize(expr); err != nil {
		return nil, err
	}
	return regexp.Compile("(?s)" + expr)
}

// Matcher returns the compiled rules of s: those compiled once when s entered
// the service's snapshot, or else freshly compiled ones.
func (s *Stream) Matcher() *Matcher {
	if s.matcher != nil {
		return s.matcher
	}
	return Compile(s)
}

// Matches reports whether msg matches the rules of s. It does not look at
// Disabled: the caller skips paused streams.
func (s *Stream) Matches(msg map[string]any) bool { return s.Matcher().Match(msg) }

// Match reports whether msg matches s and how each rule decided, by rule id,
// as Graylog's testMatch answers.
func Match(s *Stream, msg map[string]any) (matched bool, perRule map[string]bool) {
	return s.Matcher().Test(msg)
}

// Match reports whether msg matches.
func (m *Matcher) Match(msg map[string]any) bool {
	if len(m.rules) == 0 {
		return false
	}
	for i := range m.rules {
		if m.rules[i].match(msg) == m.or {
			return m.or
		}
	}
	return !m.or
}

// Test evaluates every rule and reports the overall result with each rule's.
func (m *Matcher) Test(msg map[string]any) (matched bool, perRule map[string]bool) {
	perRule = make(map[string]bool, len(m.rules))
	some, all := false, true
	for i := range m.rules {
		ok := m.rules[i].match(msg)
		perRule[m.rules[i].id] = ok
		some = some || ok
		all = all && ok
	}
	if m.or {
		return some, perRule
	}
	return len(m.rules) > 0 && all, perRule
}

// match is one of Graylog's StreamRuleMatchers. A missing field gives the
// inverted flag for the text tests and false for the numeric ones; ALWAYS
// matches whatever the flag.
func (r *compiledRule) match(msg map[string]any) bool {
	if r.typ == RuleAlways {
		return true
	}
	v, ok := lookup(msg, r.field)
	switch r.typ {
	case RuleGreater, RuleSmaller:
		if !ok || !r.numOK {
			return false
		}
		f, isNum := v.number()
		if !isNum {
			return false
		}
		if r.typ == RuleGreater {
			return r.inverted != (f > r.num)
		}
		return r.inverted != (f < r.num)
	case RulePresence:
		return r.inverted != ok
	}
	if !ok {
		return r.inverted
	}
	if r.typ == RuleRegex && r.re == nil {
		return false
	}
	if v.isString {
		return r.inverted != r.testString(v.s)
	}
	return r.inverted != r.testText(v.v)
}

// testString is the text test of a rule on a string field.
func (r *compiledRule) testString(s string) bool {
	switch r.typ {
	case RuleExact:
		return s == r.value
	case RuleContains:
		return strings.Contains(s, r.value)
	case RuleRegex:
		return r.re.MatchString(s)
	case RuleMatchInput:
		return strings.EqualFold(s, r.value)
	}
	return false
}

// testText is the text test on another value, through its Java toString().
// It is apart from testString so that only non-string fields pay for the
// buffer, which stays on the stack but for regular expressions.
func (r *compiledRule) testText(v any) bool {
	if r.typ == RuleRegex {
		// The regexp keeps its input, which would move buf below to the
		// heap for every rule type.
		return r.re.Match(appendText(nil, v))
	}
	var buf [48]byte
	b := appendText(buf[:0], v)
	switch r.typ {
	case RuleExact:
		return string(b) == r.value
	case RuleContains:
		return bytes.Contains(b, r.valueB)
	case RuleMatchInput:
		return bytes.EqualFold(b, r.valueB)
	}
	return false
}
