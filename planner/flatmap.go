package planner

import (
	"strconv"
	"strings"

	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/expr"
	"github.com/sqlstream/sqlstream/sql/functions"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/sql/types"
)

// FlatMap applies the table functions of the SELECT list (ksqlDB's
// FlatMapNode): each input row yields as many rows as the longest list
// its calls return, the shorter lists padded with NULL. Every output row
// is the input row followed by one synthesized column per call
// (KSQL_SYNTH_n), which the projection above reads in place of the call.
type FlatMap struct {
	Input  Node
	Calls  []TableCall
	schema *types.Schema
}

// TableCall is one table function call of a FlatMap.
type TableCall struct {
	Call   *ast.Call
	Fn     *expr.CompiledTable
	Column string // the synthesized column holding its values
}

// Schema implements Node.
func (n *FlatMap) Schema() *types.Schema { return n.schema }

// Inputs implements Node.
func (n *FlatMap) Inputs() []Node { return []Node{n.Input} }

var _ Node = (*FlatMap)(nil)

// synthesizedPrefix names the columns holding table function values.
const synthesizedPrefix = "KSQL_SYNTH_"

// rewrite replaces the FlatMap's calls in e by references to their
// synthesized columns.
func (n *FlatMap) rewrite(e ast.Expr) ast.Expr {
	return ast.Rewrite(e, func(x ast.Expr) (ast.Expr, bool) {
		for _, c := range n.Calls {
			if x == ast.Expr(c.Call) {
				return &ast.ColumnRef{P: c.Call.P, Name: c.Column}, true
			}
		}
		return nil, false
	})
}

// flatMap builds the FlatMap for the table function calls of items, or
// returns nil when there are none. It enforces ksqlDB's rules: only on
// a stream, not with aggregations, not nested, not inside CASE (pull
// queries reject them earlier, see checkPullTableFunctions).
func (p *Planner) flatMap(in Node, q *ast.Query, items []ast.SelectItem, scope expr.Scope, src *Source) (*FlatMap, error) {
	calls, err := p.tableCalls(items)
	if err != nil || len(calls) == 0 {
		return nil, err
	}
	at := calls[0].P
	switch {
	case len(q.GroupBy) > 0 || p.hasAggregate(items, q.Having):
		return nil, sqlerr.New(sqlerr.Semantic, at, "Table functions cannot be used with aggregations.")
	case src.Kind == ast.Table:
		return nil, sqlerr.New(sqlerr.Semantic, at, "Table source is not supported with table functions")
	}
	n := &FlatMap{Input: in}
	s := &types.Schema{Columns: append([]types.Column(nil), in.Schema().Columns...)}
	for i, c := range calls {
		fn, err := expr.CompileTable(c, scope, p.Registry)
		if err != nil {
			return nil, err
		}
		name := synthesizedPrefix + strconv.Itoa(i)
		n.Calls = append(n.Calls, TableCall{Call: c, Fn: fn, Column: name})
		s.Columns = append(s.Columns, types.Column{Name: name, Type: fn.Type(), NS: types.ValueNS})
	}
	n.schema = s
	return n, nil
}

// tableCalls returns the table function calls of the SELECT list in
// order, rejecting nested ones and ones inside CASE.
func (p *Planner) tableCalls(items []ast.SelectItem) ([]*ast.Call, error) {
	f := &tableCallFinder{p: p}
	for _, it := range items {
		ast.Walk(it.Expr, f.visit)
		if f.err != nil {
			return nil, f.err
		}
	}
	return f.calls, nil
}

// tableCallFinder collects table function calls during an ast.Walk.
type tableCallFinder struct {
	p     *Planner
	calls []*ast.Call
	err   error
}

func (f *tableCallFinder) visit(x ast.Expr) bool {
	if f.err != nil {
		return false
	}
	switch x := x.(type) {
	case *ast.Case:
		if c := f.p.firstTableCall(x); c != nil {
			f.err = sqlerr.New(sqlerr.Semantic, c.P, "Table functions cannot be used in CASE: %s", ast.FormatExpr(x))
		}
		return false
	case *ast.Call:
		if !f.p.isTableFunction(x.Name) {
			return true
		}
		for _, a := range x.Args {
			if inner := f.p.firstTableCall(a); inner != nil && f.err == nil {
				f.err = sqlerr.New(sqlerr.Semantic, inner.P, "Table functions cannot be nested: %s(%s())", x.Name, inner.Name)
			}
		}
		f.calls = append(f.calls, x)
		return false
	}
	return true
}

func (p *Planner) isTableFunction(name string) bool {
	k, ok := p.Registry.Kind(name)
	return ok && k == functions.Table
}

// firstTableCall returns the first table function call in e, if any.
func (p *Planner) firstTableCall(e ast.Expr) *ast.Call {
	var found *ast.Call
	ast.Walk(e, func(x ast.Expr) bool {
		if c, ok := x.(*ast.Call); ok && found == nil && p.isTableFunction(c.Name) {
			found = c
		}
		return found == nil
	})
	return found
}

// checkNoTableFunction rejects a table function call in a clause other
// than the SELECT list.
func (p *Planner) checkNoTableFunction(clause string, exprs ...ast.Expr) error {
	for _, e := range exprs {
		if c := p.firstTableCall(e); c != nil {
			return sqlerr.New(sqlerr.Semantic, c.P, "Table function '%s' is not allowed in %s: table functions are only allowed in the SELECT list", c.Name, clause)
		}
	}
	return nil
}

// checkPullTableFunctions rejects a table function anywhere in the
// SELECT list of a pull query, over a stream as over a table: a pull
// query returns the rows it reads, so it has no FlatMap.
func (p *Planner) checkPullTableFunctions(items []ast.SelectItem) error {
	for _, it := range items {
		if c := p.firstTableCall(it.Expr); c != nil {
			return sqlerr.New(sqlerr.Unsupported, c.P, "Pull queries don't support table functions: %s.", c.Name)
		}
	}
	return nil
}

// starColumns are the columns `*` expands to over in: a FlatMap's
// synthesized columns are not the source's.
func starColumns(in Node) *types.Schema {
	if fm, ok := in.(*FlatMap); ok {
		return fm.Input.Schema()
	}
	return in.Schema()
}

// checkTableFunctionClauses rejects table functions outside the SELECT
// list.
func (p *Planner) checkTableFunctionClauses(q *ast.Query) error {
	if err := p.checkNoTableFunction("WHERE", q.Where); err != nil {
		return err
	}
	if err := p.checkNoTableFunction("GROUP BY", q.GroupBy...); err != nil {
		return err
	}
	if err := p.checkNoTableFunction("PARTITION BY", q.PartitionBy...); err != nil {
		return err
	}
	return p.checkNoTableFunction("HAVING", q.Having)
}

// readFlatMap rewrites e to read the synthesized columns when in is a
// FlatMap; otherwise it returns e.
func readFlatMap(in Node, e ast.Expr) ast.Expr {
	if fm, ok := in.(*FlatMap); ok {
		return fm.rewrite(e)
	}
	return e
}

// String is the FlatMap's EXPLAIN detail: each call and its column.
func (n *FlatMap) String() string {
	var b strings.Builder
	b.WriteString("Table functions: ")
	for i, c := range n.Calls {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(ast.FormatExpr(c.Call) + " AS " + c.Column)
	}
	return b.String()
}
