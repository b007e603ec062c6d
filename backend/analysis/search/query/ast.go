package query

// Node is a parsed query: one of *Term, *Wildcard, *Regexp, *Range, *Exists,
// *Bool and *MatchAll.
//
// A Field of "" stands for the default fields. Graylog 4.0 leaves
// Elasticsearch's index.query.default_field at "*", so a clause without a
// field searches every field of a message. A Field may itself be a pattern
// such as "http_*" (written http_\*:value), which Elasticsearch expands
// against the mapping; "*" is every field.
type Node interface {
	// String returns ToString of the node.
	String() string
	node()
}

// Term matches a word, or with Phrase a phrase, in a field. Elasticsearch
// analyzes both with the field's analyzer; a keyword field compares the whole
// value.
type Term struct {
	Field  string
	Value  string // unescaped
	Phrase bool   // written in double quotes
	// Fuzzy is the "~" suffix as written: "~" or "~2" on a word asks for a
	// fuzzy match (Elasticsearch's AUTO fuzziness, or that many edits); "~3"
	// on a phrase is the phrase slop. "" when absent.
	Fuzzy string
}

// Wildcard matches a field against a pattern in Lucene's wildcard syntax: *
// matches any run of characters, ? one character, and a backslash makes the
// next *, ? or \ literal. Prefix queries (foo*) are Wildcards too.
type Wildcard struct {
	Field   string
	Pattern string
}

// Regexp matches a field against a regular expression in Lucene's RegExp
// syntax, exactly as written between the slashes (so "\/" stands for a slash).
// The whole value must match, as in Lucene.
type Regexp struct {
	Field   string
	Pattern string
}

// Range matches values between Lower and Upper. An empty bound is open (written
// * in the query); the Include flag of an open bound is always true.
// Elasticsearch compares numbers, dates and strings according to the field's
// mapping.
type Range struct {
	Field        string
	Lower, Upper string
	IncludeLower bool
	IncludeUpper bool
}

// Exists matches messages that have a value in Field.
type Exists struct {
	Field string
}

// Bool combines clauses as Lucene's BooleanQuery does in Elasticsearch's
// query_string query:
//   - every Must clause must match, and no MustNot clause may;
//   - Should clauses are optional when there is a Must clause; otherwise at
//     least one of them must match;
//   - a Bool with only MustNot clauses matches everything else (Elasticsearch
//     adds a match-all clause to purely negative groups);
//   - a Bool without any clause matches nothing.
type Bool struct {
	Must    []Node
	Should  []Node
	MustNot []Node
}

// MatchAll matches every message: the query *, *:* or an empty query.
type MatchAll struct{}

func (*Term) node()     {}
func (*Wildcard) node() {}
func (*Regexp) node()   {}
func (*Range) node()    {}
func (*Exists) node()   {}
func (*Bool) node()     {}
func (*MatchAll) node() {}

func (n *Term) String() string     { return ToString(n) }
func (n *Wildcard) String() string { return ToString(n) }
func (n *Regexp) String() string   { return ToString(n) }
func (n *Range) String() string    { return ToString(n) }
func (n *Exists) String() string   { return ToString(n) }
func (n *Bool) String() string     { return ToString(n) }
func (n *MatchAll) String() string { return ToString(n) }

// Walk calls fn for n and, depth first, for every node below it: the clauses
// of a Bool in the order Must, Should, MustNot. When fn returns false, Walk
// skips the children of that node.
func Walk(n Node, fn func(Node) bool) {
	if n == nil || !fn(n) {
		return
	}
	b, ok := n.(*Bool)
	if !ok {
		return
	}
	for _, list := range [...][]Node{b.Must, b.Should, b.MustNot} {
		for _, c := range list {
			Walk(c, fn)
		}
	}
}
