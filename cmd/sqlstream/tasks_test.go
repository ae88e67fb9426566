package main

import (
	"reflect"
	"testing"
	"time"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/runtime"
	"github.com/sqlstream/sqlstream/runtime/figures"
	"github.com/sqlstream/sqlstream/runtime/global"
)

// TestAPITasks: runtime's task view becomes GET /tasks' entities field
// for field, with [] rather than null for no stores; an active task
// carries its consumer lag (its known input lags summed) and inputs, a
// replica neither; each store partition its size; the query its
// counters, node records, global stores and upgrade time.
func TestAPITasks(t *testing.T) {
	got := apiTasks([]runtime.QueryTasks{{QueryID: "Q", Tasks: []runtime.TaskAssignment{
		{Task: "1_0", Role: runtime.RoleActive, State: "RESTORING", Stores: []runtime.StoreLag{{Store: "st", Partition: 0, Lag: 7}},
			Inputs: []runtime.InputLag{{Topic: "a", Partition: 0, Position: 3, HighWatermark: 9, LastStableOffset: 8, Lag: 5},
				{Topic: "b", Partition: 0, Position: -1, HighWatermark: -1, LastStableOffset: -1, Lag: -1}}},
		{Task: "2_0", Role: runtime.RoleActive, State: "RUNNING", Inputs: []runtime.InputLag{{Topic: "c", Position: -1, HighWatermark: -1, LastStableOffset: -1, Lag: -1}}},
		{Task: "1_1", Role: runtime.RoleWarmup, Stores: []runtime.StoreLag{{Store: "st", Partition: 1, Position: 2, End: -1, Lag: -1}}},
		{Task: "0_1", Role: runtime.RoleStandby},
	}, Figures: figures.Query{Processed: 9, Logged: 2, Late: 1, LogLost: 3,
		Nodes:      []physical.NodeCount{{SubTopology: 0, Node: "Source-S", Records: 9}, {SubTopology: 3, Node: "Source-G", Records: 4}},
		Stores:     []figures.StoreSize{{Store: "st", Partition: 1, Keys: 3, Bytes: 120}},
		Globals:    []global.StoreFigures{{Store: "G-GlobalStore", Topic: "g", Loaded: 4, Rows: 2, Bytes: 64, Partitions: []global.PartitionProgress{{Partition: 0, Position: 4, End: 6, Lag: 2}}}},
		UpgradedAt: time.UnixMilli(1700000000000), NodeSince: map[string]time.Time{"3/Source-G": time.UnixMilli(1700000000000)}}}})
	want := []api.QueryTasks{{QueryID: "Q", Tasks: []api.TaskInfo{
		{TaskID: "1_0", Role: "ACTIVE", State: "RESTORING", Stores: []api.StoreLagInfo{{Store: "st", Partition: 0, Lag: 7}}, ConsumerLag: ptr(5),
			Inputs: []api.InputLagInfo{{Topic: "a", Partition: 0, Position: 3, HighWatermark: 9, LastStableOffset: 8, Lag: 5},
				{Topic: "b", Partition: 0, Position: -1, HighWatermark: -1, LastStableOffset: -1, Lag: -1}}},
		{TaskID: "2_0", Role: "ACTIVE", State: "RUNNING", Stores: []api.StoreLagInfo{}, ConsumerLag: ptr(-1),
			Inputs: []api.InputLagInfo{{Topic: "c", Position: -1, HighWatermark: -1, LastStableOffset: -1, Lag: -1}}},
		{TaskID: "1_1", Role: "WARMUP", Stores: []api.StoreLagInfo{{Store: "st", Partition: 1, Position: 2, End: -1, Lag: -1, Keys: 3, Bytes: 120}}},
		{TaskID: "0_1", Role: "STANDBY", Stores: []api.StoreLagInfo{}},
	}, Processed: 9, Logged: 2, Late: 1, LogLost: 3,
		Nodes: []api.NodeRecords{{SubTopology: 0, Node: "Source-S", Records: 9}, {SubTopology: 3, Node: "Source-G", Records: 4, SinceMs: 1700000000000}},
		GlobalStores: []api.GlobalStoreInfo{{Store: "G-GlobalStore", Topic: "g", RecordsLoaded: 4, Rows: 2, Bytes: 64, Lag: 2,
			Partitions: []api.InputLagInfo{{Topic: "g", Partition: 0, Position: 4, HighWatermark: -1, LastStableOffset: 6, Lag: 2}}}},
		UpgradedAtMs: 1700000000000}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("apiTasks:\n%+v\nwant\n%+v", got, want)
	}
	if got := apiTasks(nil); got == nil || len(got) != 0 {
		t.Errorf("no queries: %#v", got)
	}
}

func ptr(v int64) *int64 { return &v }
