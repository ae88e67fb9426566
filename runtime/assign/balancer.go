package assign

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"time"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/runtime/props"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Balancer is the group balancer of a query's consumer group: it
// assigns tasks, not partitions. A task (sub-topology s, partition p)
// is partition p of every source topic of s, moved whole so that its
// co-partitioned inputs (a join's two sides) meet on one member. Tasks
// are spread over members in proportion to their num.stream.threads
// (each member's subscription user data carries its thread count),
// members keep the tasks they own (sticky), a task no member owns goes
// preferably to a member holding local state of it (the user data
// carries each member's offset sums of its checkpointed stores per task,
// as Kafka Streams' taskOffsetSums: a restarted server gets its tasks
// back without restoring them from scratch), moves are cooperative (a
// task is revoked in one rebalance and assigned in the next), and the
// result depends only on the members and their subscriptions
// (deterministic: every leader computes the same plan).
type Balancer struct {
	subOf      map[string]int // source topic → sub-topology
	threads    int            // this member's num.stream.threads
	offsetSums func() map[physical.TaskID]int64

	// Standbys and warmups (replicas.go): the leader reads the
	// changelogs' end offsets per task (endSums, nil when unknown) to
	// tell which members are caught up, and sets the time of a probing
	// rebalance in every member's assignment (now is its clock).
	ha       props.HA
	stateful map[int]bool
	endSums  func() map[physical.TaskID]int64
	now      func() time.Time
	endpoint func() string
	obs      Observer
}

// Config is what the balancer knows of its query and of this server.
type Config struct {
	// SubOf maps each source topic to the sub-topology reading it.
	SubOf map[string]int
	// Threads is this member's num.stream.threads (at least 1).
	Threads int
	// HA is the query's standby and warmup settings.
	HA props.HA
	// Stateful tells the sub-topologies with stores: only their tasks
	// get standbys and warmups.
	Stateful map[int]bool
	// OffsetSums returns the checkpointed changelog offsets of this
	// server's local stores, summed per task (nil: no local state).
	OffsetSums func() map[physical.TaskID]int64
	// EndSums returns the changelogs' end offsets summed per task, read
	// by the leader (nil, or a nil map: unknown, every member counts as
	// caught up).
	EndSums func() map[physical.TaskID]int64
	// Endpoint returns this server's advertised URL ("" while unknown),
	// sent to the group so that every member learns who runs what (nil:
	// none).
	Endpoint func() string
	// Now is the clock of probing rebalances (nil: none is scheduled).
	Now func() time.Time
}

// Observer hears what each of this member's assignments says.
type Observer interface {
	// Assigned hands this member its standbys, warmups and rebalance
	// schedule.
	Assigned(Assignment)
	// Placed hands over the leader's host maps: the endpoints running
	// each task and those keeping a replica of it (both nil when the
	// assignment carries none: hosts.go).
	Placed(active, standby Hosts)
}

// New returns the balancer of a query's group; obs may be nil.
func New(cfg Config, obs Observer) *Balancer {
	return &Balancer{subOf: cfg.SubOf, threads: max(cfg.Threads, 1), offsetSums: cfg.OffsetSums, ha: cfg.HA,
		stateful: cfg.Stateful, endSums: cfg.EndSums, now: cfg.Now, endpoint: cfg.Endpoint, obs: obs}
}

// Name is the protocol name in JoinGroup.
const Name = "sqlstream-tasks-v1"

// taskUserData is a member's subscription user data.
type taskUserData struct {
	Threads int `json:"threads"`
	// OffsetSums is keyed by "<sub-topology>_<partition>".
	OffsetSums map[string]int64 `json:"offsetSums,omitempty"`
	// Endpoint is the member's advertised URL (ksql.advertised.listener).
	Endpoint string `json:"endpoint,omitempty"`
}

// TaskName is a task's name in the wire format: "<sub-topology>_<partition>".
func TaskName(k physical.TaskID) string { return fmt.Sprintf("%d_%d", k.SubTopology, k.Partition) }

// ParseTaskName reads a TaskName.
func ParseTaskName(s string) (physical.TaskID, bool) {
	var k physical.TaskID
	_, err := fmt.Sscanf(s, "%d_%d", &k.SubTopology, &k.Partition)
	return k, err == nil
}

var _ kgo.GroupBalancer = (*Balancer)(nil)

func (*Balancer) ProtocolName() string { return Name }
func (*Balancer) IsCooperative() bool  { return true }

func (b *Balancer) JoinGroupMetadata(topics []string, owned map[string][]int32, generation int32) []byte {
	meta := kmsg.NewConsumerMemberMetadata()
	meta.Version = 3
	meta.Topics = topics
	meta.Generation = generation
	data := taskUserData{Threads: b.threads}
	if b.endpoint != nil {
		data.Endpoint = b.endpoint()
	}
	if b.offsetSums != nil {
		for k, sum := range b.offsetSums() {
			if data.OffsetSums == nil {
				data.OffsetSums = map[string]int64{}
			}
			data.OffsetSums[TaskName(k)] = sum
		}
	}
	ud, _ := json.Marshal(data) // sorted keys: the same state gives the same metadata
	meta.UserData = ud
	for _, t := range slices.Sorted(maps.Keys(owned)) {
		op := kmsg.NewConsumerMemberMetadataOwnedPartition()
		op.Topic, op.Partitions = t, owned[t]
		meta.OwnedPartitions = append(meta.OwnedPartitions, op)
	}
	return meta.AppendTo(nil)
}

// ParseSyncAssignment returns this member's partitions and hands its
// standbys, warmups and the leader's host maps to the observer.
func (b *Balancer) ParseSyncAssignment(assignment []byte) (map[string][]int32, error) {
	parts, ma, err := parseMemberAssignment(assignment)
	if err == nil && b.obs != nil {
		b.obs.Assigned(ma.Assignment)
		b.obs.Placed(ma.hosts, ma.standbyHosts)
	}
	return parts, err
}

func (b *Balancer) MemberBalancer(members []kmsg.JoinGroupResponseMember) (kgo.GroupMemberBalancer, map[string]struct{}, error) {
	cb, err := kgo.NewConsumerBalancer(b, members)
	if err != nil {
		return nil, nil, err
	}
	return cb, cb.MemberTopics(), nil
}

// Balance turns the members' subscriptions into tasks, assigns them
// (assignReplicas: actives by assignTasks, then warmups and standbys)
// and gives each member the partitions of its active tasks and, in the
// assignment's user data, its standbys and warmups.
func (b *Balancer) Balance(cb *kgo.ConsumerBalancer, partitions map[string]int32) kgo.IntoSyncAssignment {
	topicsOf := map[int][]string{}
	for _, t := range slices.Sorted(maps.Keys(partitions)) {
		if s, ok := b.subOf[t]; ok {
			topicsOf[s] = append(topicsOf[s], t)
		}
	}
	var tasks []physical.TaskID
	for s, ts := range topicsOf {
		n := int32(0)
		for _, t := range ts {
			n = max(n, partitions[t])
		}
		for p := int32(0); p < n; p++ {
			tasks = append(tasks, physical.TaskID{SubTopology: s, Partition: p})
		}
	}
	var members []taskMember
	byID := map[string]*kmsg.JoinGroupResponseMember{}
	endpoints := map[string]string{}
	cb.EachMember(func(m *kmsg.JoinGroupResponseMember, meta *kmsg.ConsumerMemberMetadata) {
		byID[m.MemberID] = m
		tm := b.member(m.MemberID, meta)
		members = append(members, tm)
		endpoints[m.MemberID] = tm.endpoint
	})
	var ends map[physical.TaskID]int64
	if b.endSums != nil {
		ends = b.endSums()
	}
	ha := assignReplicas(tasks, members, haInput{stateful: b.stateful, endSums: ends}, b.ha)
	plan := cb.NewPlan()
	for id, ts := range ha.active {
		for _, k := range ts {
			for _, t := range topicsOf[k.SubTopology] {
				if k.Partition < partitions[t] {
					plan.AddPartition(byID[id], t, k.Partition)
				}
			}
		}
	}
	plan.AdjustCooperative(cb)
	hosts := encodeHostMap(b.hostTasks(plan, endpoints))
	hosts.Standby = encodeStandbyHosts(ha, endpoints)
	out := replicaSyncAssignment{partitions: plan.AsMemberIDMap(), ha: ha, hosts: hosts, rejoin: revokes(members, ha.active)}
	if ha.probe && b.now != nil {
		out.probeAt = b.now().Add(b.ha.ProbeInterval)
	}
	return out
}

// revokes reports whether the plan takes a task from a member that owns
// it: the cooperative protocol then revokes it in this round and assigns
// it in the next.
func revokes(members []taskMember, active map[string][]physical.TaskID) bool {
	for _, m := range members {
		for _, k := range m.owned {
			if !slices.Contains(active[m.id], k) {
				return true
			}
		}
	}
	return false
}

// member reads a member's subscription: its threads and the tasks whose
// partitions it owns (a task counts as owned when any of its partitions
// is, so a half-owned task goes back whole).
func (b *Balancer) member(id string, meta *kmsg.ConsumerMemberMetadata) taskMember {
	m := taskMember{id: id, threads: 1}
	var ud taskUserData
	if json.Unmarshal(meta.UserData, &ud) == nil && ud.Threads > 0 {
		m.threads = ud.Threads
	}
	m.endpoint = ud.Endpoint
	for name, sum := range ud.OffsetSums {
		if k, ok := ParseTaskName(name); ok && sum > 0 {
			if m.offsets == nil {
				m.offsets = map[physical.TaskID]int64{}
			}
			m.offsets[k] = sum
		}
	}
	seen := map[physical.TaskID]bool{}
	for _, op := range meta.OwnedPartitions {
		s, ok := b.subOf[op.Topic]
		if !ok {
			continue
		}
		for _, p := range op.Partitions {
			k := physical.TaskID{SubTopology: s, Partition: p}
			if !seen[k] {
				seen[k] = true
				m.owned = append(m.owned, k)
			}
		}
	}
	return m
}

// taskMember is one group member as the assignment sees it.
type taskMember struct {
	id       string
	threads  int
	owned    []physical.TaskID
	offsets  map[physical.TaskID]int64 // local state per task: checkpointed offset sums
	endpoint string                    // advertised URL, "" if unknown
}

// assignTasks gives every task to exactly one member. Each member's
// quota is its share of the tasks by threads (the remainder goes, one
// each, to the members with the largest fractional share, ties by id);
// members first keep the tasks they own up to their quota, by partition
// then sub-topology (a task two members claim stays with the first by
// id), then the rest go (first those some member has local state of,
// each part in task order) to the member with room that has the most
// local state of the task (largest offset sum), then the fewest tasks of
// that sub-topology per thread, then the lowest load per thread, then
// the lowest id.
func assignTasks(tasks []physical.TaskID, members []taskMember) map[string][]physical.TaskID {
	out := map[string][]physical.TaskID{}
	if len(members) == 0 {
		return out
	}
	members = slices.Clone(members)
	sort.Slice(members, func(i, j int) bool { return members[i].id < members[j].id })
	tasks = slices.Clone(tasks)
	slices.SortFunc(tasks, CompareTasks)
	quota := quotas(len(tasks), members)
	exists := map[physical.TaskID]bool{}
	for _, k := range tasks {
		exists[k] = true
	}
	taken := map[physical.TaskID]bool{}
	for i, m := range members {
		owned := slices.Clone(m.owned)
		slices.SortFunc(owned, comparePartitionFirst)
		for _, k := range owned {
			if exists[k] && !taken[k] && len(out[m.id]) < quota[i] {
				taken[k] = true
				out[m.id] = append(out[m.id], k)
			}
		}
	}
	for _, k := range placementOrder(tasks, taken, members) {
		best := -1
		for i, m := range members {
			if len(out[m.id]) >= quota[i] {
				continue
			}
			if best < 0 || betterHome(k, out[m.id], m, out[members[best].id], members[best]) {
				best = i
			}
		}
		out[members[best].id] = append(out[members[best].id], k)
	}
	for id := range out {
		slices.SortFunc(out[id], CompareTasks)
	}
	return out
}

// placementOrder lists the tasks not taken, those with local state on
// some member first (so they find room there), each part in task order.
func placementOrder(tasks []physical.TaskID, taken map[physical.TaskID]bool, members []taskMember) []physical.TaskID {
	var withState, rest []physical.TaskID
	for _, k := range tasks {
		switch {
		case taken[k]:
		case slices.ContainsFunc(members, func(m taskMember) bool { return m.offsets[k] > 0 }):
			withState = append(withState, k)
		default:
			rest = append(rest, k)
		}
	}
	return append(withState, rest...)
}

// quotas returns each member's number of tasks: n split in proportion
// to threads, summing to n.
func quotas(n int, members []taskMember) []int {
	total := 0
	for _, m := range members {
		total += m.threads
	}
	q := make([]int, len(members))
	rem := make([]int, len(members)) // numerator of the fractional share
	left := n
	for i, m := range members {
		q[i] = n * m.threads / total
		rem[i] = n * m.threads % total
		left -= q[i]
	}
	order := make([]int, len(members))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return rem[order[a]] > rem[order[b]] })
	for _, i := range order[:left] {
		q[i]++
	}
	return q
}

// betterHome reports whether member a (holding as) is a better home for
// task k than member b (holding bs).
func betterHome(k physical.TaskID, as []physical.TaskID, a taskMember, bs []physical.TaskID, b taskMember) bool {
	if oa, ob := a.offsets[k], b.offsets[k]; oa != ob {
		return oa > ob
	}
	sub := k.SubTopology
	// Per thread, as the load below.
	if sa, sb := countSub(as, sub)*b.threads, countSub(bs, sub)*a.threads; sa != sb {
		return sa < sb
	}
	// len(as)/a.threads < len(bs)/b.threads, without division.
	if la, lb := len(as)*b.threads, len(bs)*a.threads; la != lb {
		return la < lb
	}
	return a.id < b.id
}

func countSub(ts []physical.TaskID, sub int) int {
	n := 0
	for _, k := range ts {
		if k.SubTopology == sub {
			n++
		}
	}
	return n
}

// CompareTasks orders tasks by sub-topology, then partition.
func CompareTasks(a, b physical.TaskID) int {
	return cmp.Or(cmp.Compare(a.SubTopology, b.SubTopology), cmp.Compare(a.Partition, b.Partition))
}

// comparePartitionFirst orders tasks by partition, then sub-topology: a
// member over its quota keeps tasks of every sub-topology.
func comparePartitionFirst(a, b physical.TaskID) int {
	return cmp.Or(cmp.Compare(a.Partition, b.Partition), cmp.Compare(a.SubTopology, b.SubTopology))
}
