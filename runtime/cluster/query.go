package cluster

import (
	"slices"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/runtime/exec"
)

// Query is what the cluster view needs of one persistent query of this
// server: its names, its topology (which stores and source topics each
// task holds), its state here, its stores' restoration progress and
// the replicas it keeps here. The engine answers it; the cluster never sees the engine.
type Query interface {
	ID() string
	AppID() string
	Topology() *physical.Topology
	// State is the query's state on this server (RUNNING, ERROR, …).
	State() string
	// Restoring is the restoration progress of the query's active store
	// partitions, keyed StoreLagKey, and the names of its stores.
	Restoring() (map[string]api.LagInfo, []string)
	// Replicas is this server's standby and warmup tasks of the query,
	// whatever its runner (a global table's runner included), nil when
	// it keeps none.
	Replicas() []exec.TaskAssignment
}

// RestoreLags is what a Query's Restoring returns for the store
// partitions restoring (exec.Restores.Progress): each one's progress,
// keyed StoreLagKey, and the names of the stores, sorted.
func RestoreLags(progress []exec.RestoreProgress) (map[string]api.LagInfo, []string) {
	lags := map[string]api.LagInfo{}
	var stores []string
	for _, p := range progress {
		lags[StoreLagKey(p.Store, p.Partition)] = api.LagInfo{CurrentOffsetPosition: p.Done, EndOffsetPosition: p.Total, OffsetLag: max(p.Total-p.Done, 0)}
		if !slices.Contains(stores, p.Store) {
			stores = append(stores, p.Store)
		}
	}
	slices.Sort(stores)
	return lags, stores
}
