package api

// ClusterStatusResponse is the body of GET /clusterStatus: per host
// ("host:port": this server and every peer it knows of), whether it is
// alive, which stores and partitions it hosts and how far their
// restoration from changelogs has come.
type ClusterStatusResponse struct {
	ClusterStatus map[string]HostStatus `json:"clusterStatus"`
}

// HostStatus is one host of ClusterStatusResponse.
type HostStatus struct {
	HostAlive             bool                     `json:"hostAlive"`
	LastStatusUpdateMs    int64                    `json:"lastStatusUpdateMs"`
	ActiveStandbyPerQuery map[string]ActiveStandby `json:"activeStandbyPerQuery"`
	HostStoreLags         HostStoreLags            `json:"hostStoreLags"`
}

// ActiveStandby lists the stores and source partitions a host runs, as
// active or standby, for one query.
type ActiveStandby struct {
	ActiveStores      []string         `json:"activeStores"`
	ActivePartitions  []TopicPartition `json:"activePartitions"`
	StandByStores     []string         `json:"standByStores"`
	StandByPartitions []TopicPartition `json:"standByPartitions"`
}

// HostInfo names a server in inter-node messages.
type HostInfo struct {
	Host string `json:"host"`
	Port int    `json:"port"`
}

// HeartbeatMessage is the body of POST /heartbeat (inter-node).
type HeartbeatMessage struct {
	HostInfo  HostInfo `json:"hostInfo"`
	Timestamp int64    `json:"timestamp"`
}

// LagReportingMessage is the body of POST /lag (inter-node): the
// sender's store lags and, sqlstream's own, the state of each of its
// persistent queries (SHOW QUERIES' per-host status).
type LagReportingMessage struct {
	HostInfo      HostInfo          `json:"hostInfo"`
	HostStoreLags HostStoreLags     `json:"hostStoreLags"`
	QueryStates   map[string]string `json:"queryStates,omitempty"`
}

// PeerResponse answers /heartbeat and /lag.
type PeerResponse struct {
	IsOk bool `json:"isOk"`
}

// HostStoreLags are a host's store restoration lags, per query.
type HostStoreLags struct {
	StateStoreLags map[string]QueryStoreLags `json:"stateStoreLags"`
	UpdateTimeMs   int64                     `json:"updateTimeMs"`
}

// QueryStoreLags are the lags of one query's store partitions, keyed by
// "<store>/<partition>".
type QueryStoreLags struct {
	LagByPartition map[string]LagInfo `json:"lagByPartition"`
}

// LagInfo is how far a store partition has restored its changelog:
// records restored, records to restore, and what is left.
type LagInfo struct {
	CurrentOffsetPosition int64 `json:"currentOffsetPosition"`
	EndOffsetPosition     int64 `json:"endOffsetPosition"`
	OffsetLag             int64 `json:"offsetLag"`
}
