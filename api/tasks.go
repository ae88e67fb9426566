package api

// QueryTasks is one entry of sqlstream's GET /tasks (no ksqlDB
// counterpart): this server's tasks of one persistent query, as active,
// standby or warmup copies, with their stores' changelog lag.
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
