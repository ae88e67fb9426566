package assign

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/runtime/props"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Through kgo's group protocol: each member advertises its endpoint,
// and every member's assignment carries the whole task → host map of
// what is assigned in this round (a task moving cooperatively belongs to
// nobody until the next round).
func TestTaskBalancerHostMap(t *testing.T) {
	parts := map[string]int32{"l": 4, "r": 4, "x": 4}
	endpoints := map[string]string{"a": "http://127.0.0.1:1", "b": "http://127.0.0.1:2"}
	round := func(owned map[string]map[string][]int32) (map[string]map[string][]int32, map[string]Hosts) {
		var members []kmsg.JoinGroupResponseMember
		for _, id := range slices.Sorted(maps.Keys(owned)) {
			b := withEndpoint(joinBalancer(1), func() string { return endpoints[id] })
			members = append(members, kmsg.JoinGroupResponseMember{MemberID: id,
				ProtocolMetadata: b.JoinGroupMetadata([]string{"l", "r", "x"}, owned[id], 1)})
		}
		gb, _, err := joinBalancer(1).MemberBalancer(members)
		if err != nil {
			t.Fatal(err)
		}
		res, err := gb.(kgo.GroupMemberBalancerOrError).BalanceOrError(parts)
		if err != nil {
			t.Fatal(err)
		}
		assigned, seen := map[string]map[string][]int32{}, map[string]Hosts{}
		for _, a := range res.IntoSyncAssignment() {
			b := observed(joinBalancer(1), nil, func(h, _ Hosts) { seen[a.MemberID] = h })
			m, err := b.ParseSyncAssignment(a.MemberAssignment)
			if err != nil {
				t.Fatal(err)
			}
			assigned[a.MemberID] = m
		}
		return assigned, seen
	}
	first, hosts := round(map[string]map[string][]int32{"a": nil})
	if got := fmt.Sprint(hosts["a"]); got != "map[http://127.0.0.1:1:[0_0 0_1 0_2 0_3 1_0 1_1 1_2 1_3]]" {
		t.Fatalf("one member's host map: %s", got)
	}
	second, hosts := round(map[string]map[string][]int32{"a": first["a"], "b": nil})
	if fmt.Sprint(hosts["a"]) != fmt.Sprint(hosts["b"]) {
		t.Fatalf("members got different host maps: %v and %v", hosts["a"], hosts["b"])
	}
	if got := fmt.Sprint(hosts["b"]); got != "map[http://127.0.0.1:1:[0_0 0_1 1_0 1_1]]" {
		t.Fatalf("revocation round: %s", got)
	}
	if owner := hosts["b"].Owner(physical.TaskID{SubTopology: 0, Partition: 2}); owner != "" {
		t.Fatalf("a task moving between members is owned by %q", owner)
	}
	_, hosts = round(map[string]map[string][]int32{"a": second["a"], "b": second["b"]})
	if got := fmt.Sprint(hosts["a"]); got != "map[http://127.0.0.1:1:[0_0 0_1 1_0 1_1] http://127.0.0.1:2:[0_2 0_3 1_2 1_3]]" {
		t.Fatalf("assignment round: %s", got)
	}
	if owner := hosts["a"].Owner(physical.TaskID{SubTopology: 1, Partition: 3}); owner != endpoints["b"] {
		t.Fatalf("task 1_3 owned by %q, want b", owner)
	}
	// An assignment without user data (range, an older member) says
	// nothing: the host map is unknown, not empty.
	var plain kmsg.ConsumerMemberAssignment
	if h := hostsOf(t, plain.AppendTo(nil)).hosts; h != nil {
		t.Fatalf("host map of a plain assignment: %v", h)
	}
}

// hostsOf parses a member's assignment as its balancer does.
func hostsOf(t *testing.T, raw []byte) memberAssignment {
	t.Helper()
	_, ma, err := parseMemberAssignment(raw)
	if err != nil {
		t.Fatal(err)
	}
	return ma
}

// Through kgo's group protocol with one standby: every member's
// assignment carries, next to the actives, the endpoints keeping a
// standby or warmup of each task.
func TestTaskBalancerStandbyHosts(t *testing.T) {
	endpoints := map[string]string{"a": "http://127.0.0.1:1", "b": "http://127.0.0.1:2"}
	newB := func(id string) *Balancer {
		b := withEndpoint(joinBalancer(1), func() string { return endpoints[id] })
		b.ha = props.HA{Standbys: 1, AcceptableLag: 10, MaxWarmups: 2}
		b.stateful = map[int]bool{0: true, 1: true}
		b.endSums = func() map[physical.TaskID]int64 { return sums(tasksOf(2, 2), 100) }
		return b
	}
	owned := map[string]map[string][]int32{"a": {"l": {0, 1}, "r": {0, 1}, "x": {0, 1}}, "b": nil}
	var members []kmsg.JoinGroupResponseMember
	for _, id := range slices.Sorted(maps.Keys(owned)) {
		members = append(members, kmsg.JoinGroupResponseMember{MemberID: id,
			ProtocolMetadata: newB(id).JoinGroupMetadata([]string{"l", "r", "x"}, owned[id], 1)})
	}
	gb, _, err := newB("a").MemberBalancer(members)
	if err != nil {
		t.Fatal(err)
	}
	res, err := gb.(kgo.GroupMemberBalancerOrError).BalanceOrError(map[string]int32{"l": 2, "r": 2, "x": 2})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range res.IntoSyncAssignment() {
		var active, standby Hosts
		b := observed(joinBalancer(1), nil, func(a, s Hosts) { active, standby = a, s })
		if _, err := b.ParseSyncAssignment(a.MemberAssignment); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%s: active %v standby %v", a.MemberID, active, standby))
	}
	// b warms up 0_1 and 1_1 (to take them over) and stands by for 0_0
	// and 1_0, which a keeps.
	one := "active map[http://127.0.0.1:1:[0_0 0_1 1_0 1_1]] standby map[http://127.0.0.1:2:[0_0 0_1 1_0 1_1]]"
	if want := "a: " + one + "|b: " + one; strings.Join(got, "|") != want {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "|"), want)
	}
	var plain kmsg.ConsumerMemberAssignment
	if h := hostsOf(t, plain.AppendTo(nil)).standbyHosts; h != nil {
		t.Fatalf("standby host map of a plain assignment: %v", h)
	}
}
