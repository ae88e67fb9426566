package topics

import (
	"context"

	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
)

// CheckCopartitioned requires the two sources of a join to have as many
// partitions (ksqlDB's JoinNode check; Kafka Streams would fail the
// assignment with "Topics not co-partitioned"). It runs before anything
// is created or recorded, so a mismatch leaves nothing behind.
func (t Topics) CheckCopartitioned(ctx context.Context, plan *planner.Plan, pos ast.Pos) error {
	if plan.Join == nil {
		return nil
	}
	return t.checkJoinStep(ctx, plan.Join, pos)
}

// checkJoinStep checks one step of a join tree (a nested step first): its
// right source against the leftmost source of its left input, whose
// partitions a nested result keeps (a foreign-key join's result is in
// its left table's partitions).
func (t Topics) checkJoinStep(ctx context.Context, n *planner.Join, pos ast.Pos) error {
	if inner, ok := n.Left.Node.(*planner.Join); ok {
		if err := t.checkJoinStep(ctx, inner, pos); err != nil {
			return err
		}
	}
	if n.Foreign() || n.Global() {
		return nil // a foreign-key join re-partitions through its own topics; a global table is read whole by every task
	}
	l, r := n.Sources()[0], n.Right.Source
	ln, err := t.sourcePartitions(ctx, l)
	if err != nil {
		return err
	}
	rn, err := t.sourcePartitions(ctx, r)
	if err != nil {
		return err
	}
	if ln == rn {
		return nil
	}
	return sqlerr.New(sqlerr.Semantic, pos, "Can't join `%s` with `%s` since the number of partitions don't match. `%s` partitions = %d; `%s` partitions = %d. Please repartition either one so that the number of partitions match. (topics: %s = %d, %s = %d)",
		l.Name, r.Name, l.Name, ln, r.Name, rn, l.Topic, ln, r.Topic, rn)
}
