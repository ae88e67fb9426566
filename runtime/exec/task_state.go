package exec

import (
	"fmt"

	"github.com/sqlstream/sqlstream/physical"
)

// taskState is the lifecycle state of one task (sub-topology, partition)
// on this server:
//
//	created ──► restoring ──► running ◄──► suspended
//	   │            │            │  │          │
//	   │            │            │  └► error ◄─┘
//	   │            └──► error ◄─┘       │
//	   ▼                                 ▼
//	 closed ◄──── (every state) ────── closed
//
// created: the partition was assigned, nothing opened yet. restoring: its
// stores replay their changelogs. running: it processes records.
// suspended: an aborted transaction's work is being dropped and the task
// rebuilt from committed state (exactly_once_v2); it runs again next.
// error: restoring or processing failed (the query fails with it).
// closed: revoked, lost or stopped (final; a later assignment of the same
// partition starts again at created).
type taskState uint8

const (
	taskCreated taskState = iota
	taskRestoring
	taskRunning
	taskSuspended
	taskError
	taskClosed
)

var taskStateNames = [...]string{"CREATED", "RESTORING", "RUNNING", "SUSPENDED", "ERROR", "CLOSED"}

func (s taskState) String() string { return taskStateNames[s] }

// taskTransitions lists the legal moves; closed is reachable from every
// state and is final.
var taskTransitions = map[taskState][]taskState{
	taskCreated:   {taskRestoring, taskClosed},
	taskRestoring: {taskRunning, taskError, taskClosed},
	taskRunning:   {taskSuspended, taskError, taskClosed},
	taskSuspended: {taskRunning, taskError, taskClosed},
	taskError:     {taskClosed},
}

// errTaskTransition is an illegal move: a bug in the runner.
type errTaskTransition struct {
	task     physical.TaskID
	from, to taskState
}

func (e *errTaskTransition) Error() string {
	return fmt.Sprintf("task %d_%d: illegal state transition %s → %s", e.task.SubTopology, e.task.Partition, e.from, e.to)
}

// checkTaskTransition returns an *errTaskTransition unless from → to is
// legal.
func checkTaskTransition(k physical.TaskID, from, to taskState) error {
	for _, s := range taskTransitions[from] {
		if s == to {
			return nil
		}
	}
	return &errTaskTransition{task: k, from: from, to: to}
}
