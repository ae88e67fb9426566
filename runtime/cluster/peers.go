package cluster

import (
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/runtime/assign"
	"github.com/sqlstream/sqlstream/runtime/peer"
)

// Peers is this server's view of the other servers of its service id
// (KLIP-12): who they are (discovered, as in ksqlDB, from the host maps of
// the persistent queries' groups), whether they are alive (heartbeats
// received within the window), and what they last reported (store lags
// and query states, through /lag). It also holds the host maps
// themselves, per query, as the last assignment delivered them.
//
// Hosts are keyed by "host:port" (ksqlDB's /clusterStatus key) and
// called at their advertised URL. A nil *Peers (the in-memory cluster)
// knows of no other server and no host map: every method answers so.
type Peers struct {
	self    string     // advertised URL of this server, "" when it has none
	auth    *peer.Auth // signs and verifies inter-node requests
	window  time.Duration
	started time.Time

	mu        sync.Mutex
	placement map[string]assign.Hosts // application id → host map
	standbys  map[string]assign.Hosts // application id → standby host map
	hosts     map[string]*peerHost    // host:port → what we know of it
}

// peerHost is one other server.
type peerHost struct {
	url        string
	discovered time.Time
	heard      time.Time // last heartbeat received (zero: none yet)
	lags       *api.HostStoreLags
	states     map[string]string // query id → state, from its last lag report
}

// NewPeers returns the view of a server advertising self ("" for none),
// signing with key, for which a peer is alive while its heartbeats
// arrive within window (ksql.heartbeat.window.ms).
func NewPeers(self string, key []byte, window time.Duration) *Peers {
	return &Peers{self: self, auth: peer.NewAuth(key), window: window, started: time.Now(),
		placement: map[string]assign.Hosts{}, standbys: map[string]assign.Hosts{}, hosts: map[string]*peerHost{}}
}

// Auth signs and verifies inter-node requests (nil without a view: every
// request is refused).
func (p *Peers) Auth() *peer.Auth {
	if p == nil {
		return nil
	}
	return p.auth
}

// Window is the heartbeat window.
func (p *Peers) Window() time.Duration { return p.window }

// Advertised returns this server's advertised URL ("" without one); the
// balancer sends it in the group subscription.
func (p *Peers) Advertised() string {
	if p == nil {
		return ""
	}
	return p.self
}

// SelfKey is this server's "host:port", or "local" without an endpoint.
func (p *Peers) SelfKey() string {
	if p == nil || p.self == "" {
		return "local"
	}
	return peer.HostKey(p.self)
}

// Place records the host map of a query's group (nil: forget it). A
// server without an endpoint keeps none: it cannot be routed to, so it
// reads its own state only, as a lone server does.
func (p *Peers) Place(appID string, h assign.Hosts) {
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
func carryMoving(old, h assign.Hosts) assign.Hosts {
	out := assign.Hosts{}
	for ep, ts := range h {
		out[ep] = slices.Clone(ts)
	}
	for ep, ts := range old {
		for _, k := range ts {
			if h.Owner(k) == "" {
				out[ep] = append(out[ep], k)
			}
		}
		slices.SortFunc(out[ep], assign.CompareTasks)
	}
	return out
}

// PlacementOf returns a query's host map, nil when unknown.
func (p *Peers) PlacementOf(appID string) assign.Hosts {
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

// Prune forgets the servers that left: named by no query's host map and
// not heard from for forgetAfter windows (a server restarted on another
// port, or one that was shut down).
func (p *Peers) Prune(now time.Time) {
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

// Targets returns the URLs of the other servers.
func (p *Peers) Targets() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, h := range p.hosts {
		out = append(out, h.url)
	}
	slices.Sort(out)
	return out
}

// Heard records a heartbeat from host (host:port).
func (p *Peers) Heard(host string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	h := p.hostLocked(host)
	h.heard = time.Now()
}

// Reported records a host's lag report: its store lags and the state of
// each of its queries.
func (p *Peers) Reported(host string, lags api.HostStoreLags, states map[string]string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	h := p.hostLocked(host)
	h.lags, h.states = &lags, states
}

// hostLocked returns the entry of host, adding it (a server that sends us
// heartbeats is a peer even before an assignment names it).
func (p *Peers) hostLocked(host string) *peerHost {
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

// Alive reports whether the server at endpoint is alive: this server
// always; another one if a heartbeat from it arrived within the window,
// or, before its first heartbeat, if it was discovered within the window.
func (p *Peers) Alive(endpoint string) bool {
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

// PeerView is a copy of what is known of one other server.
type PeerView struct {
	Key    string // host:port
	URL    string
	Alive  bool
	Heard  time.Time // its last heartbeat (zero: none yet)
	Lags   *api.HostStoreLags
	States map[string]string // query id → state, from its last lag report
}

// View returns every other server, by key.
func (p *Peers) View() []PeerView {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	out := make([]PeerView, 0, len(p.hosts))
	for k, h := range p.hosts {
		out = append(out, PeerView{Key: k, URL: h.url, Alive: h.aliveAt(now, p.window), Heard: h.heard, Lags: h.lags, States: h.states})
	}
	slices.SortFunc(out, func(a, b PeerView) int { return strings.Compare(a.Key, b.Key) })
	return out
}
