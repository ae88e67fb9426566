// Package ast holds statements and expressions as the user wrote them,
// with positions, and prints them back as canonical SQL (FormatExpr,
// FormatStatement).
//
// Expressions have one traversal, Map (walk.go): it rebuilds a node with
// its direct children replaced and is the only code that knows which
// fields of each node kind are sub-expressions. Children, Walk and
// Rewrite are built on it, and the passes of sql/expr and planner use
// those instead of switches of their own:
//
//	Map(e, fn)       copy of e with each child c replaced by fn(c)
//	  ├── Children(e)  the children, in source order
//	  ├── Walk(e, v)   pre-order visit; v returning false skips a subtree
//	  └── Rewrite(e, f) pre-order replacement; replaced nodes are not entered
package ast
