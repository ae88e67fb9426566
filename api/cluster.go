package api

// ClusterStatusResponse is the body of GET /clusterStatus: per host (this
// server only, until scale-out lands), whether it is alive, which stores
// it hosts and how far their restoration from changelogs has come.
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

// ActiveStandby lists the stores a host runs actively for one query.
type ActiveStandby struct {
	ActiveStores  []string `json:"activeStores"`
	StandByStores []string `json:"standByStores"`
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
