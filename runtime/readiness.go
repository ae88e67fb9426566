package runtime

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Ready implements the server's /chc/ready: nil once the engine serves
// what it restored. New returns only after the command topic has been
// replayed; after that the engine is ready once no persistent query is
// PENDING (its tasks assigned and their stores restored from the
// changelogs). Readiness then latches: a query created later, or one that
// fails, does not make a serving server unready (SHOW QUERIES and
// /healthcheck report those).
func (e *Engine) Ready(ctx context.Context) error {
	if e.restored.Load() {
		return nil
	}
	if !e.lockCtx(ctx) {
		return fmt.Errorf("statement execution is busy; try again")
	}
	pending := e.pendingQueries()
	e.mu.Unlock()
	if len(pending) > 0 {
		return fmt.Errorf("not ready: restoring persistent queries %s (tasks not yet RUNNING); try again", strings.Join(pending, ", "))
	}
	e.restored.Store(true)
	return nil
}

// pendingQueries lists the ids of the persistent queries still PENDING
// (a paused one too while its tasks restore). e.mu is held.
func (e *Engine) pendingQueries() []string {
	var out []string
	for _, q := range e.sortedQueries() {
		if q.pendingBeneath() {
			out = append(out, q.id)
		}
	}
	return out
}

// lockCtx takes the engine lock, or gives up when ctx ends. It polls
// TryLock (as lockWithin does), so a probe never queues behind a long
// statement.
func (e *Engine) lockCtx(ctx context.Context) bool {
	for {
		if e.mu.TryLock() {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(5 * time.Millisecond):
		}
	}
}
