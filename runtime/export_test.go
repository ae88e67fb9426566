package runtime

// Test hooks, for this package's external tests only: they are no part
// of the engine's API.
var (
	WithGlobalLoadHook       = withGlobalLoadHook
	WithGlobalPartitionCheck = withGlobalPartitionCheck
	WithReplicaFault         = withReplicaFault
	WithStateFS              = withStateFS
)

// QueryStarts counts the persistent query runs the engine started.
func (e *Engine) QueryStarts() int64 { return e.queryStarts.Load() }
