package cluster

import (
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/runtime/assign"
	"github.com/sqlstream/sqlstream/runtime/exec"
)

// fixedStandbys is a standbySource of fixed hosts.
type fixedStandbys []taskHost

func (f fixedStandbys) standbys(string, physical.TaskID) []taskHost { return f }

// Standby reads: with the active dead, a pull reads a live standby if
// standby reads are on and its lag is within the limit (one of unknown
// lag only without a limit); otherwise the error says why.
func TestPickHostStandbyReads(t *testing.T) {
	const window = time.Minute
	self, active, peer := "http://127.0.0.1:1", "http://127.0.0.1:2", "http://127.0.0.1:3"
	p := NewPeers(self, []byte("k"), window)
	p.Place("app", assign.Hosts{active: {{SubTopology: 0, Partition: 0}}})
	p.Heard("127.0.0.1:3")
	p.hosts["127.0.0.1:2"].discovered = time.Now().Add(-2 * window) // never heard: dead
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
			got, err := p.pickHost(hosts, c.on, c.maxLag, false)
			if err != nil {
				got = "error: " + err.Error()
			}
			if got != c.want {
				t.Fatalf("got %s\nwant %s", got, c.want)
			}
		})
	}
	// An alive active is read whatever the standbys.
	p.Heard("127.0.0.1:2")
	hosts, _ := groupLocator{peers: p, standbys: fixedStandbys{{endpoint: self, standby: true}}}.locate("app", physical.TaskID{SubTopology: 0, Partition: 0})
	if got, err := p.pickHost(hosts, true, noLimit, false); got != active || err != nil {
		t.Fatalf("with the active alive: %q %v", got, err)
	}
}

// A peer's replica lag comes from its last lag report, summed over the
// task's stores; unknown before a report or while a store is missing.
func TestReportedStandbyLag(t *testing.T) {
	peer := "http://127.0.0.1:2"
	p := NewPeers("http://127.0.0.1:1", []byte("k"), time.Second)
	q := fakeQuery{id: "CTAS_T_1", topo: &physical.Topology{SubTopologies: []*physical.SubTopology{
		{Stores: []physical.StoreSpec{{Name: "s1"}, {Name: "s2"}}}}}}
	k := physical.TaskID{SubTopology: 0, Partition: 3}
	if got := p.ReportedLag(peer, q, k); got != -1 {
		t.Fatalf("lag before any report: %d", got)
	}
	report := func(lags map[string]api.LagInfo) {
		p.Reported("127.0.0.1:2", api.HostStoreLags{StateStoreLags: map[string]api.QueryStoreLags{q.id: {LagByPartition: lags}}}, nil)
	}
	report(map[string]api.LagInfo{"s1/3": {OffsetLag: 4}})
	if got := p.ReportedLag(peer, q, k); got != -1 {
		t.Fatalf("lag with a store unreported: %d", got)
	}
	report(map[string]api.LagInfo{"s1/3": {OffsetLag: 4}, "s2/3": {OffsetLag: 3}, "s2/2": {OffsetLag: 100}})
	if got := p.ReportedLag(peer, q, k); got != 7 {
		t.Fatalf("lag %d, want 4+3", got)
	}
}

// fakeQuery is a Query of fixed values.
type fakeQuery struct {
	id, appID string
	topo      *physical.Topology
	replicas  []exec.TaskAssignment
}

func (q fakeQuery) ID() string                   { return q.id }
func (q fakeQuery) AppID() string                { return q.appID }
func (q fakeQuery) Topology() *physical.Topology { return q.topo }
func (q fakeQuery) State() string                { return "RUNNING" }
func (q fakeQuery) Restoring() (map[string]api.LagInfo, []string) {
	return map[string]api.LagInfo{}, nil
}
func (q fakeQuery) Replicas() []exec.TaskAssignment { return q.replicas }

// TestRestoreLags: each restoring store partition's progress keyed
// <store>/<partition>, its lag never negative, and the stores named
// once, sorted.
func TestRestoreLags(t *testing.T) {
	lags, stores := RestoreLags([]exec.RestoreProgress{{Store: "b", Partition: 1, Done: 3, Total: 10}, {Store: "a", Partition: 0, Done: 4, Total: 4}, {Store: "b", Partition: 0, Done: 9, Total: 8}})
	want := map[string]api.LagInfo{"b/1": {CurrentOffsetPosition: 3, EndOffsetPosition: 10, OffsetLag: 7},
		"a/0": {CurrentOffsetPosition: 4, EndOffsetPosition: 4}, "b/0": {CurrentOffsetPosition: 9, EndOffsetPosition: 8}}
	if !reflect.DeepEqual(lags, want) || !reflect.DeepEqual(stores, []string{"a", "b"}) {
		t.Fatalf("RestoreLags = %v %v", lags, stores)
	}
}

// TestLagReport: the /lag message names this host, carries each query's
// state, and holds store lags only for queries that have some.
func TestLagReport(t *testing.T) {
	host := api.HostInfo{Host: "n1", Port: 8088}
	msg := LagReport(host, []Query{fakeQuery{id: "CTAS_T_1"}, fakeQuery{id: "CSAS_S_2"}})
	if msg.HostInfo != host || !reflect.DeepEqual(msg.QueryStates, map[string]string{"CTAS_T_1": "RUNNING", "CSAS_S_2": "RUNNING"}) {
		t.Fatalf("LagReport = %+v", msg)
	}
	if len(msg.HostStoreLags.StateStoreLags) != 0 || msg.HostStoreLags.UpdateTimeMs == 0 {
		t.Fatalf("store lags of queries without stores: %+v", msg.HostStoreLags)
	}
}
