package runtime

import (
	"fmt"
	"sort"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/runtime/peer"
	"github.com/sqlstream/sqlstream/state"
)

// ClusterStatus answers GET /clusterStatus: this server and every other
// server of the service id it knows of, keyed "host:port", with whether
// it is alive (heartbeats), when it was last heard from, the stores and
// source partitions it runs per query (the groups' host maps) and its
// store lags (this server's own, the others' from their lag reports).
func (e *Engine) ClusterStatus() api.ClusterStatusResponse {
	now := nowMillis()
	e.mu.Lock()
	queries := e.sortedQueries()
	e.mu.Unlock()
	self := e.peers.advertised()
	host := api.HostStatus{HostAlive: true, LastStatusUpdateMs: now,
		ActiveStandbyPerQuery: e.tasksOf(self, queries),
		HostStoreLags:         api.HostStoreLags{StateStoreLags: map[string]api.QueryStoreLags{}, UpdateTimeMs: now}}
	for _, q := range queries {
		if lags := q.hostLags(); len(lags) > 0 {
			host.HostStoreLags.StateStoreLags[q.id] = api.QueryStoreLags{LagByPartition: lags}
		}
	}
	key := e.opts.serviceID + "@local"
	if self != "" {
		key = peer.HostKey(self)
	}
	out := map[string]api.HostStatus{key: host}
	for _, v := range e.peers.view() {
		hs := api.HostStatus{HostAlive: v.alive, ActiveStandbyPerQuery: e.tasksOf(v.url, queries),
			HostStoreLags: api.HostStoreLags{StateStoreLags: map[string]api.QueryStoreLags{}}}
		if !v.heard.IsZero() {
			hs.LastStatusUpdateMs = v.heard.UnixMilli()
		}
		if v.lags != nil {
			hs.HostStoreLags = *v.lags
		}
		out[v.key] = hs
	}
	return api.ClusterStatusResponse{ClusterStatus: out}
}

// tasksOf lists, per query, the stores and source partitions the server
// at endpoint runs: from the query's host map, or for this server
// without one, the stores it holds.
func (e *Engine) tasksOf(endpoint string, queries []*query) map[string]api.ActiveStandby {
	out := map[string]api.ActiveStandby{}
	for _, q := range queries {
		as := api.ActiveStandby{ActiveStores: []string{}, ActivePartitions: []api.TopicPartition{},
			StandByStores: []string{}, StandByPartitions: []api.TopicPartition{}}
		h := q.eng.peers.placementOf(q.appID)
		if h == nil {
			if endpoint != e.peers.advertised() {
				continue
			}
			_, as.ActiveStores = q.storeLags()
		}
		stores := map[string]bool{}
		for _, k := range h[endpoint] {
			st := q.topo.SubTopologies[k.SubTopology]
			for _, t := range st.Topics {
				as.ActivePartitions = append(as.ActivePartitions, api.TopicPartition{Topic: t, Partition: k.Partition})
			}
			for _, spec := range st.Stores {
				stores[spec.Name] = true
			}
		}
		for name := range stores {
			as.ActiveStores = append(as.ActiveStores, name)
		}
		sort.Strings(as.ActiveStores)
		e.addStandbys(&as, endpoint, q)
		if len(as.ActiveStores)+len(as.ActivePartitions)+len(as.StandByStores) > 0 {
			out[q.id] = as
		}
	}
	return out
}

// storeLags returns the restoration progress of the query's store
// partitions and the names of its stores.
func (q *query) storeLags() (map[string]api.LagInfo, []string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	lags := map[string]api.LagInfo{}
	seen := map[string]bool{}
	var stores []string
	q.restores.Each(func(id state.StoreID, r state.Restorer) {
		n, total := r.Progress()
		lags[fmt.Sprintf("%s/%d", id.Name, id.Partition)] = api.LagInfo{CurrentOffsetPosition: n, EndOffsetPosition: total, OffsetLag: max(total-n, 0)}
		if !seen[id.Name] {
			seen[id.Name] = true
			stores = append(stores, id.Name)
		}
	})
	sort.Strings(stores)
	return lags, stores
}
