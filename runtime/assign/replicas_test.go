package assign

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/runtime/props"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func renderPlan(p haPlan) string {
	ids := map[string]bool{}
	for _, m := range []map[string][]physical.TaskID{p.active, p.standby, p.warmup} {
		for id := range m {
			ids[id] = true
		}
	}
	names := func(ts []physical.TaskID) string { return strings.Join(encodeTaskNames(ts), " ") }
	var lines []string
	for _, id := range slices.Sorted(maps.Keys(ids)) {
		line := fmt.Sprintf("%s: active[%s] standby[%s] warmup[%s]", id, names(p.active[id]), names(p.standby[id]), names(p.warmup[id]))
		lines = append(lines, line)
	}
	if p.probe {
		lines = append(lines, "probe")
	}
	return strings.Join(lines, "\n")
}

// sums gives every task of tasks the same offset sum.
func sums(tasks []physical.TaskID, v int64) map[physical.TaskID]int64 {
	out := map[physical.TaskID]int64{}
	for _, k := range tasks {
		out[k] = v
	}
	return out
}

func TestAssignReplicas(t *testing.T) {
	stateful := haInput{stateful: map[int]bool{0: true}, endSums: sums(tasksOf(4), 1000)}
	cfg := props.HA{Standbys: 1, AcceptableLag: 100, MaxWarmups: 2}
	for _, tc := range []struct {
		name    string
		tasks   []physical.TaskID
		members []taskMember
		in      haInput
		cfg     props.HA
		want    string
	}{
		{name: "balance: no state anywhere, actives even, one standby each elsewhere", tasks: tasksOf(4),
			members: []taskMember{{id: "a", threads: 1}, {id: "b", threads: 1}},
			in:      stateful, cfg: cfg,
			want: "a: active[0_0 0_2] standby[0_1 0_3] warmup[]\nb: active[0_1 0_3] standby[0_0 0_2] warmup[]"},
		{name: "stickiness: owners and standby holders keep their roles", tasks: tasksOf(4),
			members: []taskMember{
				{id: "a", threads: 1, owned: []physical.TaskID{{SubTopology: 0, Partition: 1}, {SubTopology: 0, Partition: 3}}, offsets: sums([]physical.TaskID{{SubTopology: 0, Partition: 0}, {SubTopology: 0, Partition: 2}}, 990)},
				{id: "b", threads: 1, owned: []physical.TaskID{{SubTopology: 0, Partition: 0}, {SubTopology: 0, Partition: 2}}, offsets: sums([]physical.TaskID{{SubTopology: 0, Partition: 1}, {SubTopology: 0, Partition: 3}}, 990)}},
			in: stateful, cfg: cfg,
			want: "a: active[0_1 0_3] standby[0_0 0_2] warmup[]\nb: active[0_0 0_2] standby[0_1 0_3] warmup[]"},
		{name: "caught-up preference: a new member gets warmups, the owner keeps the actives", tasks: tasksOf(4),
			members: []taskMember{{id: "a", threads: 1, owned: tasksOf(4)}, {id: "b", threads: 1}},
			in:      stateful, cfg: props.HA{AcceptableLag: 100, MaxWarmups: 2},
			want: "a: active[0_0 0_1 0_2 0_3] standby[] warmup[]\nb: active[] standby[] warmup[0_2 0_3]\nprobe"},
		{name: "a caught-up warmup is promoted (the move is then cooperative)", tasks: tasksOf(4),
			members: []taskMember{{id: "a", threads: 1, owned: tasksOf(4)}, {id: "b", threads: 1, offsets: sums([]physical.TaskID{{SubTopology: 0, Partition: 2}, {SubTopology: 0, Partition: 3}}, 950)}},
			in:      stateful, cfg: props.HA{AcceptableLag: 100, MaxWarmups: 2},
			want: "a: active[0_0 0_1] standby[] warmup[]\nb: active[0_2 0_3] standby[] warmup[]"},
		{name: "warmup cap: the group gets at most max.warmup.replicas", tasks: tasksOf(6),
			members: []taskMember{{id: "a", threads: 1, owned: tasksOf(6)}, {id: "b", threads: 1}, {id: "c", threads: 1}},
			in:      haInput{stateful: map[int]bool{0: true}, endSums: sums(tasksOf(6), 1000)}, cfg: props.HA{AcceptableLag: 100, MaxWarmups: 1},
			want: "a: active[0_0 0_1 0_2 0_3 0_4 0_5] standby[] warmup[]\nb: active[] standby[] warmup[0_2]\nc: active[] standby[] warmup[]\nprobe"},
		{name: "failover: a dead member's tasks go to their standby holder", tasks: tasksOf(4),
			members: []taskMember{
				{id: "a", threads: 1, owned: []physical.TaskID{{SubTopology: 0, Partition: 0}, {SubTopology: 0, Partition: 2}}, offsets: sums([]physical.TaskID{{SubTopology: 0, Partition: 1}}, 995)},
				{id: "b", threads: 1, owned: []physical.TaskID{{SubTopology: 0, Partition: 1}}, offsets: sums([]physical.TaskID{{SubTopology: 0, Partition: 3}}, 995)}},
			in: stateful, cfg: cfg,
			want: "a: active[0_0 0_2] standby[0_1 0_3] warmup[]\nb: active[0_1 0_3] standby[0_0 0_2] warmup[]"},
		{name: "nobody caught up: the balanced target takes the task, no warmup", tasks: tasksOf(2),
			members: []taskMember{{id: "a", threads: 1}, {id: "b", threads: 1}},
			in:      haInput{stateful: map[int]bool{0: true}, endSums: sums(tasksOf(2), 1000)}, cfg: props.HA{AcceptableLag: 100, MaxWarmups: 2},
			want: "a: active[0_0] standby[] warmup[]\nb: active[0_1] standby[] warmup[]"},
		{name: "stateless tasks get no standbys and no warmups", tasks: tasksOf(2),
			members: []taskMember{{id: "a", threads: 1, owned: tasksOf(2)}, {id: "b", threads: 1}},
			in:      haInput{stateful: map[int]bool{}, endSums: map[physical.TaskID]int64{}}, cfg: cfg,
			want: "a: active[0_0] standby[] warmup[]\nb: active[0_1] standby[] warmup[]"},
		{name: "unknown end offsets: plain sticky placement", tasks: tasksOf(2),
			members: []taskMember{{id: "a", threads: 1, owned: tasksOf(2)}, {id: "b", threads: 1}},
			in:      haInput{stateful: map[int]bool{0: true}}, cfg: props.HA{AcceptableLag: 100, MaxWarmups: 2},
			want: "a: active[0_0] standby[] warmup[]\nb: active[0_1] standby[] warmup[]"},
		{name: "a warmup counts as the task's standby", tasks: tasksOf(2),
			members: []taskMember{{id: "a", threads: 1, owned: tasksOf(2)}, {id: "b", threads: 1}},
			in:      haInput{stateful: map[int]bool{0: true}, endSums: sums(tasksOf(2), 1000)}, cfg: props.HA{Standbys: 1, AcceptableLag: 100, MaxWarmups: 2},
			want: "a: active[0_0 0_1] standby[] warmup[]\nb: active[] standby[0_0] warmup[0_1]\nprobe"},
		{name: "one member: no standby to place", tasks: tasksOf(2),
			members: []taskMember{{id: "a", threads: 1}},
			in:      haInput{stateful: map[int]bool{0: true}, endSums: sums(tasksOf(2), 1000)}, cfg: cfg,
			want: "a: active[0_0 0_1] standby[] warmup[]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := assignReplicas(tc.tasks, tc.members, tc.in, tc.cfg)
			if r := renderPlan(got); r != tc.want {
				t.Fatalf("got\n%s\nwant\n%s", r, tc.want)
			}
			checkExactlyOnce(t, tc.tasks, got.active)
			checkReplicasApart(t, got)
			rev := slices.Clone(tc.members)
			slices.Reverse(rev)
			if r := renderPlan(assignReplicas(tc.tasks, rev, tc.in, tc.cfg)); r != tc.want {
				t.Fatalf("with members reversed got\n%s\nwant\n%s", r, tc.want)
			}
		})
	}
}

// checkReplicasApart: no member holds two copies of one task (active,
// standby or warmup).
func checkReplicasApart(t *testing.T, p haPlan) {
	t.Helper()
	ids := map[string]bool{}
	for _, m := range []map[string][]physical.TaskID{p.active, p.standby, p.warmup} {
		for id := range m {
			ids[id] = true
		}
	}
	for id := range ids {
		seen := map[physical.TaskID]bool{}
		for _, ts := range [][]physical.TaskID{p.active[id], p.standby[id], p.warmup[id]} {
			for _, k := range ts {
				if seen[k] {
					t.Fatalf("%s holds two copies of task %s: %s", id, TaskName(k), renderPlan(p))
				}
				seen[k] = true
			}
		}
	}
}

// Over many group sizes and standby counts: every task active once, its
// standbys on distinct other members, as many as members allow.
func TestAssignReplicasStandbysApart(t *testing.T) {
	for n := 1; n <= 4; n++ {
		for standbys := 0; standbys <= 3; standbys++ {
			var ms []taskMember
			for i := 0; i < n; i++ {
				ms = append(ms, taskMember{id: fmt.Sprintf("m%d", i), threads: 1})
			}
			tasks := tasksOf(7, 3)
			in := haInput{stateful: map[int]bool{0: true, 1: false}, endSums: map[physical.TaskID]int64{}}
			p := assignReplicas(tasks, ms, in, props.HA{Standbys: standbys, MaxWarmups: 2})
			checkExactlyOnce(t, tasks, p.active)
			checkReplicasApart(t, p)
			count := map[physical.TaskID]int{}
			for _, ts := range p.standby {
				for _, k := range ts {
					count[k]++
				}
			}
			for _, k := range tasks {
				want := min(standbys, n-1)
				if k.SubTopology == 1 {
					want = 0
				}
				if count[k] != want {
					t.Fatalf("%d members, %d standbys: task %s has %d", n, standbys, TaskName(k), count[k])
				}
			}
		}
	}
}

// Through kgo's group protocol with standbys: a join task's partitions
// stay together, each member's standbys and warmups reach it in the
// assignment's user data, and so does the time of the probing rebalance
// every member joins (the same in every assignment). Nothing was
// revoked, so no member is asked to rejoin at once.
func TestTaskBalancerReplicas(t *testing.T) {
	now := time.UnixMilli(1_700_000_000_000)
	newB := func() *Balancer {
		b := joinBalancer(1)
		b.ha = props.HA{Standbys: 1, AcceptableLag: 10, MaxWarmups: 2, ProbeInterval: 3 * time.Second}
		b.stateful = map[int]bool{0: true, 1: true}
		b.endSums = func() map[physical.TaskID]int64 { return sums(tasksOf(2, 2), 100) }
		b.now = func() time.Time { return now }
		return b
	}
	owned := map[string]map[string][]int32{"a": {"l": {0, 1}, "r": {0, 1}, "x": {0, 1}}, "b": nil}
	var got []string
	for id, ma := range syncAssignments(t, newB, owned) {
		parts := ma.parts
		if !slices.Equal(parts["l"], parts["r"]) {
			t.Fatalf("%s holds l%v but r%v: a join task split", id, parts["l"], parts["r"])
		}
		if want := now.Add(3 * time.Second); !ma.ProbeAt.Equal(want) || ma.Rejoin {
			t.Fatalf("%s: probe at %v, rejoin %v; want a probe at %v and no rejoin", id, ma.ProbeAt, ma.Rejoin, want)
		}
		got = append(got, fmt.Sprintf("%s: l%v x%v standby%v warmup%v", id, parts["l"], parts["x"],
			encodeTaskNames(ma.Standby), encodeTaskNames(ma.Warmup)))
	}
	slices.Sort(got)
	want := "a: l[0 1] x[0 1] standby[] warmup[]|b: l[] x[] standby[0_0 1_0] warmup[0_1 1_1]"
	if strings.Join(got, "|") != want {
		t.Fatalf("got %s, want %s", strings.Join(got, "|"), want)
	}
}

// A plan that takes tasks from their owner (stateless tasks move at
// once) asks every member, not only the one that revokes, to rejoin at
// once for the round that assigns them; the round after, which revokes
// nothing, does not. No warmup is pending: no probe.
func TestTaskBalancerRejoinAfterRevoking(t *testing.T) {
	newB := func() *Balancer { b := joinBalancer(1); b.now = time.Now; return b }
	first := syncAssignments(t, newB, map[string]map[string][]int32{"a": {"l": {0, 1}, "r": {0, 1}, "x": {0, 1}}, "b": nil})
	for id, ma := range first {
		if !ma.Rejoin || !ma.ProbeAt.IsZero() {
			t.Fatalf("first round, %s: rejoin %v, probe at %v; want a rejoin and no probe", id, ma.Rejoin, ma.ProbeAt)
		}
	}
	second := syncAssignments(t, newB, map[string]map[string][]int32{"a": first["a"].parts, "b": first["b"].parts})
	for id, ma := range second {
		if ma.Rejoin {
			t.Fatalf("second round, %s: asked to rejoin again (owned a%v b%v)", id, first["a"].parts, first["b"].parts)
		}
	}
	if len(second["b"].parts["x"]) == 0 {
		t.Fatalf("second round: b got nothing: %v", second["b"].parts)
	}
}

// parsedAssignment is one member's side of a balance.
type parsedAssignment struct {
	Assignment
	parts map[string][]int32
}

// syncAssignments balances members (id → owned partitions of l, r and
// x, two each) with newB's leader and parses each member's assignment.
func syncAssignments(t *testing.T, newB func() *Balancer, owned map[string]map[string][]int32) map[string]parsedAssignment {
	t.Helper()
	var members []kmsg.JoinGroupResponseMember
	for _, id := range slices.Sorted(maps.Keys(owned)) {
		members = append(members, kmsg.JoinGroupResponseMember{MemberID: id,
			ProtocolMetadata: newB().JoinGroupMetadata([]string{"l", "r", "x"}, owned[id], 1)})
	}
	gb, _, err := newB().MemberBalancer(members)
	if err != nil {
		t.Fatal(err)
	}
	res, err := gb.(kgo.GroupMemberBalancerOrError).BalanceOrError(map[string]int32{"l": 2, "r": 2, "x": 2})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]parsedAssignment{}
	for _, a := range res.IntoSyncAssignment() {
		m := newB()
		var pa parsedAssignment
		m.obs = observer{assigned: func(x Assignment) { pa.Assignment = x }}
		if pa.parts, err = m.ParseSyncAssignment(a.MemberAssignment); err != nil {
			t.Fatal(err)
		}
		out[a.MemberID] = pa
	}
	return out
}

// Repeated probing rebalances converge: members joining an owner of
// every task warm up at most max.warmup.replicas tasks per round, each
// round's caught-up warmups are promoted, and the group ends balanced
// with no probe pending and no task ever left without a caught-up
// active.
// Standbys catch up beside the warmups, so with one the moves take two
// rounds; without, the warmup cap (2) spreads the eight moves over four
// probes, and the fifth rebalance finds nothing left to move.
func TestAssignReplicasConvergeUnderProbes(t *testing.T) {
	for standbys, rounds := range []int{5, 2} {
		t.Run(fmt.Sprintf("standbys=%d", standbys), func(t *testing.T) {
			if got := probesToConverge(t, standbys); got != rounds {
				t.Fatalf("balanced after %d rounds, want %d", got, rounds)
			}
		})
	}
}

func probesToConverge(t *testing.T, standbys int) int {
	tasks := tasksOf(12)
	ends := sums(tasks, 1000)
	in := haInput{stateful: map[int]bool{0: true}, endSums: ends}
	cfg := props.HA{Standbys: standbys, AcceptableLag: 10, MaxWarmups: 2}
	members := []taskMember{{id: "a", threads: 1, owned: tasks, offsets: sums(tasks, 1000)}, {id: "b", threads: 1}, {id: "c", threads: 1}}
	for round := 1; ; round++ {
		p := assignReplicas(tasks, members, in, cfg)
		checkExactlyOnce(t, tasks, p.active)
		checkReplicasApart(t, p)
		n := 0
		for _, ws := range p.warmup {
			n += len(ws)
		}
		if n > cfg.MaxWarmups {
			t.Fatalf("round %d: %d warmups, cap %d", round, n, cfg.MaxWarmups)
		}
		for i := range members {
			m := &members[i]
			for _, k := range p.active[m.id] {
				if !in.caughtUp(*m, k, cfg) {
					t.Fatalf("round %d: task %s active on %s, which is not caught up", round, TaskName(k), m.id)
				}
			}
			// Until the next probe every replica catches up.
			m.owned = p.active[m.id]
			for _, k := range append(slices.Clone(p.standby[m.id]), p.warmup[m.id]...) {
				if m.offsets == nil {
					m.offsets = map[physical.TaskID]int64{}
				}
				m.offsets[k] = ends[k]
			}
		}
		if !p.probe {
			if r := renderPlan(p); strings.Count(r, "active[0_") != 3 || len(p.active["a"]) != 4 || len(p.active["b"]) != 4 {
				t.Fatalf("converged unbalanced after %d rounds:\n%s", round, r)
			}
			return round
		}
		if round > 10 {
			t.Fatalf("no convergence after %d probes:\n%s", round, renderPlan(p))
		}
	}
}
