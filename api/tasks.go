package api

// QueryTasks is one entry of sqlstream's GET /tasks (no ksqlDB
// counterpart): this server's tasks of one persistent query, as active,
// standby or warmup copies, with their stores' changelog lag and size
// and, for an active task, its consumer lag on its input partitions;
// beside them the query's counters, node records and global stores here.
type QueryTasks struct {
	QueryID string     `json:"queryId"`
	Tasks   []TaskInfo `json:"tasks"`
	// The query's counters on this server: input records processed,
	// processing-log entries (and those lost), late records dropped.
	Processed int64 `json:"recordsProcessed"`
	Logged    int64 `json:"processingLogEntries"`
	Late      int64 `json:"lateRecords"`
	// LogLost is the query's processing-log entries lost here (the
	// log's queue full, or the write failed; absent: none).
	LogLost int64 `json:"processingLogEntriesLost,omitempty"`
	// Nodes are the records each node of the topology received here
	// (sqlstream_node_records_total), a global store's section included.
	Nodes []NodeRecords `json:"nodes"`
	// GlobalStores are the query's global-table stores here.
	GlobalStores []GlobalStoreInfo `json:"globalStores,omitempty"`
	// UpgradedAtMs is when the query was last upgraded in place on this
	// server (CREATE OR REPLACE; absent: never): its counts go on across
	// it, and a node the new plan added counts from then.
	UpgradedAtMs int64 `json:"upgradedAtMs,omitempty"`
}

// NodeRecords is what one node of a query's topology received on a
// server.
type NodeRecords struct {
	SubTopology int    `json:"subTopology"`
	Node        string `json:"node"`
	Records     int64  `json:"records"`
	// SinceMs is when a node an upgrade added started counting (absent:
	// since the query started on this server).
	SinceMs int64 `json:"sinceMs,omitempty"`
}

// GlobalStoreInfo is a global table's store of a query on one server:
// the records it loaded from its topic, its size, and how far its
// follower is behind each partition of the topic (Position the next
// offset it loads, HighWatermark and LastStableOffset as its last fetch
// told them, -1 unknown).
type GlobalStoreInfo struct {
	Store         string         `json:"store"`
	Topic         string         `json:"topic"`
	RecordsLoaded int64          `json:"recordsLoaded"`
	Rows          int64          `json:"rows"`
	Bytes         int64          `json:"bytes"`
	Lag           int64          `json:"lag"` // summed over the partitions; -1 while unknown
	Partitions    []InputLagInfo `json:"partitions"`
}

// ClusterTasks is sqlstream's GET /clusterTasks: GET /tasks of every
// server of the service id, this one first, each asked as a peer; a
// server that did not answer has Error and no queries.
type ClusterTasks struct {
	Hosts []HostTasks `json:"hosts"`
}

// HostTasks is one server's answer in ClusterTasks.
type HostTasks struct {
	Host    string       `json:"host"` // host:port, as /clusterStatus keys it
	Self    bool         `json:"self,omitempty"`
	Error   string       `json:"error,omitempty"`
	Queries []QueryTasks `json:"queries"`
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
	// Keys and Bytes are the local store partition's size (approximate
	// bytes).
	Keys  int64 `json:"keys"`
	Bytes int64 `json:"bytes"`
}

// ClusterMetrics is sqlstream's GET /clusterMetrics: the engine's
// metrics (GET /metrics' sqlstream_query_*, sqlstream_task_*,
// sqlstream_node_* … families, without the Go runtime, process and HTTP
// ones) of every server of the service id, this one first, each other
// one asked as a peer; a server that did not answer has Error and no
// metrics.
type ClusterMetrics struct {
	Hosts []HostMetrics `json:"hosts"`
}

// HostMetrics is one server's answer in ClusterMetrics: its engine's
// samples in Prometheus' text format, as its GET /metrics has them.
type HostMetrics struct {
	Host    string `json:"host"` // host:port, as /clusterStatus keys it
	Self    bool   `json:"self,omitempty"`
	Error   string `json:"error,omitempty"`
	Metrics string `json:"metrics"`
}
