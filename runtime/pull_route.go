package runtime

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
// (the group's host map, task_hosts.go). A pull query reads the
// partitions this server runs itself and forwards the others, grouped by
// host, to the servers running them, with ksqlDB's request properties:
// skip forwarding (the peer answers from its own state only) and the
// partitions to read. A key lookup reads only the partitions of its keys
// (murmur2 of the store key, which is the record key). The rows of every
// host are merged into the one answer; LIMIT counts them all.
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
// (standby_hosts.go: the groups' standby host maps, with lags from this
// server's replicas and the peers' lag reports).
type standbySource interface {
	standbys(appID string, k physical.TaskID) []taskHost
}

// groupLocator locates actives from the group's host maps and standbys
// from a standbySource.
type groupLocator struct {
	peers    *peerSet
	standbys standbySource
}

func (l groupLocator) locate(appID string, k physical.TaskID) ([]taskHost, bool) {
	h := l.peers.placementOf(appID)
	if h == nil {
		return nil, false
	}
	var out []taskHost
	if ep := h.owner(k); ep != "" {
		out = append(out, taskHost{endpoint: ep})
	}
	if l.standbys != nil {
		out = append(out, l.standbys.standbys(appID, k)...)
	}
	return out, true
}

func (e *Engine) locator() taskLocator {
	return groupLocator{peers: e.peers, standbys: engineStandbys{e}}
}

// pullRoute is where a pull query reads each partition it needs.
type pullRoute struct {
	local  []int32
	remote map[string][]int32 // endpoint → partitions
	// alts are the other usable hosts of each remote partition, in the
	// order tried should its host not answer (pull_failover.go).
	alts map[int32][]string
}

// routePull decides where each of parts is read. A forwarded query
// (t.only set) reads here whatever it was sent for, provided this server
// still holds it.
func (e *Engine) routePull(t *transient, q *query, m *physical.Materialization, parts []int32) (pullRoute, error) {
	r := pullRoute{remote: map[string][]int32{}, alts: map[int32][]string{}}
	loc := e.locator()
	read := props.NewParser(e.table, t.props)
	standby, maxLag := read.Bool(props.StandbyReads), read.Int(props.MaxOffsetLag)
	for _, p := range parts {
		if t.only != nil && !slices.Contains(t.only, p) {
			continue
		}
		hosts, known := loc.locate(q.appID, physical.TaskID{SubTopology: m.Sub, Partition: p})
		if !known {
			r.local = append(r.local, p)
			continue
		}
		usable, err := e.usableHosts(hosts, standby, maxLag, t.only != nil)
		if err != nil {
			return r, fmt.Errorf("Unable to execute pull query: partition %d of %s: %w", p, q.id, err)
		}
		if ep := usable[0]; ep == e.peers.self {
			r.local = append(r.local, p)
		} else {
			r.remote[ep] = append(r.remote[ep], p)
			r.alts[p] = usable[1:]
		}
	}
	return r, nil
}

// pickHost returns the first usable host (usableHosts).
func (e *Engine) pickHost(hosts []taskHost, standby bool, maxLag int64, forwarded bool) (string, error) {
	usable, err := e.usableHosts(hosts, standby, maxLag, forwarded)
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
func (e *Engine) usableHosts(hosts []taskHost, standby bool, maxLag int64, forwarded bool) ([]string, error) {
	var dead, behind, usable []string
	for _, h := range hosts {
		switch {
		case h.standby && !standby:
		case h.standby && (h.lag > maxLag || h.lag < 0 && maxLag < math.MaxInt):
			behind = append(behind, fmt.Sprintf("standby %s lags %s", h.endpoint, lagText(h.lag)))
		case forwarded && h.endpoint != e.peers.self:
		case !e.peers.alive(h.endpoint):
			dead = append(dead, h.endpoint)
		case !slices.Contains(usable, h.endpoint):
			usable = append(usable, h.endpoint)
		}
	}
	if len(usable) > 0 {
		return usable, nil
	}
	return nil, e.noHost(hosts, dead, behind, standby, maxLag, forwarded)
}

// noHost says why none of a partition's hosts is usable.
func (e *Engine) noHost(hosts []taskHost, dead, behind []string, standby bool, maxLag int64, forwarded bool) error {
	switch {
	case forwarded:
		return fmt.Errorf("the partition is not held by this server (%s) any more", e.peers.self)
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
