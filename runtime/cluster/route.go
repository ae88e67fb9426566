package cluster

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/runtime/props"
)

// Pull queries from anywhere. A table's store is split into partitions,
// each held by the task (store sub-topology, partition) of the query
// writing the table, and that task runs on one server of the service id
// (the group's host map, package runtime/assign). A pull query reads the
// partitions this server runs itself and forwards the others, grouped by
// host, to the servers running them, with ksqlDB's request properties:
// skip forwarding (the peer answers from its own state only) and the
// partitions to read. Which partitions a query needs is the engine's
// (a key lookup reads only the partitions of its keys); the rows of
// every host are merged into the one answer; LIMIT counts them all.
//
// Candidates for a partition are its active host, then (with
// ksql.query.pull.enable.standby.reads) its standbys within
// ksql.query.pull.max.allowed.offset.lag; hosts that are not alive
// (heartbeats) are skipped. None left is an error naming the partition.

// taskHost is one server holding a task's state.
type taskHost struct {
	endpoint string
	standby  bool
	lag      int64 // changelog records behind (0 for the active)
}

// taskLocator says which servers hold a query's task: the active first,
// then standbys. known is false when nothing is known (one server, or the
// in-memory cluster): the state is then read locally.
type taskLocator interface {
	locate(appID string, k physical.TaskID) (hosts []taskHost, known bool)
}

// standbySource lists a task's standby replicas and their lags
// (standbys.go: the groups' standby host maps, with lags from this
// server's replicas and the peers' lag reports).
type standbySource interface {
	standbys(appID string, k physical.TaskID) []taskHost
}

// groupLocator locates actives from the group's host maps and standbys
// from a standbySource.
type groupLocator struct {
	peers    *Peers
	standbys standbySource
}

func (l groupLocator) locate(appID string, k physical.TaskID) ([]taskHost, bool) {
	h := l.peers.PlacementOf(appID)
	if h == nil {
		return nil, false
	}
	var out []taskHost
	if ep := h.Owner(k); ep != "" {
		out = append(out, taskHost{endpoint: ep})
	}
	if l.standbys != nil {
		out = append(out, l.standbys.standbys(appID, k)...)
	}
	return out, true
}

// Pull is what the route of one pull query depends on.
type Pull struct {
	Sub   int     // the store's sub-topology
	Parts []int32 // the store partitions the query needs
	// Only is what a forwarded query was sent for (nil: not forwarded);
	// it reads here whatever of Parts it lists, provided this server
	// still holds it.
	Only         []int32
	StandbyReads bool  // ksql.query.pull.enable.standby.reads
	MaxLag       int64 // ksql.query.pull.max.allowed.offset.lag
}

// Route is where a pull query reads each partition it needs.
type Route struct {
	Local  []int32
	Remote map[string][]int32 // endpoint → partitions
	// alts are the other usable hosts of each remote partition, in the
	// order tried should its host not answer (failover.go).
	alts map[int32][]string
}

// Route decides where each partition the pull query on q needs is read:
// the partitions no host map knows (one server, the in-memory cluster)
// and those this server is the first usable host of here, the others at
// their first usable host.
func (p *Peers) Route(q Query, pull Pull) (Route, error) {
	r := Route{Remote: map[string][]int32{}, alts: map[int32][]string{}}
	loc := groupLocator{peers: p, standbys: replicaSource{p: p, q: q}}
	for _, part := range pull.Parts {
		if pull.Only != nil && !slices.Contains(pull.Only, part) {
			continue
		}
		hosts, known := loc.locate(q.AppID(), physical.TaskID{SubTopology: pull.Sub, Partition: part})
		if !known {
			r.Local = append(r.Local, part)
			continue
		}
		usable, err := p.usableHosts(hosts, pull.StandbyReads, pull.MaxLag, pull.Only != nil)
		if err != nil {
			return r, fmt.Errorf("Unable to execute pull query: partition %d of %s: %w", part, q.ID(), err)
		}
		if ep := usable[0]; ep == p.self {
			r.Local = append(r.Local, part)
		} else {
			r.Remote[ep] = append(r.Remote[ep], part)
			r.alts[part] = usable[1:]
		}
	}
	return r, nil
}

// pickHost returns the first usable host (usableHosts).
func (p *Peers) pickHost(hosts []taskHost, standby bool, maxLag int64, forwarded bool) (string, error) {
	usable, err := p.usableHosts(hosts, standby, maxLag, forwarded)
	if err != nil {
		return "", err
	}
	return usable[0], nil
}

// usableHosts returns the usable hosts in the order to try them: the
// active, then the standbys when standby reads are on and their lag is
// within maxLag (a standby of unknown lag only without a limit); dead
// hosts are skipped. A forwarded query must find this server among them.
// None usable is an error saying why.
func (p *Peers) usableHosts(hosts []taskHost, standby bool, maxLag int64, forwarded bool) ([]string, error) {
	var dead, behind, usable []string
	for _, h := range hosts {
		switch {
		case h.standby && !standby:
		case h.standby && (h.lag > maxLag || h.lag < 0 && maxLag < math.MaxInt):
			behind = append(behind, fmt.Sprintf("standby %s lags %s", h.endpoint, lagText(h.lag)))
		case forwarded && h.endpoint != p.self:
		case !p.Alive(h.endpoint):
			dead = append(dead, h.endpoint)
		case !slices.Contains(usable, h.endpoint):
			usable = append(usable, h.endpoint)
		}
	}
	if len(usable) > 0 {
		return usable, nil
	}
	return nil, p.noHost(hosts, dead, behind, standby, maxLag, forwarded)
}

// noHost says why none of a partition's hosts is usable.
func (p *Peers) noHost(hosts []taskHost, dead, behind []string, standby bool, maxLag int64, forwarded bool) error {
	switch {
	case forwarded:
		return fmt.Errorf("the partition is not held by this server (%s) any more", p.self)
	case len(hosts) == 0:
		return fmt.Errorf("no server runs it at the moment (its task is being reassigned); retry")
	case len(dead) > 0 && !standby:
		return fmt.Errorf("its host %s is not alive, and standby reads are off (%s)", strings.Join(dead, ", "), props.StandbyReads)
	case len(behind) > 0:
		return fmt.Errorf("its hosts %s are not alive and no standby is within %s=%d (%s)", strings.Join(dead, ", "), props.MaxOffsetLag, maxLag, strings.Join(behind, ", "))
	}
	return fmt.Errorf("its hosts %s are not alive and it has no live standby", strings.Join(dead, ", "))
}

// lagText renders a replica's lag, -1 as unknown.
func lagText(lag int64) string {
	if lag < 0 {
		return "an unknown number of records"
	}
	return fmt.Sprintf("%d records", lag)
}
