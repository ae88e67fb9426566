package figures_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/runtime/figures"
	"github.com/sqlstream/sqlstream/runtime/global"
)

func topology(names ...string) *physical.Topology {
	sub := &physical.SubTopology{}
	for _, n := range names {
		sub.Nodes = append(sub.Nodes, &physical.NodeDesc{Kind: "Processor", Name: n})
	}
	return &physical.Topology{SubTopologies: []*physical.SubTopology{sub}}
}

// TestContinueNodes: a node the upgraded plan keeps keeps the start time
// an earlier upgrade gave it, and the node it adds counts from this
// upgrade.
func TestContinueNodes(t *testing.T) {
	old, next := topology("Source-S", "Project"), topology("Source-S", "Filter")
	start, upgraded := time.Unix(100, 0), time.Unix(200, 0)
	since, added := figures.ContinueNodes(next.NewNodeCounts(), old.NewNodeCounts(), map[string]time.Time{"0/Source-S": start}, upgraded)
	if !reflect.DeepEqual(added, []string{"0/Filter"}) {
		t.Fatalf("added %v, want [0/Filter]", added)
	}
	if want := map[string]time.Time{"0/Source-S": start, "0/Filter": upgraded}; !reflect.DeepEqual(since, want) {
		t.Fatalf("since %v, want %v", since, want)
	}
}

// TestMetricsGlobals: a global store with figures here exports them and
// its sum of lags; one without has lag -1; both add their two nodes of
// the description's global section.
func TestMetricsGlobals(t *testing.T) {
	topo := topology("Source-S")
	topo.Globals = []physical.GlobalStoreSpec{{Name: "T-GlobalStore", Source: &planner.Source{Name: "T"}}, {Name: "U-GlobalStore", Source: &planner.Source{Name: "U"}}}
	here := []global.StoreFigures{{Store: "T-GlobalStore", Loaded: 7, Rows: 5, Bytes: 90,
		Partitions: []global.PartitionProgress{{Partition: 0, Position: 3, End: 5, Lag: 2}}}}
	got := figures.MetricsGlobals(topo, here)
	if len(got) != 2 || got[0].Loaded != 7 || got[0].Rows != 5 || got[0].Lag != 2 || got[0].SubTopology != 1 ||
		got[0].Source != "Source-T" || got[0].Materialize != "T-GlobalStore-Materialize" || got[1].Lag != -1 || got[1].SubTopology != 2 {
		t.Fatalf("MetricsGlobals = %+v", got)
	}
	f := figures.Query{Globals: here}
	f.WithGlobalNodes(topo)
	want := []physical.NodeCount{{SubTopology: 1, Node: "Source-T", Records: 7}, {SubTopology: 1, Node: "T-GlobalStore-Materialize", Records: 7},
		{SubTopology: 2, Node: "Source-U"}, {SubTopology: 2, Node: "U-GlobalStore-Materialize"}}
	if !reflect.DeepEqual(f.Nodes, want) {
		t.Fatalf("nodes %+v, want %+v", f.Nodes, want)
	}
	if figures.MetricsGlobals(topology("Source-S"), nil) != nil {
		t.Fatal("a plan without global stores has no global figures")
	}
}
