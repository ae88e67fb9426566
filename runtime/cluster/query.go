package cluster

import (
	"slices"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/runtime/exec"
	"github.com/sqlstream/sqlstream/state"
)

// Query is what the cluster view needs of one persistent query of this
// server: its names, its topology (which stores and source topics each
// task holds), its stores' restoration progress and the replicas it
// keeps here. The engine answers it; the cluster never sees the engine.
type Query interface {
	ID() string
	AppID() string
	Topology() *physical.Topology
	// Restoring is the restoration progress of the query's active store
	// partitions, keyed StoreLagKey, and the names of its stores.
	Restoring() (map[string]api.LagInfo, []string)
	// Replicas is this server's standby and warmup tasks of the query,
	// whatever its runner (a global table's runner included), nil when
	// it keeps none.
	Replicas() []exec.TaskAssignment
}

// RestoreLags is what a Query's Restoring returns for the store
// partitions rs tracks: each one's restoration progress, keyed
// StoreLagKey, and the names of the stores, sorted.
func RestoreLags(rs *exec.Restores) (map[string]api.LagInfo, []string) {
	lags := map[string]api.LagInfo{}
	seen := map[string]bool{}
	var stores []string
	rs.Each(func(id state.StoreID, r state.Restorer) {
		n, total := r.Progress()
		lags[StoreLagKey(id.Name, id.Partition)] = api.LagInfo{CurrentOffsetPosition: n, EndOffsetPosition: total, OffsetLag: max(total-n, 0)}
		if !seen[id.Name] {
			seen[id.Name] = true
			stores = append(stores, id.Name)
		}
	})
	slices.Sort(stores)
	return lags, stores
}
