package cluster

import (
	"fmt"
	"maps"
	"slices"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/runtime/assign"
	"github.com/sqlstream/sqlstream/runtime/exec"
	"github.com/sqlstream/sqlstream/runtime/peer"
)

// Where a task's replicas are. Next to the actives, the leader puts in
// every member's assignment the endpoints keeping a standby or warmup of
// each task (package runtime/assign), so that every server knows where to
// read a partition whose active host died
// (ksql.query.pull.enable.standby.reads). A replica's lag is this
// server's own (its standby feeder's position against the changelog end)
// or a peer's last /lag report.

// PlaceStandbys records the standby host map of a query's group (nil:
// forget it); as Place, only on a server with an endpoint.
func (p *Peers) PlaceStandbys(appID string, h assign.Hosts) {
	if p == nil || p.self == "" {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if h == nil {
		delete(p.standbys, appID)
		return
	}
	p.standbys[appID] = h
}

// StandbysOf returns a query's standby host map, nil when unknown.
func (p *Peers) StandbysOf(appID string) assign.Hosts {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.standbys[appID]
}

// replicaSource is the standbySource of a query's pull routing: the
// group's standby host map, with lags from this server's replicas and
// the peers' lag reports.
type replicaSource struct {
	p *Peers
	q Query
}

// standbys lists the hosts keeping a replica of task k, with their lags;
// this server only if it actually keeps one.
func (s replicaSource) standbys(appID string, k physical.TaskID) []taskHost {
	sb := s.p.StandbysOf(appID)
	if sb == nil {
		return nil
	}
	var out []taskHost
	for _, ep := range slices.Sorted(maps.Keys(sb)) {
		if !slices.Contains(sb[ep], k) {
			continue
		}
		if ep == s.p.self {
			if lag, ok := localReplicaLag(s.q, k); ok {
				out = append(out, taskHost{endpoint: ep, standby: true, lag: lag})
			}
			continue
		}
		out = append(out, taskHost{endpoint: ep, standby: true, lag: s.p.ReportedLag(ep, s.q, k)})
	}
	return out
}

// localReplicaLag is the lag of this server's replica of task k of q:
// the sum over its stores, -1 when one is unknown; false when none is
// kept.
func localReplicaLag(q Query, k physical.TaskID) (int64, bool) {
	for _, a := range q.Replicas() {
		if a.Task == assign.TaskName(k) {
			return sumLags(a.Stores), true
		}
	}
	return 0, false
}

// sumLags adds store lags; -1 when one is unknown (or there are none).
func sumLags(stores []exec.StoreLag) int64 {
	if len(stores) == 0 {
		return -1
	}
	var sum int64
	for _, s := range stores {
		if s.Lag < 0 {
			return -1
		}
		sum += s.Lag
	}
	return sum
}

// ReportedLag is a peer's lag on task k of q from its last lag report
// (the sum over the task's stores); -1 when it has not reported them.
func (p *Peers) ReportedLag(endpoint string, q Query, k physical.TaskID) int64 {
	p.mu.Lock()
	h := p.hosts[peer.HostKey(endpoint)]
	var lags *api.HostStoreLags
	if h != nil {
		lags = h.lags
	}
	p.mu.Unlock()
	if lags == nil {
		return -1
	}
	byPart := lags.StateStoreLags[q.ID()].LagByPartition
	var stores []exec.StoreLag
	for _, spec := range q.Topology().SubTopologies[k.SubTopology].Stores {
		l, ok := byPart[StoreLagKey(spec.Name, k.Partition)]
		if !ok {
			return -1
		}
		stores = append(stores, exec.StoreLag{Lag: l.OffsetLag})
	}
	return sumLags(stores)
}

// StoreLagKey is a store partition's key in a lag report.
func StoreLagKey(store string, partition int32) string {
	return fmt.Sprintf("%s/%d", store, partition)
}

// replicaLags is the lag of each store partition this server keeps a
// replica of, in the lag report's shape.
func replicaLags(q Query) map[string]api.LagInfo {
	out := map[string]api.LagInfo{}
	for _, a := range q.Replicas() {
		for _, s := range a.Stores {
			out[StoreLagKey(s.Store, s.Partition)] = api.LagInfo{CurrentOffsetPosition: s.Position, EndOffsetPosition: s.End, OffsetLag: s.Lag}
		}
	}
	return out
}

// HostLags is the lag of every store partition of q on this server:
// active ones restoring and replicas (this server's part of /lag and of
// /clusterStatus).
func HostLags(q Query) map[string]api.LagInfo {
	lags, _ := q.Restoring()
	maps.Copy(lags, replicaLags(q))
	return lags
}

// standbyTasksOf is the tasks of q the server at endpoint keeps replicas
// of: this server's own from its feeder, another's from the standby host
// map.
func (p *Peers) standbyTasksOf(endpoint string, q Query) []physical.TaskID {
	if endpoint != p.Advertised() {
		return p.StandbysOf(q.AppID())[endpoint]
	}
	var out []physical.TaskID
	for _, a := range q.Replicas() {
		if k, ok := assign.ParseTaskName(a.Task); ok {
			out = append(out, k)
		}
	}
	return out
}

// addStandbys lists the stores and source partitions of the replicas
// the server at endpoint keeps of q.
func (p *Peers) addStandbys(as *api.ActiveStandby, endpoint string, q Query) {
	stores := map[string]bool{}
	for _, k := range p.standbyTasksOf(endpoint, q) {
		st := q.Topology().SubTopologies[k.SubTopology]
		for _, t := range st.Topics {
			as.StandByPartitions = append(as.StandByPartitions, api.TopicPartition{Topic: t, Partition: k.Partition})
		}
		for _, spec := range st.Stores {
			stores[spec.Name] = true
		}
	}
	as.StandByStores = append(as.StandByStores, slices.Sorted(maps.Keys(stores))...)
}
