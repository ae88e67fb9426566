package runtime

import (
	"context"
	"strings"
	"testing"
)

// TestReadyWaitsForPendingQueries: /chc/ready's answer is an error naming
// the PENDING queries until every one has left PENDING; then it latches,
// so a query that fails later does not make the server unready.
func TestReadyWaitsForPendingQueries(t *testing.T) {
	e, err := newEngine(options{})
	if err != nil {
		t.Fatal(err)
	}
	q := &query{id: "CTAS_T_1"}
	e.queries[q.id] = q
	err = e.Ready(context.Background())
	if err == nil || !strings.Contains(err.Error(), "CTAS_T_1") {
		t.Fatalf("Ready with a PENDING query: %v", err)
	}
	q.setState(StateRunning, nil)
	if err := e.Ready(context.Background()); err != nil {
		t.Fatalf("Ready once RUNNING: %v", err)
	}
	q.setState(StateError, nil)
	e.queries["CTAS_U_2"] = &query{id: "CTAS_U_2"}
	if err := e.Ready(context.Background()); err != nil {
		t.Fatalf("Ready after it latched: %v", err)
	}
}

// TestReadyGivesUpOnABusyLock: a probe does not queue behind a statement
// holding the engine lock; it answers not ready when its context ends.
func TestReadyGivesUpOnABusyLock(t *testing.T) {
	e, err := newEngine(options{})
	if err != nil {
		t.Fatal(err)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := e.Ready(ctx); err == nil || !strings.Contains(err.Error(), "busy") {
		t.Fatalf("Ready with the lock held: %v", err)
	}
}
