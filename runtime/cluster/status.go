package cluster

import (
	"sort"
	"time"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/runtime/peer"
)

// Status answers GET /clusterStatus: this server (keyed
// "<serviceID>@local" without an endpoint) and every other server of the
// service id it knows of, keyed "host:port", with whether it is alive
// (heartbeats), when it was last heard from, the stores and source
// partitions it runs per query (the groups' host maps) and its store
// lags (this server's own, the others' from their lag reports).
func (p *Peers) Status(serviceID string, queries []Query) api.ClusterStatusResponse {
	now := time.Now().UnixMilli()
	self := p.Advertised()
	host := api.HostStatus{HostAlive: true, LastStatusUpdateMs: now,
		ActiveStandbyPerQuery: p.tasksOf(self, queries),
		HostStoreLags:         api.HostStoreLags{StateStoreLags: map[string]api.QueryStoreLags{}, UpdateTimeMs: now}}
	for _, q := range queries {
		if lags := HostLags(q); len(lags) > 0 {
			host.HostStoreLags.StateStoreLags[q.ID()] = api.QueryStoreLags{LagByPartition: lags}
		}
	}
	key := serviceID + "@local"
	if self != "" {
		key = peer.HostKey(self)
	}
	out := map[string]api.HostStatus{key: host}
	for _, v := range p.View() {
		hs := api.HostStatus{HostAlive: v.Alive, ActiveStandbyPerQuery: p.tasksOf(v.URL, queries),
			HostStoreLags: api.HostStoreLags{StateStoreLags: map[string]api.QueryStoreLags{}}}
		if !v.Heard.IsZero() {
			hs.LastStatusUpdateMs = v.Heard.UnixMilli()
		}
		if v.Lags != nil {
			hs.HostStoreLags = *v.Lags
		}
		out[v.Key] = hs
	}
	return api.ClusterStatusResponse{ClusterStatus: out}
}

// tasksOf lists, per query, the stores and source partitions the server
// at endpoint runs: from the query's host map, or for this server
// without one, the stores it holds.
func (p *Peers) tasksOf(endpoint string, queries []Query) map[string]api.ActiveStandby {
	out := map[string]api.ActiveStandby{}
	for _, q := range queries {
		as := api.ActiveStandby{ActiveStores: []string{}, ActivePartitions: []api.TopicPartition{},
			StandByStores: []string{}, StandByPartitions: []api.TopicPartition{}}
		h := p.PlacementOf(q.AppID())
		if h == nil {
			if endpoint != p.Advertised() {
				continue
			}
			_, as.ActiveStores = q.Restoring()
		}
		stores := map[string]bool{}
		for _, k := range h[endpoint] {
			st := q.Topology().SubTopologies[k.SubTopology]
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
		p.addStandbys(&as, endpoint, q)
		if len(as.ActiveStores)+len(as.ActivePartitions)+len(as.StandByStores) > 0 {
			out[q.ID()] = as
		}
	}
	return out
}

// HostStates is a query's state on every server of the service id
// ("host:port" → state): this server's own (state), each live peer's
// from its last lag report, and UNRESPONSIVE for a dead one (ksqlDB's
// SHOW QUERIES statusCount and EXPLAIN's ksqlHostQueryStatus).
func (p *Peers) HostStates(queryID, state string) map[string]string {
	out := map[string]string{p.SelfKey(): state}
	for _, v := range p.View() {
		switch st, ok := v.States[queryID]; {
		case !v.Alive:
			out[v.Key] = "UNRESPONSIVE"
		case ok:
			out[v.Key] = st
		}
	}
	return out
}

// LagReport is this server's /lag message: the store lags (HostLags) and
// the state of each of its persistent queries.
func LagReport(host api.HostInfo, queries []Query) api.LagReportingMessage {
	msg := api.LagReportingMessage{HostInfo: host, QueryStates: map[string]string{}}
	msg.HostStoreLags = api.HostStoreLags{StateStoreLags: map[string]api.QueryStoreLags{}, UpdateTimeMs: time.Now().UnixMilli()}
	for _, q := range queries {
		msg.QueryStates[q.ID()] = q.State()
		if lags := HostLags(q); len(lags) > 0 {
			msg.HostStoreLags.StateStoreLags[q.ID()] = api.QueryStoreLags{LagByPartition: lags}
		}
	}
	return msg
}
