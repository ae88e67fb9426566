package parser

import (
	tast "github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
)

// convertQuery hands the rewritten SELECT core to TiDB and fills q from
// its AST and the lifted clauses.
func (p *parser) convertQuery(qs *queryState) error {
	sel, err := p.tidbSelect(qs.w)
	if err != nil {
		return err
	}
	c := newConverter(p, qs.w)
	if sel.Distinct {
		return p.errAt(p.toks[qs.w.pieces[0].tok], sqlerr.Unsupported, "SELECT DISTINCT is not supported")
	}
	if qs.q.Items, err = c.items(sel.Fields.Fields); err != nil {
		return err
	}
	rc := &relConverter{c: c, qs: qs}
	if qs.q.From, err = rc.relation(sel.From.TableRefs); err != nil {
		return err
	}
	return c.clauses(sel, qs.q)
}

// clauses converts WHERE, GROUP BY, PARTITION BY (sent as ORDER BY) and
// HAVING.
func (c *converter) clauses(sel *tast.SelectStmt, q *ast.Query) error {
	var err error
	if sel.Where != nil {
		if q.Where, err = c.expr(sel.Where); err != nil {
			return err
		}
	}
	if sel.GroupBy != nil {
		if q.GroupBy, err = c.byItems(sel.GroupBy.Items); err != nil {
			return err
		}
	}
	if sel.OrderBy != nil {
		if q.PartitionBy, err = c.byItems(sel.OrderBy.Items); err != nil {
			return err
		}
	}
	if sel.Having != nil {
		q.Having, err = c.expr(sel.Having.Expr)
	}
	return err
}

// byItems converts GROUP BY / PARTITION BY lists; a parenthesized list
// `(a, b)` is the same as `a, b`.
func (c *converter) byItems(items []*tast.ByItem) ([]ast.Expr, error) {
	var nodes []tast.ExprNode
	for _, it := range items {
		e := it.Expr
		for {
			paren, ok := e.(*tast.ParenthesesExpr)
			if !ok {
				break
			}
			e = paren.Expr
		}
		if row, ok := e.(*tast.RowExpr); ok && len(items) == 1 {
			nodes = append(nodes, row.Values...)
			continue
		}
		nodes = append(nodes, e)
	}
	return c.exprs(nodes)
}

// items converts the select list.
func (c *converter) items(fields []*tast.SelectField) ([]ast.SelectItem, error) {
	out := make([]ast.SelectItem, 0, len(fields))
	for _, f := range fields {
		it := ast.SelectItem{P: c.p.toks[c.w.tokenAt(f.Offset)].P, Alias: f.AsName.O}
		switch {
		case f.WildCard != nil:
			it.Star, it.Source = true, f.WildCard.Table.O
		case isInternal(f.Expr, fnStructStar):
			base, err := c.expr(f.Expr.(*tast.FuncCallExpr).Args[0])
			if err != nil {
				return nil, err
			}
			it.Expr, it.StructStar = base, true
		default:
			e, err := c.expr(f.Expr)
			if err != nil {
				return nil, err
			}
			it.Expr = e
		}
		out = append(out, it)
	}
	return out, nil
}

func isInternal(n tast.ExprNode, name string) bool {
	f, ok := n.(*tast.FuncCallExpr)
	return ok && f.FnName.O == name
}

// relConverter converts the FROM tree, taking positions and the lifted
// join types and windows from the pre-pass, in text order.
type relConverter struct {
	c      *converter
	qs     *queryState
	tables int
	joins  int
}

func (rc *relConverter) relation(n tast.ResultSetNode) (ast.Relation, error) {
	switch n := n.(type) {
	case *tast.Join:
		if n.Right == nil {
			return rc.relation(n.Left)
		}
		return rc.join(n)
	case *tast.TableSource:
		return rc.table(n)
	}
	return nil, rc.c.p.errAt(rc.qs.tables[0], sqlerr.Unsupported, "unsupported FROM clause")
}

func (rc *relConverter) table(n *tast.TableSource) (ast.Relation, error) {
	name, ok := n.Source.(*tast.TableName)
	if !ok || rc.tables >= len(rc.qs.tables) {
		return nil, rc.c.p.errAt(rc.qs.tables[0], sqlerr.Unsupported, "only named sources are supported in FROM")
	}
	t := rc.qs.tables[rc.tables]
	rc.tables++
	return &ast.TableRef{P: t.P, Name: name.Name.O, Alias: n.AsName.O}, nil
}

func (rc *relConverter) join(n *tast.Join) (ast.Relation, error) {
	left, err := rc.relation(n.Left)
	if err != nil {
		return nil, err
	}
	if rc.joins >= len(rc.qs.joins) {
		// A join the pre-pass did not see: TiDB read a comma (cross join).
		return nil, rc.c.p.errAt(rc.qs.tables[0], sqlerr.Syntax, "only one source or JOIN … ON is allowed here, not a comma-separated list")
	}
	info := rc.qs.joins[rc.joins]
	rc.joins++
	right, err := rc.relation(n.Right)
	if err != nil {
		return nil, err
	}
	j := &ast.Join{P: info.p, Type: info.typ, Left: left, Right: right, Within: info.within, AsOf: info.asOf}
	if n.On != nil {
		j.On, err = rc.c.expr(n.On.Expr)
	}
	return j, err
}
