package runtime

import (
	"github.com/sqlstream/sqlstream/runtime/recovery"
	"github.com/sqlstream/sqlstream/state"
)

var _ recovery.DB = (*state.DB)(nil)

// StorageFailure is the write the disk of the server's data directory
// refused (a full disk: state.WriteError), nil while local state takes
// writes; package runtime/recovery reopens the DB once the disk takes
// writes again and hands back the queries to restart
// (restartStorageFailed).
func (e *Engine) StorageFailure() error {
	if e.db == nil {
		return nil
	}
	return e.db.Failure()
}

// storageFailed records that query q went to ERROR with err; a storage
// failure is the recovery's to undo.
func (e *Engine) storageFailed(q *query, err error) { e.recovery.Failed(q.id, err) }

// startStorageRecovery runs the recovery loop until Close.
func (e *Engine) startStorageRecovery() {
	e.recovery.Start(e.db, e.logger, e.restartFailed)
}

// restartStorageFailed restarts the queries the recovery recorded.
func (e *Engine) restartStorageFailed() { e.restartFailed(e.recovery.Take()) }

// restartFailed restarts each of the queries ids still in ERROR: its
// runner stops (its tasks' stores close) and starts again, restoring.
func (e *Engine) restartFailed(ids []string) {
	for _, id := range ids {
		e.mu.Lock()
		q := e.queries[id]
		e.mu.Unlock()
		if q == nil || q.State() != StateError {
			continue
		}
		if !e.runStops([]stopJob{{id: id, stop: q.stop}}) {
			e.logger.Error("a query that failed on local state did not stop in time; it stays in ERROR", "query", id)
			continue
		}
		e.mu.Lock()
		if e.queries[id] == q && q.State() == StateError {
			if err := q.start(); err != nil {
				e.logger.Error("restarting a query that failed on local state", "query", id, "err", err)
			} else {
				e.logger.Info("restarted a query that failed on local state; it restores from its changelogs", "query", id)
			}
		}
		e.mu.Unlock()
	}
}
