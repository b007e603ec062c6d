package functions

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/loggate/loggate/backend/logs/grok"
	"github.com/loggate/loggate/backend/logs/javaregex"
	"github.com/loggate/loggate/backend/logs/pipelines/lang"
)

// compileRegex compiles a Java regular expression with Go's RE2 engine,
// for a Param.Prepare: a pattern RE2 cannot run (backreferences,
// lookaround, possessive quantifiers) is refused when the rule is parsed.
// Java's embedded flags (?i) (?s) (?m) are RE2's too.
func compileRegex(v any) (any, error) {
	s, ok := v.(string)
	if !ok {
		return nil, errWrongType("pattern", v)
	}
	if err := javaregex.CheckSize(s); err != nil {
		return nil, err
	}
	re, err := regexp.Compile(s)
	if err != nil {
		return nil, fmt.Errorf("%w (regular expressions are RE2: no backreferences, lookahead or lookbehind)", err)
	}
	return re, nil
}

// grokPattern is the prepared pattern of grok(): the expression with all
// captures and with named ones only, for the only_named_captures argument.
type grokPattern struct{ all, named *grok.Tracked }

var errNoGrok = errors.New("grok patterns are not available")

func regexParam(desc string) lang.Param {
	p := req("pattern", lang.TString, desc)
	p.Prepare = compileRegex
	return p
}

// matchPattern is the prepared pattern of regex(): the expression and a
// text every match contains (grok.RequiredLiteral), so that a value
// without it is not searched.
type matchPattern struct {
	re      *regexp.Regexp
	literal string
}

func matchParam(desc string) lang.Param {
	return regexParamAs(desc, func(re *regexp.Regexp) (any, error) {
		return &matchPattern{re: re, literal: grok.RequiredLiteral(re)}, nil
	})
}

// regexParamAs is regexParam prepared into what form makes of the
// compiled expression.
func regexParamAs(desc string, form func(*regexp.Regexp) (any, error)) lang.Param {
	p := regexParam(desc)
	p.Prepare = func(v any) (any, error) {
		re, err := compileRegex(v)
		if err != nil {
			return nil, err
		}
		return form(re.(*regexp.Regexp))
	}
	return p
}

func regexFunctions(d Deps) []*lang.Function {
	grokParam := req("pattern", lang.TString, "The pattern to parse with")
	grokParam.Prepare = func(v any) (any, error) {
		// Checked when the rule is parsed; the matcher follows pattern
		// changes without the rule being parsed again.
		if d.Grok == nil {
			return v, nil // fails when called
		}
		p := v.(string)
		if _, err := d.Grok.Compile(p); err != nil {
			return nil, err
		}
		return &grokPattern{all: d.Grok.Track(p, false), named: d.Grok.Track(p, true)}, nil
	}
	return []*lang.Function{
		fn("regex", lang.TMap, "Match a string with a regular expression (Java syntax)", func(c *lang.Context, a lang.Args) (any, error) {
			p, ok := a.Get(0).(*matchPattern)
			if !ok {
				return nil, errNullPattern
			}
			if !a.Has(1) {
				return nil, errors.New("value must not be null")
			}
			names, _ := lang.AsList(a.Get(2))
			return regexMatch(c, p, a.String(1, ""), names)
		}, matchParam("The regular expression to match against 'value', uses Java regex syntax"),
			req("value", lang.TString, "The string to match the pattern against"),
			opt("group_names", lang.TList, "List of names to use for matcher groups")),
		fn("regex_replace", lang.TString, "Match a regular expression against a string and replace with string", func(_ *lang.Context, a lang.Args) (any, error) {
			re, ok := a.Get(0).(*regexp.Regexp)
			if !ok {
				return nil, errNullPattern
			}
			if !a.Has(1) {
				//lint:ignore ST1005 Graylog's words
				return nil, errors.New("Argument 'value' cannot be 'null'")
			}
			if !a.Has(2) {
				//lint:ignore ST1005 Graylog's words
				return nil, errors.New("Argument 'replacement' cannot be 'null'")
			}
			s := a.String(1, "")
			loc := re.FindStringSubmatchIndex(s)
			if loc == nil {
				return s, nil
			}
			// As Java's Matcher, the replacement is read only to replace
			// a match: its errors are those of a match.
			repl, err := javaregex.Replacement(a.String(2, ""), re)
			if err != nil {
				return nil, err
			}
			if a.Bool(3, true) {
				return re.ReplaceAllString(s, repl), nil
			}
			return s[:loc[0]] + string(re.ExpandString(nil, repl, s, loc)) + s[loc[1]:], nil
		}, regexParam("The regular expression to match against 'value', uses Java regex syntax"),
			req("value", lang.TString, "The string to match the pattern against"),
			req("replacement", lang.TString, "The string to replace the matched pattern, can contain group references like $1 or ${name}"),
			opt("replace_all", lang.TBoolean, "Replace all matches (default) or only the first one")),
		fn("split", lang.TList, "Split a string around matches of this pattern (Java syntax)", func(_ *lang.Context, a lang.Args) (any, error) {
			re, ok := a.Get(0).(*splitPattern)
			if !ok {
				return nil, errNullPattern
			}
			if !a.Has(1) {
				//lint:ignore ST1005 Graylog's words
				return nil, errors.New("Argument 'value' cannot be 'null'")
			}
			limit := a.Long(2, 0)
			if limit < 0 {
				//lint:ignore ST1005 Graylog's words
				return nil, errors.New("Argument 'limit' cannot be negative")
			}
			parts := re.split(a.String(1, ""), limit)
			out := make([]any, len(parts))
			for i, p := range parts {
				out[i] = p
			}
			return out, nil
		}, splitParam("The regular expression to split by, uses Java regex syntax"),
			req("value", lang.TString, "The string to be split"),
			opt("limit", lang.TLong, "The number of times the pattern is applied")),
		fn("grok", lang.TMap, "Applies a grok pattern to a string", func(c *lang.Context, a lang.Args) (any, error) {
			if !a.Has(1) {
				return nil, nil // Graylog: a null value gives null
			}
			p, ok := a.Get(0).(*grokPattern)
			if !ok {
				return nil, errNoGrok
			}
			t := p.all
			if a.Bool(2, false) {
				t = p.named
			}
			m, err := t.Matcher()
			if err != nil {
				return nil, err
			}
			var buf [16]grok.Capture
			caps := m.Captures(a.String(1, ""), buf[:0])
			r := c.NewMatchList(len(caps) > 0, len(caps))
			for _, cp := range caps {
				r.Add(cp.Key, cp.Value)
			}
			return r, nil
		}, grokParam, req("value", lang.TString, "The string to apply the pattern to"),
			opt("only_named_captures", lang.TBoolean, "Whether to only use explicitly named groups in the patterns")),
		fn("grok_exists", lang.TBoolean, "Checks if the given Grok pattern exists", func(_ *lang.Context, a lang.Args) (any, error) {
			if d.Grok == nil {
				return false, nil
			}
			name := a.String(0, "")
			_, err := d.Grok.Compile("%{" + name + "}")
			if err != nil && a.Bool(1, false) {
				d.Logger.Warn("grok pattern does not exist", "pattern", name)
			}
			return err == nil, nil
		}, req("pattern", lang.TString, "The Grok pattern which is to be checked"),
			opt("log_missing", lang.TBoolean, "Log if the Grok pattern is missing")),
	}
}

// regexMatch is regex(): the first match's groups 1… under the names
// "0", "1", … or the given names.
func regexMatch(c *lang.Context, p *matchPattern, s string, names []any) (*lang.MatchResult, error) {
	var m []int
	if p.literal == "" || strings.Contains(s, p.literal) {
		m = p.re.FindStringSubmatchIndex(s)
	}
	re := p.re
	if m == nil {
		return c.NewMatchList(false, 0), nil
	}
	groups := re.NumSubexp()
	// As Graylog's RegexMatchResult: a group that did not take part is
	// left out; group i is named by the i-th name given, by its 0-based
	// index when there is none (extra names are ignored); a name given
	// twice is ImmutableMap's error.
	if len(names) == 0 {
		// "0", "1", … are distinct: the list form.
		res := c.NewMatchList(true, groups)
		for g := 1; g <= groups; g++ {
			if m[2*g] >= 0 {
				res.Add(itoa(g-1), s[m[2*g]:m[2*g+1]])
			}
		}
		return res, nil
	}
	groupsByName := make(map[string]any, groups)
	for g := 1; g <= groups; g++ {
		if m[2*g] < 0 {
			continue
		}
		name := itoa(g - 1)
		if g <= len(names) && names[g-1] != nil {
			name, _ = lang.ToString(names[g-1])
		}
		v := s[m[2*g]:m[2*g+1]]
		if old, dup := groupsByName[name]; dup {
			//lint:ignore ST1005 Guava's words
			return nil, fmt.Errorf("Multiple entries with same key: %s=%s and %s=%s", name, v, name, old)
		}
		groupsByName[name] = v
	}
	return lang.NewMatchResult(true, groupsByName), nil
}

// splitPattern is the prepared pattern of split(): the expression, and
// whether it may match an empty text, which Java's and Go's ways of
// finding every match treat differently.
type splitPattern struct {
	re    *regexp.Regexp
	empty bool
	// at, made when first needed, matches the expression right after one
	// character: whether the preferred match at a position is empty.
	at     *regexp.Regexp
	atOnce sync.Once
}

func splitParam(desc string) lang.Param {
	return regexParamAs(desc, func(re *regexp.Regexp) (any, error) {
		tree, err := syntax.Parse(re.String(), syntax.Perl)
		if err != nil {
			return nil, err
		}
		return &splitPattern{re: re, empty: matchesEmpty(tree)}, nil
	})
}

// matchesEmpty reports whether re may match an empty text somewhere: true
// where unsure (assertions are zero-width).
func matchesEmpty(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpNoMatch, syntax.OpCharClass, syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		return false
	case syntax.OpLiteral:
		return len(re.Rune) == 0
	case syntax.OpPlus, syntax.OpCapture:
		return matchesEmpty(re.Sub[0])
	case syntax.OpRepeat:
		return re.Min == 0 || matchesEmpty(re.Sub[0])
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			if !matchesEmpty(sub) {
				return false
			}
		}
		return true
	case syntax.OpAlternate:
		return slices.ContainsFunc(re.Sub, matchesEmpty)
	}
	return true
}

// finds returns the matches Java's Matcher.find returns one after the
// other. Go's FindAll drops an empty match right after a match; Java's
// find keeps it (only after an empty match does it move on a character
// first), so such matches are put back: where the expression's preferred
// match at a match's end is empty.
func (p *splitPattern) finds(s string) [][]int {
	locs := p.re.FindAllStringIndex(s, -1)
	if !p.empty {
		return locs
	}
	p.atOnce.Do(func() {
		// The character before keeps the context of ^, \b and (?m)^. An
		// expression that is not valid inside a group (an unterminated
		// \Q) keeps Go's matches.
		p.at, _ = regexp.Compile(`\A(?s:.)(?:` + p.re.String() + `)`)
	})
	if p.at == nil {
		return locs
	}
	out := make([][]int, 0, len(locs))
	for i, loc := range locs {
		out = append(out, loc)
		end := loc[1]
		if loc[0] == end || (i+1 < len(locs) && locs[i+1][0] == end) {
			continue // moved on a character, or the match at end is not empty
		}
		_, w := utf8.DecodeLastRuneInString(s[:end])
		if m := p.at.FindStringIndex(s[end-w:]); m != nil && m[1] == w {
			out = append(out, []int{end, end})
		}
	}
	return out
}

// split is Java's Pattern.split: limit > 0 splits at most limit-1 times;
// 0 drops trailing empty strings; a zero-width match at the start gives
// no leading empty string.
func (p *splitPattern) split(s string, limit int64) []string {
	var out []string
	index := 0
	for _, loc := range p.finds(s) {
		if limit > 0 && int64(len(out)) >= limit-1 {
			out = append(out, s[index:])
			index = loc[1]
			break
		}
		if index == 0 && loc[0] == 0 && loc[1] == 0 {
			continue
		}
		out = append(out, s[index:loc[0]])
		index = loc[1]
	}
	if index == 0 { // no match, or a zero-width one at the start only
		return []string{s}
	}
	if limit <= 0 || int64(len(out)) < limit {
		out = append(out, s[index:])
	}
	if limit == 0 {
		for len(out) > 0 && out[len(out)-1] == "" {
			out = out[:len(out)-1]
		}
	}
	return out
}
