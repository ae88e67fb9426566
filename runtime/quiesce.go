package runtime

import (
	"context"
	"fmt"
	"time"

	"github.com/sqlstream/sqlstream/runtime/pull"
)

// Quiesce waits until every running persistent query has processed and
// committed everything in the topics its tasks read (its sources and its
// internal topics: a repartition topic, a foreign-key join's subscription
// and response topics), twice in a row (queries may feed each other).
// Test drivers call it before reading outputs. A query in ERROR will
// never catch up: Quiesce returns its failure (a *QueryFailedError) at
// once, as the in-memory engine fails the Produce of the record that
// failed it.
func (e *Engine) Quiesce(ctx context.Context) error {
	if e.cluster.Synchronous() {
		return nil // every produce has been processed when it returns
	}
	stable, missing := 0, ""
	for stable < 2 {
		var err error
		if missing, err = e.behind(ctx); err != nil {
			return err
		}
		if missing == "" {
			stable++
			continue // the second look needs no pause: behind reads commits before ends
		}
		stable = 0
		select {
		case <-ctx.Done():
			return fmt.Errorf("queries did not catch up (%s): %w", missing, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
	return nil
}

// quiesced is a query as behind checks it.
type quiesced struct {
	id, appID    string
	fromEarliest bool
	topics       []string
}

// behind says which running query has not committed the end offsets of
// the topics it reads, or returns "" when none. Each group's committed
// offsets are read before the topics' ends: a record processed after the
// offsets were read may write to an internal topic, and then that
// topic's end is past its commit, where reading the ends first could
// miss it and see the group caught up with a record still on its way
// (a GROUP BY's repartition topic, a foreign-key join's two hops).
func (e *Engine) behind(ctx context.Context) (string, error) {
	var qs []quiesced
	e.mu.Lock()
	for _, q := range e.queries {
		switch q.State() { // a PAUSED query is waited for no more: it processes nothing
		case StateRunning, StatePending:
			qs = append(qs, quiesced{q.id, q.appID, q.cfg.FromEarliest, q.topo.InputTopics()})
		case StateError:
			e.mu.Unlock()
			return "", &QueryFailedError{ID: q.id, Msg: q.lastError()}
		}
	}
	e.mu.Unlock()
	eos := e.eosWritten()
	for _, q := range qs {
		committed, err := e.cluster.CommittedOffsets(ctx, q.appID)
		if err != nil {
			return "", err
		}
		ends, err := e.cluster.EndOffsets(ctx, q.topics...)
		if err == nil {
			err = ends.Error()
		}
		if err != nil {
			return fmt.Sprintf("query %s: cannot list the end offsets of %v: %v", q.id, q.topics, err), nil
		}
		if missing := pull.Behind(q.appID, q.fromEarliest, ends, committed, eos); missing != "" {
			return "query " + q.id + " " + missing, nil
		}
	}
	return "", nil
}

// QueryFailedError is Quiesce's answer while a query is in ERROR.
type QueryFailedError struct {
	ID  string
	Msg string // the query's last error, as EXPLAIN shows it
}

func (e *QueryFailedError) Error() string {
	return fmt.Sprintf("query %s failed: %s", e.ID, e.Msg)
}

// lastError is the query's last recorded error ("" when none).
func (q *query) lastError() string {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.errs) == 0 {
		return ""
	}
	return q.errs[len(q.errs)-1].msg
}
