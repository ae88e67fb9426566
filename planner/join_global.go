package planner

import (
	"slices"

	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/sql/types"
)

// Global reports whether the join's right side is a global table (CREATE
// GLOBAL TABLE): Kafka Streams' KStream–GlobalKTable join. Every task
// reads the whole table; the stream is neither re-keyed nor
// co-partitioned, Left.Lookup computes the table key from a stream row,
// and the result keeps the stream's key (Left.Keys).
func (n *Join) Global() bool { return n.Right.Source.Global }

// checkGlobalJoin applies Kafka Streams' rules to a join with a global
// table: only a stream joins one (KStream#join/leftJoin(GlobalKTable)),
// INNER or LEFT, as the right side.
func checkGlobalJoin(j *ast.Join, l, r JoinInput) error {
	got := l.Alias + " " + joinTypeText[j.Type] + " " + r.Alias
	switch {
	case l.Source.Global:
		return sqlerr.New(sqlerr.Semantic, j.P, "Global table %s can only be joined as the right side of a stream-table join. Got %s.", l.Source.Name, got)
	case !r.Source.Global:
		return nil
	case l.Source.Kind == ast.Table:
		return sqlerr.New(sqlerr.Semantic, j.P, "Invalid join: table-table joins with global table %s are not supported; only a stream can join a global table. Got %s.", r.Source.Name, got)
	case j.Type == ast.RightJoin || j.Type == ast.FullJoin:
		return sqlerr.New(sqlerr.Semantic, j.P, "Invalid join type: %s is not supported with global table %s; only [INNER] JOIN and LEFT [OUTER] JOIN. Got %s.", joinTypeText[j.Type], r.Source.Name, got)
	}
	return nil
}

// checkNestedGlobal requires the global steps of an n-way join to come
// last (a star join: FROM s JOIN t ON … JOIN g1 ON … JOIN g2 ON …): each
// is one more lookup of the rows so far, which a later step joined on a
// key could not continue.
func checkNestedGlobal(n *Join) error {
	inner, ok := n.Left.Node.(*Join)
	if !ok {
		return nil
	}
	if g := inner.global(); g != nil && !n.Global() {
		return sqlerr.New(sqlerr.Unsupported, ast.Pos{}, "Invalid n-way join: joins with global table %s must come after the joins with other sources.", g.Name)
	}
	return checkNestedGlobal(inner)
}

// global is the first global table of the join tree's steps (nil: none).
func (n *Join) global() *Source {
	if n.Global() {
		return n.Right.Source
	}
	if inner, ok := n.Left.Node.(*Join); ok {
		return inner.global()
	}
	return nil
}

// Keyless reports whether the join has no key column: a global join of a
// keyless stream, whose result is keyless too (it keeps the stream's
// key, none).
func (n *Join) Keyless() bool { return n.Global() && len(n.Left.Keys) == 0 }

// globalLookup makes the stream side of a global join: it keeps its key
// (the result's; none for a keyless stream) and le, any
// expression of its columns, is compiled to compute the global table's
// key from a stream row.
func (p *Planner) globalLookup(s *joinScope, l *JoinInput, le ast.Expr) error {
	l.Keys = keyList(slices.IndexFunc(l.Source.Schema.Columns, func(c types.Column) bool { return c.NS == types.KeyNS }))
	c, e, err := p.compileSide(s, l, le)
	if err != nil {
		return err
	}
	l.Lookup, l.LookupExpr = c, e
	return nil
}
