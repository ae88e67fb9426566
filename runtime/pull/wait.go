package pull

import (
	"context"
	"fmt"
	"time"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/twmb/franz-go/pkg/kadm"
)

// Offsets is what the catch-up wait asks the cluster (the executor's
// Cluster has the methods).
type Offsets interface {
	EndOffsets(ctx context.Context, topics ...string) (kadm.ListedOffsets, error)
	CommittedOffsets(ctx context.Context, group string) (kadm.OffsetResponses, error)
}

// Table is the persistent query of a table a pull query waits for.
type Table struct {
	AppID        string
	FromEarliest bool // its sources are read from earliest (see Behind)
	Topology     *physical.Topology
	// State is the query's state now: running, ended (ERROR or
	// TERMINATED: the store answers as it is), and its name.
	State func() (running, ended bool, name string)
}

// WaitCaughtUp polls every poll until q's committed offsets are at the
// end offsets its inputs had, one sub-topology after the other (a
// repartition topic's end is taken once the sub-topology feeding it has
// caught up; one more round per topic a sub-topology writes back to an
// earlier one, physical.Topology.BackEdges: a foreign-key join's
// subscriptions), or ctx ends; missing says what it still waited for. A
// query that ends meanwhile is waited for no longer. An error of Kafka's
// is returned as it is, ctx's when ctx ended.
func WaitCaughtUp(ctx context.Context, c Offsets, q Table, eos EOSWritten, poll time.Duration) (missing string, err error) {
	for pass := 0; pass <= q.Topology.BackEdges(); pass++ {
		if missing, err = waitPass(ctx, c, q, eos, poll); missing != "" || err != nil {
			return missing, err
		}
	}
	return "", nil
}

// waitPass is one round of WaitCaughtUp over the sub-topologies.
func waitPass(ctx context.Context, c Offsets, q Table, eos EOSWritten, poll time.Duration) (missing string, err error) {
	_, _, name := q.State()
	missing = "is " + name
	for _, sub := range q.Topology.SubTopologies {
		if len(sub.Topics) == 0 {
			continue // kadm would list every topic's ends
		}
		var ends kadm.ListedOffsets
		for {
			running, ended, name := q.State()
			switch {
			case ended:
				return "is " + name, nil
			case running:
				if ends == nil {
					if ends, err = c.EndOffsets(ctx, sub.Topics...); err != nil {
						return missing, waitErr(ctx, err)
					}
				}
				committed, err := c.CommittedOffsets(ctx, q.AppID)
				if err != nil {
					return missing, waitErr(ctx, err)
				}
				missing = Behind(q.AppID, q.FromEarliest, ends, committed, eos)
			default:
				missing = "is " + name + " (its tasks are being assigned or restored)"
			}
			if missing == "" {
				break
			}
			select {
			case <-ctx.Done():
				return missing, ctx.Err()
			case <-time.After(poll):
			}
		}
	}
	return "", nil
}

// waitErr is a Kafka error while waiting; a deadline passes through so
// that the caller answers "not ready".
func waitErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return fmt.Errorf("checking whether the table's query caught up: %w", err)
}
