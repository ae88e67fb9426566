package runtime

import (
	"fmt"
	"maps"
	"slices"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/runtime/exec"
	"github.com/sqlstream/sqlstream/runtime/peer"
)

// Where a task's replicas are. Next to the actives, the leader puts in
// every member's assignment the endpoints keeping a standby or warmup of
// each task (Kafka Streams' standbyPartitionsByHost), so that every server
// knows where to read a partition whose active host died
// (ksql.query.pull.enable.standby.reads). A replica's lag is this
// server's own (its standby feeder's position against the changelog end)
// or a peer's last /lag report.

// encodeStandbyHosts lays out the plan's standbys and warmups by the
// endpoint of their member (members without one are left out).
func encodeStandbyHosts(ha haPlan, endpoints map[string]string) map[string][]string {
	out := map[string][]string{}
	for _, replicas := range []map[string][]physical.TaskID{ha.standby, ha.warmup} {
		for member, ts := range replicas {
			if ep := endpoints[member]; ep != "" {
				out[ep] = append(out[ep], encodeTaskNames(ts)...)
			}
		}
	}
	for ep := range out {
		slices.Sort(out[ep])
	}
	return out
}

// withStandbyHosts makes the balancer report every assignment's standby
// host map to fn.
func (b *taskBalancer) withStandbyHosts(fn func(hostTasks)) *taskBalancer {
	b.onStandbys = fn
	return b
}

// placeStandbys records the standby host map of a query's group (nil:
// forget it); as place, only on a server with an endpoint.
func (p *peerSet) placeStandbys(appID string, h hostTasks) {
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

// standbysOf returns a query's standby host map, nil when unknown.
func (p *peerSet) standbysOf(appID string) hostTasks {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.standbys[appID]
}

// placedStandbys records the standby host map of the query's group.
func (q *query) placedStandbys(h hostTasks) { q.eng.peers.placeStandbys(q.appID, h) }

// engineStandbys is the standbySource of pull-query routing.
type engineStandbys struct{ e *Engine }

// standbys lists the hosts keeping a replica of task k, with their lags;
// this server only if its feeder actually keeps it.
func (s engineStandbys) standbys(appID string, k physical.TaskID) []taskHost {
	sb := s.e.peers.standbysOf(appID)
	q := s.e.queryOfApp(appID)
	if sb == nil || q == nil {
		return nil
	}
	var out []taskHost
	for _, ep := range slices.Sorted(maps.Keys(sb)) {
		if !slices.Contains(sb[ep], k) {
			continue
		}
		if ep == s.e.peers.self {
			if lag, ok := q.localReplicaLag(k); ok {
				out = append(out, taskHost{endpoint: ep, standby: true, lag: lag})
			}
			continue
		}
		out = append(out, taskHost{endpoint: ep, standby: true, lag: s.e.peers.reportedLag(ep, q, k)})
	}
	return out
}

// queryOfApp returns the persistent query of an application id, or nil.
func (e *Engine) queryOfApp(appID string) *query {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, q := range e.sortedQueries() {
		if q.appID == appID {
			return q
		}
	}
	return nil
}

// replicas returns the query's standby and warmup tasks on this server.
func (q *query) replicas() []TaskAssignment {
	q.mu.Lock()
	r, _ := q.runner.(exec.TaskReporter)
	q.mu.Unlock()
	if r == nil {
		return nil
	}
	return r.Replicas()
}

// localReplicaLag is the lag of this server's replica of task k: the sum
// over its stores, -1 when one is unknown; false when none is kept.
func (q *query) localReplicaLag(k physical.TaskID) (int64, bool) {
	for _, a := range q.replicas() {
		if a.Task == taskName(k) {
			return sumLags(a.Stores), true
		}
	}
	return 0, false
}

// sumLags adds store lags; -1 when one is unknown (or there are none).
func sumLags(stores []StoreLag) int64 {
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

// reportedLag is a peer's lag on task k of q from its last lag report
// (the sum over the task's stores); -1 when it has not reported them.
func (p *peerSet) reportedLag(endpoint string, q *query, k physical.TaskID) int64 {
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
	byPart := lags.StateStoreLags[q.id].LagByPartition
	var stores []StoreLag
	for _, spec := range q.topo.SubTopologies[k.SubTopology].Stores {
		l, ok := byPart[storeLagKey(spec.Name, k.Partition)]
		if !ok {
			return -1
		}
		stores = append(stores, StoreLag{Lag: l.OffsetLag})
	}
	return sumLags(stores)
}

// storeLagKey is a store partition's key in a lag report.
func storeLagKey(store string, partition int32) string {
	return fmt.Sprintf("%s/%d", store, partition)
}

// replicaLags is the lag of each store partition this server keeps a
// replica of, in the lag report's shape.
func (q *query) replicaLags() map[string]api.LagInfo {
	out := map[string]api.LagInfo{}
	for _, a := range q.replicas() {
		for _, s := range a.Stores {
			out[storeLagKey(s.Store, s.Partition)] = api.LagInfo{CurrentOffsetPosition: s.Position, EndOffsetPosition: s.End, OffsetLag: s.Lag}
		}
	}
	return out
}

// hostLags is the lag of every store partition on this server: active
// ones restoring and replicas.
func (q *query) hostLags() map[string]api.LagInfo {
	lags, _ := q.storeLags()
	maps.Copy(lags, q.replicaLags())
	return lags
}

// standbyTasksOf is the tasks of q the server at endpoint keeps replicas
// of: this server's own from its feeder, another's from the standby host
// map.
func (e *Engine) standbyTasksOf(endpoint string, q *query) []physical.TaskID {
	if endpoint != e.peers.advertised() {
		return e.peers.standbysOf(q.appID)[endpoint]
	}
	var out []physical.TaskID
	for _, a := range q.replicas() {
		if k, ok := parseTaskName(a.Task); ok {
			out = append(out, k)
		}
	}
	return out
}

// addStandbys lists the stores and source partitions of the replicas
// the server at endpoint keeps of q.
func (e *Engine) addStandbys(as *api.ActiveStandby, endpoint string, q *query) {
	stores := map[string]bool{}
	for _, k := range e.standbyTasksOf(endpoint, q) {
		st := q.topo.SubTopologies[k.SubTopology]
		for _, t := range st.Topics {
			as.StandByPartitions = append(as.StandByPartitions, api.TopicPartition{Topic: t, Partition: k.Partition})
		}
		for _, spec := range st.Stores {
			stores[spec.Name] = true
		}
	}
	as.StandByStores = append(as.StandByStores, slices.Sorted(maps.Keys(stores))...)
}
