package assign

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// tasksOf returns tasks (sub, 0..n-1) of each sub-topology in subs.
func tasksOf(subs ...int32) []physical.TaskID {
	var out []physical.TaskID
	for s, n := range subs {
		for p := int32(0); p < n; p++ {
			out = append(out, physical.TaskID{SubTopology: s, Partition: p})
		}
	}
	return out
}

func renderAssignment(a map[string][]physical.TaskID) string {
	var lines []string
	for _, id := range slices.Sorted(maps.Keys(a)) {
		var ts []string
		for _, k := range a[id] {
			ts = append(ts, fmt.Sprintf("%d_%d", k.SubTopology, k.Partition))
		}
		lines = append(lines, id+": "+strings.Join(ts, " "))
	}
	return strings.Join(lines, "\n")
}

func TestAssignTasks(t *testing.T) {
	for _, tc := range []struct {
		name    string
		tasks   []physical.TaskID
		members []taskMember
		want    string
	}{
		{name: "one member takes all", tasks: tasksOf(3),
			members: []taskMember{{id: "a", threads: 1}},
			want:    "a: 0_0 0_1 0_2"},
		{name: "even over members, each sub-topology spread", tasks: tasksOf(4, 4),
			members: []taskMember{{id: "b", threads: 1}, {id: "a", threads: 1}},
			want:    "a: 0_0 0_2 1_0 1_2\nb: 0_1 0_3 1_1 1_3"},
		{name: "remainder to the lowest id", tasks: tasksOf(8),
			members: []taskMember{{id: "a", threads: 1}, {id: "b", threads: 1}, {id: "c", threads: 1}},
			want:    "a: 0_0 0_3 0_6\nb: 0_1 0_4 0_7\nc: 0_2 0_5"},
		{name: "in proportion to threads", tasks: tasksOf(9),
			members: []taskMember{{id: "a", threads: 2}, {id: "b", threads: 1}},
			want:    "a: 0_0 0_2 0_3 0_5 0_6 0_8\nb: 0_1 0_4 0_7"},
		{name: "sticky: owners keep their tasks", tasks: tasksOf(2, 2),
			members: []taskMember{{id: "a", threads: 1, owned: tasksOf(0, 2)}, {id: "b", threads: 1, owned: tasksOf(2)}},
			want:    "a: 1_0 1_1\nb: 0_0 0_1"},
		{name: "sticky: a joining member takes only the surplus", tasks: tasksOf(6),
			members: []taskMember{{id: "a", threads: 1, owned: tasksOf(6)}, {id: "c", threads: 1}, {id: "b", threads: 1}},
			want:    "a: 0_0 0_1\nb: 0_2 0_4\nc: 0_3 0_5"},
		{name: "a task claimed twice stays with the first by id", tasks: tasksOf(2),
			members: []taskMember{{id: "b", threads: 1, owned: tasksOf(1)}, {id: "a", threads: 1, owned: tasksOf(1)}},
			want:    "a: 0_0\nb: 0_1"},
		{name: "owned tasks that no longer exist are dropped", tasks: tasksOf(2),
			members: []taskMember{{id: "a", threads: 1, owned: tasksOf(4)}, {id: "b", threads: 1}},
			want:    "a: 0_0\nb: 0_1"},
		{name: "an unowned task goes to the member with its local state", tasks: tasksOf(4),
			members: []taskMember{{id: "a", threads: 1}, {id: "b", threads: 1, offsets: map[physical.TaskID]int64{{SubTopology: 0, Partition: 2}: 10, {SubTopology: 0, Partition: 3}: 5}}},
			want:    "a: 0_0 0_1\nb: 0_2 0_3"},
		{name: "the most local state wins, within quotas", tasks: tasksOf(4),
			members: []taskMember{{id: "a", threads: 1, offsets: map[physical.TaskID]int64{{SubTopology: 0, Partition: 0}: 1, {SubTopology: 0, Partition: 1}: 1, {SubTopology: 0, Partition: 2}: 9}},
				{id: "b", threads: 1, offsets: map[physical.TaskID]int64{{SubTopology: 0, Partition: 0}: 7, {SubTopology: 0, Partition: 1}: 7, {SubTopology: 0, Partition: 2}: 7, {SubTopology: 0, Partition: 3}: 7}}},
			want: "a: 0_2 0_3\nb: 0_0 0_1"},
		{name: "owning beats local state elsewhere", tasks: tasksOf(2),
			members: []taskMember{{id: "a", threads: 1, owned: tasksOf(1)}, {id: "b", threads: 1, offsets: map[physical.TaskID]int64{{SubTopology: 0, Partition: 0}: 99}}},
			want:    "a: 0_0\nb: 0_1"},
		{name: "more members than tasks", tasks: tasksOf(1),
			members: []taskMember{{id: "a", threads: 1}, {id: "b", threads: 1}},
			want:    "a: 0_0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := assignTasks(tc.tasks, tc.members)
			if r := renderAssignment(got); r != tc.want {
				t.Fatalf("got\n%s\nwant\n%s", r, tc.want)
			}
			checkExactlyOnce(t, tc.tasks, got)
			// Deterministic: the members' order does not matter.
			rev := slices.Clone(tc.members)
			slices.Reverse(rev)
			if r := renderAssignment(assignTasks(tc.tasks, rev)); r != tc.want {
				t.Fatalf("with members reversed got\n%s\nwant\n%s", r, tc.want)
			}
		})
	}
}

func checkExactlyOnce(t *testing.T, tasks []physical.TaskID, got map[string][]physical.TaskID) {
	t.Helper()
	seen := map[physical.TaskID]string{}
	for id, ts := range got {
		for _, k := range ts {
			if other, dup := seen[k]; dup {
				t.Fatalf("task %v assigned to %s and %s", k, other, id)
			}
			seen[k] = id
		}
	}
	if len(seen) != len(tasks) {
		t.Fatalf("%d of %d tasks assigned", len(seen), len(tasks))
	}
}

// Balance over many group sizes: every task once, loads within one of
// the threads-proportional share.
func TestAssignTasksBalance(t *testing.T) {
	for n := 1; n <= 5; n++ {
		for tasks := 0; tasks <= 13; tasks++ {
			var ms []taskMember
			for i := 0; i < n; i++ {
				ms = append(ms, taskMember{id: fmt.Sprintf("m%d", i), threads: 1})
			}
			got := assignTasks(tasksOf(int32(tasks)), ms)
			checkExactlyOnce(t, tasksOf(int32(tasks)), got)
			for _, m := range ms {
				if l := len(got[m.id]); l < tasks/n || l > tasks/n+1 {
					t.Fatalf("%d tasks over %d members: %s holds %d", tasks, n, m.id, l)
				}
			}
		}
	}
}

// joinBalancer is the balancer of a topology whose sub-topology 0 joins
// topics l and r and whose sub-topology 1 reads the repartition topic x.
func joinBalancer(threads int) *Balancer {
	return &Balancer{subOf: map[string]int{"l": 0, "r": 0, "x": 1}, threads: threads}
}

// balanceGroup runs one leader balance over members (id → owned
// partitions) and returns each member's assigned partitions.
func balanceGroup(t *testing.T, owned map[string]map[string][]int32, parts map[string]int32) map[string]map[string][]int32 {
	t.Helper()
	var members []kmsg.JoinGroupResponseMember
	for _, id := range slices.Sorted(maps.Keys(owned)) {
		meta := joinBalancer(1).JoinGroupMetadata([]string{"l", "r", "x"}, owned[id], 1)
		members = append(members, kmsg.JoinGroupResponseMember{MemberID: id, ProtocolMetadata: meta})
	}
	gb, _, err := joinBalancer(1).MemberBalancer(members)
	if err != nil {
		t.Fatal(err)
	}
	res, err := gb.(kgo.GroupMemberBalancerOrError).BalanceOrError(parts)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string][]int32{}
	for _, a := range res.IntoSyncAssignment() {
		m, err := joinBalancer(1).ParseSyncAssignment(a.MemberAssignment)
		if err != nil {
			t.Fatal(err)
		}
		for topic := range m {
			slices.Sort(m[topic])
		}
		out[a.MemberID] = m
	}
	return out
}

// Through kgo's group protocol: co-partitioned topics go together, a
// move is cooperative (revoked first, assigned in the next rebalance).
func TestTaskBalancerGroup(t *testing.T) {
	parts := map[string]int32{"l": 4, "r": 4, "x": 4}
	first := balanceGroup(t, map[string]map[string][]int32{"a": nil}, parts)
	if got := fmt.Sprint(first); got != "map[a:map[l:[0 1 2 3] r:[0 1 2 3] x:[0 1 2 3]]]" {
		t.Fatalf("one member: %s", got)
	}
	// b joins: a gives up half its tasks but b gets them only in the
	// next rebalance, when a no longer owns them.
	second := balanceGroup(t, map[string]map[string][]int32{"a": first["a"], "b": nil}, parts)
	if got := fmt.Sprint(second); got != "map[a:map[l:[0 1] r:[0 1] x:[0 1]] b:map[]]" {
		t.Fatalf("b joins, revocation round: %s", got)
	}
	third := balanceGroup(t, map[string]map[string][]int32{"a": second["a"], "b": second["b"]}, parts)
	if got := fmt.Sprint(third); got != "map[a:map[l:[0 1] r:[0 1] x:[0 1]] b:map[l:[2 3] r:[2 3] x:[2 3]]]" {
		t.Fatalf("b joins, assignment round: %s", got)
	}
	for id, m := range third {
		if !slices.Equal(m["l"], m["r"]) {
			t.Fatalf("%s holds l%v but r%v: a join task split", id, m["l"], m["r"])
		}
	}
	// b leaves: a takes b's tasks at once (nobody has to revoke them).
	if got := fmt.Sprint(balanceGroup(t, map[string]map[string][]int32{"a": third["a"]}, parts)); got != fmt.Sprint(first) {
		t.Fatalf("b left: %s", got)
	}
	// Stable: the same subscriptions give the same plan.
	if again := balanceGroup(t, map[string]map[string][]int32{"a": third["a"], "b": third["b"]}, parts); fmt.Sprint(again) != fmt.Sprint(third) {
		t.Fatalf("rebalance without change moved tasks: %v → %v", third, again)
	}
}

// The subscription carries threads, owned tasks (from owned partitions:
// a half-owned task counts whole) and local offset sums.
func TestTaskBalancerSubscription(t *testing.T) {
	b := joinBalancer(3)
	b.offsetSums = func() map[physical.TaskID]int64 {
		return map[physical.TaskID]int64{{SubTopology: 0, Partition: 1}: 42, {SubTopology: 1, Partition: 0}: 0}
	}
	raw := b.JoinGroupMetadata([]string{"l", "r", "x"}, map[string][]int32{"l": {1}, "x": {0, 2}}, 5)
	if again := b.JoinGroupMetadata([]string{"l", "r", "x"}, map[string][]int32{"x": {0, 2}, "l": {1}}, 5); string(again) != string(raw) {
		t.Fatal("the same state encoded two ways: needless rebalances")
	}
	meta := kmsg.NewConsumerMemberMetadata()
	if err := meta.ReadFrom(raw); err != nil {
		t.Fatal(err)
	}
	m := b.member("m", &meta)
	got := fmt.Sprintf("threads=%d owned=%v offsets=%v", m.threads, m.owned, m.offsets)
	if want := "threads=3 owned=[0_1 1_0 1_2] offsets=map[0_1:42]"; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

// observer is an Observer of functions (nil ones ignore what they hear).
type observer struct {
	assigned func(Assignment)
	placed   func(active, standby Hosts)
}

func (o observer) Assigned(a Assignment) {
	if o.assigned != nil {
		o.assigned(a)
	}
}

func (o observer) Placed(active, standby Hosts) {
	if o.placed != nil {
		o.placed(active, standby)
	}
}

// withEndpoint makes b advertise endpoint.
func withEndpoint(b *Balancer, endpoint func() string) *Balancer {
	b.endpoint = endpoint
	return b
}

// observed makes b report its assignments to assigned and placed.
func observed(b *Balancer, assigned func(Assignment), placed func(active, standby Hosts)) *Balancer {
	b.obs = observer{assigned: assigned, placed: placed}
	return b
}
