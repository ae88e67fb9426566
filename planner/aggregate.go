package planner

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/expr"
	"github.com/sqlstream/sqlstream/sql/functions"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/sql/types"
)

// AggCall is one aggregate function call of a GROUP BY query.
type AggCall struct {
	Call *ast.Call
	// Args are the call's arguments compiled against the aggregate's
	// input; Column is the output column holding the result.
	Args   []*expr.Compiled
	Agg    functions.Aggregator
	Column string
}

// Aggregate groups rows by the GROUP BY expressions and maintains the
// aggregate calls per group in a state store (a KTable). When the group
// key is not the input's key the physical plan first re-keys the rows and
// sends them through a repartition topic, so each group lives in exactly
// one task.
//
// Its output schema is the group key columns followed by one column per
// aggregate call (KSQL_AGG_VARIABLE_n); HAVING and the projection are
// planned above it over that schema.
type Aggregate struct {
	Input   Node
	GroupBy []ast.Expr
	Keys    []*expr.Compiled // group key expressions over the input
	Calls   []AggCall
	// Repartition is set when the group key differs from the input key.
	Repartition bool
	// OnTable is set when the input is a table: updates retract the old
	// row from its group before adding the new one.
	OnTable bool
	// Window is the WINDOW clause (nil: not windowed). Grace and
	// Retention are filled with their defaults.
	Window *ast.WindowExpr
	// Final is EMIT FINAL: one result per window, after it closes.
	Final bool
	// Required are the input columns the query reads, in ksqlDB's order
	// (the select list, WHERE, GROUP BY, HAVING; COUNT(*) reads ROWTIME):
	// ksqlDB's "columns not part of aggregate", which an upgrade in place
	// must keep (upgrade_query.go).
	Required []string
	schema   *types.Schema
}

// Default grace period and retention of windows when the WINDOW clause
// gives none (ksqlDB's: 24 hours of grace; retention at least one day and
// at least size + grace).
const (
	DefaultGrace     = 24 * 60 * 60 * 1000
	DefaultRetention = 24 * 60 * 60 * 1000
)

// windowDefaults returns w with grace and retention filled in. EMIT FINAL
// follows ksqlDB's observed behaviour: no grace unless given, and windows
// kept only for size + grace unless a retention is given (a closed window
// is still emitted before it expires, unlike in ksqlDB).
func windowDefaults(w *ast.WindowExpr, final bool) *ast.WindowExpr {
	c := *w
	switch {
	case c.Grace < 0 && final:
		c.Grace = 0
	case c.Grace < 0:
		c.Grace = DefaultGrace
	}
	switch {
	case c.Retention < 0 && final:
		c.Retention = c.Size + c.Grace
	case c.Retention < 0:
		c.Retention = max(DefaultRetention, c.Size+c.Grace)
	}
	return &c
}

// Schema implements Node.
func (n *Aggregate) Schema() *types.Schema { return n.schema }

// Inputs implements Node.
func (n *Aggregate) Inputs() []Node { return []Node{n.Input} }

var _ Node = (*Aggregate)(nil)

// aggColumn names the output column of the i-th aggregate call.
func aggColumn(i int) string { return "KSQL_AGG_VARIABLE_" + strconv.Itoa(i) }

// aggregation is the planner's working state for one GROUP BY query.
type aggregation struct {
	p     *Planner
	n     *Aggregate
	scope expr.Scope
	calls map[string]string // canonical call text → output column
	keys  map[string]string // canonical group expression → key column
}

// aggregate plans GROUP BY over in and rewrites the select items and
// HAVING to read the aggregate's output columns.
func (p *Planner) aggregate(in Node, q *ast.Query, scope expr.Scope, table bool, items []ast.SelectItem) (*Aggregate, []ast.SelectItem, ast.Expr, error) {
	if len(q.GroupBy) == 0 {
		return nil, nil, nil, sqlerr.New(sqlerr.Semantic, q.P, "Aggregate query needs GROUP BY clause. Use GROUP BY to group on a column or expression, or use a table function instead.")
	}
	a := &aggregation{p: p, n: &Aggregate{Input: in, GroupBy: q.GroupBy, OnTable: table, Final: q.Emit == ast.EmitFinal}, scope: scope,
		calls: map[string]string{}, keys: map[string]string{}}
	if err := a.groupKeys(items); err != nil {
		return nil, nil, nil, err
	}
	items, err := expandGroupedStar(items, in.Schema(), q.GroupBy)
	if err != nil {
		return nil, nil, nil, err
	}
	out := make([]ast.SelectItem, len(items))
	names := newNamer(in.Schema())
	names.deferDup = true // the projection over the aggregation checks, knowing the types
	for i, it := range items {
		e, err := a.rewrite(it.Expr)
		if err != nil {
			return nil, nil, nil, err
		}
		// Output names come from the expressions as written (KSQL_COL_n
		// for aggregate calls), not from their rewritten form.
		if it.Alias, err = names.name(it, nil); err != nil {
			return nil, nil, nil, err
		}
		it.Expr = e
		out[i] = it
	}
	var having ast.Expr
	if q.Having != nil {
		if err := noWindowBound(q.Having); err != nil {
			return nil, nil, nil, err
		}
		h, err := a.rewrite(q.Having)
		if err != nil {
			return nil, nil, nil, err
		}
		having = h
	}
	if len(a.n.Calls) == 0 {
		return nil, nil, nil, sqlerr.New(sqlerr.Semantic, q.P, "GROUP BY requires aggregate functions in either the SELECT or HAVING clause.")
	}
	if q.Window != nil {
		if table {
			return nil, nil, nil, sqlerr.New(sqlerr.Semantic, q.Window.P, "Windowing not supported for table aggregations.")
		}
		a.n.Window = windowDefaults(q.Window, q.Emit == ast.EmitFinal)
		if err := checkWindow(a.n.Window, a.p.Defaults.MaxWindowsPerRecord); err != nil {
			return nil, nil, nil, err
		}
	}
	if a.n.Final && a.n.Window == nil {
		return nil, nil, nil, sqlerr.New(sqlerr.Semantic, q.P, "EMIT FINAL is only supported for windowed aggregations.")
	}
	a.n.schema = a.schema()
	a.n.Repartition = !sameKey(q.GroupBy, in.Schema())
	a.n.Required = requiredColumns(items, q)
	return a.n, out, having, a.checkNonAggregates(items, out, having)
}

// groupKeys compiles the GROUP BY expressions and names the key columns.
func (a *aggregation) groupKeys(items []ast.SelectItem) error {
	names := newNamer(a.n.Input.Schema())
	for _, g := range a.n.GroupBy {
		if name := innerAggregate(g, a.p.Aggregates); name != "" {
			return sqlerr.New(sqlerr.Semantic, g.Position(), "GROUP BY does not support aggregate functions: %s is an aggregate function.", name)
		}
		if err := noWindowBound(g); err != nil {
			return err
		}
		if _, dup := a.keys[canonical(g)]; dup {
			return sqlerr.New(sqlerr.Semantic, g.Position(), "Duplicate GROUP BY expression: %s", qualify(g, a.n.Input))
		}
		c, err := expr.Compile(g, a.scope, a.p.Registry)
		if err != nil {
			return err
		}
		a.n.Keys = append(a.n.Keys, c)
		a.keys[canonical(g)] = partitionKeyName(g, names, items)
	}
	return nil
}

// canonical is the text used to match equal expressions (qualifiers
// dropped from column references).
func canonical(e ast.Expr) string {
	return ast.FormatExpr(ast.Rewrite(e, func(x ast.Expr) (ast.Expr, bool) {
		if r, ok := x.(*ast.ColumnRef); ok && r.Source != "" {
			return &ast.ColumnRef{P: r.P, Name: r.Name}, true
		}
		return nil, false
	}))
}

// rewrite replaces aggregate calls and group expressions in e by
// references to the aggregate's output columns.
func (a *aggregation) rewrite(e ast.Expr) (ast.Expr, error) {
	var ferr error
	out := ast.Rewrite(e, func(x ast.Expr) (ast.Expr, bool) {
		if ferr != nil {
			return nil, false
		}
		if name, ok := a.keys[canonical(x)]; ok {
			return &ast.ColumnRef{P: x.Position(), Name: name}, true
		}
		call, ok := x.(*ast.Call)
		if !ok || !a.p.Aggregates.IsAggregate(call.Name) {
			return nil, false
		}
		col, err := a.call(call)
		if err != nil {
			ferr = err
			return nil, false
		}
		return &ast.ColumnRef{P: x.Position(), Name: col}, true
	})
	return out, ferr
}

// call plans one aggregate call (once per distinct call text).
func (a *aggregation) call(c *ast.Call) (string, error) {
	text := canonical(c)
	if col, ok := a.calls[text]; ok {
		return col, nil
	}
	var args []*expr.Compiled
	var argTypes []*types.Type
	for _, x := range c.Args {
		if containsAggregate(x, a.p.Aggregates) {
			return "", sqlerr.New(sqlerr.Semantic, x.Position(), "Aggregate functions can not be nested: %s(%s())", c.Name, innerAggregate(x, a.p.Aggregates))
		}
		if err := noWindowBound(x); err != nil {
			return "", err
		}
		ce, err := expr.Compile(x, a.scope, a.p.Registry)
		if err != nil {
			return "", err
		}
		args = append(args, ce)
		argTypes = append(argTypes, ce.Type())
	}
	agg, err := a.p.Aggregates.Resolve(c.Name, argTypes, trailingLiterals(c.Args))
	var notLiteral *functions.ParamNotLiteralError
	if errors.As(err, &notLiteral) && notLiteral.Index <= len(c.Args) {
		notLiteral.Expr = ast.FormatExpr(c.Args[notLiteral.Index-1])
	}
	if err != nil {
		return "", sqlerr.New(sqlerr.Type, c.P, "%v", err)
	}
	if a.n.OnTable {
		if _, ok := agg.(functions.Undoer); !ok {
			return "", sqlerr.New(sqlerr.Semantic, c.P, "%v", &functions.TableSourceError{Names: []string{c.Name}})
		}
	}
	col := aggColumn(len(a.n.Calls))
	a.n.Calls = append(a.n.Calls, AggCall{Call: c, Args: args, Agg: agg, Column: col})
	a.calls[text] = col
	return col, nil
}

// trailingLiterals returns the values of the literal arguments that end
// the argument list (an aggregate's constant init arguments).
func trailingLiterals(args []ast.Expr) []any {
	i := len(args)
	for i > 0 {
		if _, ok := args[i-1].(*ast.Literal); !ok {
			break
		}
		i--
	}
	var out []any
	for _, x := range args[i:] {
		out = append(out, x.(*ast.Literal).Value)
	}
	return out
}

// noWindowBound refuses WINDOWSTART and WINDOWEND in an aggregation's
// GROUP BY, HAVING or aggregate arguments: they exist only once a window
// closes over the rows (ksqlDB's AggregateAnalyzer).
func noWindowBound(e ast.Expr) error {
	for _, r := range expr.ColumnRefs(e) {
		if r.Name == "WINDOWSTART" || r.Name == "WINDOWEND" {
			return sqlerr.New(sqlerr.Semantic, r.P, "Window bounds column %s can only be used in the SELECT clause of windowed aggregations and can not be passed to aggregate functions.\nSee https://github.com/confluentinc/ksql/issues/4397", r.Name)
		}
	}
	return nil
}

// innerAggregate names the first aggregate call inside e.
func innerAggregate(e ast.Expr, aggs *functions.Aggregates) string {
	name := ""
	ast.Walk(e, func(x ast.Expr) bool {
		if c, ok := x.(*ast.Call); ok && name == "" && aggs.IsAggregate(c.Name) {
			name = c.Name
		}
		return name == ""
	})
	return name
}

func containsAggregate(e ast.Expr, aggs *functions.Aggregates) bool {
	found := false
	ast.Walk(e, func(x ast.Expr) bool {
		if c, ok := x.(*ast.Call); ok && aggs.IsAggregate(c.Name) {
			found = true
		}
		return !found
	})
	return found
}

func (a *aggregation) schema() *types.Schema {
	s := &types.Schema{}
	for i, g := range a.n.GroupBy {
		s.Columns = append(s.Columns, types.Column{Name: a.keys[canonical(g)], Type: a.n.Keys[i].Type(), NS: types.KeyNS})
	}
	for _, c := range a.n.Calls {
		s.Columns = append(s.Columns, types.Column{Name: c.Column, Type: c.Agg.ReturnType()})
	}
	return s
}

// checkNonAggregates rejects column references that are neither grouped
// nor inside an aggregate: in the SELECT, ksqlDB names each offending
// item as written (orig), in HAVING each column.
func (a *aggregation) checkNonAggregates(orig, items []ast.SelectItem, having ast.Expr) error {
	var bad []string
	for i, it := range items {
		if len(a.ungrouped(it.Expr)) > 0 {
			bad = append(bad, ast.FormatExpr(orig[i].Expr))
		}
	}
	if len(bad) > 0 {
		return sqlerr.New(sqlerr.Semantic, ast.Pos{}, "Non-aggregate SELECT expression(s) not part of GROUP BY: %s\nEither add the column(s) to the GROUP BY or remove them from the SELECT.", strings.Join(bad, ", "))
	}
	if having != nil {
		if cols := a.ungrouped(having); len(cols) > 0 {
			return sqlerr.New(sqlerr.Semantic, having.Position(), "Non-aggregate HAVING expression not part of GROUP BY: %s\nConsider switching the HAVING clause to a WHERE clause before the GROUP BY.", strings.Join(cols, ", "))
		}
	}
	return nil
}

// ungrouped returns the columns e reads that the aggregate does not
// output (neither grouped nor aggregated).
func (a *aggregation) ungrouped(e ast.Expr) []string {
	var cols []string
	for _, r := range expr.ColumnRefs(e) {
		if a.n.schema.Find(r.Name) < 0 && !IsPseudoColumn(r.Name) {
			cols = append(cols, r.Name)
		}
	}
	return cols
}

// sameKey reports whether grouping by exprs keeps the input's key: the
// expressions are exactly the input's key columns, in order.
func sameKey(exprs []ast.Expr, in *types.Schema) bool {
	keys := in.Keys()
	if len(keys) != len(exprs) {
		return false
	}
	for i, e := range exprs {
		r, ok := e.(*ast.ColumnRef)
		if !ok || r.Name != keys[i].Name {
			return false
		}
	}
	return true
}

// String describes the aggregate for EXPLAIN.
func (n *Aggregate) String() string {
	keys := make([]string, len(n.GroupBy))
	for i, g := range n.GroupBy {
		keys[i] = ast.FormatExpr(g)
	}
	calls := make([]string, len(n.Calls))
	for i, c := range n.Calls {
		calls[i] = fmt.Sprintf("%s AS %s", ast.FormatExpr(c.Call), c.Column)
	}
	out := "Group by: " + strings.Join(keys, ", ") + " | Aggregates: " + strings.Join(calls, ", ")
	if n.Window != nil {
		out += " | Window: " + ast.FormatWindow(n.Window)
	}
	if n.Final {
		out += " | Emit: FINAL"
	}
	return out
}

// expandGroupedStar expands SELECT * in a GROUP BY query, which is valid
// only when every input column is grouped.
func expandGroupedStar(items []ast.SelectItem, in *types.Schema, groupBy []ast.Expr) ([]ast.SelectItem, error) {
	grouped := map[string]bool{}
	for _, g := range groupBy {
		if r, ok := g.(*ast.ColumnRef); ok {
			grouped[r.Name] = true
		}
	}
	var out []ast.SelectItem
	for _, it := range items {
		if !it.Star {
			out = append(out, it)
			continue
		}
		for _, c := range in.Columns {
			if !grouped[c.Name] {
				return nil, sqlerr.New(sqlerr.Semantic, it.P, "Non-aggregate SELECT expression(s) not part of GROUP BY: %s", c.Name)
			}
			out = append(out, ast.SelectItem{P: it.P, Expr: &ast.ColumnRef{P: it.P, Name: c.Name}})
		}
	}
	return out, nil
}

// checkAggregateFormat applies ksqlDB's limits on the source's value
// format: KAFKA cannot carry an aggregation, DELIMITED cannot carry
// structured intermediate state.
func checkAggregateFormat(n *Aggregate, src *Source, pos ast.Pos) error {
	switch src.ValueFormat.Name {
	case "KAFKA":
		return sqlerr.New(sqlerr.Unsupported, pos, "Source(s) %s are using the 'KAFKA' value format. This format does not yet support GROUP BY.", src.Name)
	case "DELIMITED":
		for _, c := range n.Calls {
			switch c.Agg.StateType().Kind {
			case types.KindStruct, types.KindArray, types.KindMap:
				return sqlerr.New(sqlerr.Unsupported, c.Call.P, "One of the functions used in the statement has an intermediate type that the value format can not handle. Please remove the function or change the format.")
			}
		}
	}
	return nil
}

// requiredColumns lists the columns an aggregation reads, once each, in
// the order ksqlDB's AggregateAnalyzer meets them.
func requiredColumns(items []ast.SelectItem, q *ast.Query) []string {
	var out []string
	seen := map[string]bool{}
	add := func(name string) {
		if !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	visit := func(e ast.Expr) {
		if e == nil {
			return
		}
		ast.Walk(e, func(x ast.Expr) bool {
			switch x := x.(type) {
			case *ast.ColumnRef:
				add(x.Name)
			case *ast.Call:
				if x.Star {
					add("ROWTIME")
				}
			}
			return true
		})
	}
	for _, it := range items {
		visit(it.Expr)
	}
	visit(q.Where)
	for _, g := range q.GroupBy {
		visit(g)
	}
	visit(q.Having)
	return out
}
