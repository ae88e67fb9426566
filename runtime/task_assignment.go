package runtime

import (
	"github.com/sqlstream/sqlstream/runtime/exec"
	"github.com/sqlstream/sqlstream/runtime/figures"
)

// The per-task view of this server's share of each query: which tasks
// run here (ACTIVE), which are kept warm (STANDBY, WARMUP), and how far
// each copy's stores lag their changelogs (the balancer that decides it
// is package runtime/assign). /clusterStatus and pull-query routing read
// it through Engine.TaskAssignments.

// TaskRole is what a server does with a task.
type TaskRole = exec.TaskRole

// The roles of TaskAssignment.
const (
	RoleActive  = exec.RoleActive
	RoleStandby = exec.RoleStandby
	RoleWarmup  = exec.RoleWarmup
)

// TaskAssignment is one task of a query on this server.
type TaskAssignment = exec.TaskAssignment

// StoreLag is how far one local store partition lags its changelog.
type StoreLag = exec.StoreLag

// InputLag is how far an active task is behind one input partition.
type InputLag = exec.InputLag

// QueryTasks is this server's tasks of one persistent query.
type QueryTasks struct {
	QueryID string
	Tasks   []TaskAssignment
	// Figures are the query's figures on this server beside its tasks
	// (package runtime/figures).
	Figures figures.Query
}

// TaskAssignments lists, per persistent query running on Kafka, the tasks
// assigned to this server as active, standby or warmup, with their stores'
// lag (an active task lags only while it restores) and each active task's
// lag on its input partitions. Queries in task order and by id.
func (e *Engine) TaskAssignments() []QueryTasks {
	e.mu.Lock()
	queries := e.sortedQueries()
	e.mu.Unlock()
	var out []QueryTasks
	for _, q := range queries {
		r := q.tasks()
		if r == nil {
			continue
		}
		out = append(out, QueryTasks{QueryID: q.id, Tasks: r.Tasks(), Figures: e.queryFigures(q)})
	}
	return out
}
