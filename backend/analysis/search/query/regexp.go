package query

import (
	"errors"
	"regexp"
	"regexp/syntax"

	"github.com/loggate/loggate/backend/logs/javaregex"
)

// CompileRegexp compiles the pattern of a Regexp node, in Lucene's RegExp
// syntax (see luceneToRE2), so that it matches a whole value, as Lucene's
// RegExp does. The parser calls it to refuse a pattern no store could run
// (with the position of the fault) before a search starts; the embedded
// store calls it to run the pattern. Errors are *RegexpError.
func CompileRegexp(pattern string) (*regexp.Regexp, error) {
	re2, err := luceneToRE2(pattern)
	if err != nil {
		return nil, err
	}
	if err := javaregex.CheckSize(re2); err != nil {
		return nil, &RegexpError{Msg: err.Error()}
	}
	re, err := regexp.Compile(`^` + re2 + `$`)
	if err != nil {
		msg := err.Error()
		var se *syntax.Error
		if errors.As(err, &se) {
			msg = se.Code.String()
		}
		return nil, &RegexpError{Msg: msg}
	}
	return re, nil
}

// checkRegexp returns a SyntaxError for a pattern that does not compile; pos
// is the byte offset of the pattern in the query.
func checkRegexp(pattern string, pos int) *SyntaxError {
	_, err := CompileRegexp(pattern)
	if err == nil {
		return nil
	}
	var re *RegexpError
	if errors.As(err, &re) {
		return &SyntaxError{Pos: pos + re.Pos, Msg: "Invalid regular expression (" + re.Msg + ")"}
	}
	return &SyntaxError{Pos: pos, Msg: "Invalid regular expression (" + err.Error() + ")"}
}
