package assign

import (
	"encoding/json"
	"maps"
	"slices"
	"time"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// The task balancer's assignment user data: what the leader tells each
// member besides its partitions (its standbys and warmups, whether to
// rejoin at once, when to probe, and the host maps of the whole group).

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
	// the host map, the same in every member's assignment (hosts.go)
	hostMapUserData
}

// Assignment is what a member learns of its own replicas and schedule
// from an assignment.
type Assignment struct {
	Standby []physical.TaskID
	Warmup  []physical.TaskID
	Rejoin  bool      // a second round follows at once
	ProbeAt time.Time // a probing rebalance then (zero: none)
}

// memberAssignment is what a member learnt from its last assignment: its
// standby and warmup tasks, and the leader's host maps of actives and
// standbys (nil when the assignment carries none: a range-balanced or
// older member's, which says nothing rather than "no host").
type memberAssignment struct {
	Assignment
	hosts        Hosts
	standbyHosts Hosts
}

func encodeTaskNames(ts []physical.TaskID) []string {
	var out []string
	for _, k := range ts {
		out = append(out, TaskName(k))
	}
	return out
}

func decodeTaskNames(names []string) []physical.TaskID {
	var out []physical.TaskID
	for _, n := range names {
		if k, ok := ParseTaskName(n); ok {
			out = append(out, k)
		}
	}
	slices.SortFunc(out, CompareTasks)
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
	out := memberAssignment{Assignment: Assignment{Standby: decodeTaskNames(ud.Standby), Warmup: decodeTaskNames(ud.Warmup), Rejoin: ud.Rejoin}}
	if ud.ProbeAt > 0 {
		out.ProbeAt = time.UnixMilli(ud.ProbeAt)
	}
	out.hosts, out.standbyHosts = ud.hostMapUserData.decode()
	return parts, out, nil
}
