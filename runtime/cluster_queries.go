package runtime

import (
	"context"
	"fmt"
	"net"
	"sort"
	"strconv"
	"time"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/runtime/assign"
	"github.com/sqlstream/sqlstream/runtime/cluster"
	"github.com/sqlstream/sqlstream/runtime/exec"
	"github.com/sqlstream/sqlstream/runtime/peer"
	"github.com/sqlstream/sqlstream/state"
)

// The engine's side of the cluster (package runtime/cluster): its
// queries as the cluster view sees them, the host maps their balancers
// deliver, and the engine's answers to /clusterStatus, /heartbeat and
// /lag.

// clusterQuery is a persistent query as the cluster view sees it.
type clusterQuery struct{ q *query }

var _ cluster.Query = clusterQuery{}

func (c clusterQuery) ID() string                                    { return c.q.id }
func (c clusterQuery) AppID() string                                 { return c.q.appID }
func (c clusterQuery) Topology() *physical.Topology                  { return c.q.topo }
func (c clusterQuery) Restoring() (map[string]api.LagInfo, []string) { return c.q.storeLags() }
func (c clusterQuery) Replicas() []exec.TaskAssignment               { return c.q.replicas() }

// clusterQueries is the persistent queries, in order, as the cluster
// view sees them.
func (e *Engine) clusterQueries() []cluster.Query {
	e.mu.Lock()
	queries := e.sortedQueries()
	e.mu.Unlock()
	out := make([]cluster.Query, len(queries))
	for i, q := range queries {
		out[i] = clusterQuery{q}
	}
	return out
}

// ClusterStatus answers GET /clusterStatus (cluster.Peers.Status).
func (e *Engine) ClusterStatus() api.ClusterStatusResponse {
	return e.peers.Status(e.opts.serviceID, e.clusterQueries())
}

// hostStates is the query's state on every server of the service id.
func (q *query) hostStates() map[string]string {
	return q.eng.peers.HostStates(q.id, q.State().String())
}

// placement is how the query's balancer reports its assignments: this
// member's replicas to the runner (exec.BalancerHooks.Assigned), the
// group's host maps to the cluster view.
type placement struct {
	q     *query
	hooks exec.BalancerHooks
}

var _ assign.Observer = placement{}

func (p placement) Assigned(a assign.Assignment) {
	p.hooks.Assigned(exec.Assignment{Standby: a.Standby, Warmup: a.Warmup, ProbeAt: a.ProbeAt, Rejoin: a.Rejoin})
}

func (p placement) Placed(active, standby assign.Hosts) { p.q.placed(active, standby) }

// placed records the host maps of the query's group as its runner's
// balancer received them (nil: the runner stopped).
func (q *query) placed(active, standby assign.Hosts) {
	q.eng.peers.Place(q.appID, active)
	q.eng.peers.PlaceStandbys(q.appID, standby)
}

// replicas returns the query's standby and warmup tasks on this server,
// whatever runs it (a query reading a global table runs the executor's
// runner inside the global stores' runner).
func (q *query) replicas() []TaskAssignment {
	r := q.tasks()
	if r == nil {
		return nil
	}
	return r.Replicas()
}

// replicaErrors is the feed errors of the query's replicas on this
// server, and the last one.
func (q *query) replicaErrors() (int64, string) {
	r := q.tasks()
	if r == nil {
		return 0, ""
	}
	return r.ReplicaErrors()
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

// peerSource is the engine as the peer agent sees it.
type peerSource struct{ e *Engine }

var _ peer.Peers = peerSource{}

func (s peerSource) Targets() []string                                   { return s.e.peers.Targets() }
func (s peerSource) Prune(now time.Time)                                 { s.e.peers.Prune(now) }
func (s peerSource) LagReport(host api.HostInfo) api.LagReportingMessage { return s.e.lagReport(host) }

// startPeerAgent starts the heartbeats and lag reports (package peer)
// if this server has an endpoint and the key to sign with.
func (e *Engine) startPeerAgent() {
	if e.peers == nil {
		return
	}
	e.agent = peer.StartAgent(peer.AgentConfig{Self: e.peers.Advertised(), Beat: e.cfg.HeartbeatInterval,
		Lag: e.cfg.LagReportInterval, Window: e.peers.Window(), Auth: e.peers.Auth(), Logger: e.logger}, peerSource{e})
}

// lagReport is this server's /lag message: its store lags and the state
// of each persistent query.
func (e *Engine) lagReport(host api.HostInfo) api.LagReportingMessage {
	msg := api.LagReportingMessage{HostInfo: host, QueryStates: map[string]string{}}
	msg.HostStoreLags = api.HostStoreLags{StateStoreLags: map[string]api.QueryStoreLags{}, UpdateTimeMs: nowMillis()}
	e.mu.Lock()
	queries := e.sortedQueries()
	e.mu.Unlock()
	for _, q := range queries {
		msg.QueryStates[q.id] = q.State().String()
		if lags := cluster.HostLags(clusterQuery{q}); len(lags) > 0 {
			msg.HostStoreLags.StateStoreLags[q.id] = api.QueryStoreLags{LagByPartition: lags}
		}
	}
	return msg
}

// Heartbeat records a peer's heartbeat (POST /heartbeat, verified by the
// server first).
func (e *Engine) Heartbeat(m api.HeartbeatMessage) {
	e.peers.Heard(net.JoinHostPort(m.HostInfo.Host, strconv.Itoa(m.HostInfo.Port)))
}

// LagReport records a peer's lag report (POST /lag, verified by the
// server first).
func (e *Engine) LagReport(m api.LagReportingMessage) {
	e.peers.Reported(net.JoinHostPort(m.HostInfo.Host, strconv.Itoa(m.HostInfo.Port)), m.HostStoreLags, m.QueryStates)
}

// VerifyPeer implements the server's check of inter-node requests: nil
// when header (peer.Header's value) signs method, path and body
// with this service's key.
func (e *Engine) VerifyPeer(method, path, header string, body []byte) error {
	return e.peers.Auth().Verify(method, path, header, body)
}

// GatherFromPeers reads path (GET) on every other server of the service
// id as a peer, with the request's user (package cluster's Gather).
func (e *Engine) GatherFromPeers(ctx context.Context, path string) []cluster.PeerAnswer {
	return e.peers.Gather(ctx, path, api.AuthorizationFrom(ctx))
}

// HostKey is this server's host:port ("local" without an endpoint), as
// /clusterStatus keys it.
func (e *Engine) HostKey() string { return e.peers.SelfKey() }
