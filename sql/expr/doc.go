// Package expr type-checks ast.Expr trees and compiles them into
// evaluators over types.Row, with ksqlDB's semantics.
//
//	ast.Expr ──Compile(scope, registry)──► *Compiled ──Eval(row)──► value
//	              │                            │
//	              ├─ Scope: column names →     └─ a tree of closures built
//	              │  row indexes / pseudo         once; per row only the
//	              │  columns (ROWTIME …)          closures run (typed int64 /
//	              └─ functions.Registry:          float64 fast paths avoid
//	                 overloads, implicit casts    boxing in arithmetic and
//	                                              comparisons)
//
// Semantics follow ksqlDB: comparisons with a NULL operand are false (not
// NULL); AND/OR/NOT use three-valued logic; integer arithmetic wraps like
// Java and integer division by zero is an evaluation error (the caller
// writes it to the processing log and uses NULL); DECIMAL arithmetic is
// exact with ksqlDB's precision and scale rules; CAST formats numbers the
// way Java does (Double.toString).
//
// Constant folds literal expressions (INSERT … VALUES) and Coerce applies
// the implicit conversions INSERT and the serdes need.
package expr
