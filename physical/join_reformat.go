package physical

import (
	"slices"

	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/types"
)

// reformatName is the repartition topic of a table whose key format is
// not the join's (a right table's of another format than the left's, any
// table of a join keyed in a registry format; ksqlDB's KLIP-33 names);
// the join keeps the table in reformatStoreName instead of
// KafkaTopic_Right-Reduce.
func reformatName(side planner.JoinSide) string {
	return sideKeyed(side) + "-SelectKey-repartition"
}

func reformatStoreName(side planner.JoinSide) string { return sideKeyed(side) + "-Materialize" }

func sideKeyed(side planner.JoinSide) string {
	if side == planner.JoinLeft {
		return "LeftSourceKeyed"
	}
	return "RightSourceKeyed"
}

// reformatTable adds the sub-topology that copies a table side
// (planner.JoinInput.Reformat) to its repartition topic with its key in
// the join's key format (the left's), so that equal keys of both sides
// are equal bytes and murmur2 puts them in one partition; deletes stay
// deletes. It returns the topic, which the join's sub-topology reads.
func (b *builder) reformatTable(n *planner.Join, side planner.JoinSide) string {
	name := n.Prefix + reformatName(side)
	topic := b.internalName(name)
	in := joinInput(n, side)
	it := InternalTopic{Name: topic}
	if n.Foreign() {
		it.PartitionsOf = in.Source.Topic // the right table's count, as the FK topics'
	}
	b.topo.Internal = append(b.topo.Internal, it)
	b.startSource(&planner.Scan{Source: in.Source, Alias: in.Alias})
	via := reformatted(n, side, b.internal(), topic)
	b.addStep(step{desc: NodeDesc{Kind: "Sink", Name: name + "-sink", Topic: topic},
		make: func(env *TaskEnv, _ Processor) (Processor, error) { return newSinkOp(env, via, nil) }})
	b.finish()
	return topic
}

// reformatted describes a side's repartition topic as a source: the
// table's columns, the join's key format (the left's, or the table's own
// when an n-way step re-keys its left side), the value columns in the
// table's value format (legacy queries: JSON); the rows' times are
// already set (no TIMESTAMP column).
func reformatted(n *planner.Join, side planner.JoinSide, f internalFormats, topic string) *planner.Source {
	table := joinInput(n, side).Source
	src := *table
	src.Schema = valueRecordColumns(src.Schema) // the copy keeps the table's records'
	src.Topic = topic
	src.KeyFormat = f.joinKeySpec(reformatKeyFormat(n), topic, src.Schema.Keys())
	src.ValueFormat = f.valueSpec(table.ValueFormat, topic, src.Schema.Values())
	src.TimestampColumn = ""
	return &src
}

// reformatKeyFormat is the key format a reformatted table is copied
// into: the left's, or the right table's own when the left side is
// re-keyed (an n-way step re-keying the nested join into the right's key
// format, which the copy keeps under its own subject).
func reformatKeyFormat(n *planner.Join) format.Spec {
	if n.Left.Rekeyed() {
		return n.Right.Source.KeyFormat
	}
	return n.Left.Source.KeyFormat
}

// valueRecordColumns is s with its record columns (types.RecordNS) as
// value columns: a topic a join side is copied through carries them in
// its values, so the rows keep their source records' partition and
// offset.
func valueRecordColumns(s *types.Schema) *types.Schema {
	out := &types.Schema{Columns: slices.Clone(s.Columns)}
	for i := range out.Columns {
		if out.Columns[i].NS == types.RecordNS {
			out.Columns[i].NS = types.ValueNS
		}
	}
	return out
}
