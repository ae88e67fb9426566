package planner

import (
	"github.com/sqlstream/sqlstream/sql/ast"
)

// alignKeyFormats handles two sides joined on their keys whose key
// formats differ (KAFKA and JSON, say): equal keys are then different
// bytes, which need not be in the same partition. As ksqlDB does, the
// right side is repartitioned into the left's key format: a stream is
// re-keyed by its own key columns (`Join-right-repartition`, or
// `Join-repartition`'s stream–stream counterpart), a table is sent
// through `RightSourceKeyed-SelectKey-repartition` and kept in
// `RightSourceKeyed-Materialize` (Reformat).
func (p *Planner) alignKeyFormats(n *Join, s *joinScope) error {
	l, r := &n.Left, &n.Right
	if n.Foreign() || l.Rekeyed() || r.Rekeyed() || l.Nested() || r.Nested() ||
		l.Source.KeyFormat.Name == r.Source.KeyFormat.Name {
		return nil
	}
	if r.Source.Kind == ast.Table {
		r.Reformat = true
		return nil
	}
	keys := r.Keys
	r.Keys = nil
	for _, i := range keys {
		col := &ast.ColumnRef{Source: r.Alias, Name: r.Source.Schema.Columns[i].Name}
		if err := p.rekey(s, r, col); err != nil {
			return err
		}
	}
	return nil
}
