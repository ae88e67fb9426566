package assign

import (
	"maps"
	"slices"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Who runs which task. Every member of a query's group advertises its
// endpoint in its subscription (taskUserData.Endpoint); the leader, which
// sees every subscription and computes the whole plan, puts the full
// task → host map in the user data of every member's assignment, as
// Kafka Streams' AssignmentInfo carries partitionsByHost. Each server so
// learns, at every rebalance, where each task of each query runs: pull
// queries route by it, heartbeats discover peers by it and /clusterStatus
// lists it (package runtime/cluster).

// Hosts maps an advertised endpoint (a URL) to the tasks it runs
// actively (or, for a standby host map, keeps replicas of). nil means
// unknown: no assignment with a host map was seen (the in-memory
// cluster, or a group balanced by range).
type Hosts map[string][]physical.TaskID

// hostMapUserData is the host map in the user data of every member's
// assignment (other fields may join it there: unknown ones are ignored).
type hostMapUserData struct {
	Version int `json:"hostMapVersion"`
	// Active maps endpoints to task names ("<sub-topology>_<partition>").
	Active map[string][]string `json:"activeHosts"`
	// Standby maps endpoints to the tasks they keep replicas of, standby
	// or warmup (encodeStandbyHosts).
	Standby map[string][]string `json:"standbyHosts,omitempty"`
}

// hostTasks computes the host map of a plan: each member's tasks, under
// the endpoint it advertised (members that advertised none are left out).
func (b *Balancer) hostTasks(plan *kgo.BalancePlan, endpoints map[string]string) Hosts {
	out := Hosts{}
	for member, topics := range plan.AsMemberIDMap() {
		ep := endpoints[member]
		if ep == "" {
			continue
		}
		seen := map[physical.TaskID]bool{}
		for topic, ps := range topics {
			sub, ok := b.subOf[topic]
			if !ok {
				continue
			}
			for _, p := range ps {
				k := physical.TaskID{SubTopology: sub, Partition: p}
				if !seen[k] {
					seen[k] = true
					out[ep] = append(out[ep], k)
				}
			}
		}
		slices.SortFunc(out[ep], CompareTasks)
	}
	return out
}

// encodeHostMap lays out the host map for the assignments' user data.
func encodeHostMap(hosts Hosts) hostMapUserData {
	ud := hostMapUserData{Version: 1, Active: map[string][]string{}}
	for _, ep := range slices.Sorted(maps.Keys(hosts)) {
		for _, k := range hosts[ep] {
			ud.Active[ep] = append(ud.Active[ep], TaskName(k))
		}
	}
	return ud
}

// decode reads the host maps of actives and of standbys; both nil when
// the user data carries no host map (no version).
func (ud hostMapUserData) decode() (active, standby Hosts) {
	if ud.Version != 1 {
		return nil, nil
	}
	active, standby = Hosts{}, Hosts{}
	for ep, names := range ud.Active {
		active[ep] = decodeTaskNames(names)
	}
	for ep, names := range ud.Standby {
		standby[ep] = decodeTaskNames(names)
	}
	return active, standby
}

// Owner returns the endpoint running task k, or "".
func (h Hosts) Owner(k physical.TaskID) string {
	for ep, ts := range h {
		if slices.Contains(ts, k) {
			return ep
		}
	}
	return ""
}

// encodeStandbyHosts lays out the plan's standbys and warmups by the
// endpoint of their member (members without one are left out): next to
// the actives, the leader puts in every member's assignment the
// endpoints keeping a standby or warmup of each task (Kafka Streams'
// standbyPartitionsByHost), so that every server knows where to read a
// partition whose active host died (ksql.query.pull.enable.standby.reads).
func encodeStandbyHosts(ha haPlan, endpoints map[string]string) map[string][]string {
	out := map[string][]string{}
	for _, replicas := range []map[string][]physical.TaskID{ha.standby, ha.warmup} {
		for member, ts := range replicas {
			if ep := endpoints[member]; ep != "" {
				out[ep] = append(out[ep], encodeTaskNames(ts)...)
			}
		}
	}
	for ep := range out {
		slices.Sort(out[ep])
	}
	return out
}
