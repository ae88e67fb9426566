package runtime

import (
	"fmt"
	"sort"

	"github.com/sqlstream/sqlstream/api"
)

// ClusterStatus reports this server's stores and how far each store
// partition's restoration from its changelog has come (GET /clusterStatus).
func (e *Engine) ClusterStatus() api.ClusterStatusResponse {
	now := nowMillis()
	host := api.HostStatus{HostAlive: true, LastStatusUpdateMs: now,
		ActiveStandbyPerQuery: map[string]api.ActiveStandby{},
		HostStoreLags:         api.HostStoreLags{StateStoreLags: map[string]api.QueryStoreLags{}, UpdateTimeMs: now}}
	e.mu.Lock()
	queries := e.sortedQueries()
	e.mu.Unlock()
	for _, q := range queries {
		lags, stores := q.storeLags()
		if len(stores) == 0 {
			continue
		}
		host.ActiveStandbyPerQuery[q.id] = api.ActiveStandby{ActiveStores: stores, StandByStores: []string{}}
		host.HostStoreLags.StateStoreLags[q.id] = api.QueryStoreLags{LagByPartition: lags}
	}
	return api.ClusterStatusResponse{ClusterStatus: map[string]api.HostStatus{e.opts.serviceID + "@local": host}}
}

// storeLags returns the restoration progress of the query's store
// partitions and the names of its stores.
func (q *query) storeLags() (map[string]api.LagInfo, []string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	lags := map[string]api.LagInfo{}
	seen := map[string]bool{}
	var stores []string
	for id, r := range q.restores {
		n, total := r.Progress()
		lags[fmt.Sprintf("%s/%d", id.Name, id.Partition)] = api.LagInfo{CurrentOffsetPosition: n, EndOffsetPosition: total, OffsetLag: max(total-n, 0)}
		if !seen[id.Name] {
			seen[id.Name] = true
			stores = append(stores, id.Name)
		}
	}
	sort.Strings(stores)
	return lags, stores
}
