package sqlerr

import "github.com/sqlstream/sqlstream/sql/ast"

// MaxDepth is how deeply brackets, expressions and types may nest in a
// statement. Every recursive walk over user input (the parser's passes,
// the type checker and compiler, the printer) stays within it, so hostile
// input cannot overflow the stack. Real queries nest a few dozen levels
// at most; 500 leaves room for generated SQL and keeps each walk's stack
// under a few megabytes.
//
// What counts is nesting: a bracket, a call, a type parameter, a unary
// operator, and each postfix operator of a chain (x[1][2]->f is three
// levels: each wraps the one before). The left operand of a binary
// operator stays at its operator's level, so a flat left-associative
// chain (1+1+…, a AND b AND …) is one level however long: its length is
// bounded by MaxChain instead.
const MaxDepth = 500

// MaxChain is how many links of flat binary-operator chains (1+1+…,
// a OR b OR …) one expression may hold at once, on top of MaxDepth: a
// walk's recursion is at most MaxDepth + MaxChain deep. ksqlDB has no
// stated limit (its visitors overflow the JVM stack somewhere past a few
// thousand); 10,000 is far above any hand-written or generated query.
const MaxChain = 10_000

// TooDeep is the error of input nested more than MaxDepth levels, at the
// first construct past the limit.
func TooDeep(pos ast.Pos) *Error {
	return New(Syntax, pos, "expression nested too deeply: more than %d levels", MaxDepth)
}

// TooLong is the error of an operator chain of more than MaxChain
// operands, at the first operand past the limit.
func TooLong(pos ast.Pos) *Error {
	return New(Syntax, pos, "expression chain too long: more than %d operands", MaxChain)
}
