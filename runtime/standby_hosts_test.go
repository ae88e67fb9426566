package runtime

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/runtime/props"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Through kgo's group protocol with one standby: every member's
// assignment carries, next to the actives, the endpoints keeping a
// standby or warmup of each task.
func TestTaskBalancerStandbyHosts(t *testing.T) {
	endpoints := map[string]string{"a": "http://127.0.0.1:1", "b": "http://127.0.0.1:2"}
	newB := func(id string) *taskBalancer {
		b := joinBalancer(1).withHosts(func() string { return endpoints[id] }, nil)
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
		var active, standby hostTasks
		b := joinBalancer(1).withHosts(nil, func(h hostTasks) { active = h }).withStandbyHosts(func(h hostTasks) { standby = h })
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

// fixedStandbys is a standbySource of fixed hosts.
type fixedStandbys []taskHost

func (f fixedStandbys) standbys(string, physical.TaskID) []taskHost { return f }

// Standby reads: with the active dead, a pull reads a live standby if
// standby reads are on and its lag is within the limit (one of unknown
// lag only without a limit); otherwise the error says why.
func TestPickHostStandbyReads(t *testing.T) {
	const window = time.Minute
	self, active, peer := "http://127.0.0.1:1", "http://127.0.0.1:2", "http://127.0.0.1:3"
	p := newPeerSet(self, []byte("k"), window)
	p.place("app", hostTasks{active: {{SubTopology: 0, Partition: 0}}})
	p.heard("127.0.0.1:3")
	p.hosts["127.0.0.1:2"].discovered = time.Now().Add(-2 * window) // never heard: dead
	e := &Engine{peers: p}
	noLimit := int64(math.MaxInt)
	for _, c := range []struct {
		name     string
		standbys fixedStandbys
		on       bool
		maxLag   int64
		want     string
	}{
		{"off", fixedStandbys{{endpoint: peer, standby: true, lag: 0}}, false, noLimit, "error: its host http://127.0.0.1:2 is not alive, and standby reads are off (ksql.query.pull.enable.standby.reads)"},
		{"peer standby", fixedStandbys{{endpoint: peer, standby: true, lag: 5}}, true, 5, peer},
		{"local standby first", fixedStandbys{{endpoint: self, standby: true, lag: 0}, {endpoint: peer, standby: true, lag: 0}}, true, noLimit, self},
		{"too far behind", fixedStandbys{{endpoint: peer, standby: true, lag: 6}}, true, 5, "error: its hosts http://127.0.0.1:2 are not alive and no standby is within ksql.query.pull.max.allowed.offset.lag=5 (standby http://127.0.0.1:3 lags 6 records)"},
		{"unknown lag, limit", fixedStandbys{{endpoint: peer, standby: true, lag: -1}}, true, 100, "error: its hosts http://127.0.0.1:2 are not alive and no standby is within ksql.query.pull.max.allowed.offset.lag=100 (standby http://127.0.0.1:3 lags an unknown number of records)"},
		{"unknown lag, no limit", fixedStandbys{{endpoint: peer, standby: true, lag: -1}}, true, noLimit, peer},
		{"standby dead too", fixedStandbys{{endpoint: "http://127.0.0.1:4", standby: true}}, true, noLimit, "error: its hosts http://127.0.0.1:2, http://127.0.0.1:4 are not alive and it has no live standby"},
	} {
		t.Run(c.name, func(t *testing.T) {
			hosts, known := groupLocator{peers: p, standbys: c.standbys}.locate("app", physical.TaskID{SubTopology: 0, Partition: 0})
			if !known || hosts[0].endpoint != active || hosts[0].standby {
				t.Fatalf("the active is not located first: %v %v", hosts, known)
			}
			got, err := e.pickHost(hosts, c.on, c.maxLag, false)
			if err != nil {
				got = "error: " + err.Error()
			}
			if got != c.want {
				t.Fatalf("got %s\nwant %s", got, c.want)
			}
		})
	}
	// An alive active is read whatever the standbys.
	p.heard("127.0.0.1:2")
	hosts, _ := groupLocator{peers: p, standbys: fixedStandbys{{endpoint: self, standby: true}}}.locate("app", physical.TaskID{SubTopology: 0, Partition: 0})
	if got, err := e.pickHost(hosts, true, noLimit, false); got != active || err != nil {
		t.Fatalf("with the active alive: %q %v", got, err)
	}
}

// A peer's replica lag comes from its last lag report, summed over the
// task's stores; unknown before a report or while a store is missing.
func TestReportedStandbyLag(t *testing.T) {
	peer := "http://127.0.0.1:2"
	p := newPeerSet("http://127.0.0.1:1", []byte("k"), time.Second)
	q := &query{id: "CTAS_T_1", topo: &physical.Topology{SubTopologies: []*physical.SubTopology{
		{Stores: []physical.StoreSpec{{Name: "s1"}, {Name: "s2"}}}}}}
	k := physical.TaskID{SubTopology: 0, Partition: 3}
	if got := p.reportedLag(peer, q, k); got != -1 {
		t.Fatalf("lag before any report: %d", got)
	}
	report := func(lags map[string]api.LagInfo) {
		p.reported("127.0.0.1:2", api.HostStoreLags{StateStoreLags: map[string]api.QueryStoreLags{q.id: {LagByPartition: lags}}}, nil)
	}
	report(map[string]api.LagInfo{"s1/3": {OffsetLag: 4}})
	if got := p.reportedLag(peer, q, k); got != -1 {
		t.Fatalf("lag with a store unreported: %d", got)
	}
	report(map[string]api.LagInfo{"s1/3": {OffsetLag: 4}, "s2/3": {OffsetLag: 3}, "s2/2": {OffsetLag: 100}})
	if got := p.reportedLag(peer, q, k); got != 7 {
		t.Fatalf("lag %d, want 4+3", got)
	}
}
