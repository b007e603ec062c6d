package lang

import (
	"fmt"
	"slices"
	"time"
)

// Function is a function rules may call, described as Graylog's
// FunctionDescriptor is.
type Function struct {
	Name        string
	Description string
	// Pure functions have no side effects.
	Pure   bool
	Return Type
	Params []Param
	// Call runs the function. The arguments are in parameter order, each
	// in its prepared form (see Param.Prepare). An error is a run-time
	// error of the rule.
	Call func(c *Context, a Args) (any, error)
}

// Param is one parameter of a function.
type Param struct {
	Name        string
	Type        Type
	Optional    bool
	Description string
	// Prepare, when set, turns the argument into the form the function
	// works with (a compiled regular expression for a pattern). A constant
	// argument is prepared once, when the rule is parsed, and an error then
	// is a parse error (invalid_function_argument); other arguments are
	// prepared on every call. A nil argument is never prepared.
	Prepare func(v any) (any, error)
	// Transformed is the type Prepare returns, for the function listing;
	// the parameter's own type when zero.
	Transformed Type
}

// Functions finds functions by name.
type Functions interface {
	Function(name string) (*Function, bool)
}

// Args are the arguments of one call.
type Args struct {
	vals []any
	set  []bool
}

// NewArgs returns arguments in parameter order; set tells which were
// given. For tests of functions.
func NewArgs(vals []any, set []bool) Args { return Args{vals: vals, set: set} }

// Has reports whether argument i was given (and is not null).
func (a Args) Has(i int) bool { return i < len(a.vals) && a.set[i] && a.vals[i] != nil }

// Get returns argument i, nil when absent.
func (a Args) Get(i int) any {
	if i < len(a.vals) {
		return a.vals[i]
	}
	return nil
}

// String returns argument i as a string, def when absent.
func (a Args) String(i int, def string) string {
	if s, ok := a.Get(i).(string); ok && a.Has(i) {
		return s
	}
	return def
}

// Long returns argument i as a long, def when absent.
func (a Args) Long(i int, def int64) int64 {
	if n, ok := a.Get(i).(int64); ok && a.Has(i) {
		return n
	}
	return def
}

// Bool returns argument i as a boolean, def when absent.
func (a Args) Bool(i int, def bool) bool {
	if b, ok := a.Get(i).(bool); ok && a.Has(i) {
		return b
	}
	return def
}

// Message returns the message argument i names, the current one when
// absent.
func (a Args) Message(c *Context, i int) *Message {
	if m, ok := a.Get(i).(*Message); ok && a.Has(i) {
		return m
	}
	return c.Message
}

// Context is what a rule runs with: the message, the rule's variables,
// the messages it created.
type Context struct {
	Message *Message
	// Created collects the messages create_message and clone_message made;
	// the interpreter runs them in its next round.
	Created []*Message
	// Now is the clock of now() and of created messages.
	Now  func() time.Time
	vars []any
	// argv is the stack of argument slots of the calls under way (see
	// call.Eval).
	argv []any
	// results are the match results handed out since the last Reset,
	// kept with their capture buffers for the next message.
	results  []*MatchResult
	nresults int
}

// NewContext returns the context of rules running on m.
func NewContext(m *Message, now func() time.Time) *Context {
	if now == nil {
		now = time.Now
	}
	return &Context{Message: m, Now: now}
}

// Reset makes c the context of rules running on m, keeping its buffers;
// the match results of the previous message are taken back.
func (c *Context) Reset(m *Message) {
	c.Message, c.Created = m, nil
	for _, r := range c.results[:c.nresults] {
		// Dropping the references: a pooled context keeps no message
		// text alive.
		clear(r.caps)
		r.caps, r.groups = r.caps[:0], nil
	}
	c.nresults = 0
	// The argument slots of the last message's calls.
	clear(c.argv[:cap(c.argv)])
}

// NewMatchList is NewMatchList for a function running in c: the result
// and its captures reuse storage of earlier messages, so that a match
// costs no allocation once the context is warm. The result is valid until
// c is Reset: the interpreter does that after the message's rules ran,
// when no rule can still hold it (a field set to a result stores its text).
func (c *Context) NewMatchList(matches bool, n int) *MatchResult {
	if c.nresults == len(c.results) {
		c.results = append(c.results, new(MatchResult))
	}
	r := c.results[c.nresults]
	c.nresults++
	return r.init(matches, slices.Grow(r.caps[:0], n))
}

// Run errors are a rule's run-time failures, worded as Graylog records
// them in gl2_processing_error.
type callError struct {
	fn        string
	line, col int
	err       error
}

func (e *callError) Error() string {
	return fmt.Sprintf("In call to function '%s' at %d:%d an exception was thrown: %s", e.fn, e.line, e.col, e.err.Error())
}

func (e *callError) Unwrap() error { return e.err }

type evalError struct {
	line, col int
	err       error
}

func (e *evalError) Error() string {
	return fmt.Sprintf("At %d:%d an exception was thrown: %s", e.line, e.col, e.err.Error())
}

func (e *evalError) Unwrap() error { return e.err }
