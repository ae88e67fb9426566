package runtime

import (
	"context"

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
	l, r := plan.Join.Left.Source, plan.Join.Right.Source
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
	n, ok, err := e.cluster.partitions(ctx, src.Topic)
	if err != nil || !ok {
		return max(src.Partitions, 1), err
	}
	return n, nil
}
