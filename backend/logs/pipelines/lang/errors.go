package lang

import (
	"fmt"
	"strings"
)

// Error is one parse error in Graylog 4.0's shape: the kind ("syntax_error",
// "undeclared_function", …), where (line from 1, position in the line from
// 0) and why.
type Error struct {
	Type     string `json:"type"`
	Line     int    `json:"line"`
	Position int    `json:"position_in_line"`
	Reason   string `json:"reason"`
}

// Errors are the parse errors of one source, in the order found. Graylog
// answers them as a JSON array with a 400.
type Errors []Error

func (e Errors) Error() string {
	parts := make([]string, len(e))
	for i, x := range e {
		parts[i] = fmt.Sprintf("%d:%d %s: %s", x.Line, x.Position, x.Type, x.Reason)
	}
	return strings.Join(parts, "; ")
}

func (e *Errors) add(x Error) {
	// ANTLR reports each place once; so do we.
	for _, y := range *e {
		if y == x {
			return
		}
	}
	*e = append(*e, x)
}

// at formats Graylog's " in line L pos P" suffix.
func at(t token) string { return fmt.Sprintf(" in line %d pos %d", t.line, t.col) }

func (p *parser) fail(t token, kind, reason string) {
	p.errs.add(Error{Type: kind, Line: t.line, Position: t.col, Reason: reason})
}

// failAt reports a type error with Graylog's position suffix.
func (p *parser) failAt(t token, kind, format string, args ...any) {
	p.fail(t, kind, fmt.Sprintf(format, args...)+at(t))
}
