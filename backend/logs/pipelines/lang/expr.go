package lang

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"net/netip"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Expr is a compiled expression: type-checked when the rule was parsed,
// evaluated against a message by Eval.
type Expr interface {
	Eval(c *Context) (any, error)
	Type() Type
	node() *base
}

// base holds what every expression has: where it starts, its source text
// and its static type.
type base struct {
	start token
	text  string
	typ   Type
}

func (b *base) Type() Type  { return b.typ }
func (b *base) node() *base { return b }

// fail wraps an evaluation error with the place of the expression.
func (b *base) fail(err error) error {
	var ce *callError
	var ee *evalError
	if errors.As(err, &ce) || errors.As(err, &ee) {
		return err
	}
	return &evalError{line: b.start.line, col: b.start.col, err: err}
}

type literal struct {
	base
	v any
}

func (e *literal) Eval(*Context) (any, error) { return e.v, nil }

// constant reports the value of an expression known when the rule is
// parsed: a literal, or a list or map of them.
func constant(e Expr) (any, bool) {
	switch x := e.(type) {
	case *literal:
		return x.v, true
	case *listLit:
		out := make([]any, len(x.elems))
		for i, el := range x.elems {
			v, ok := constant(el)
			if !ok {
				return nil, false
			}
			out[i] = v
		}
		return out, true
	case *mapLit:
		out := make(map[string]any, len(x.keys))
		for i, k := range x.keys {
			v, ok := constant(x.vals[i])
			if !ok {
				return nil, false
			}
			out[k] = v
		}
		return out, true
	}
	return nil, false
}

type messageField struct {
	base
	name string
}

func (e *messageField) Eval(c *Context) (any, error) {
	if e.name == "" {
		return c.Message, nil
	}
	return c.Message.Field(e.name), nil
}

type variable struct {
	base
	slot int
}

func (e *variable) Eval(c *Context) (any, error) { return c.vars[e.slot], nil }

type listLit struct {
	base
	elems []Expr
}

func (e *listLit) Eval(c *Context) (any, error) {
	out := make([]any, len(e.elems))
	for i, el := range e.elems {
		v, err := el.Eval(c)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

type mapLit struct {
	base
	keys []string
	vals []Expr
}

func (e *mapLit) Eval(c *Context) (any, error) {
	out := make(map[string]any, len(e.keys))
	for i, k := range e.keys {
		v, err := e.vals[i].Eval(c)
		if err != nil {
			return nil, err
		}
		out[k] = v
	}
	return out, nil
}

// fieldAccess is a.b: a map's key, a regex match's .matches, a JSON
// object's member, a date's property.
type fieldAccess struct {
	base
	obj  Expr
	name string
}

func (e *fieldAccess) Eval(c *Context) (any, error) {
	v, err := e.obj.Eval(c)
	if err != nil {
		return nil, err
	}
	return property(v, e.name), nil
}

// property reads a named property of v, nil when it has none: the map key
// first, then the bean property (name, then the lowerCamelCase of a
// snake_case name), as Graylog's FieldAccessExpression does.
func property(v any, name string) any {
	switch x := v.(type) {
	case *MatchResult:
		if name == "matches" {
			return x.Matches
		}
		return x.Get(name)
	case map[string]any:
		return x[name]
	case JSONNode:
		if m, ok := x.V.(map[string]any); ok {
			return FromJSON(m[name])
		}
		return nil
	case *Message:
		return x.Field(name)
	case time.Time:
		switch camel(name) {
		case "year":
			return int64(x.Year())
		case "monthOfYear":
			return int64(x.Month())
		case "dayOfMonth":
			return int64(x.Day())
		case "dayOfWeek":
			return int64((int(x.Weekday())+6)%7 + 1)
		case "dayOfYear":
			return int64(x.YearDay())
		case "hourOfDay":
			return int64(x.Hour())
		case "minuteOfHour":
			return int64(x.Minute())
		case "secondOfMinute":
			return int64(x.Second())
		case "millisOfSecond":
			return int64(x.Nanosecond() / 1e6)
		case "millis":
			return x.UnixMilli()
		}
	case Period:
		switch camel(name) {
		case "years":
			return int64(x.Years)
		case "months":
			return int64(x.Months)
		case "weeks":
			return int64(x.Weeks)
		case "days":
			return int64(x.Days)
		case "hours":
			return int64(x.Hours)
		case "minutes":
			return int64(x.Minutes)
		case "seconds":
			return int64(x.Seconds)
		case "millis":
			return int64(x.Millis)
		}
	}
	return nil
}

func camel(s string) string {
	parts := strings.Split(s, "_")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			r := []rune(parts[i])
			r[0] = unicode.ToUpper(r[0])
			parts[i] = string(r)
		}
	}
	return strings.Join(parts, "")
}

// evalBoth evaluates a, then b, for the expressions that need both
// operands (the logical ones short-circuit instead).
func evalBoth(c *Context, a, b Expr) (av, bv any, err error) {
	if av, err = a.Eval(c); err != nil {
		return nil, nil, err
	}
	if bv, err = b.Eval(c); err != nil {
		return nil, nil, err
	}
	return av, bv, nil
}

type indexExpr struct {
	base
	obj, idx Expr
}

func (e *indexExpr) Eval(c *Context) (any, error) {
	v, i, err := evalBoth(c, e.obj, e.idx)
	if err != nil {
		return nil, err
	}
	switch k := i.(type) {
	case int64:
		l, ok := AsList(v)
		if !ok {
			if v == nil {
				return nil, nil
			}
			return nil, e.fail(fmt.Errorf("cannot index a %s with a number", typeOf(v)))
		}
		if k < 0 || k >= int64(len(l)) {
			return nil, e.fail(fmt.Errorf("index %d out of bounds for length %d", k, len(l)))
		}
		return l[k], nil
	case string:
		if r, ok := v.(*MatchResult); ok {
			return r.Get(k), nil
		}
		if m, ok := AsMap(v); ok {
			return m[k], nil
		}
		if msg, ok := v.(*Message); ok {
			return msg.Field(k), nil
		}
		return nil, nil
	}
	return nil, nil
}

// typeOf names the run-time type of a value as Graylog's messages do.
func typeOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "String"
	case int64:
		return "Long"
	case float64:
		return "Double"
	case bool:
		return "Boolean"
	case time.Time:
		return "DateTime"
	case Period:
		return "Period"
	case []any:
		return "List"
	case map[string]any, *MatchResult:
		return "Map"
	case JSONNode:
		return "JsonNode"
	case netip.Addr:
		return "IpAddress"
	case *Message:
		return "Message"
	}
	return fmt.Sprintf("%T", v)
}

type notExpr struct {
	base
	e Expr
}

func (e *notExpr) Eval(c *Context) (any, error) {
	v, err := e.e.Eval(c)
	if err != nil {
		return nil, err
	}
	b, _ := v.(bool)
	return !b, nil
}

type signExpr struct {
	base
	minus bool
	e     Expr
}

func (e *signExpr) Eval(c *Context) (any, error) {
	v, err := e.e.Eval(c)
	if err != nil || !e.minus {
		return v, err
	}
	switch n := v.(type) {
	case int64:
		return -n, nil
	case float64:
		return -n, nil
	}
	return nil, e.fail(fmt.Errorf("cannot negate a %s", typeOf(v)))
}

type logical struct {
	base
	and  bool
	l, r Expr
}

func (e *logical) Eval(c *Context) (any, error) {
	lv, err := e.l.Eval(c)
	if err != nil {
		return nil, err
	}
	lb, _ := lv.(bool)
	if e.and != lb {
		// false and …, true or …: decided.
		return lb, nil
	}
	rv, err := e.r.Eval(c)
	if err != nil {
		return nil, err
	}
	rb, _ := rv.(bool)
	return rb, nil
}

type binary struct {
	base
	op   string
	l, r Expr
}

func (e *binary) Eval(c *Context) (any, error) {
	lv, rv, err := evalBoth(c, e.l, e.r)
	if err != nil {
		return nil, err
	}
	var v any
	switch e.op {
	case "==", "!=":
		if lv == nil {
			return false, nil
		}
		eq := Equal(lv, rv)
		return eq == (e.op == "=="), nil
	case "<", "<=", ">", ">=":
		v, err = compare(e.op, lv, rv)
	default:
		v, err = arith(e.op, lv, rv)
	}
	if err != nil {
		return nil, e.fail(err)
	}
	return v, nil
}

// Equal is Java's equals as the language applies it: times by instant,
// numbers only of the same type (1 == 1.0 is false), collections by
// content.
func Equal(a, b any) bool {
	switch x := a.(type) {
	case time.Time:
		y, ok := b.(time.Time)
		return ok && x.Equal(y)
	case string, int64, float64, bool:
		return a == b
	case *MatchResult:
		y, ok := b.(*MatchResult)
		return ok && x.Matches == y.Matches && reflect.DeepEqual(x.Map(), y.Map())
	}
	return reflect.DeepEqual(a, b)
}

func compare(op string, a, b any) (bool, error) {
	if a == nil || b == nil {
		return false, errors.New("cannot compare with null")
	}
	var c int
	switch x := a.(type) {
	case time.Time:
		y, ok := b.(time.Time)
		if !ok {
			return false, fmt.Errorf("cannot compare a DateTime with a %s", typeOf(b))
		}
		c = x.Compare(y)
	default:
		_, ld := a.(float64)
		_, rd := b.(float64)
		if ld || rd {
			l, ok1 := toFloat(a)
			r, ok2 := toFloat(b)
			if !ok1 || !ok2 {
				return false, fmt.Errorf("cannot compare a %s with a %s", typeOf(a), typeOf(b))
			}
			c = cmp.Compare(l, r)
		} else {
			l, ok1 := a.(int64)
			r, ok2 := b.(int64)
			if !ok1 || !ok2 {
				return false, fmt.Errorf("cannot compare a %s with a %s", typeOf(a), typeOf(b))
			}
			c = cmp.Compare(l, r)
		}
	}
	switch op {
	case "<":
		return c < 0, nil
	case "<=":
		return c <= 0, nil
	case ">":
		return c > 0, nil
	}
	return c >= 0, nil
}

func toFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case int64:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}

// number applies an arithmetic operator to two numbers of one type; div
// does / and %, which differ between longs and doubles.
func number[T int64 | float64](op string, x, y T, div func(x, y T) (T, error)) (any, error) {
	switch op {
	case "+":
		return x + y, nil
	case "-":
		return x - y, nil
	case "*":
		return x * y, nil
	}
	return div(x, y)
}

func arith(op string, a, b any) (any, error) {
	if a == nil || b == nil {
		return nil, fmt.Errorf("cannot apply %s to null", op)
	}
	switch x := a.(type) {
	case int64:
		if y, ok := b.(int64); ok {
			return number(op, x, y, func(x, y int64) (int64, error) {
				if y == 0 {
					return 0, errors.New("/ by zero")
				}
				if op == "/" {
					return x / y, nil
				}
				return x % y, nil
			})
		}
	case float64:
		if y, ok := b.(float64); ok {
			return number(op, x, y, func(x, y float64) (float64, error) {
				if op == "/" {
					return x / y, nil
				}
				return math.Mod(x, y), nil
			})
		}
	case string:
		if y, ok := b.(string); ok && op == "+" {
			return x + y, nil
		}
	case time.Time:
		switch y := b.(type) {
		case Period:
			if op == "+" {
				return y.AddTo(x), nil
			}
			if op == "-" {
				return plusPeriod(Period{}, y, -1).AddTo(x), nil
			}
		case time.Time:
			if op == "-" {
				return x.Sub(y), nil
			}
		}
	case Period:
		if y, ok := b.(Period); ok && (op == "+" || op == "-") {
			sign := 1
			if op == "-" {
				sign = -1
			}
			return plusPeriod(x, y, sign), nil
		}
	}
	return nil, fmt.Errorf("cannot apply %s to a %s and a %s", op, typeOf(a), typeOf(b))
}

// call is a function call with its arguments in parameter order.
type call struct {
	base
	fn   *Function
	args []Expr // nil where not given
	// prepared holds the prepared constant arguments (Param.Prepare).
	prepared []any
	isConst  []bool
	// given tells the arguments given, the Args' set, the same for every
	// call; prepare are the parameters' Prepare, read once.
	given   []bool
	prepare []func(any) (any, error)
}

func (e *call) Eval(c *Context) (any, error) {
	// The arguments live on the context's stack of argument slots, so
	// that a call allocates nothing for them; nested calls push above.
	n := len(e.args)
	base := len(c.argv)
	c.argv = slices.Grow(c.argv, n)[:base+n]
	vals := c.argv[base : base+n : base+n]
	v, err := e.call(c, vals)
	// Pop. What the slots still hold is dropped when the context is
	// reset, once per message rather than once per call.
	c.argv = c.argv[:base]
	return v, err
}

// call writes every argument slot, the slot of an argument not given
// too: a slot may hold an earlier call's value.
func (e *call) call(c *Context, vals []any) (any, error) {
	for i, a := range e.args {
		if a == nil {
			vals[i] = nil
			continue
		}
		if e.isConst[i] {
			vals[i] = e.prepared[i]
			continue
		}
		v, err := a.Eval(c)
		if err != nil {
			return nil, err
		}
		if p := e.prepare[i]; p != nil && v != nil {
			if v, err = p(v); err != nil {
				return nil, e.callFail(err)
			}
		}
		vals[i] = v
	}
	v, err := e.fn.Call(c, Args{vals: vals, set: e.given})
	if err != nil {
		return nil, e.callFail(err)
	}
	return v, nil
}

func (e *call) callFail(err error) error {
	return &callError{fn: e.fn.Name, line: e.start.line, col: e.start.col, err: err}
}

// parseLong reads an integer literal as Long.parseLong does, '_'
// separators allowed as Java's lexer allows them.
func parseLong(text string) (int64, error) {
	return strconv.ParseInt(strings.ReplaceAll(text, "_", ""), 10, 64)
}
