package ast

// The expression tree has one traversal: Map knows the children of every
// node kind, and Children, Walk and every pass that rewrites or inspects
// expressions (sql/expr, planner) go through it. A new node kind with
// sub-expressions is added to Map's switch and nowhere else.

// Map returns a shallow copy of e whose direct sub-expressions are replaced
// by fn's results, called once per child in source order (a MAP
// constructor's keys and values alternate, a CASE visits its operand, each
// WHEN's condition and result, then ELSE). Absent optional children (a
// LIKE without ESCAPE, a CASE without operand or ELSE) stay nil and are
// not passed to fn. Leaves (literals, column references) and nil are
// returned as they are; e itself is never modified.
func Map(e Expr, fn func(Expr) Expr) Expr {
	opt := func(x Expr) Expr {
		if x == nil {
			return nil
		}
		return fn(x)
	}
	switch e := e.(type) {
	case *Dereference:
		c := *e
		c.Base = fn(e.Base)
		return &c
	case *Subscript:
		c := *e
		c.Base = fn(e.Base)
		c.Index = fn(e.Index)
		return &c
	case *Binary:
		c := *e
		c.L = fn(e.L)
		c.R = fn(e.R)
		return &c
	case *Unary:
		c := *e
		c.X = fn(e.X)
		return &c
	case *Like:
		c := *e
		c.X = fn(e.X)
		c.Pattern = fn(e.Pattern)
		c.Escape = opt(e.Escape)
		return &c
	case *In:
		c := *e
		c.X = fn(e.X)
		c.List = mapAll(e.List, fn)
		return &c
	case *Between:
		c := *e
		c.X = fn(e.X)
		c.Lo = fn(e.Lo)
		c.Hi = fn(e.Hi)
		return &c
	case *IsNull:
		c := *e
		c.X = fn(e.X)
		return &c
	case *Case:
		c := *e
		c.Operand = opt(e.Operand)
		c.Whens = make([]When, len(e.Whens))
		for i, w := range e.Whens {
			c.Whens[i].Cond = fn(w.Cond)
			c.Whens[i].Result = fn(w.Result)
		}
		c.Else = opt(e.Else)
		return &c
	case *Cast:
		c := *e
		c.X = fn(e.X)
		return &c
	case *Call:
		c := *e
		c.Args = mapAll(e.Args, fn)
		return &c
	case *Lambda:
		c := *e
		c.Body = fn(e.Body)
		return &c
	case *ArrayCtor:
		c := *e
		c.Elems = mapAll(e.Elems, fn)
		return &c
	case *MapCtor:
		c := *e
		c.Keys = make([]Expr, len(e.Keys))
		c.Values = make([]Expr, len(e.Values))
		for i := range e.Keys {
			c.Keys[i] = fn(e.Keys[i])
			c.Values[i] = fn(e.Values[i])
		}
		return &c
	case *StructCtor:
		c := *e
		c.Values = mapAll(e.Values, fn)
		return &c
	case *AtTimeZone:
		c := *e
		c.X = fn(e.X)
		return &c
	}
	return e // leaves: *Literal, *ColumnRef
}

// mapAll applies fn to each expression of a list, into a new slice.
func mapAll(es []Expr, fn func(Expr) Expr) []Expr {
	if es == nil {
		return nil
	}
	out := make([]Expr, len(es))
	for i, x := range es {
		out[i] = fn(x)
	}
	return out
}

// Children returns the direct sub-expressions of e in source order,
// without absent optional ones.
func Children(e Expr) []Expr {
	var out []Expr
	Map(e, func(x Expr) Expr {
		out = append(out, x)
		return x
	})
	return out
}

// Walk calls visit for e and, while visit returns true, for each of its
// sub-expressions in source order. Nil expressions are not visited.
func Walk(e Expr, visit func(Expr) bool) {
	if e == nil || !visit(e) {
		return
	}
	for _, c := range Children(e) {
		Walk(c, visit)
	}
}

// Rewrite returns e with every sub-expression for which fn returns a
// replacement swapped for it; fn sees a node before its children, and a
// replaced node's children are not visited. The input tree is never
// modified: changed paths are copied.
func Rewrite(e Expr, fn func(Expr) (Expr, bool)) Expr {
	if e == nil {
		return nil
	}
	if r, ok := fn(e); ok {
		return r
	}
	return Map(e, func(x Expr) Expr { return Rewrite(x, fn) })
}
