package query

import (
	"strings"
	"unicode/utf8"
)

// ToString prints n as a query in canonical form: every clause of a Bool
// carries its operator (+ must, - must not, none should), Must clauses first,
// then Should, then MustNot; nested Bools are parenthesized; ranges use
// brackets; boosts are gone. Parsed with the default Options (operator OR,
// as Elasticsearch's query_string uses unless told otherwise), the output
// gives back a tree equal to n when n came from Parse.
func ToString(n Node) string {
	var b strings.Builder
	printNode(&b, n, false)
	return b.String()
}

func printNode(b *strings.Builder, n Node, nested bool) {
	switch n := n.(type) {
	case *Term:
		printField(b, n.Field)
		switch {
		case n.Phrase || n.Value == "" ||
			(n.Field != "" && n.Fuzzy == "" && len(n.Value) > 1 && (n.Value[0] == '<' || n.Value[0] == '>')):
			// Only a quoted value keeps ">10" from reading as a range.
			printQuoted(b, n.Value)
		default:
			printTerm(b, n.Value)
		}
		b.WriteString(n.Fuzzy)
	case *Wildcard:
		printField(b, n.Field)
		printPattern(b, n.Pattern)
	case *Regexp:
		printField(b, n.Field)
		printRegexp(b, n.Pattern)
	case *Range:
		printField(b, n.Field)
		b.WriteByte("{["[btoi(n.IncludeLower || n.Lower == "")])
		printBound(b, n.Lower)
		b.WriteString(" TO ")
		printBound(b, n.Upper)
		b.WriteByte("}]"[btoi(n.IncludeUpper || n.Upper == "")])
	case *Exists:
		b.WriteString("_exists_:")
		if n.Field == "" {
			b.WriteString(`""`)
		} else {
			printTerm(b, n.Field)
		}
	case *MatchAll:
		b.WriteByte('*')
	case *Bool:
		printBool(b, n, nested)
	case nil:
		b.WriteString("-*")
	}
}

func printBool(b *strings.Builder, n *Bool, nested bool) {
	if nested {
		b.WriteByte('(')
	}
	sep, word := false, false
	for _, group := range [...]struct {
		prefix  string
		clauses []Node
	}{{"+", n.Must}, {"", n.Should}, {"-", n.MustNot}} {
		for _, c := range group.clauses {
			if sep {
				// Two optional words side by side would parse back as
				// one text (see multiTerm): OR keeps them apart.
				if w := group.prefix == "" && bareWord(c); w && word {
					b.WriteString(" OR ")
				} else {
					b.WriteByte(' ')
				}
			}
			sep = true
			word = group.prefix == "" && bareWord(c)
			b.WriteString(group.prefix)
			printNode(b, c, true)
		}
	}
	if !sep {
		// No clause matches nothing; so does "everything but everything".
		b.WriteString("-*")
	}
	if nested {
		b.WriteByte(')')
	}
}

// bareWord reports whether n prints as a word without a field, quotes or
// suffix: a word that a neighbouring word would join.
func bareWord(n Node) bool {
	t, ok := n.(*Term)
	return ok && t.Field == "" && !t.Phrase && t.Fuzzy == "" && t.Value != ""
}

func btoi(v bool) int {
	if v {
		return 1
	}
	return 0
}

func printField(b *strings.Builder, field string) {
	if field == "" {
		return
	}
	printTerm(b, field)
	b.WriteByte(':')
}

// needsEscape reports the characters that cannot appear unescaped in a
// term; i is the byte offset in the term, since + and - only matter first.
// Control characters are escaped too: Graylog trims them off the ends of a
// query before deciding whether it is empty.
func needsEscape(r rune, i int) bool {
	switch r {
	case '+', '-':
		return i == 0
	case '*', '?':
		return true
	}
	return r < ' ' || !isTermStart(r)
}

func printTerm(b *strings.Builder, s string) {
	switch s {
	case "AND", "OR", "NOT", "&&", "||":
		// Escaping the first character keeps it a word.
		b.WriteByte('\\')
	}
	for i, r := range s {
		if needsEscape(r, i) {
			b.WriteByte('\\')
		}
		writeRune(b, s, i, r)
	}
}

// writeRune copies the rune at s[i] as is, even if it is invalid UTF-8.
func writeRune(b *strings.Builder, s string, i int, r rune) {
	if r == utf8.RuneError {
		_, n := utf8.DecodeRuneInString(s[i:])
		b.WriteString(s[i : i+n])
		return
	}
	b.WriteRune(r)
}

func printQuoted(b *strings.Builder, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '"' || c == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	b.WriteByte('"')
}

// printPattern prints a Wildcard pattern: wildcards and its own escapes as
// they are, other characters escaped as in a term.
func printPattern(b *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			b.WriteByte('\\')
			if i+1 < len(s) {
				i++
				_, n := utf8.DecodeRuneInString(s[i:])
				b.WriteString(s[i : i+n])
				i += n - 1
			} else {
				b.WriteByte('\\')
			}
		case c == '*' || c == '?':
			b.WriteByte(c)
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			if needsEscape(r, i) {
				b.WriteByte('\\')
			}
			b.WriteString(s[i : i+n])
			i += n - 1
		}
	}
}

func printRegexp(b *strings.Builder, s string) {
	b.WriteByte('/')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			b.WriteByte(c)
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i])
			}
		case '/':
			b.WriteString(`\/`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('/')
}

// printBound prints a range bound bare when Lucene's range state reads it
// back unchanged, and quoted otherwise.
func printBound(b *strings.Builder, s string) {
	if s == "" {
		b.WriteByte('*')
		return
	}
	bare := s != "TO" && s != "*" && s[0] != '"'
	for _, r := range s {
		if isBlank(r) || r == ']' || r == '}' || r == '\\' {
			bare = false
			break
		}
	}
	if bare {
		b.WriteString(s)
		return
	}
	printQuoted(b, s)
}
