package planner

import (
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/format"
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
	if n.Foreign() {
		r.Reformat = !p.Defaults.LegacyJoinRepartition && !p.Defaults.LegacyRegistryJoinSteps && registryKeyed(r.Source) && !r.Nested()
		return nil
	}
	if r.Nested() {
		return nil
	}
	if l.Nested() {
		// An n-way join's next step: the nested join's rows keep the key
		// (and key format) they were joined on, as ksqlDB's do, or are
		// re-keyed by expressions; only a right side joined on its key is
		// repartitioned into the join's key format, when that is a
		// registry's.
		if p.Defaults.LegacyRegistryJoinSteps || !p.forcesRepartition(n) || r.Rekeyed() {
			return nil
		}
		if err := p.repartitionKeyed(s, r); err != nil {
			return err
		}
		r.Aligned = r.Rekeyed()
		if r.Reformat {
			shiftNested(l, reformatNodes)
		}
		return nil
	}
	if p.forcesRepartition(n) {
		return p.repartitionBoth(n, s)
	}
	if l.Rekeyed() || r.Rekeyed() || l.Source.KeyFormat.Name == r.Source.KeyFormat.Name {
		return nil
	}
	return p.repartitionKeyed(s, r)
}

// reformatNodes are the Kafka Streams nodes of a reformatted right table
// (source, materialization, re-key, repartition sink and source, …),
// which ksqlDB builds before a stream–table join's left side.
const reformatNodes = 12

// shiftNested moves the store numbering of every join nested on the left
// of in by k nodes.
func shiftNested(in *JoinInput, k int) {
	for in.Nested() {
		j := in.Node.(*Join)
		j.StoreShift += k
		in = &j.Left
	}
}

// repartitionKeyed sends a side joined on its key through a repartition
// topic in the join's key format: a table is reformatted, a stream
// re-keyed by its own key columns.
func (p *Planner) repartitionKeyed(s *joinScope, in *JoinInput) error {
	if in.Source.Kind == ast.Table {
		in.Reformat = true
		return nil
	}
	keys := in.Keys
	in.Keys = nil
	for _, i := range keys {
		col := &ast.ColumnRef{Source: in.Alias, Name: in.Source.Schema.Columns[i].Name}
		if err := p.rekey(s, in, col); err != nil {
			return err
		}
	}
	return nil
}

// registryKeyed reports a source keyed in a schema-registry format. The
// right table of a foreign-key join so keyed is reformatted into the left
// table's key format, as ksqlDB's PreJoinRepartitionNode does: the
// foreign keys the left side extracts are written by the join's own
// serializer (its schema, its id), which a producer's key bytes of the
// right table need not equal, and murmur2 of unequal bytes would send a
// subscription to another partition than its right row.
func registryKeyed(src *Source) bool {
	_, registry := format.SchemaTypeOf(src.KeyFormat.Name)
	return registry
}

// forcesRepartition reports a join whose key format is a schema-registry
// format (AVRO, PROTOBUF, JSON_SR): as ksqlDB does (its
// PreJoinRepartitionNode, "to avoid misses due to key schema ID
// mismatch"), every side is repartitioned, so both sides' keys are
// written by one serializer's schema, not each by its producer's (tables
// through LeftSourceKeyed / RightSourceKeyed topics). Windowed sides are
// repartitioned so too where windowedRepartition says: their records
// keep their windows, written in the left's windowed key format. An
// n-way join's steps repartition only their right side
// (alignKeyFormats). Never under LegacyJoinRepartition.
func (p *Planner) forcesRepartition(n *Join) bool {
	if p.Defaults.LegacyJoinRepartition {
		return false
	}
	kf := n.Left.Source.KeyFormat
	if n.Left.Rekeyed() && !n.Right.Rekeyed() {
		kf = n.Right.Source.KeyFormat
	}
	if _, registry := format.SchemaTypeOf(kf.Name); !registry {
		return false
	}
	if n.Left.Source.Windowed() || n.Right.Source.Windowed() {
		return p.windowedRepartition(n)
	}
	return true
}

// windowedRepartition reports a join whose windowed sides go through
// repartition topics, not an n-way join's step:
//
//   - a stream–stream join of two windowed streams (not under
//     LegacyWindowedJoins). Kafka Streams writes their keys with the
//     left's windowed serializer (a time window's start, a session's end
//     and start), so time windows of other sizes or types join by their
//     starts, as in ksqlDB, where that is only done for registry key
//     formats;
//   - a join of a windowed table with a windowed table or stream of the
//     same window type and size (not under LegacyWindowedTableJoins):
//     each table is copied through its SourceKeyed topic with its
//     windowed key in the left's key format, a stream re-keyed with its
//     window. ksqlDB refuses these joins ("does not support joins on
//     windowed sources with Schema-Registry-enabled key formats",
//     SchemaKTable.selectKey: it cannot repartition a windowed table),
//     and every persistent query over a windowed table; sqlstream runs
//     those (planner/testdata/validations, ext), and reading each side
//     from its own topic would miss the rows whose keys two producers
//     wrote under other schema ids, hence in other partitions.
func (p *Planner) windowedRepartition(n *Join) bool {
	l, r := n.Left.Source, n.Right.Source
	if n.Left.Nested() || n.Right.Nested() || !l.Windowed() || !r.Windowed() {
		return false
	}
	if n.Shape == StreamStream {
		return !p.Defaults.LegacyWindowedJoins
	}
	return !p.Defaults.LegacyWindowedTableJoins && l.Window.Kind == r.Window.Kind && l.Window.Size == r.Window.Size
}

// repartitionBoth repartitions each side not already re-keyed.
func (p *Planner) repartitionBoth(n *Join, s *joinScope) error {
	for _, in := range []*JoinInput{&n.Left, &n.Right} {
		if in.Rekeyed() {
			continue
		}
		if err := p.repartitionKeyed(s, in); err != nil {
			return err
		}
	}
	return nil
}
