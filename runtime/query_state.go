package runtime

import "fmt"

// QueryState is the lifecycle state of a query.
//
//	PENDING ──► RUNNING ──► TERMINATED
//	   │ ▲         │ ▲ ▲
//	   │ │         ▼ │ │
//	   │ │      ERROR ─┼──► TERMINATED
//	   │ │         ▲   │
//	   ▼ │         ▼   │
//	   PAUSED ─────────┘──► TERMINATED
//
// PENDING: planned, tasks not yet started (waiting for partitions or
// restoring). RUNNING: processing. ERROR: a task failed; the query keeps
// its resources and may recover to RUNNING after a retry. PAUSED: PAUSE
// stopped its processing (from PENDING, RUNNING or ERROR); it keeps its
// group membership, tasks, state and offsets, and RESUME takes it back
// to what its runner reports (RUNNING, or PENDING while its tasks
// restore); a fault while paused is ERROR. TERMINATED: stopped by
// TERMINATE or DROP (final).
type QueryState uint8

// Query states.
const (
	StatePending QueryState = iota
	StateRunning
	StateError
	StateTerminated
	StatePaused
)

var stateNames = [...]string{"PENDING", "RUNNING", "ERROR", "TERMINATED", "PAUSED"}

// String returns the state's name as SHOW QUERIES prints it.
func (s QueryState) String() string { return stateNames[s] }

// allowed lists the legal transitions; anything else is a bug.
var allowed = map[QueryState][]QueryState{
	StatePending: {StateRunning, StateError, StateTerminated, StatePaused},
	StateRunning: {StateError, StateTerminated, StatePaused},
	StateError:   {StateRunning, StateTerminated, StatePaused},
	StatePaused:  {StateRunning, StatePending, StateError, StateTerminated},
}

// transition checks that from → to is legal.
func transition(from, to QueryState) error {
	for _, s := range allowed[from] {
		if s == to {
			return nil
		}
	}
	return fmt.Errorf("illegal query state transition %s → %s", from, to)
}
