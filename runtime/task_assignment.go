package runtime

import (
	"encoding/json"
	"maps"
	"slices"
	"time"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/runtime/exec"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// The task balancer's assignment user data (what the leader tells each
// member besides its partitions), and the per-task view of this server's
// share of each query: which tasks run here (ACTIVE), which are kept warm
// (STANDBY, WARMUP), and how far each copy's stores lag their changelogs.
// /clusterStatus and pull-query routing read it through
// Engine.TaskAssignments.

// assignmentUserData is the user data of one member's assignment.
type assignmentUserData struct {
	Standby []string `json:"standby,omitempty"` // task names, "<sub>_<partition>"
	Warmup  []string `json:"warmup,omitempty"`
	// Rejoin: this rebalance revoked tasks, whose new owners get them
	// in a second round that every member joins at once (exec's rebalance_rounds.go).
	Rejoin bool `json:"rejoin,omitempty"`
	// ProbeAt is when every member rejoins for a probing rebalance
	// (Unix milliseconds, 0: none pending).
	ProbeAt int64 `json:"probeAt,omitempty"`
	// the host map, the same in every member's assignment (task_hosts.go)
	hostMapUserData
}

// memberAssignment is what a member learnt from its last assignment: its
// standby and warmup tasks, and the leader's host maps of actives and
// standbys (nil when the assignment carries none: a range-balanced or
// older member's, which says nothing rather than "no host").
type memberAssignment struct {
	standby      []physical.TaskID
	warmup       []physical.TaskID
	hosts        hostTasks
	standbyHosts hostTasks
	rejoin       bool      // a second round follows at once
	probeAt      time.Time // a probing rebalance then (zero: none)
}

func encodeTaskNames(ts []physical.TaskID) []string {
	var out []string
	for _, k := range ts {
		out = append(out, taskName(k))
	}
	return out
}

func decodeTaskNames(names []string) []physical.TaskID {
	var out []physical.TaskID
	for _, n := range names {
		if k, ok := parseTaskName(n); ok {
			out = append(out, k)
		}
	}
	slices.SortFunc(out, compareTasks)
	return out
}

// replicaSyncAssignment is a balance plan whose members' assignments carry
// their standbys and warmups in the user data.
type replicaSyncAssignment struct {
	partitions map[string]map[string][]int32 // member → topic → partitions
	ha         haPlan
	hosts      hostMapUserData
	rejoin     bool      // every member's Rejoin
	probeAt    time.Time // every member's ProbeAt
}

func (a replicaSyncAssignment) IntoSyncAssignment() []kmsg.SyncGroupRequestGroupAssignment {
	var out []kmsg.SyncGroupRequestGroupAssignment
	for _, member := range slices.Sorted(maps.Keys(a.partitions)) {
		var ma kmsg.ConsumerMemberAssignment
		topics := a.partitions[member]
		for _, t := range slices.Sorted(maps.Keys(topics)) {
			ps := slices.Clone(topics[t])
			slices.Sort(ps)
			at := kmsg.NewConsumerMemberAssignmentTopic()
			at.Topic, at.Partitions = t, ps
			ma.Topics = append(ma.Topics, at)
		}
		ud := assignmentUserData{Standby: encodeTaskNames(a.ha.standby[member]), Warmup: encodeTaskNames(a.ha.warmup[member]),
			Rejoin: a.rejoin, hostMapUserData: a.hosts}
		if !a.probeAt.IsZero() {
			ud.ProbeAt = a.probeAt.UnixMilli()
		}
		ma.UserData, _ = json.Marshal(ud)
		sa := kmsg.NewSyncGroupRequestGroupAssignment()
		sa.MemberID, sa.MemberAssignment = member, ma.AppendTo(nil)
		out = append(out, sa)
	}
	return out
}

// parseMemberAssignment reads a member's partitions and its standbys and
// warmups.
func parseMemberAssignment(raw []byte) (map[string][]int32, memberAssignment, error) {
	var ma kmsg.ConsumerMemberAssignment
	if err := ma.ReadFrom(raw); err != nil {
		return nil, memberAssignment{}, err
	}
	parts := make(map[string][]int32, len(ma.Topics))
	for _, t := range ma.Topics {
		parts[t.Topic] = t.Partitions
	}
	var ud assignmentUserData
	if len(ma.UserData) > 0 && json.Unmarshal(ma.UserData, &ud) != nil {
		ud = assignmentUserData{} // a range-balanced member's, or garbage: no replicas
	}
	out := memberAssignment{standby: decodeTaskNames(ud.Standby), warmup: decodeTaskNames(ud.Warmup), rejoin: ud.Rejoin}
	if ud.ProbeAt > 0 {
		out.probeAt = time.UnixMilli(ud.ProbeAt)
	}
	out.hosts, out.standbyHosts = ud.hostMapUserData.decode()
	return parts, out, nil
}

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
		out = append(out, QueryTasks{QueryID: q.id, Tasks: r.Tasks()})
	}
	return out
}
