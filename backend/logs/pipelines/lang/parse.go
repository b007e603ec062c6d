// Package lang is Graylog 4.0's pipeline rule language: it parses rules
// (rule "name" when … then … end) and pipelines (pipeline "name" stage 0
// match either rule "a"; end), type-checks rules against a function
// library, reports parse errors in Graylog's shape, and compiles a rule
// once into a form that runs against messages.
package lang

import (
	"fmt"
	"strconv"
	"strings"
)

// Rule is a parsed, compiled rule.
type Rule struct {
	Name  string
	When  Expr
	Then  []Stmt
	nvars int
}

// Stmt is a statement of a rule's then block.
type Stmt interface {
	exec(c *Context) error
}

type callStmt struct{ e Expr }

func (s *callStmt) exec(c *Context) error {
	_, err := s.e.Eval(c)
	return err
}

type letStmt struct {
	slot int
	e    Expr
}

func (s *letStmt) exec(c *Context) error {
	v, err := s.e.Eval(c)
	if err != nil {
		return err
	}
	c.vars[s.slot] = v
	return nil
}

// Matches evaluates the condition. A non-boolean result is false; an error
// is the condition's run-time error.
func (r *Rule) Matches(c *Context) (bool, error) {
	c.vars = c.vars[:0]
	v, err := r.When.Eval(c)
	if err != nil {
		return false, err
	}
	b, _ := v.(bool)
	return b, nil
}

// Execute runs the then block, stopping at the first statement that fails.
func (r *Rule) Execute(c *Context) error {
	if cap(c.vars) < r.nvars {
		c.vars = make([]any, r.nvars)
	}
	c.vars = c.vars[:r.nvars]
	clear(c.vars)
	for _, s := range r.Then {
		if err := s.exec(c); err != nil {
			return err
		}
	}
	return nil
}

// Pipeline is a parsed pipeline: its stages in source order.
type Pipeline struct {
	Name   string
	Stages []Stage
}

// Stage is one stage of a pipeline; Rules are rule titles.
type Stage struct {
	Number   int
	MatchAll bool
	Rules    []string
}

type parser struct {
	src  string
	toks []token
	pos  int
	errs Errors
	fns  Functions
	vars map[string]*variable
	// depth is how deeply the expression being parsed nests.
	depth int
}

// maxDepth bounds how deeply expressions nest (parentheses, lists, maps,
// calls, negations, and chains of operators, field accesses and indexes,
// each link of which is a level of the tree), far beyond what rules hold:
// each level takes stack in parsing and in evaluation, and a source of a
// few MiB nesting without end would otherwise overflow the stack and end
// the process.
const maxDepth = 1000

// bailout stops parsing at the first syntax error, after it is recorded.
type bailout struct{}

func newParser(src string, fns Functions) *parser {
	p := &parser{src: src, fns: fns, vars: map[string]*variable{}}
	lx := &lexer{src: src, line: 1, errs: &p.errs}
	p.toks = lx.all()
	return p
}

func (p *parser) run(fn func()) (err error) {
	if len(p.errs) > 0 {
		return p.errs
	}
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(bailout); !ok {
				panic(r)
			}
		}
		if len(p.errs) > 0 {
			err = p.errs
		}
	}()
	fn()
	return nil
}

// ParseRule parses and type-checks one rule. The error is Errors.
func ParseRule(src string, fns Functions) (*Rule, error) {
	p := newParser(src, fns)
	var r *Rule
	err := p.run(func() { r = p.rule() })
	if err != nil {
		return nil, err
	}
	return r, nil
}

// ParsePipeline parses one pipeline. The error is Errors.
func ParsePipeline(src string) (*Pipeline, error) {
	p := newParser(src, nil)
	var pl *Pipeline
	err := p.run(func() { pl = p.pipeline() })
	if err != nil {
		return nil, err
	}
	return pl, nil
}

func (p *parser) peek() token { return p.toks[p.pos] }

func (p *parser) peekAt(n int) token {
	if p.pos+n < len(p.toks) {
		return p.toks[p.pos+n]
	}
	return p.toks[len(p.toks)-1]
}

func (p *parser) take() token {
	t := p.toks[p.pos]
	if t.kind != tEOF {
		p.pos++
	}
	return t
}

func (p *parser) isKw(kw string) bool {
	t := p.peek()
	return t.kind == tKeyword && t.val == kw
}

func (p *parser) isPunct(s string) bool {
	t := p.peek()
	return t.kind == tPunct && t.val == s
}

// syntax records a syntax error at t and stops parsing.
func (p *parser) syntax(t token, reason string) {
	p.fail(t, "syntax_error", reason)
	panic(bailout{})
}

func (p *parser) mismatch(expecting string) {
	t := p.peek()
	p.syntax(t, "mismatched input "+t.quote()+" expecting "+expecting)
}

func (p *parser) keyword(kw string) token {
	if !p.isKw(kw) {
		p.mismatch("'" + kw + "'")
	}
	return p.take()
}

func (p *parser) punct(s string) token {
	if !p.isPunct(s) {
		p.mismatch("'" + s + "'")
	}
	return p.take()
}

func (p *parser) str() string {
	if p.peek().kind != tString {
		p.mismatch("String")
	}
	return p.take().val
}

func (p *parser) eof() {
	if t := p.peek(); t.kind != tEOF {
		p.syntax(t, "extraneous input "+t.quote()+" expecting <EOF>")
	}
}

func (p *parser) rule() *Rule {
	p.keyword("rule")
	r := &Rule{Name: p.str()}
	p.keyword("when")
	r.When = p.expr()
	if !p.isKw("then") && !p.isKw("end") {
		p.mismatch("{'then', 'end'}")
	}
	if p.isKw("then") {
		p.take()
		for !p.isKw("end") {
			if p.peek().kind == tEOF {
				p.mismatch("'end'")
			}
			if s := p.stmt(); s != nil {
				r.Then = append(r.Then, s)
			}
		}
	}
	p.keyword("end")
	p.eof()
	r.nvars = len(p.vars)
	return r
}

func (p *parser) stmt() Stmt {
	switch t := p.peek(); {
	case t.kind == tPunct && t.val == ";":
		p.take()
		return nil
	case p.isKw("let"):
		p.take()
		name := p.peek()
		if name.kind != tIdent {
			p.mismatch("Identifier")
		}
		p.take()
		p.punct("=")
		e := p.expr()
		p.punct(";")
		v, ok := p.vars[name.val]
		if !ok {
			v = &variable{slot: len(p.vars)}
			v.start, v.text = name, name.val
			p.vars[name.val] = v
		}
		// A variable has the static type of what it was last given.
		v.typ = e.Type()
		return &letStmt{slot: v.slot, e: e}
	case t.kind == tIdent && p.peekAt(1).kind == tPunct && p.peekAt(1).val == "(":
		e := p.primary()
		p.punct(";")
		return &callStmt{e: e}
	default:
		p.syntax(t, "mismatched input "+t.quote()+" expecting {'let', Identifier, ';', 'end'}")
		return nil
	}
}

func (p *parser) pipeline() *Pipeline {
	p.keyword("pipeline")
	pl := &Pipeline{Name: p.str()}
	if !p.isKw("stage") {
		p.mismatch("'stage'")
	}
	for p.isKw("stage") {
		p.take()
		nt := p.peek()
		if nt.kind != tInt {
			p.mismatch("Integer")
		}
		p.take()
		n, err := strconv.Atoi(strings.ReplaceAll(nt.val, "_", ""))
		if err != nil {
			p.syntax(nt, "invalid stage number "+nt.quote())
		}
		p.keyword("match")
		st := Stage{Number: n}
		switch {
		case p.isKw("all"):
			st.MatchAll = true
		case p.isKw("either"):
		default:
			p.mismatch("{'all', 'either'}")
		}
		p.take()
		for p.isKw("rule") {
			p.take()
			st.Rules = append(st.Rules, p.str())
			if p.isPunct(";") {
				p.take()
			}
		}
		pl.Stages = append(pl.Stages, st)
	}
	p.keyword("end")
	p.eof()
	return pl
}

// finish fills an expression's base from its first token to the last one
// consumed.
func (p *parser) finish(e Expr, start token, typ Type) Expr {
	b := e.node()
	b.start, b.typ = start, typ
	last := p.toks[max(p.pos-1, 0)]
	end := last.off + len(last.text)
	if end >= start.off && end <= len(p.src) {
		b.text = p.src[start.off:end]
	}
	return e
}

func (p *parser) expr() Expr {
	defer p.nest()()
	return p.or()
}

// nest enters one level of nesting, failing past maxDepth; the function
// it returns leaves it.
func (p *parser) nest() func() {
	p.deeper()
	return p.leave
}

func (p *parser) leave() { p.depth-- }

// deeper enters one level of nesting, failing past maxDepth.
func (p *parser) deeper() {
	if p.depth++; p.depth > maxDepth {
		p.syntax(p.peek(), fmt.Sprintf("expression nested more than %d deep", maxDepth))
	}
}

// chain counts the links of an operator chain as levels of nesting, each
// making the tree one deeper, until the function calling it returns,
// which calls the function it returns.
func (p *parser) chain() func() {
	depth := p.depth
	return func() { p.depth = depth }
}

func (p *parser) or() Expr {
	defer p.chain()()
	start := p.peek()
	l := p.and()
	for p.isKw("or") || p.isPunct("||") {
		p.deeper()
		p.take()
		r := p.and()
		p.sameType(start, l, r)
		l = p.finish(&logical{l: l, r: r}, start, TBoolean)
	}
	return l
}

func (p *parser) and() Expr {
	defer p.chain()()
	start := p.peek()
	l := p.equality()
	for p.isKw("and") || p.isPunct("&&") {
		p.deeper()
		p.take()
		r := p.equality()
		p.sameType(start, l, r)
		l = p.finish(&logical{and: true, l: l, r: r}, start, TBoolean)
	}
	return l
}

func (p *parser) equality() Expr {
	defer p.chain()()
	start := p.peek()
	l := p.comparison()
	for p.isPunct("==") || p.isPunct("!=") {
		p.deeper()
		op := p.take().val
		r := p.comparison()
		l = p.finish(&binary{op: op, l: l, r: r}, start, TBoolean)
	}
	return l
}

func (p *parser) comparison() Expr {
	defer p.chain()()
	start := p.peek()
	l := p.additive()
	for p.isPunct("<") || p.isPunct("<=") || p.isPunct(">") || p.isPunct(">=") {
		p.deeper()
		op := p.take().val
		r := p.additive()
		p.sameType(start, l, r)
		l = p.finish(&binary{op: op, l: l, r: r}, start, TBoolean)
	}
	return l
}

func (p *parser) additive() Expr {
	defer p.chain()()
	start := p.peek()
	l := p.multiplicative()
	for p.isPunct("+") || p.isPunct("-") {
		p.deeper()
		op := p.take().val
		r := p.multiplicative()
		l = p.finish(&binary{op: op, l: l, r: r}, start, p.additiveType(start, op, l, r))
	}
	return l
}

// additiveType checks + and - and returns their type: same types, or a
// date moved by a period, or the duration between two dates.
func (p *parser) additiveType(start token, op string, l, r Expr) Type {
	lt, rt := l.Type(), r.Type()
	switch {
	case lt == TDateTime && rt == TPeriod, lt == TPeriod && rt == TPeriod:
		return lt
	case lt == TDateTime && rt == TDateTime:
		if op == "+" {
			p.failAt(start, "invalid_operation", "Invalid operation: Unable to add two dates")
			return TObject
		}
		return TDuration
	case lt == TString && rt == TString && op == "-":
		p.failAt(start, "invalid_operation", "Invalid operation: Unable to subtract two strings")
		return TObject
	}
	p.sameType(start, l, r)
	return lt
}

func (p *parser) multiplicative() Expr {
	defer p.chain()()
	start := p.peek()
	l := p.not()
	for p.isPunct("*") || p.isPunct("/") || p.isPunct("%") {
		p.deeper()
		op := p.take().val
		r := p.not()
		p.sameType(start, l, r)
		l = p.finish(&binary{op: op, l: l, r: r}, start, l.Type())
	}
	return l
}

// sameType checks that both operands have one static type.
func (p *parser) sameType(start token, l, r Expr) {
	if l.Type() != r.Type() {
		p.failAt(start, "incompatible_types", "Incompatible types (%s) : %s <=> (%s) : %s",
			l.node().text, l.Type(), r.node().text, r.Type())
	}
}

func (p *parser) not() Expr {
	if p.isKw("not") || p.isPunct("!") {
		defer p.nest()()
		start := p.take()
		e := p.not()
		if e.Type() != TBoolean {
			p.failAt(e.node().start, "incompatible_type", "Expected type Boolean but found %s", e.Type())
		}
		return p.finish(&notExpr{e: e}, start, TBoolean)
	}
	return p.unary()
}

func (p *parser) unary() Expr {
	if p.isPunct("+") || p.isPunct("-") {
		defer p.nest()()
		start := p.take()
		e := p.unary()
		return p.finish(&signExpr{minus: start.val == "-", e: e}, start, e.Type())
	}
	return p.postfix()
}

func (p *parser) postfix() Expr {
	defer p.chain()()
	start := p.peek()
	e := p.primary()
	for {
		switch {
		case p.isPunct("."):
			p.deeper()
			p.take()
			name := p.peek()
			if name.kind != tIdent && name.kind != tKeyword {
				p.mismatch("Identifier")
			}
			p.take()
			if mf, ok := e.(*messageField); ok && mf.name == "" {
				mf.name = name.val
				e = p.finish(mf, start, TObject)
				continue
			}
			e = p.finish(&fieldAccess{obj: e, name: name.val}, start, TObject)
		case p.isPunct("["):
			p.deeper()
			p.take()
			idx := p.expr()
			p.punct("]")
			switch t := e.Type(); t {
			case TList, TMap, TObject, TJSON, TMessage:
			default:
				p.failAt(start, "non_indexable", "Cannot index value of type %s", t)
			}
			if it := idx.Type(); it != TLong && it != TString {
				p.failAt(start, "incompatible_index_type", "Expected type Long|String but found %s when indexing", it)
			}
			e = p.finish(&indexExpr{obj: e, idx: idx}, start, TObject)
		default:
			if mf, ok := e.(*messageField); ok && mf.name == "" {
				p.mismatch("'.'")
			}
			return e
		}
	}
}

func (p *parser) primary() Expr {
	t := p.peek()
	switch t.kind {
	case tString:
		p.take()
		return p.finish(&literal{v: t.val}, t, TString)
	case tInt:
		p.take()
		n, err := parseLong(t.val)
		if err != nil {
			p.syntax(t, "invalid integer literal "+t.quote())
		}
		return p.finish(&literal{v: n}, t, TLong)
	case tFloat:
		p.take()
		f, err := strconv.ParseFloat(strings.TrimRight(strings.ReplaceAll(t.val, "_", ""), "dDfF"), 64)
		if err != nil {
			p.syntax(t, "invalid floating point literal "+t.quote())
		}
		return p.finish(&literal{v: f}, t, TDouble)
	case tMessageRef:
		p.take()
		return p.finish(&messageField{}, t, TMessage)
	case tIdent:
		if t.val == "true" || t.val == "false" {
			p.take()
			return p.finish(&literal{v: t.val == "true"}, t, TBoolean)
		}
		if n := p.peekAt(1); n.kind == tPunct && n.val == "(" {
			return p.call()
		}
		p.take()
		v, ok := p.vars[t.val]
		if !ok {
			p.failAt(t, "undeclared_variable", "Undeclared variable %s", t.val)
			return p.finish(&literal{}, t, TObject)
		}
		return p.finish(&variable{slot: v.slot}, t, v.typ)
	case tPunct:
		switch t.val {
		case "(":
			p.take()
			e := p.expr()
			p.punct(")")
			// Parentheses keep the inner expression; its text grows.
			b := e.node()
			b.start = t
			last := p.toks[p.pos-1]
			b.text = p.src[t.off : last.off+len(last.text)]
			return e
		case "[":
			p.take()
			l := &listLit{}
			for !p.isPunct("]") {
				if len(l.elems) > 0 {
					p.punct(",")
				}
				l.elems = append(l.elems, p.expr())
			}
			p.take()
			return p.finish(l, t, TList)
		case "{":
			p.take()
			m := &mapLit{}
			for !p.isPunct("}") {
				if len(m.keys) > 0 {
					p.punct(",")
				}
				k := p.peek()
				if k.kind != tIdent {
					p.mismatch("Identifier")
				}
				p.take()
				p.punct(":")
				m.keys = append(m.keys, k.val)
				m.vals = append(m.vals, p.expr())
			}
			p.take()
			return p.finish(m, t, TMap)
		}
	}
	p.syntax(t, "no viable alternative at input "+t.quote())
	return nil
}

func (p *parser) call() Expr {
	name := p.take()
	p.punct("(")
	var positional []Expr
	var names []token
	var named []Expr
	for !p.isPunct(")") {
		if len(positional)+len(named) > 0 {
			p.punct(",")
		}
		if k := p.peek(); (k.kind == tIdent || k.kind == tKeyword) && p.peekAt(1).kind == tPunct && p.peekAt(1).val == ":" {
			if len(positional) > 0 {
				p.syntax(k, "mismatched input "+k.quote()+" expecting an expression: named and positional arguments cannot be mixed")
			}
			p.take()
			p.take()
			names = append(names, k)
			named = append(named, p.expr())
			continue
		}
		if len(named) > 0 {
			t := p.peek()
			p.syntax(t, "mismatched input "+t.quote()+" expecting Identifier: named and positional arguments cannot be mixed")
		}
		positional = append(positional, p.expr())
	}
	p.take()
	fn, ok := p.lookup(name.val)
	if !ok {
		p.failAt(name, "undeclared_function", "Unknown function %s", name.val)
		return p.finish(&literal{}, name, TObject)
	}
	c := &call{fn: fn, args: make([]Expr, len(fn.Params))}
	bound := false
	if len(named) > 0 {
		bound = p.bindNamed(c, name, names, named)
	} else {
		bound = p.bindPositional(c, name, positional)
	}
	if bound {
		p.checkArgs(c, name)
	}
	return p.finish(c, name, fn.Return)
}

func (p *parser) lookup(name string) (*Function, bool) {
	if p.fns == nil {
		return nil, false
	}
	return p.fns.Function(name)
}

// bindPositional puts positional arguments in place and reports whether
// they fit the parameters.
func (p *parser) bindPositional(c *call, name token, args []Expr) bool {
	fn := c.fn
	required := 0
	seenOptional, orderly := false, true
	for _, prm := range fn.Params {
		if prm.Optional {
			seenOptional = true
			continue
		}
		required++
		if seenOptional {
			orderly = false
		}
	}
	if len(args) > len(fn.Params) {
		p.failAt(name, "wrong_number_of_arguments", "Expected %d arguments but found %d in call to function %s", required, len(args), fn.Name)
		return false
	}
	if !orderly && len(args) > 0 {
		p.failAt(name, "must_name_optional_params", "Function %s has optional parameters, must use named parameters to call", fn.Name)
		return false
	}
	copy(c.args, args)
	return true
}

// bindNamed puts named arguments in place and reports whether every name
// is a parameter.
func (p *parser) bindNamed(c *call, name token, names []token, args []Expr) bool {
	ok := true
	for i, n := range names {
		found := false
		for j, prm := range c.fn.Params {
			if prm.Name == n.val {
				c.args[j] = args[i]
				found = true
				break
			}
		}
		if !found {
			p.failAt(n, "wrong_number_of_arguments", "Expected %d arguments but found %d in call to function %s", requiredCount(c.fn), len(names), c.fn.Name)
			ok = false
		}
	}
	return ok
}

func requiredCount(fn *Function) int {
	n := 0
	for _, prm := range fn.Params {
		if !prm.Optional {
			n++
		}
	}
	return n
}

// checkArgs checks presence and types of the arguments and prepares the
// constant ones.
func (p *parser) checkArgs(c *call, name token) {
	c.prepared = make([]any, len(c.args))
	c.isConst = make([]bool, len(c.args))
	c.given = make([]bool, len(c.args))
	c.prepare = make([]func(any) (any, error), len(c.args))
	for i, prm := range c.fn.Params {
		a := c.args[i]
		c.given[i], c.prepare[i] = a != nil, prm.Prepare
		if a == nil {
			if !prm.Optional {
				p.failAt(name, "missing_required_param", "Missing required parameter %s of type %s in call to function %s", prm.Name, prm.Type, c.fn.Name)
			}
			continue
		}
		if !assignable(prm.Type, a.Type()) {
			p.failAt(name, "incompatible_argument_type", "Expected type %s for argument %s but found %s in call to function %s",
				prm.Type, prm.Name, a.Type(), c.fn.Name)
			continue
		}
		v, ok := constant(a)
		if !ok {
			continue
		}
		if prm.Prepare != nil && v != nil {
			pv, err := prm.Prepare(v)
			if err != nil {
				p.fail(name, "invalid_function_argument", fmt.Sprintf("Unable to pre-compute value for %s argument %s in call to function %s: %s",
					ordinal(i+1), prm.Name, c.fn.Name, err.Error()))
				continue
			}
			v = pv
		}
		c.prepared[i], c.isConst[i] = v, true
	}
}

func ordinal(n int) string {
	names := []string{"", "1st", "2nd", "3rd"}
	if n < len(names) {
		return names[n]
	}
	return strconv.Itoa(n) + "th"
}

// ParseExpr parses and type-checks one expression, as it would appear in
// a rule's condition; for tests and tools.
func ParseExpr(src string, fns Functions) (Expr, error) {
	p := newParser(src, fns)
	var e Expr
	err := p.run(func() {
		e = p.expr()
		p.eof()
	})
	if err != nil {
		return nil, err
	}
	return e, nil
}
