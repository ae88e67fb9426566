package exec

import (
	"cmp"
	"fmt"
	"sort"

	"github.com/sqlstream/sqlstream/physical"
)

// What a Kafka runner reports of its share of a query's tasks: which run
// here (ACTIVE), which are kept warm (STANDBY, WARMUP), how far each
// copy's stores lag their changelogs, and how far each active task lags
// its input partitions (input_lag.go; Engine.TaskAssignments, GET /tasks,
// /metrics, /clusterStatus and pull-query routing read it).

// TaskRole is what a server does with a task.
type TaskRole string

const (
	RoleActive  TaskRole = "ACTIVE"  // the task runs here
	RoleStandby TaskRole = "STANDBY" // its stores are kept warm here from the changelogs
	RoleWarmup  TaskRole = "WARMUP"  // a standby catching up before this server takes the task over
)

// TaskAssignment is one task of a query on this server.
type TaskAssignment struct {
	Task   string // "<sub-topology>_<partition>", Kafka Streams' task id
	Role   TaskRole
	State  string // an active task's state (RESTORING, RUNNING…); "" for a replica
	Stores []StoreLag
	// Inputs is an active task's lag on each input partition (none for
	// a replica; input_lag.go).
	Inputs []InputLag
}

// StoreLag is how far one local store partition lags its changelog. A
// replica reports its position and the changelog end; an active task
// only its restoration lag (Position and End 0).
type StoreLag struct {
	Store     string
	Partition int32
	Position  int64 // next changelog offset to apply here
	End       int64 // the changelog's end as last seen (-1: not yet known)
	Lag       int64 // max(End − Position, 0); -1 while End is unknown
}

// Tasks implements TaskReporter: the runner's share of its query's
// tasks, in task order.
func (r *kafkaRunner) Tasks() []TaskAssignment {
	var out []TaskAssignment
	r.tasks.mu.Lock()
	active := map[physical.TaskID]taskState{}
	for k, s := range r.tasks.states {
		active[k] = s
	}
	r.tasks.mu.Unlock()
	for k, s := range active {
		out = append(out, TaskAssignment{Task: k.String(), Role: RoleActive, State: s.String(), Stores: r.activeLags(k), Inputs: r.inputLags(k)})
	}
	if r.standby != nil {
		out = append(out, r.standby.assignments()...)
	}
	sort.Slice(out, func(i, j int) bool { return compareTasks(parseTaskName(out[i].Task), parseTaskName(out[j].Task)) < 0 })
	return out
}

// activeLags is an active task's stores' restoration lag (0 once
// restored).
func (r *kafkaRunner) activeLags(k physical.TaskID) []StoreLag {
	var out []StoreLag
	for _, spec := range r.q.Topology.SubTopologies[k.SubTopology].Stores {
		out = append(out, StoreLag{Store: spec.Name, Partition: k.Partition, Lag: r.q.Restores.lag(spec.Name, k.Partition)})
	}
	return out
}

// Replicas implements TaskReporter.
func (r *kafkaRunner) Replicas() []TaskAssignment {
	if r.standby == nil {
		return nil
	}
	return r.standby.assignments()
}

// ReplicaErrors implements TaskReporter.
func (r *kafkaRunner) ReplicaErrors() (int64, string) {
	if r.standby == nil {
		return 0, ""
	}
	return r.standby.feedErrs.snapshot()
}

// parseTaskName reads a task id as physical.TaskID.String writes it.
func parseTaskName(s string) physical.TaskID {
	var k physical.TaskID
	_, _ = fmt.Sscanf(s, "%d_%d", &k.SubTopology, &k.Partition)
	return k
}

var _ TaskReporter = (*kafkaRunner)(nil)

// compareTasks orders tasks by sub-topology, then partition.
func compareTasks(a, b physical.TaskID) int {
	return cmp.Or(cmp.Compare(a.SubTopology, b.SubTopology), cmp.Compare(a.Partition, b.Partition))
}
