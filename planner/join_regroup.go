package planner

import (
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/expr"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/sql/types"
)

// regroupJoin plans PARTITION BY and GROUP BY above a join's (filtered)
// rows, as over a single source: the join's flat schema is their input,
// the clauses' qualified references are rewritten to its output names. A
// table–table join's result is a table: it cannot be re-partitioned, and
// its aggregation retracts updated rows (undo).
func (p *Planner) regroupJoin(plan *Plan, q *ast.Query, node Node, items []ast.SelectItem, js *joinScope, scope expr.Scope) (Node, []ast.SelectItem, expr.Scope, error) {
	n := plan.Join
	if len(q.PartitionBy) > 0 {
		if n.Result() == ast.Table {
			return nil, nil, nil, sqlerr.New(sqlerr.Semantic, q.PartitionBy[0].Position(), "Cannot repartition a TABLE source. Only streams can be re-partitioned: use GROUP BY to re-key a table.")
		}
		exprs, err := rewriteAll(js, q.PartitionBy)
		if err != nil {
			return nil, nil, nil, err
		}
		pb, rewritten, err := p.partitionBy(node, exprs, scope, items)
		if err != nil {
			return nil, nil, nil, err
		}
		node, items, scope = pb, rewritten, expr.SchemaScope(pb.Schema(), nil, false)
	}
	if len(q.GroupBy) == 0 && !p.hasAggregate(items, q.Having) {
		return node, items, scope, nil
	}
	return p.aggregateJoin(plan, q, node, items, js, scope)
}

// aggregateJoin plans GROUP BY (with HAVING) over the join's rows.
func (p *Planner) aggregateJoin(plan *Plan, q *ast.Query, node Node, items []ast.SelectItem, js *joinScope, scope expr.Scope) (Node, []ast.SelectItem, expr.Scope, error) {
	c := *q
	if len(c.GroupBy) == 0 && plan.Kind == Push {
		c.GroupBy = []ast.Expr{&ast.Literal{P: q.P, Value: int32(1), Type: types.IntegerType}}
	}
	var err error
	if c.GroupBy, err = rewriteAll(js, c.GroupBy); err != nil {
		return nil, nil, nil, err
	}
	if c.Having != nil {
		if c.Having, err = js.rewrite(c.Having); err != nil {
			return nil, nil, nil, err
		}
	}
	agg, items, having, err := p.aggregate(node, &c, scope, plan.Join.Result() == ast.Table, items)
	if err != nil {
		return nil, nil, nil, err
	}
	for _, src := range plan.Sources {
		if err := checkAggregateFormat(agg, src, q.P); err != nil {
			return nil, nil, nil, err
		}
	}
	plan.Aggregated = true
	plan.Windowed = agg.Window != nil
	if agg.Window != nil {
		plan.Window = &WindowInfo{Kind: agg.Window.Kind, Size: agg.Window.Size}
	}
	var out Node = agg
	// ksqlDB cannot read a windowed join aggregate's bounds (its issue 5931).
	scope = expr.SchemaScope(agg.Schema(), nil, false)
	if having != nil {
		if out, err = p.filter(out, having, scope, "HAVING"); err != nil {
			return nil, nil, nil, err
		}
	}
	return out, items, scope, nil
}

// rewriteAll rewrites each expression's references to the join's output
// names.
func rewriteAll(js *joinScope, exprs []ast.Expr) ([]ast.Expr, error) {
	out := make([]ast.Expr, len(exprs))
	for i, e := range exprs {
		r, err := js.rewrite(e)
		if err != nil {
			return nil, err
		}
		out[i] = r
	}
	return out, nil
}
