package query

import (
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"
)

// SyntaxError reports a query that does not parse. Pos is the byte offset in
// Query where parsing failed.
type SyntaxError struct {
	Query    string
	Pos      int
	Msg      string // what was found, e.g. `Encountered "AND"` or "Unterminated phrase"
	Expected string // what would have been accepted, e.g. "a term"; may be empty
}

// maxQuoted caps how much of the query an error message repeats.
const maxQuoted = 200

// Error returns Lucene's style of message, e.g. "Cannot parse 'foo AND':
// Encountered end of input at position 7; expected a term".
func (e *SyntaxError) Error() string {
	q := e.Query
	if len(q) > maxQuoted {
		cut := maxQuoted
		for cut > 0 && !utf8.RuneStart(q[cut]) {
			cut--
		}
		q = q[:cut] + "…"
	}
	return "Cannot parse '" + q + "': " + e.Detail()
}

// Detail is the message without the query: what went wrong and where.
func (e *SyntaxError) Detail() string {
	s := e.Msg + " at position " + strconv.Itoa(e.Pos)
	if e.Expected != "" {
		s += "; expected " + e.Expected
	}
	return s
}

// LineColumn returns the 1-based line and column of Pos; columns count
// characters, not bytes.
func (e *SyntaxError) LineColumn() (line, column int) {
	pos := min(max(e.Pos, 0), len(e.Query))
	before := e.Query[:pos]
	lineStart := strings.LastIndexByte(before, '\n') + 1
	return strings.Count(before, "\n") + 1, utf8.RuneCountInString(before[lineStart:]) + 1
}

// ErrorType is the "type" of Graylog 4.0's QueryParseError body. The class has
// no @JsonTypeName, so Jackson's default type id applies: the simple name of
// the AutoValue class that is actually serialized (ApiError carries an explicit
// @JsonTypeName precisely to avoid this "AutoValue_" prefix).
const ErrorType = "AutoValue_QueryParseError"

// ErrorBody is Graylog's 400 body for a search query that does not parse
// (QueryParseError, mapped from QueryParsingException).
type ErrorBody struct {
	Type    string   `json:"type"`
	Message string   `json:"message"`
	Details []string `json:"details"`
	Line    int      `json:"line"`
	Column  int      `json:"column"`
}

// Body returns the error as Graylog's QueryParseError body.
func (e *SyntaxError) Body() ErrorBody {
	line, col := e.LineColumn()
	return ErrorBody{Type: ErrorType, Message: e.Error(), Details: []string{e.Detail()}, Line: line, Column: col}
}

// BodyOf returns the QueryParseError body for err when err is or wraps a
// *SyntaxError. The search service gives it to the error it answers with.
func BodyOf(err error) (ErrorBody, bool) {
	var se *SyntaxError
	if !errors.As(err, &se) {
		return ErrorBody{}, false
	}
	return se.Body(), true
}
