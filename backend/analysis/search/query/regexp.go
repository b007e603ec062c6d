package query

import (
	"errors"
	"regexp"
	"regexp/syntax"
	"strings"

	"github.com/loggate/loggate/backend/logs/javaregex"
)

// CompileRegexp compiles the pattern of a Regexp node so that it matches a
// whole value, as Lucene's RegExp does. The parser calls it to refuse a
// pattern no store could run (with the position of the fault) before a
// search starts; the embedded store calls it to run the pattern.
func CompileRegexp(pattern string) (*regexp.Regexp, error) {
	if err := javaregex.CheckSize(pattern); err != nil {
		return nil, err
	}
	return regexp.Compile(`^(?:` + pattern + `)$`)
}

// checkRegexp returns a SyntaxError for a pattern that does not compile; pos
// is the byte offset of the pattern in the query.
func checkRegexp(pattern string, pos int) *SyntaxError {
	_, err := CompileRegexp(pattern)
	if err == nil {
		return nil
	}
	msg := err.Error()
	var se *syntax.Error
	if errors.As(err, &se) {
		msg = se.Code.String()
		// Expr may include the anchors CompileRegexp added.
		expr := strings.TrimSuffix(strings.TrimPrefix(se.Expr, "^(?:"), ")$")
		if i := strings.Index(pattern, expr); expr != "" && i >= 0 {
			pos += i
			msg += ": " + expr
		}
	}
	return &SyntaxError{Pos: pos, Msg: "Invalid regular expression (" + msg + ")"}
}
