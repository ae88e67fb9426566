package runtime

import (
	"context"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
)

// checkCopartitioned requires the two sources of a join to have as many
// partitions (ksqlDB's JoinNode check; Kafka Streams would fail the
// assignment with "Topics not co-partitioned"). It runs before anything
// is created or recorded, so a mismatch leaves nothing behind.
func (e *Engine) checkCopartitioned(ctx context.Context, plan *planner.Plan, pos ast.Pos) error {
	if plan.Join == nil {
		return nil
	}
	return e.checkJoinStep(ctx, plan.Join, pos)
}

// checkJoinStep checks one step of a join tree (a nested step first): its
// right source against the leftmost source of its left input, whose
// partitions a nested result keeps (a foreign-key join's result is in
// its left table's partitions).
func (e *Engine) checkJoinStep(ctx context.Context, n *planner.Join, pos ast.Pos) error {
	if inner, ok := n.Left.Node.(*planner.Join); ok {
		if err := e.checkJoinStep(ctx, inner, pos); err != nil {
			return err
		}
	}
	if n.Foreign() || n.Global() {
		return nil // a foreign-key join re-partitions through its own topics; a global table is read whole by every task
	}
	l, r := n.Sources()[0], n.Right.Source
	ln, err := e.sourcePartitions(ctx, l)
	if err != nil {
		return err
	}
	rn, err := e.sourcePartitions(ctx, r)
	if err != nil {
		return err
	}
	if ln == rn {
		return nil
	}
	return sqlerr.New(sqlerr.Semantic, pos, "Can't join `%s` with `%s` since the number of partitions don't match. `%s` partitions = %d; `%s` partitions = %d. Please repartition either one so that the number of partitions match. (topics: %s = %d, %s = %d)",
		l.Name, r.Name, l.Name, ln, r.Name, rn, l.Topic, ln, r.Topic, rn)
}

// sourcePartitions is the partition count of a source's topic as the
// cluster has it (the declared count if the topic is not there yet).
func (e *Engine) sourcePartitions(ctx context.Context, src *planner.Source) (int32, error) {
	n, ok, err := e.cluster.Partitions(ctx, src.Topic)
	if err != nil || !ok {
		return max(src.Partitions, 1), err
	}
	return n, nil
}

// internalPartitions is the partition count of an internal topic: that of
// the source topic it follows (a foreign-key join's subscription topic
// and right-side stores follow the right table), else def.
func (e *Engine) internalPartitions(ctx context.Context, plan *planner.Plan, t physical.InternalTopic, def int32) (int32, error) {
	if t.PartitionsOf == "" {
		return def, nil
	}
	for _, s := range plan.Sources {
		if s.Topic == t.PartitionsOf {
			return e.sourcePartitions(ctx, s)
		}
	}
	return def, nil
}
