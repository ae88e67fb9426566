package planner

import (
	"slices"

	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/types"
)

// The pseudo columns a join side can carry from its source records, as
// ksqlDB's join sides do (its sources copy them into the value): a
// qualified `x.ROWPARTITION` / `x.ROWOFFSET` reads the record of x's row,
// not the joined row's, in ON and above the join.
const (
	RowPartitionColumn = "ROWPARTITION"
	RowOffsetColumn    = "ROWOFFSET"
)

// recordColumns are a side's record columns, after its own columns.
var recordColumns = []types.Column{
	{Name: RowPartitionColumn, Type: types.IntegerType, NS: types.RecordNS},
	{Name: RowOffsetColumn, Type: types.BigintType, NS: types.RecordNS},
}

// withRecordColumns is src as a join side that carries its records'
// partition and offset: two more columns (types.RecordNS) that the
// source operator fills from the record and that the side's stores and
// repartition topics keep like values, so a re-keyed or stored row keeps
// its source record's (ksqlDB's semantics). The catalog's source is
// left alone; origin points back at it.
func withRecordColumns(src *Source) *Source {
	out := *src
	out.Schema = &types.Schema{Columns: append(slices.Clip(src.Schema.Columns), recordColumns...)}
	out.origin = src
	return &out
}

// catalogSource is the source a join side reads (itself unless it is a
// copy with record columns).
func catalogSource(src *Source) *Source {
	if src.origin != nil {
		return src.origin
	}
	return src
}

// isRecordColumn reports whether c is a record column of a join side.
func isRecordColumn(c types.Column) bool { return c.NS == types.RecordNS }

// recordRefs says which sources of a join query carry record columns:
// those a qualified `x.ROWPARTITION` or `x.ROWOFFSET` names anywhere in
// the query (ON of any step, SELECT, WHERE, PARTITION BY, GROUP BY,
// HAVING), or all of them for `SELECT *` with PARTITION BY, which
// selects every side's pseudo columns as ksqlDB does.
type recordRefs struct {
	all    bool
	byName map[string]bool // alias or source name as qualified
}

func queryRecordRefs(q *ast.Query) recordRefs {
	refs := recordRefs{byName: map[string]bool{}}
	visit := func(e ast.Expr) {
		if e == nil {
			return
		}
		ast.Walk(e, func(x ast.Expr) bool {
			if r, ok := x.(*ast.ColumnRef); ok && r.Source != "" && (r.Name == RowPartitionColumn || r.Name == RowOffsetColumn) {
				refs.byName[r.Source] = true
			}
			return true
		})
	}
	for _, it := range q.Items {
		visit(it.Expr)
		refs.all = refs.all || (it.Star && it.Source == "" && len(q.PartitionBy) > 0)
	}
	for _, es := range [][]ast.Expr{{q.Where, q.Having}, q.GroupBy, q.PartitionBy} {
		for _, e := range es {
			visit(e)
		}
	}
	for rel := q.From; rel != nil; {
		j, ok := rel.(*ast.Join)
		if !ok {
			break
		}
		visit(j.On)
		rel = j.Left
	}
	return refs
}

// carries reports whether the source ref (read as alias) carries record
// columns.
func (r recordRefs) carries(ref *ast.TableRef, alias string) bool {
	return r.all || r.byName[alias] || r.byName[ref.Name]
}

// partitionedStarNames lists what `*` selects above a join re-keyed by
// PARTITION BY: the columns ksqlDB's repartitioned join value has, in its
// order: for each source, its value columns, its pseudo columns (ROWTIME,
// ROWPARTITION, ROWOFFSET, window bounds) and its key columns, each as
// ALIAS_COL; then any other column of the join (a synthetic key).
// PARTITION BY then moves its key out of them.
func partitionedStarNames(n *Join) []string {
	var names []string
	seen := map[string]bool{}
	add := func(name string) {
		if !seen[name] && n.schema.Find(name) >= 0 {
			seen[name] = true
			names = append(names, name)
		}
	}
	pseudo := []string{rowTimeColumn, RowPartitionColumn, RowOffsetColumn, "WINDOWSTART", "WINDOWEND"}
	for _, lf := range n.leaves {
		cols := lf.src.Schema.Columns
		for _, c := range cols {
			if c.NS != types.KeyNS && !isRecordColumn(c) {
				add(qualified(lf.alias, c.Name))
			}
		}
		for _, p := range pseudo {
			add(qualified(lf.alias, p))
		}
		for _, c := range cols {
			if c.NS == types.KeyNS {
				add(qualified(lf.alias, c.Name))
			}
		}
	}
	for _, c := range n.schema.Columns {
		if !n.hidden[c.Name] {
			add(c.Name)
		}
	}
	return names
}
