package runtime

import (
	"context"
	"fmt"
	"time"
)

// Quiesce waits until every running persistent query has processed and
// committed everything in its source topics, twice in a row (queries may
// feed each other). Test drivers call it before reading outputs.
func (e *Engine) Quiesce(ctx context.Context) error {
	if e.cluster.Synchronous() {
		return nil // every produce has been processed when it returns
	}
	stable := 0
	for stable < 2 {
		idle, err := e.caughtUp(ctx)
		if err != nil {
			return err
		}
		if idle {
			stable++
		} else {
			stable = 0
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("queries did not catch up: %w", ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
	return nil
}

// caughtUp reports whether every running query's group has committed the
// end offsets of its source topics.
func (e *Engine) caughtUp(ctx context.Context) (bool, error) {
	e.mu.Lock()
	var groups []string
	topics := map[string][]string{}
	for _, q := range e.queries {
		if q.State() == StateRunning || q.State() == StatePending {
			groups = append(groups, q.appID)
			topics[q.appID] = q.topo.SourceTopics()
		}
	}
	e.mu.Unlock()
	for _, g := range groups {
		ok, err := e.cluster.GroupCaughtUp(ctx, g, topics[g])
		if err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}
