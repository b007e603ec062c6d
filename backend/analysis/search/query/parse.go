package query

import (
	"math"
	"strconv"
	"strings"
)

// Limits on hostile input.
const (
	// MaxQueryLength is the longest query Parse accepts, in bytes.
	MaxQueryLength = 64 << 10
	// MaxDepth is the deepest nesting of parentheses Parse accepts.
	MaxDepth = 64
)

// Operator joins clauses that have no explicit AND or OR between them.
type Operator int

// Operators. OR is the zero value: Graylog leaves Elasticsearch's
// default_operator at OR.
const (
	OR Operator = iota
	AND
)

// Options tune Parse. The zero value is Graylog 4.0's behaviour.
type Options struct {
	// DefaultOperator joins clauses written side by side.
	DefaultOperator Operator
	// AllowLeadingWildcard permits patterns starting with * or ?, which
	// Graylog refuses unless allow_leading_wildcard_searches = true.
	AllowLeadingWildcard bool
}

// Parse parses a Graylog search query. An empty query, blanks only or * gives
// MatchAll. Errors are *SyntaxError.
func Parse(q string, opts Options) (Node, error) {
	if len(q) > MaxQueryLength {
		return nil, &SyntaxError{Query: q, Pos: MaxQueryLength,
			Msg: "Query is longer than " + strconv.Itoa(MaxQueryLength) + " bytes"}
	}
	// Graylog's QueryStringUtils.isEmptyOrMatchAllQueryString, with Java's
	// trim (every character up to the space) plus Lucene's ideographic space.
	trimmed := strings.TrimFunc(q, func(r rune) bool { return r <= ' ' || r == '\u3000' })
	if trimmed == "" || trimmed == "*" {
		return &MatchAll{}, nil
	}
	p := parser{q: q, opts: opts}
	n, err := p.query("", 0)
	if err == nil {
		if t := p.peek(); t.kind != kEOF {
			err = p.unexpected(t, "end of input")
		}
	}
	if err != nil {
		err.Query = q
		return nil, err
	}
	return n, nil
}

type occur uint8

const (
	should occur = iota
	must
	mustNot
)

type modifier uint8

const (
	modNone modifier = iota
	modReq
	modNot
)

type conjunction uint8

const (
	conjNone conjunction = iota
	conjAnd
	conjOr
)

type clause struct {
	n   Node
	occ occur
}

type parser struct {
	q    string
	opts Options
	pos  int   // offset of the next token
	tok  token // the token at pos, when have
	have bool
}

func (p *parser) peek() token {
	if !p.have {
		p.tok, p.have = lexDefault(p.q, p.pos), true
	}
	return p.tok
}

func (p *parser) next() token {
	t := p.peek()
	p.pos, p.have = t.end, false
	return t
}

// unexpected reports t where the grammar wanted expected; a lexical error
// token reports itself.
func (p *parser) unexpected(t token, expected string) *SyntaxError {
	if t.kind == kBad {
		return &SyntaxError{Pos: t.pos, Msg: t.msg, Expected: t.exp}
	}
	return &SyntaxError{Pos: t.pos, Msg: "Encountered " + describe(p.q, t), Expected: expected}
}

// query is Lucene's Query production: clauses joined into a Bool by
// addClause's rules; a lone clause without a modifier stands for itself.
func (p *parser) query(field string, depth int) (Node, *SyntaxError) {
	var clauses []clause
	var first Node
	conj := conjNone
	for {
		mods := modNone
		n, err := p.multiTerm(field, depth, conj)
		if n == nil && err == nil {
			mods = p.modifiers()
			n, err = p.clause(field, depth)
		}
		if err != nil {
			return nil, err
		}
		p.addClause(&clauses, conj, mods, n)
		if len(clauses) == 1 && mods == modNone {
			first = n
		}
		switch p.peek().kind {
		case kAnd:
			p.next()
			conj = conjAnd
			continue
		case kOr:
			p.next()
			conj = conjOr
			continue
		}
		conj = conjNone
		if !startsClause(p.peek().kind) {
			break
		}
	}
	if len(clauses) == 1 && first != nil {
		return first, nil
	}
	b := &Bool{}
	for _, c := range clauses {
		switch c.occ {
		case must:
			b.Must = append(b.Must, c.n)
		case should:
			b.Should = append(b.Should, c.n)
		default:
			b.MustNot = append(b.MustNot, c.n)
		}
	}
	return b, nil
}

// multiTerm is Lucene's MultiTerm production as Elasticsearch 6 and later
// run it (splitOnWhitespace false): words side by side, with no operator
// before or between them, are one text that each field's analyzer cuts.
// A text field splits it into words, any of which matches; a keyword field
// keeps it whole, so user:(Bob Smith) finds the user "Bob Smith", not Bob
// or Smith. A word followed by :, *, ~, ^, AND or OR stays out of the run:
// it belongs to what follows it. It returns nil where no run of two words
// starts, and under the AND operator, whose words would all be required
// where the stores' analysis makes any of them enough.
func (p *parser) multiTerm(field string, depth int, conj conjunction) (Node, *SyntaxError) {
	if conj != conjNone || p.opts.DefaultOperator != OR {
		return nil, nil
	}
	first := p.peek()
	if first.kind != kTerm || field != "" && (p.q[first.pos] == '<' || p.q[first.pos] == '>') {
		// After a field, >5 is a range of its own.
		return nil, nil
	}
	last := first
	for {
		t := lexDefault(p.q, last.end)
		if t.kind != kTerm || !joins(lexDefault(p.q, t.end).kind) {
			break
		}
		last = t
	}
	if last.pos == first.pos {
		return nil, nil
	}
	var text strings.Builder
	for t := first; ; t = lexDefault(p.q, t.end) {
		word, err := unescape(p.q[t.pos:t.end], t.pos)
		if err != nil {
			return nil, err
		}
		if t.pos != first.pos {
			text.WriteByte(' ') // as Lucene joins them, whatever the blanks were
		}
		text.WriteString(word)
		if t.pos == last.pos {
			break
		}
	}
	p.pos, p.have = last.end, false
	if n, err := special(field, text.String(), first.pos, depth); n != nil || err != nil {
		return n, err
	}
	return &Term{Field: field, Value: text.String()}, nil
}

// joins reports whether a word followed by a token of kind k may join a
// run of words: Lucene's allowedPostMultiTerm.
func joins(k kind) bool {
	switch k {
	case kColon, kStar, kSlop, kCarat, kAnd, kOr:
		return false
	}
	return true
}

func startsClause(k kind) bool {
	switch k {
	case kNot, kPlus, kMinus, kBareOp, kLParen, kStar, kQuoted, kTerm,
		kPrefix, kWild, kRegexp, kRangeIn, kRangeEx:
		return true
	}
	return false
}

func (p *parser) modifiers() modifier {
	switch p.peek().kind {
	case kPlus:
		p.next()
		return modReq
	case kMinus, kNot:
		p.next()
		return modNot
	}
	return modNone
}

// addClause is Lucene's QueryParserBase.addClause.
func (p *parser) addClause(clauses *[]clause, conj conjunction, mods modifier, n Node) {
	cs := *clauses
	if len(cs) > 0 {
		last := &cs[len(cs)-1]
		// AND makes the preceding clause required, OR (under the AND
		// operator) optional, unless it is prohibited.
		if conj == conjAnd && last.occ != mustNot {
			last.occ = must
		}
		if p.opts.DefaultOperator == AND && conj == conjOr && last.occ != mustNot {
			last.occ = should
		}
	}
	prohibited := mods == modNot
	var required bool
	if p.opts.DefaultOperator == OR {
		required = mods == modReq || (conj == conjAnd && !prohibited)
	} else {
		required = !prohibited && conj != conjOr
	}
	occ := should
	switch {
	case prohibited:
		occ = mustNot
	case required:
		occ = must
	}
	*clauses = append(cs, clause{n: n, occ: occ})
}

// clause is Lucene's Clause production: an optional field, then a term or a
// parenthesized query.
func (p *parser) clause(field string, depth int) (Node, *SyntaxError) {
	t := p.peek()
	if t.kind == kTerm || t.kind == kStar {
		if lexDefault(p.q, t.end).kind == kColon {
			p.next()
			p.next()
			if t.kind == kStar {
				field = "*"
			} else {
				f, err := unescape(p.q[t.pos:t.end], t.pos)
				if err != nil {
					return nil, err
				}
				field = f
			}
			t = p.peek()
		}
	}
	if t.kind != kLParen {
		return p.term(field, depth)
	}
	if depth >= MaxDepth {
		return nil, &SyntaxError{Pos: t.pos, Msg: "Parentheses nest deeper than " + strconv.Itoa(MaxDepth) + " levels"}
	}
	p.next()
	n, err := p.query(field, depth+1)
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != kRParen {
		return nil, p.unexpected(t, `")"`)
	}
	p.next()
	return n, p.boost()
}

// boost accepts an optional ^number; boosts only affect scoring, so the
// value is dropped.
func (p *parser) boost() *SyntaxError {
	if p.peek().kind != kCarat {
		return nil
	}
	p.next()
	t := lexNumber(p.q, p.pos)
	if t.kind != kNumber {
		return &SyntaxError{Pos: t.pos, Msg: "Encountered " + describe(p.q, t), Expected: "a number"}
	}
	p.pos = t.end
	return nil
}

// suffixes accepts ^boost and ~slop in either order and returns the slop
// token (kind kEOF when there is none).
func (p *parser) suffixes() (token, *SyntaxError) {
	var slop token
	if p.peek().kind == kCarat {
		if err := p.boost(); err != nil {
			return slop, err
		}
		if t := p.peek(); t.kind == kSlop {
			slop = p.next()
		}
		return slop, nil
	}
	if t := p.peek(); t.kind == kSlop {
		slop = p.next()
		return slop, p.boost()
	}
	return slop, nil
}

// term is Lucene's Term production plus Elasticsearch's query_string
// interpretation of each kind.
func (p *parser) term(field string, depth int) (Node, *SyntaxError) {
	t := p.peek()
	switch t.kind {
	case kRangeIn, kRangeEx:
		p.next()
		return p.rangeQuery(field, t)
	case kQuoted:
		p.next()
		slop, err := p.suffixes()
		if err != nil {
			return nil, err
		}
		text, err := unescape(p.q[t.pos+1:t.end-1], t.pos+1)
		if err != nil {
			return nil, err
		}
		if n, err := special(field, text, t.pos, depth); n != nil || err != nil {
			return n, err
		}
		return &Term{Field: field, Value: text, Phrase: true, Fuzzy: phraseSlop(p.q[slop.pos:slop.end])}, nil
	case kTerm, kStar, kPrefix, kWild, kRegexp, kBareOp:
		p.next()
	default:
		return nil, p.unexpected(t, "a term")
	}
	slop, err := p.suffixes()
	if err != nil {
		return nil, err
	}
	raw := p.q[t.pos:t.end]
	switch t.kind {
	case kStar:
		if field == "" || field == "*" {
			return &MatchAll{}, nil
		}
		return &Exists{Field: field}, nil
	case kWild:
		if !p.opts.AllowLeadingWildcard && (raw[0] == '*' || raw[0] == '?') {
			return nil, &SyntaxError{Pos: t.pos, Msg: "'*' or '?' not allowed as first character in WildcardQuery"}
		}
		return &Wildcard{Field: field, Pattern: normalizeWild(raw)}, nil
	case kPrefix:
		prefix, err := unescape(raw[:len(raw)-1], t.pos)
		if err != nil {
			return nil, err
		}
		if !p.opts.AllowLeadingWildcard && strings.HasPrefix(prefix, "*") {
			return nil, &SyntaxError{Pos: t.pos, Msg: "'*' not allowed as first character in PrefixQuery"}
		}
		return &Wildcard{Field: field, Pattern: escapeWild(prefix) + "*"}, nil
	case kRegexp:
		pattern := raw[1 : len(raw)-1]
		if err := checkRegexp(pattern, t.pos+1); err != nil {
			return nil, err
		}
		return &Regexp{Field: field, Pattern: pattern}, nil
	}
	text := raw[:1] // a bare operator searches for itself
	if t.kind == kTerm {
		if text, err = unescape(raw, t.pos); err != nil {
			return nil, err
		}
	}
	if slop.kind == kSlop {
		fuzzy := p.q[slop.pos:slop.end]
		if !validFuzziness(fuzzy[1:]) {
			return nil, &SyntaxError{Pos: slop.pos, Msg: "Invalid fuzziness " + strconv.Quote(fuzzy), Expected: "~, ~AUTO or ~ and a number"}
		}
		return &Term{Field: field, Value: text, Fuzzy: fuzzy}, nil
	}
	if n, err := special(field, text, t.pos, depth); n != nil || err != nil {
		return n, err
	}
	// Elasticsearch reads >, >=, < and <= before a value as a one-sided
	// range, but only after an explicit field.
	if field != "" && len(text) > 1 {
		switch text[0] {
		case '>':
			if len(text) > 2 && text[1] == '=' {
				return newRange(field, text[2:], "", true, true), nil
			}
			return newRange(field, text[1:], "", false, true), nil
		case '<':
			if len(text) > 2 && text[1] == '=' {
				return newRange(field, "", text[2:], true, true), nil
			}
			return newRange(field, "", text[1:], true, false), nil
		}
	}
	return &Term{Field: field, Value: text}, nil
}

// special handles the pseudo fields _exists_ and _missing_, which take a
// field name as their value. It returns nil for any other field.
func special(field, value string, pos, depth int) (Node, *SyntaxError) {
	switch field {
	case "_exists_":
		return &Exists{Field: value}, nil
	case "_missing_":
		// The negation is a group of its own: printed back it needs
		// parentheses, so it counts as a level of nesting.
		if depth >= MaxDepth {
			return nil, &SyntaxError{Pos: pos, Msg: "Parentheses nest deeper than " + strconv.Itoa(MaxDepth) + " levels"}
		}
		return &Bool{MustNot: []Node{&Exists{Field: value}}}, nil
	}
	return nil, nil
}

// validFuzziness accepts what Elasticsearch's Fuzziness does after "~":
// nothing, AUTO, or a non-negative number.
func validFuzziness(s string) bool {
	if s == "" || strings.EqualFold(s, "AUTO") {
		return true
	}
	dot := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
		case c == '.' && !dot && i > 0 && i < len(s)-1:
			dot = true
		default:
			return false
		}
	}
	return true
}

// phraseSlop normalizes a phrase's "~n" as Lucene reads it: the integer part
// of a number, anything unreadable meaning the default slop of 0.
func phraseSlop(slop string) string {
	if len(slop) < 2 {
		return ""
	}
	f, err := strconv.ParseFloat(slop[1:], 64)
	if err != nil || math.IsNaN(f) || f < 1 {
		return ""
	}
	return "~" + strconv.Itoa(int(min(f, math.MaxInt32)))
}
