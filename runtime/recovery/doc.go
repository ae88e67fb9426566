// Package recovery brings local state back after the disk of the
// server's data directory refused a write (a full disk:
// state.WriteError). From that write on the state DB fails every write,
// so every query with state goes to ERROR with it (exec's
// error_class.go, fatal storage); the health check reports it, and
// shutdown closes the failed DB within a bound (state.DB.Close).
//
// The engine recovers by itself (Recovery): told of the failure by
// the DB's failure hook, it probes the data directory with a real write
// and fsync at a backoff from storageRetryInitial to storageRetryMax;
// once the probe passes it reopens the DB in place (state.DB.Reopen:
// readers wait for it, none sees it closed) and restarts each query that
// went to ERROR for the storage failure, and only those (the engine's
// restart, handed the recorded query ids): each restores
// what its local state lacks from its changelogs and consumes on from its
// committed offsets, as after a crash. A query whose store was lost with
// the reopen (state: writes not durable) fails with a storage error
// after it, and is restarted the same way.
//
//	write refused ─► DB failed ─► hook ─► wake
//	                  queries with state ─► ERROR (fatal storage) ─► recorded
//	wake ─► wait (1 s … 30 s) ─► probe write+fsync ─► Reopen ─► restart recorded queries
//	            ▲                      │ fails
//	            └──────────────────────┘
package recovery
