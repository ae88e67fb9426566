package sqlerr

import "github.com/sqlstream/sqlstream/sql/ast"

// MaxDepth is how deeply brackets, expressions and types may nest in a
// statement. Every recursive walk over user input (the parser's passes,
// the type checker and compiler, the printer) stays within it, so hostile
// input cannot overflow the stack. Real queries nest a few dozen levels
// at most; 500 leaves room for generated SQL and keeps each walk's stack
// under a few megabytes.
const MaxDepth = 500

// TooDeep is the error of input nested more than MaxDepth levels, at the
// first construct past the limit.
func TooDeep(pos ast.Pos) *Error {
	return New(Syntax, pos, "expression nested too deeply: more than %d levels", MaxDepth)
}
