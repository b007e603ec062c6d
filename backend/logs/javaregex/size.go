package javaregex

import (
	"fmt"
	"regexp/syntax"
)

// MaxProgram bounds the instructions a regular expression compiles to.
// RE2 (Go's regexp) expands counted repetitions: a pattern of a few
// kilobytes such as `[a-z]{1000}` three thousand times compiles for
// seconds into a program of millions of instructions (over 100 MiB),
// where Java's compiler keeps the count. The largest of Graylog's default
// grok patterns (HTTPD_ERRORLOG) compiles to about 4,000 instructions.
const MaxProgram = 1 << 16

// CheckSize reports an expression whose compiled program would exceed
// MaxProgram instructions, without compiling it: only parsing, which is
// cheap. An expression that does not parse is left to the compiler, which
// reports why.
func CheckSize(expr string) error {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil
	}
	if n := progSize(re); n > MaxProgram {
		return fmt.Errorf("the expression is too large: its counted repetitions expand to more than %d instructions", MaxProgram)
	}
	return nil
}

// progSize estimates the instructions of re's program as regexp/syntax
// compiles it after simplifying (which expands x{n,m} into n copies of x
// and m-n optional ones), saturating far beyond MaxProgram.
func progSize(re *syntax.Regexp) int {
	const huge = 1 << 40
	add := func(a, b int) int { return min(a+b, huge) }
	mul := func(a, b int) int {
		if a == 0 || b == 0 {
			return 0
		}
		if a > huge/b {
			return huge
		}
		return a * b
	}
	switch re.Op {
	case syntax.OpLiteral:
		return max(len(re.Rune), 1)
	case syntax.OpCapture:
		return add(2, progSize(re.Sub[0]))
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest:
		return add(1, progSize(re.Sub[0]))
	case syntax.OpConcat, syntax.OpAlternate:
		n := len(re.Sub)
		for _, s := range re.Sub {
			n = add(n, progSize(s))
		}
		return n
	case syntax.OpRepeat:
		sub := progSize(re.Sub[0])
		if re.Max < 0 {
			return add(mul(max(re.Min, 1), sub), 1)
		}
		return add(mul(re.Min, sub), mul(re.Max-re.Min, add(sub, 1)))
	}
	return 1
}
