package runtime

import (
	"context"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
)

// Quiesce waits until every running persistent query has processed and
// committed everything in its source topics, twice in a row (queries may
// feed each other). Test drivers call it before reading outputs.
func (e *Engine) Quiesce(ctx context.Context) error {
	kc, ok := e.cluster.(*kafkaCluster)
	if !ok {
		return nil // the in-memory cluster is synchronous
	}
	stable := 0
	for stable < 2 {
		idle, err := e.caughtUp(ctx, kc)
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
func (e *Engine) caughtUp(ctx context.Context, kc *kafkaCluster) (bool, error) {
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
		ok, err := kc.groupCaughtUp(ctx, g, topics[g])
		if err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

func (k *kafkaCluster) groupCaughtUp(ctx context.Context, group string, topics []string) (bool, error) {
	ends, err := k.adm.ListEndOffsets(ctx, topics...)
	if err != nil {
		return false, err
	}
	committed, err := k.adm.FetchOffsets(ctx, group)
	if err != nil {
		return false, err
	}
	caught := true
	ends.Each(func(o kadm.ListedOffset) {
		if o.Offset == 0 {
			return
		}
		c, ok := committed.Lookup(o.Topic, o.Partition)
		if !ok || c.At < o.Offset {
			caught = false
		}
	})
	return caught, nil
}
