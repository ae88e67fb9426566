package runtime

import (
	"net"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/runtime/peer"
)

// peerSet is this server's view of the other servers of its service id
// (KLIP-12): who they are (discovered, as in ksqlDB, from the host maps of
// the persistent queries' groups), whether they are alive (heartbeats
// received within the window), and what they last reported (store lags
// and query states, through /lag). It also holds the host maps
// themselves, per query, as the last assignment delivered them.
//
// Hosts are keyed by "host:port" (ksqlDB's /clusterStatus key) and
// called at their advertised URL.
type peerSet struct {
	self    string     // advertised URL of this server, "" when it has none
	auth    *peer.Auth // signs and verifies inter-node requests
	window  time.Duration
	started time.Time

	mu        sync.Mutex
	placement map[string]hostTasks // application id → host map
	standbys  map[string]hostTasks // application id → standby host map
	hosts     map[string]*peerHost // host:port → what we know of it
}

// peerHost is one other server.
type peerHost struct {
	url        string
	discovered time.Time
	heard      time.Time // last heartbeat received (zero: none yet)
	lags       *api.HostStoreLags
	states     map[string]string // query id → state, from its last lag report
}

func newPeerSet(self string, key []byte, window time.Duration) *peerSet {
	return &peerSet{self: self, auth: peer.NewAuth(key), window: window, started: time.Now(),
		placement: map[string]hostTasks{}, standbys: map[string]hostTasks{}, hosts: map[string]*peerHost{}}
}

// advertised returns this server's advertised URL ("" without one); the
// balancer sends it in the group subscription.
func (p *peerSet) advertised() string {
	if p == nil {
		return ""
	}
	return p.self
}

// selfKey is this server's "host:port", or "local" without an endpoint.
func (p *peerSet) selfKey() string {
	if p == nil || p.self == "" {
		return "local"
	}
	return peer.HostKey(p.self)
}

// place records the host map of a query's group (nil: forget it). A
// server without an endpoint keeps none: it cannot be routed to, so it
// reads its own state only, as a lone server does.
func (p *peerSet) place(appID string, h hostTasks) {
	if p == nil || p.self == "" {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if h == nil {
		delete(p.placement, appID)
		return
	}
	p.placement[appID] = carryMoving(p.placement[appID], h)
	now := time.Now()
	for ep := range h {
		k := peer.HostKey(ep)
		if ep == p.self || p.hosts[k] != nil {
			continue
		}
		p.hosts[k] = &peerHost{url: ep, discovered: now}
	}
}

// carryMoving returns the new host map h with the tasks it leaves
// unowned kept at their owner in the old map: a task moving
// cooperatively is revoked in one round and assigned in the next, and in
// between its old owner, which committed it on revocation and keeps its
// stores, still answers pull queries for it.
func carryMoving(old, h hostTasks) hostTasks {
	out := hostTasks{}
	for ep, ts := range h {
		out[ep] = slices.Clone(ts)
	}
	for ep, ts := range old {
		for _, k := range ts {
			if h.owner(k) == "" {
				out[ep] = append(out[ep], k)
			}
		}
		slices.SortFunc(out[ep], compareTasks)
	}
	return out
}

// placementOf returns a query's host map, nil when unknown.
func (p *peerSet) placementOf(appID string) hostTasks {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.placement[appID]
}

// forgetAfter is how many heartbeat windows a server that no host map
// names any more stays listed (dead) after it was last heard from.
const forgetAfter = 30

// prune forgets the servers that left: named by no query's host map and
// not heard from for forgetAfter windows (a server restarted on another
// port, or one that was shut down).
func (p *peerSet) prune(now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	placed := map[string]bool{}
	for _, h := range p.placement {
		for ep := range h {
			placed[peer.HostKey(ep)] = true
		}
	}
	for k, h := range p.hosts {
		last := h.heard
		if last.IsZero() {
			last = h.discovered
		}
		if !placed[k] && now.Sub(last) > forgetAfter*p.window {
			delete(p.hosts, k)
		}
	}
}

// targets returns the URLs of the other servers.
func (p *peerSet) targets() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, h := range p.hosts {
		out = append(out, h.url)
	}
	slices.Sort(out)
	return out
}

// heard records a heartbeat from host (host:port).
func (p *peerSet) heard(host string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	h := p.hostLocked(host)
	h.heard = time.Now()
}

// reported records a host's lag report.
func (p *peerSet) reported(host string, lags api.HostStoreLags, states map[string]string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	h := p.hostLocked(host)
	h.lags, h.states = &lags, states
}

// hostLocked returns the entry of host, adding it (a server that sends us
// heartbeats is a peer even before an assignment names it).
func (p *peerSet) hostLocked(host string) *peerHost {
	h := p.hosts[host]
	if h == nil {
		scheme := "http"
		if u, err := url.Parse(p.self); err == nil && u.Scheme != "" {
			scheme = u.Scheme
		}
		h = &peerHost{url: scheme + "://" + host, discovered: time.Now()}
		p.hosts[host] = h
	}
	return h
}

// alive reports whether the server at endpoint is alive: this server
// always; another one if a heartbeat from it arrived within the window,
// or, before its first heartbeat, if it was discovered within the window.
func (p *peerSet) alive(endpoint string) bool {
	if p == nil || endpoint == p.self {
		return true
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	h := p.hosts[peer.HostKey(endpoint)]
	return h != nil && h.aliveAt(time.Now(), p.window)
}

func (h *peerHost) aliveAt(now time.Time, window time.Duration) bool {
	if h.heard.IsZero() {
		return now.Sub(h.discovered) < window
	}
	return now.Sub(h.heard) < window
}

// peerView is a copy of what is known of one other server.
type peerView struct {
	key    string
	url    string
	alive  bool
	heard  time.Time
	lags   *api.HostStoreLags
	states map[string]string
}

// view returns every other server, by key.
func (p *peerSet) view() []peerView {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	out := make([]peerView, 0, len(p.hosts))
	for k, h := range p.hosts {
		out = append(out, peerView{key: k, url: h.url, alive: h.aliveAt(now, p.window), heard: h.heard, lags: h.lags, states: h.states})
	}
	slices.SortFunc(out, func(a, b peerView) int {
		if a.key < b.key {
			return -1
		}
		if a.key > b.key {
			return 1
		}
		return 0
	})
	return out
}

// placed records the host map of the query's group as its runner's
// balancer received it (nil: the runner stopped).
func (q *query) placed(h hostTasks) { q.eng.peers.place(q.appID, h) }

// peerSource is the engine as the peer agent sees it.
type peerSource struct{ e *Engine }

var _ peer.Peers = peerSource{}

func (s peerSource) Targets() []string                                   { return s.e.peers.targets() }
func (s peerSource) Prune(now time.Time)                                 { s.e.peers.prune(now) }
func (s peerSource) LagReport(host api.HostInfo) api.LagReportingMessage { return s.e.lagReport(host) }

// startPeerAgent starts the heartbeats and lag reports (package peer)
// if this server has an endpoint and the key to sign with.
func (e *Engine) startPeerAgent() {
	if e.peers == nil {
		return
	}
	e.agent = peer.StartAgent(peer.AgentConfig{Self: e.peers.self, Beat: e.cfg.HeartbeatInterval,
		Lag: e.cfg.LagReportInterval, Window: e.peers.window, Auth: e.peers.auth, Logger: e.logger}, peerSource{e})
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
		if lags := q.hostLags(); len(lags) > 0 {
			msg.HostStoreLags.StateStoreLags[q.id] = api.QueryStoreLags{LagByPartition: lags}
		}
	}
	return msg
}

// Heartbeat records a peer's heartbeat (POST /heartbeat, verified by the
// server first).
func (e *Engine) Heartbeat(m api.HeartbeatMessage) {
	if e.peers != nil {
		e.peers.heard(net.JoinHostPort(m.HostInfo.Host, strconv.Itoa(m.HostInfo.Port)))
	}
}

// LagReport records a peer's lag report (POST /lag, verified by the
// server first).
func (e *Engine) LagReport(m api.LagReportingMessage) {
	if e.peers != nil {
		e.peers.reported(net.JoinHostPort(m.HostInfo.Host, strconv.Itoa(m.HostInfo.Port)), m.HostStoreLags, m.QueryStates)
	}
}

// VerifyPeer implements the server's check of inter-node requests: nil
// when header (peer.Header's value) signs method, path and body
// with this service's key.
func (e *Engine) VerifyPeer(method, path, header string, body []byte) error {
	var auth *peer.Auth
	if e.peers != nil {
		auth = e.peers.auth
	}
	return auth.Verify(method, path, header, body)
}
