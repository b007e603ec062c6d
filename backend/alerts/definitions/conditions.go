package definitions

import (
	"encoding/json"
	"fmt"
	"math"
)

// Expr is one node of an aggregation's condition tree (Graylog's
// org.graylog.events.conditions.Expr), as clients send it:
// {"expr":">","left":{"expr":"number-ref","ref":"<series id>"},
// "right":{"expr":"number","value":10}}. Boolean nodes are true, &&, ||, !
// and group; comparisons ==, >, >=, <, <= take number nodes (number,
// number-ref).
type Expr struct {
	Expr     string   `json:"expr"`
	Left     *Expr    `json:"left,omitempty"`
	Right    *Expr    `json:"right,omitempty"`
	Child    *Expr    `json:"child,omitempty"`
	Operator string   `json:"operator,omitempty"`
	Value    *float64 `json:"value,omitempty"`
	Ref      string   `json:"ref,omitempty"`
}

// maxDepth bounds a condition tree, so that a hostile body cannot make the
// checks and the evaluation recurse without end.
const maxDepth = 64

// ParseExpr reads a condition tree and checks its shape.
func ParseExpr(b []byte) (*Expr, error) {
	var e *Expr
	if err := json.Unmarshal(b, &e); err != nil {
		return nil, err
	}
	if e == nil {
		return nil, nil
	}
	return e, e.check(true, 0)
}

// check reports a node that is not of the kind its parent needs: a boolean
// (wantBool) or a number.
func (e *Expr) check(wantBool bool, depth int) error {
	if e == nil {
		return fmt.Errorf("condition expression is missing an operand")
	}
	if depth > maxDepth {
		return fmt.Errorf("condition expression is nested deeper than %d", maxDepth)
	}
	kind := func(isBool bool) error {
		if isBool != wantBool {
			want := "a number"
			if wantBool {
				want = "a boolean"
			}
			return fmt.Errorf("condition expression %q where %s is expected", e.Expr, want)
		}
		return nil
	}
	switch e.Expr {
	case "true":
		return kind(true)
	case "&&", "||":
		if err := kind(true); err != nil {
			return err
		}
		if err := e.Left.check(true, depth+1); err != nil {
			return err
		}
		return e.Right.check(true, depth+1)
	case "!":
		if err := kind(true); err != nil {
			return err
		}
		return e.Left.check(true, depth+1)
	case "group":
		if err := kind(true); err != nil {
			return err
		}
		if e.Operator != "&&" && e.Operator != "||" {
			return fmt.Errorf("condition group operator %q; use && or ||", e.Operator)
		}
		return e.Child.check(true, depth+1)
	case "==", ">", ">=", "<", "<=":
		if err := kind(true); err != nil {
			return err
		}
		if err := e.Left.check(false, depth+1); err != nil {
			return err
		}
		return e.Right.check(false, depth+1)
	case "number":
		if e.Value == nil {
			return fmt.Errorf("condition number without a value")
		}
		return kind(false)
	case "number-ref":
		if e.Ref == "" {
			return fmt.Errorf("condition number-ref without a ref")
		}
		return kind(false)
	}
	return fmt.Errorf("unknown condition expression %q", e.Expr)
}

// Refs returns the series ids the tree refers to.
func (e *Expr) Refs() []string {
	if e == nil {
		return nil
	}
	var out []string
	if e.Expr == "number-ref" {
		out = append(out, e.Ref)
	}
	for _, c := range []*Expr{e.Left, e.Right, e.Child} {
		out = append(out, c.Refs()...)
	}
	return out
}

// Holds evaluates a checked boolean tree over the series values of one
// result row. A series without a value (the average of nothing) is NaN, and
// every comparison with NaN is false, as in Java.
func (e *Expr) Holds(values map[string]float64) bool {
	switch e.Expr {
	case "true":
		return true
	case "&&":
		return e.Left.Holds(values) && e.Right.Holds(values)
	case "||":
		return e.Left.Holds(values) || e.Right.Holds(values)
	case "!":
		return !e.Left.Holds(values)
	case "group":
		return e.Child.Holds(values)
	}
	l, r := e.Left.number(values), e.Right.number(values)
	switch e.Expr {
	case "==":
		return l == r
	case ">":
		return l > r
	case ">=":
		return l >= r
	case "<":
		return l < r
	case "<=":
		return l <= r
	}
	return false
}

func (e *Expr) number(values map[string]float64) float64 {
	if e.Expr == "number" {
		return *e.Value
	}
	if v, ok := values[e.Ref]; ok {
		return v
	}
	return math.NaN()
}
