package planner

import (
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/expr"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/sql/types"
)

// PartitionBy re-keys a stream (PARTITION BY): the key becomes the
// partition expressions; every input column stays available, the old key
// columns moving into the value. No repartition topic is needed for a
// stream sink: the sink's partitioner places each record by its new key.
// A NULL expression makes the stream keyless.
type PartitionBy struct {
	Input Node
	Exprs []ast.Expr
	Evals []*expr.Compiled // nil for a NULL literal
	// KeyOnly marks expressions that read only key columns: on a null row
	// (null value) only those can be computed, the others are NULL.
	KeyOnly []bool
	schema  *types.Schema
}

// Schema implements Node.
func (n *PartitionBy) Schema() *types.Schema { return n.schema }

// Inputs implements Node.
func (n *PartitionBy) Inputs() []Node { return []Node{n.Input} }

var _ Node = (*PartitionBy)(nil)

// partitionBy plans PARTITION BY exprs over in. It returns the node and
// the select items rewritten so that an item equal to a partition
// expression reads the new key column.
func (p *Planner) partitionBy(in Node, exprs []ast.Expr, scope expr.Scope, items []ast.SelectItem) (*PartitionBy, []ast.SelectItem, error) {
	n := &PartitionBy{Input: in, Exprs: exprs}
	var keys []types.Column
	moved := map[string]bool{}
	items = append([]ast.SelectItem(nil), items...)
	names := newNamer(in.Schema())
	for _, e := range exprs {
		if isNullLiteral(e) {
			if len(exprs) > 1 {
				return nil, nil, sqlerr.New(sqlerr.Semantic, e.Position(), "Cannot PARTITION BY multiple columns including NULL")
			}
			n.Evals = append(n.Evals, nil)
			n.KeyOnly = append(n.KeyOnly, true)
			continue
		}
		c, err := expr.Compile(e, scope, p.Registry)
		if err != nil {
			return nil, nil, partitionErr(err, e)
		}
		name := partitionKeyName(e, names, items)
		if ref, ok := e.(*ast.ColumnRef); ok {
			moved[ref.Name] = true
		}
		keys = append(keys, types.Column{Name: name, Type: c.Type(), NS: types.KeyNS})
		n.Evals = append(n.Evals, c)
		n.KeyOnly = append(n.KeyOnly, readsOnlyKeys(e, in.Schema()))
		rewriteItems(items, e, name)
	}
	n.schema = &types.Schema{Columns: keys}
	for _, c := range in.Schema().Columns {
		if c.NS == types.ValueNS && !moved[c.Name] {
			n.schema.Columns = append(n.schema.Columns, c)
		}
	}
	for _, c := range in.Schema().Columns {
		if c.NS == types.KeyNS && !moved[c.Name] {
			c.NS = types.ValueNS
			n.schema.Columns = append(n.schema.Columns, c)
		}
	}
	return n, items, nil
}

// checkWindowedRepartition rejects a PARTITION BY that would re-key a
// windowed source: ksqlDB allows only partitioning by its one key column.
func checkWindowedRepartition(src *Source, exprs []ast.Expr) error {
	if !src.Windowed() {
		return nil
	}
	keys := src.Schema.Keys()
	if ref, ok := exprs[0].(*ast.ColumnRef); ok && len(exprs) == 1 && len(keys) == 1 && ref.Name == keys[0].Name {
		return nil
	}
	return sqlerr.New(sqlerr.Semantic, exprs[0].Position(),
		"Implicit repartitioning of windowed sources is not supported. See https://github.com/confluentinc/ksql/issues/4385.")
}

func partitionErr(err error, e ast.Expr) error {
	if ref, ok := e.(*ast.ColumnRef); ok {
		if se, isSQL := err.(*sqlerr.Error); isSQL && se.Code == sqlerr.Unknown {
			return sqlerr.New(sqlerr.Unknown, ref.P, "PARTITION BY column '%s' cannot be resolved.", ref.Name)
		}
	}
	return err
}

func isNullLiteral(e ast.Expr) bool {
	l, ok := e.(*ast.Literal)
	return ok && l.Value == nil
}

// partitionKeyName names the new key column: the column name of a column
// reference; else the name ksqlDB's generator gives the expression over
// the input's columns (a field name, numbered past clashes, or the next
// KSQL_COL_n), unless a select item computes the same expression: then
// its name.
func partitionKeyName(e ast.Expr, names *namer, items []ast.SelectItem) string {
	if r, ok := e.(*ast.ColumnRef); ok {
		return r.Name
	}
	generated := names.derived(e)
	if _, ok := e.(*ast.Dereference); ok {
		return generated
	}
	text := ast.FormatExpr(e)
	for _, it := range items {
		if it.Expr != nil && it.Alias != "" && ast.FormatExpr(it.Expr) == text {
			return it.Alias
		}
	}
	return generated
}

// rewriteItems makes select items equal to a partition expression read
// the key column, keeping their output names.
func rewriteItems(items []ast.SelectItem, e ast.Expr, key string) {
	if _, isRef := e.(*ast.ColumnRef); isRef {
		return
	}
	text := ast.FormatExpr(e)
	for i, it := range items {
		if it.Expr == nil || it.Star || ast.FormatExpr(it.Expr) != text {
			continue
		}
		if it.Alias == "" {
			it.Alias = derivedName(it.Expr)
			if it.Alias == "" {
				it.Alias = key
			}
		}
		it.Expr = &ast.ColumnRef{P: it.Expr.Position(), Name: key}
		items[i] = it
	}
}

// readsOnlyKeys reports whether every column e reads is a key column.
func readsOnlyKeys(e ast.Expr, in *types.Schema) bool {
	for _, r := range expr.ColumnRefs(e) {
		i := in.Find(r.Name)
		if i < 0 || in.Columns[i].NS != types.KeyNS {
			return false
		}
	}
	return true
}
