package physical

import (
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
)

// Kafka Streams numbers the nodes it names itself (KSTREAM-SOURCE-N,
// KSTREAM-JOINTHIS-N, …) with one counter over the whole topology, in the
// order ksqlDB builds it; a node ksqlDB names still takes its number
// ("burns an index") where Kafka Streams keeps old topologies' names. A
// stream–stream join's window stores are named after two of those
// numbers, so the number is that of the nodes built before them: the
// join tree below the step, in ksqlDB's build order (a stream–stream or
// table–table step's left side, then its right; a stream–table step's
// table first). Each count was read off ksqlDB's topologies of the
// multi-joins QTT cases (its historical plans).
const (
	// streamSourceNodes: KSTREAM-SOURCE, its PROCESSVALUES, the PEEK.
	streamSourceNodes = 3
	// tableSourceNodes: KSTREAM-SOURCE, KTABLE-SOURCE, two
	// KTABLE-TRANSFORMVALUES and the two indexes the table's
	// materialization burns.
	tableSourceNodes = 6
	// reformattedTableNodes: a table repartitioned into the join's key
	// format (RightSourceKeyed-SelectKey-repartition and
	// RightSourceKeyed-Materialize).
	reformattedTableNodes = 12
	// selectKeyNodes: a side's LeftSourceKeyed-SelectKey.
	selectKeyNodes = 1
	// repartitionNodes: a re-keyed side's repartition filter, sink and
	// source, made when the join is.
	repartitionNodes = 3
	// windowedNodes: the two -windowed processors of a stream–stream
	// join, numbered before its JOINTHIS.
	windowedNodes = 2
	// streamJoinTailNodes: JOINTHIS, JOINOTHER and the merge.
	streamJoinTailNodes = 3
	// tableJoinNodes: the join processor of a stream–table or
	// table–table step.
	tableJoinNodes = 1
)

// ksqlStreamJoinBases are Kafka Streams' numbers of the "this" window
// store of each stream–stream step of the join tree under root: the
// nodes built before the step's tree (the tables of the stream–table
// steps above it), the nodes of its two sides and of their
// repartitions, then the two windowed processors.
func ksqlStreamJoinBases(root *planner.Join) map[*planner.Join]int {
	out := map[*planner.Join]int{}
	before := 0
	for n := root; n != nil; {
		if n.Shape == planner.StreamStream {
			out[n] = before + streamJoinNodes(n)
		}
		if n.Shape == planner.StreamTable {
			before += sideNodes(&n.Right) // ksqlDB builds the table first
		}
		n, _ = n.Left.Node.(*planner.Join)
	}
	return out
}

// streamJoinNodes are the nodes a stream–stream step numbers before its
// JOINTHIS.
func streamJoinNodes(n *planner.Join) int {
	return sideNodes(&n.Left) + sideNodes(&n.Right) + repartitions(n)*repartitionNodes + windowedNodes
}

// stepNodes are the nodes a join step numbers, its sides' included.
func stepNodes(n *planner.Join) int {
	switch n.Shape {
	case planner.StreamStream:
		return streamJoinNodes(n) + streamJoinTailNodes
	default:
		return sideNodes(&n.Left) + sideNodes(&n.Right) + repartitions(n)*repartitionNodes + tableJoinNodes
	}
}

// repartitions counts the step's sides re-keyed through a repartition
// topic made by the join (a reformatted table's nodes count its own).
func repartitions(n *planner.Join) int {
	k := 0
	for _, in := range []*planner.JoinInput{&n.Left, &n.Right} {
		if in.Rekeyed() {
			k++
		}
	}
	return k
}

// sideNodes are the nodes one side of a step numbers: its source (a
// nested step's nodes) and, for a re-keyed side, its select-key.
func sideNodes(in *planner.JoinInput) int {
	k := 0
	switch {
	case in.Nested():
		k = stepNodes(in.Node.(*planner.Join))
	case in.Reformat:
		k = reformattedTableNodes
	case in.Source.Kind == ast.Table:
		k = tableSourceNodes
	default:
		k = streamSourceNodes
	}
	if in.Rekeyed() {
		k += selectKeyNodes
	}
	return k
}
