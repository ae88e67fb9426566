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
// Semantics follow ksqlDB:
//   - comparisons with a NULL operand are FALSE (not NULL); AND, OR and
//     NOT use three-valued logic; IS [NOT] DISTINCT FROM is NULL-safe;
//   - integer arithmetic wraps like Java; arithmetic on a NULL operand,
//     integer and decimal division by zero and failed CASTs are evaluation
//     errors of the whole expression (the caller writes them to the
//     processing log and uses NULL), as ksqlDB's generated code throws;
//   - a failing function call only makes that call NULL, and is reported
//     to the log given to Compiled.WithErrorLog;
//   - DECIMAL arithmetic is exact with ksqlDB's precision and scale rules;
//   - lists (IN, ARRAY[…], MAP(…)) are unified with the implicit coercion
//     rules, constants with the literal rules ('10' is a number, 'yes' a
//     BOOLEAN, STRUCTs unify to the union of their fields);
//   - CAST formats numbers the way Java does (Double.toString) and
//     converts containers element by element.
//
// Constant folds expressions without columns (INSERT … VALUES); Coerce
// applies CAST conversions and CoerceLiteral the literal rules; ColumnRefs
// lists the columns an expression reads (ast.Walk, ast.Rewrite and
// ast.FormatExpr traverse and render expressions).
package expr
