package cluster

import (
	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/runtime/exec"
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
