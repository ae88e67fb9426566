package api

// QueryTasks is one entry of sqlstream's GET /tasks (no ksqlDB
// counterpart): this server's tasks of one persistent query, as active,
// standby or warmup copies, with their stores' changelog lag and, for an
// active task, its consumer lag on its input partitions.
type QueryTasks struct {
	QueryID string     `json:"queryId"`
	Tasks   []TaskInfo `json:"tasks"`
}

// TaskInfo is one task of QueryTasks.
type TaskInfo struct {
	TaskID string         `json:"taskId"`          // "<sub-topology>_<partition>"
	Role   string         `json:"role"`            // ACTIVE, STANDBY or WARMUP
	State  string         `json:"state,omitempty"` // an active task's state (RESTORING, RUNNING…)
	Stores []StoreLagInfo `json:"stores"`
	// ConsumerLag is an active task's input lags summed (-1 while none
	// is known; absent for a replica).
	ConsumerLag *int64 `json:"consumerLag,omitempty"`
	// Inputs are an active task's input partitions, each with its
	// position and end (absent for a replica).
	Inputs []InputLagInfo `json:"inputs,omitempty"`
}

// InputLagInfo is how far an active task is behind one input partition:
// the next offset it processes, the partition's high watermark and last
// stable offset as its last fetch told them, and the records between the
// position and the last stable offset (what a read_committed consumer
// can read); -1 where not yet known.
type InputLagInfo struct {
	Topic            string `json:"topic"`
	Partition        int32  `json:"partition"`
	Position         int64  `json:"position"`
	HighWatermark    int64  `json:"highWatermark"`
	LastStableOffset int64  `json:"lastStableOffset"`
	Lag              int64  `json:"lag"`
}

// StoreLagInfo is how far one local store partition lags its changelog:
// a replica's position and the changelog end as last seen (-1: not yet
// known), or an active task's restoration lag alone.
type StoreLagInfo struct {
	Store     string `json:"store"`
	Partition int32  `json:"partition"`
	Position  int64  `json:"position"`
	End       int64  `json:"end"`
	Lag       int64  `json:"lag"` // -1 while End is unknown
}
